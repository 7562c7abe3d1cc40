/*
 * bench_memhp_aml.c - `make bench`: the AML interpreter's cost of one DIMM
 * add on the host, the part of memhp_bench.py's A that is interpretation.
 *
 * QEMU's q35 DSDT with eight DIMM slots (the dimms fixture, read from a
 * booted guest) runs in the real interpreter, and drivers/acpi/memhp_aml.c
 * makes the calls memhp.c makes per add, against QEMU's hotplug registers
 * as tests/host/memhp_qemu.c models them, slot 2 inserted:
 *
 *   \_GPE._E03 (MSCN over the slots: Notify (MP02, 1)), then _STA, _CRS and
 *   _PXM of MP02 (the device check), _OST (1, 0, "") once the add is done,
 *   and \_GPE._E03 again (memhp.c runs it until a pass notifies nothing;
 *   the pass after one that started an add waits for the add).
 *
 * bench_one_add() is that sequence and nothing else, so running this under
 * callgrind with only it collected gives its instructions, the same on
 * every run and machine load (make bench-aml-insns, or memhp_bench.py,
 * does that and divides by the adds and the opcodes).  Without valgrind
 * it prints what it can measure itself: the opcodes, method calls and
 * region accesses per add and the TSC cycles (median of the rounds; a
 * machine's figure, not a deterministic one).  The kernel's sources are
 * built -O2 with general registers only (BENCH_CFLAGS), as in the kernel.
 *
 * Usage: build/bench-memhp_aml [ADDS]   (default 2000; 1 round per 100)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/median.h>
#include <lib/printk.h>
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <kernel/time.h>
#include "../../drivers/acpi/memhp_aml.h"
#include "../host/memhp_qemu.h"

#define SLOT	2
#define GPE	3

static struct aml_ns *the_ns;
static void (*notify_fn)(struct aml_node *node, u64 value);

/* The kernel glue memhp_aml.c calls (drivers/acpi/aml_kernel.c's). */
struct aml_ns *acpi_aml(void) { return the_ns; }
void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value)) { notify_fn = fn; }
u64 ktime_ns(void) { return 0; }

static void aml_notify(void *ctx, struct aml_node *node, u64 value)
{
	(void)ctx;
	if (notify_fn)
		notify_fn(node, value);
}

static u64 clock_ns;
static u64 time_ns(void *ctx) { (void)ctx; return clock_ns += 1000; }
static void no_wait(void *ctx, u32 n) { (void)ctx, (void)n; }
static void log_line(void *ctx, const char *line) { (void)ctx; fprintf(stderr, "%s\n", line); }
static bool glock(void *ctx, bool acquire) { (void)ctx; return acquire; }

static unsigned checks, other_events;

/* memhp.c's device check, as far as the AML goes: _STA, then _CRS and _PXM. */
static void on_event(unsigned slot, u64 value)
{
	u64 base, size;
	u32 pxm;

	if (slot != SLOT || value != 1) {
		other_events++;
		return;
	}
	if (memhp_aml_present(slot) && !memhp_aml_range(slot, &base, &size, &pxm) &&
	    base == q.d[SLOT].base && size == q.d[SLOT].size)
		checks++;
}

/* One add's AML, as memhp.c makes it (see the header).  Not inlined: the
 * instruction count is taken of this function alone. */
__attribute__((noinline)) void bench_one_add(void)
{
	unsigned pass;

	memhp_qemu_plug(SLOT, 4ull << 30, 128ull << 20);
	if (!memhp_aml_scan(GPE, on_event))
		return;
	memhp_aml_ost(SLOT, 1, 0, "");
	for (pass = 1; pass < 8 && memhp_aml_scan(GPE, on_event); pass++)
		;
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (u64)hi << 32 | lo;
}

static void *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	void *buf = malloc(1 << 20);

	if (!f || !buf) {
		perror(path);
		exit(1);
	}
	*len = fread(buf, 1, 1 << 20, f);
	fclose(f);
	return buf;
}

int main(int argc, char **argv)
{
	enum { ROUND = 100 };
	unsigned adds = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 0) : 2000;
	struct aml_platform plat = {
		.stall_us = no_wait, .sleep_ms = no_wait, .time_ns = time_ns, .log = log_line,
		.notify = aml_notify, .global_lock = glock,
	};
	size_t len, arena_size = 4 << 20;
	void *table = read_file(MEMHP_QEMU_DSDT, &len), *arena = malloc(arena_size);
	u64 cycles[256];
	unsigned rounds = 0;

	printk_set_level(LOG_ERR);
	memhp_qemu_platform(&plat);
	the_ns = arena ? aml_create(arena, arena_size, &plat, NULL) : NULL;
	if (!the_ns || aml_load_table(the_ns, table, len) || !memhp_aml_init()) {
		fprintf(stderr, "bench_memhp_aml: QEMU's DSDT did not load\n");
		return 1;
	}
	struct aml_stats s0 = *aml_get_stats(the_ns);
	unsigned nio0 = q.nio;
	for (unsigned i = 0; i < adds; i += ROUND) {
		unsigned n = MIN(ROUND, adds - i);
		u64 t0 = rdtsc();
		for (unsigned k = 0; k < n; k++)
			bench_one_add();
		if (rounds < ARRAY_SIZE(cycles))
			cycles[rounds++] = (rdtsc() - t0) / n;
	}
	const struct aml_stats *s1 = aml_get_stats(the_ns);
	u64 ops = s1->ops - s0.ops, calls = s1->calls - s0.calls, io = s1->io_accesses - s0.io_accesses;
	if (!adds || checks != adds || other_events || io != q.nio - nio0 || q.nost != MIN(adds, 64u)) {
		fprintf(stderr, "bench_memhp_aml: %u adds, %u device checks, %u other events, %llu accesses (model %u), %u _OST: not what memhp does\n",
			adds, checks, other_events, (unsigned long long)io, q.nio - nio0, q.nost);
		return 1;
	}
	struct bench_stats st = bench_stats_of(cycles, rounds);
	printf("AML of one DIMM add on the host (QEMU's DSDT, %u slots; %u adds): %llu opcodes, "
	       "%llu method calls, %llu region accesses; %llu TSC cycles +-%.1f%% (%.0f per opcode)\n",
	       MEMHP_QEMU_SLOTS, adds, (unsigned long long)(ops / adds),
	       (unsigned long long)(calls / adds), (unsigned long long)(io / adds),
	       (unsigned long long)st.median, bench_spread_permille(&st) / 10.0,
	       (double)st.median / ((double)ops / adds));
	aml_destroy(the_ns);
	free(arena);
	free(table);
	return 0;
}
