/*
 * test_memhp_aml.c - memory hotplug through the AML, on a fake machine:
 * the real drivers/acpi/memhp.c and memhp_aml.c, the real interpreter
 * running QEMU's own DSDT (tests/host/fixtures/acpi/dimms/dsdt.dat: eight
 * DIMM slots, \_SB.MHPC, \_GPE._E03) and the real mm (hotplug_fixture.c).
 *
 * The kernel knows nothing of QEMU's memory hotplug registers; this test
 * does: it plays QEMU's device (tests/host/memhp_qemu.c) behind the I/O
 * ports the DSDT's MHPC methods read and write (the 24-byte block at
 * 0xa00: MSEL selects a slot; base, size and proximity read back; the
 * status byte's enabled, insert and remove bits; MOEV/MOSC for _OST, MEJ
 * for _EJ0), so a DIMM insert is the GPE method noticing the insert bit
 * and notifying the device, as under QEMU.  Every _OST the methods write
 * is recorded and checked.
 *
 * Context: host test (suite memhp_aml).
 */
#include "htest.h"
#include "hotplug_fixture.h"
#include "platform_stub.h"
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <kernel/longop.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/memory_hotplug.h>
#include "../../drivers/acpi/memhp_aml.h"
#include "memhp_qemu.h"

#include <stdio.h>
#include <stdlib.h>

#define DSDT		MEMHP_QEMU_DSDT
#define NSLOTS		MEMHP_QEMU_SLOTS

static u64 fake_ns;
static u64 time_ns(void *ctx) { (void)ctx; return fake_ns += 1000; }
static void no_wait(void *ctx, u32 n) { (void)ctx, (void)n; }
static void aml_log(void *ctx, const char *line) { (void)ctx; pr_info("aml: %s", line); }
static bool glock(void *ctx, bool acquire) { (void)ctx; return acquire; }

/* ---- the kernel glue memhp.c expects (drivers/acpi/aml_kernel.c's) ------- */

static struct aml_ns *the_ns;
static void *arena, *table;
static void (*notify_fn)(struct aml_node *node, u64 value);
static struct work *gpe3_work;

static void aml_notify(void *ctx, struct aml_node *node, u64 value)
{
	(void)ctx;
	if (notify_fn)
		notify_fn(node, value);
}

struct aml_ns *acpi_aml(void) { return the_ns; }
void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value)) { notify_fn = fn; }
int acpi_gpe_register(unsigned gpe, struct work *w)
{
	if (gpe != 3)
		return -1;
	gpe3_work = w;
	return 0;
}
bool acpi_sci_wired(void) { return true; }
int acpi_pxm_to_node(u32 pxm) { return pxm == 0 ? 0 : -1; }
void schedule_work(struct work *w) { w->pending = true; }
void register_poller(struct poller *p) { (void)p; }
u64 ktime_ns(void) { return 0; }

/* Load QEMU's DSDT into a fresh namespace on the emulated device. */
static bool load_dsdt(void)
{
	static struct aml_platform plat = {
		.stall_us = no_wait, .sleep_ms = no_wait, .time_ns = time_ns, .log = aml_log,
		.notify = aml_notify, .global_lock = glock,
	};
	FILE *f = fopen(DSDT, "rb");
	size_t len;

	memhp_qemu_platform(&plat);
	if (!f)
		return false;
	table = malloc(1 << 20);
	len = fread(table, 1, 1 << 20, f);
	fclose(f);
	arena = malloc(4 << 20);
	the_ns = aml_create(arena, 4 << 20, &plat, NULL);
	return the_ns && !aml_load_table(the_ns, table, len);
}

static void unload(void)
{
	if (the_ns)
		CHECK_EQ(aml_destroy(the_ns), 0);
	the_ns = NULL;
	free(arena);
	free(table);
	arena = table = NULL;
}

/* A machine of 512 MiB booted with the DSDT, hot-added memory onlined;
 * QEMU's device has no DIMM yet. */
static void machine(void)
{
	memset(&q, 0, sizeof(q));
	boot(8 * GiB, 512 * MiB);
	memhp_set_default_online_type(MMOP_ONLINE);	/* QEMU's guests: auto_online_blocks */
	CHECK(load_dsdt());
	gpe3_work = NULL;
}

static void plug(unsigned slot, u64 base, u64 size)
{
	memhp_qemu_plug(slot, base, size);
}

/* The SCI raised GPE 3: the work runs \_GPE._E03, then, as the main loop
 * does, the long operations and the work again while it is scheduled (a
 * pass the work put off until an add was done). */
static void gpe3(void)
{
	CHECK(gpe3_work != NULL);
	if (!gpe3_work)
		return;
	gpe3_work->pending = true;
	while (gpe3_work->pending) {
		gpe3_work->pending = false;
		gpe3_work->fn(gpe3_work);
		while (longop_run_slice())
			;
	}
}

/* The index of the first _OST (slot, ev, st) the device saw, or -1. */
static int ost_index(u32 slot, u32 ev, u32 st)
{
	for (unsigned i = 0; i < q.nost; i++)
		if (q.ost[i].slot == slot && q.ost[i].ev == ev && q.ost[i].st == st)
			return (int)i;
	return -1;
}

static bool ost_seen(u32 slot, u32 ev, u32 st)
{
	for (unsigned i = 0; i < q.nost; i++)
		if (q.ost[i].slot == slot && q.ost[i].ev == ev && q.ost[i].st == st)
			return true;
	return false;
}

static const char *hotplug_text(void)
{
	static char buf[4096];
	struct buf_printer b;

	buf_printer_init(&b, buf, sizeof(buf));
	acpi_memhp_dump(&b.p);
	return buf;
}

static bool block_online(u64 pa)
{
	struct memory_block *m = find_memory_block_by_id(pa / MEMORY_BLOCK_SIZE);

	return m && m->state == MEM_ONLINE;
}

/*
 * Insert then eject: QEMU sets the slot's insert bit and raises GPE 3; the
 * GPE method (MSCN) clears it and Notify(MP02, 1); memhp adds and onlines
 * both blocks and reports _OST(1, 0) through MOST.  Then the remove bit:
 * Notify(MP02, 3), _OST(3, 0x84), the blocks go, _EJ0 writes MEJ and
 * _OST(0x103, 0).
 */
HTEST(memhp_aml_insert_and_eject_through_qemus_dsdt)
{
	int logs = host_log_count;

	machine();
	acpi_memhp_init();
	CHECK(host_log_seen("acpi-memhp: 8 DIMM slots: PNP0C80 devices of the AML", logs));
	CHECK(strstr(hotplug_text(), "8 slots (PNP0C80 devices of the AML)") != NULL);
	struct memhp_aml_cost c0, c1;
	unsigned nio0 = q.nio;
	memhp_aml_spent(&c0);
	plug(2, 4 * GiB, 256 * MiB);
	gpe3();
	CHECK(!q.d[2].ins);			/* MSCN cleared it */
	CHECK(ost_seen(2, 1, 0));
	/* what the add's AML cost, as memhp_bench.py reads it: one MSCN
	 * pass of 3 accesses a slot, MRST 2, MCRS 5, MPXM 2, MOST 3 up to the
	 * add's _OST; the second pass (it finds nothing) only after it; each
	 * one the emulation saw */
	memhp_aml_spent(&c1);
	CHECK_EQ(c1.io - c0.io, q.nio - nio0);
	CHECK_EQ(c1.io - c0.io, 2 * 3 * NSLOTS + 2 + 5 + 2 + 3);
	int add_ost = ost_index(2, 1, 0);
	CHECK(add_ost >= 0);
	if (add_ost >= 0)
		CHECK_EQ(q.ost[add_ost].nio - nio0, 3 * NSLOTS + 2 + 5 + 2 + 3);
	CHECK(c1.ops - c0.ops > c1.io - c0.io);
	CHECK(block_online(4 * GiB) && block_online(4 * GiB + MEMORY_BLOCK_SIZE));
	CHECK(strstr(hotplug_text(), "added") != NULL);
	q.d[2].rmv = true;
	gpe3();
	CHECK(ost_seen(2, 3, 0x84));
	CHECK(ost_seen(2, 0x103, 0));
	CHECK_EQ(q.d[2].ejects, 1);
	CHECK(!q.d[2].present);
	CHECK(find_memory_block_by_id(4 * GiB / MEMORY_BLOCK_SIZE) == NULL);
	unload();
}

/*
 * device_del before the guest saw the device_add: QEMU has set the insert
 * and the remove bit of the slot and raised GPE 3 twice before the scan
 * ran, which the guest sees as one GPE.  QEMU's MSCN notifies one event
 * per slot and pass (the insert first), so the scan must run the method
 * again: that pass waits for the add to be done, then the eject request
 * comes, and the DIMM ends ejected with nothing left.
 */
HTEST(memhp_aml_insert_and_remove_in_one_gpe_both_handled)
{
	machine();
	acpi_memhp_init();
	plug(1, 4 * GiB, 256 * MiB);
	q.d[1].rmv = true;
	gpe3();
	CHECK(!q.d[1].ins && !q.d[1].rmv);
	CHECK(ost_seen(1, 1, 0));
	CHECK(ost_seen(1, 3, 0x84));
	CHECK(ost_index(1, 1, 0) < ost_index(1, 3, 0x84));	/* added, then the eject */
	CHECK(ost_seen(1, 0x103, 0));
	CHECK_EQ(q.d[1].ejects, 1);
	CHECK(!q.d[1].present);
	CHECK(find_memory_block_by_id(4 * GiB / MEMORY_BLOCK_SIZE) == NULL);
	unload();
}

/*
 * Two DIMMs back to back: both inserted before the GPE's work ran (one
 * pass sees both; the second add waits for the first), then a third
 * inserted while the first add runs (a GPE of its own, whose pass comes
 * while the deferred one is due): all three are added and online, each
 * with its _OST, and nothing is left to scan.
 */
HTEST(memhp_aml_dimms_back_to_back_all_added)
{
	machine();
	acpi_memhp_init();
	plug(1, 4 * GiB, 256 * MiB);
	plug(3, 5 * GiB, 128 * MiB);
	gpe3_work->fn(gpe3_work);	/* one pass: two device checks, slot 1's add runs */
	CHECK(!q.d[1].ins && !q.d[3].ins);
	CHECK(!ost_seen(1, 1, 0));
	plug(5, 6 * GiB, 128 * MiB);
	gpe3();				/* its GPE; then every add runs */
	for (unsigned s = 1; s <= 5; s += 2) {
		CHECK(ost_seen(s, 1, 0));
		CHECK(!q.d[s].ins);
	}
	CHECK(ost_index(1, 1, 0) < ost_index(3, 1, 0));
	CHECK(block_online(4 * GiB) && block_online(4 * GiB + MEMORY_BLOCK_SIZE));
	CHECK(block_online(5 * GiB) && block_online(6 * GiB));
	unsigned nio = q.nio;
	gpe3();				/* a spurious GPE: one pass, nothing notified */
	CHECK_EQ(q.nio - nio, 3 * NSLOTS);
	unload();
}

/* A DIMM present at boot (cold-plugged, no event) is added by the init. */
HTEST(memhp_aml_cold_plugged_dimm_is_added_at_init)
{
	machine();
	q.d[0] = (struct qdimm){ .present = true, .base = 4 * GiB, .size = 128 * MiB };
	acpi_memhp_init();
	CHECK(ost_seen(0, 1, 0));
	CHECK(block_online(4 * GiB));
	unload();
}

/*
 * Odd DIMMs: 200 MiB at 4 GiB (one whole block, the 72 MiB tail left out)
 * and 100 MiB placed off a boundary (no whole block: insertion not
 * supported, 0x82); each _OST carries the used part and what was left out,
 * or the reason, as its status information.
 */
HTEST(memhp_aml_odd_sized_and_odd_placed_dimms)
{
	const char *t;

	machine();
	acpi_memhp_init();
	plug(0, 4 * GiB, 200 * MiB);
	plug(1, 4 * GiB + 200 * MiB, 100 * MiB);
	gpe3();
	CHECK(ost_seen(0, 1, 0));
	CHECK(block_online(4 * GiB));
	CHECK(ost_seen(1, 1, 0x82));
	t = hotplug_text();
	CHECK(strstr(t, "left out: [0x108000000-0x10c7fffff] (72 MiB)") != NULL);
	CHECK(strstr(t, "no whole 128 MiB memory block") != NULL);
	/* and the _OST's status information (Arg2) said the same */
	CHECK(strstr(t, "_OST information: used [0x100000000-0x107ffffff] (1 blocks); left out: "
		     "[0x108000000-0x10c7fffff] (72 MiB): not whole 128 MiB blocks\n") != NULL);
	CHECK(strstr(t, "_OST information: no whole 128 MiB memory block in [0x10c800000-0x112bfffff]")
	      != NULL);
	unload();
}

/*
 * Hostile replies: a _CRS whose range wraps past 2^64 (the registers read
 * all ones), a DIMM on a proximity domain with no node, and a device whose
 * registers fail (_STA errors): each DIMM is refused with _OST failure or
 * not at all, nothing is added, and the next good DIMM still works.
 */
HTEST(memhp_aml_hostile_replies_leave_state_consistent)
{
	int logs;

	machine();
	acpi_memhp_init();
	q.garbage_crs = true;
	plug(0, 4 * GiB, 128 * MiB);
	gpe3();
	CHECK(ost_seen(0, 1, 0x82));
	CHECK(find_memory_block_by_id(4 * GiB / MEMORY_BLOCK_SIZE) == NULL);
	q.garbage_crs = false;
	plug(1, 5 * GiB, 128 * MiB);
	q.d[1].pxm = 7;
	gpe3();
	CHECK(ost_seen(1, 1, 1));
	CHECK(strstr(hotplug_text(), "proximity domain 7: no node left") != NULL);
	logs = host_log_count;
	q.io_fails = true;
	plug(3, 6 * GiB, 128 * MiB);
	gpe3();
	CHECK(host_log_seen("acpi-memhp: \\_GPE._E03 failed", logs));
	CHECK(find_memory_block_by_id(6 * GiB / MEMORY_BLOCK_SIZE) == NULL);
	q.io_fails = false;
	gpe3();				/* the event is still pending: handled now */
	CHECK(ost_seen(3, 1, 0));
	CHECK(block_online(6 * GiB));
	unload();
}

/* No namespace (or no PNP0C80 in it): memory hotplug is off, said once. */
HTEST(memhp_aml_off_without_memory_devices)
{
	int logs = host_log_count;

	the_ns = NULL;
	acpi_memhp_init();
	CHECK(host_log_seen("memory hotplug is off", logs));
	CHECK(strstr(hotplug_text(), "no ACPI memory hotplug device") != NULL);
}
