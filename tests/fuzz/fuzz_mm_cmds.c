/*
 * fuzz_mm_cmds.c - libFuzzer target: the memory-management shell commands
 * run through shell_execute() on the host's simulated machine.
 *
 * The commands are the kernel's own files, linked (Makefile:
 * FUZZ_SRCS_fuzz_mm_cmds), except cmd_contig.c and cmd_handles.c, still
 * compiled into this one because mm_cmds_machine.h resets and reads their
 * static tables:
 * shell/cmd_contig.c (contig alloc/free/list/compare/bench, cma),
 * cmd_devmem.c (devmem create/rebind/destroy/compare/bench/list),
 * cmd_hotplug.c (memory online/offline, lsmem), cmd_handles.c (alloc,
 * free, fill, check, move, handles, drain), cmd_mm.c (page, sections,
 * memmap map, memblock, numa, meminit), cmd_mech.c (mech, trace,
 * contiguity), cmd_bench.c (bench contig/automovable) and
 * views/sysfs_memory.c (memory_block_state_store() behind `memory`, and
 * the /sys files), and drivers/virtio/virtio_pci.c + virtio_mem*.c (the
 * `virtio-mem` command and the driver behind it, against the fake device
 * of tests/host/virtio_mem_fake.c, which answers as QEMU does).  Their VFS_FILE()s are real here, so `echo N >
 * /sys/kernel/debug/cma/cma0/alloc`, `echo online >
 * /sys/devices/system/memory/memory33/state` and the knobs are fuzzed too
 * (cmd_fs.c's echo and cat, and shell.c's redirection, are in HOST_SRCS).
 *
 * Every input gets a fresh machine (tests/host/mm_cmds_machine.h: two
 * nodes of 128 MiB, cma=16M, a 1 GiB hot-add window on node 1: four DIMM
 * blocks 32-35, then a virtio-mem region of four blocks 36-39, probed,
 * nothing requested) and fresh command tables.  The input is a program read from the
 * front, one byte per operation (0 once it runs out), at most MAX_OPS:
 *   - most bytes pick a line template from `lines` below, whose
 *     placeholders are filled from the input by generators that mix
 *     values from the current state (live handle ids and pfns, held
 *     contig ranges, the CMA area, memory block ids and addresses, devmem
 *     ids, virtio-mem addresses) with hostile ones (0, huge, 2^64 and
 *     beyond, unaligned, off by one, negative, garbage words); one more
 *     byte may then replace a word with garbage, drop the last word or add
 *     one;
 *   - bytes 224-231 are the virtio-mem host: requested-size set (sub-block
 *     or block multiples, 0, not a multiple of the block size, beyond the
 *     region) and the driver's poller 100 ms later, or polls seconds later
 *     so its retries come due;
 *   - bytes 232-255 are the DIMMs: one of 1-4 blocks is added in the
 *     window (add_memory(), as the ACPI driver does, honouring
 *     auto_online_blocks and, after the knob was set, possibly by this
 *     byte, memmap_on_memory), or ejected (offline_and_remove_memory()).
 *
 * Checked after every operation (a violation is __builtin_trap(); ASan,
 * UBSan and LeakSanitizer catch the rest):
 *   - hotplug_check_invariants(): zone, node, block and group counters
 *     recounted from the memmap and the free lists; managed == free +
 *     allocated (+ the frozen contig ranges); watermarks and pcp sizes
 *     current; `contiguous` equals the walk;
 *   - mcm_check_owners(): every allocated page has exactly one owner the
 *     commands know (a handle, a contig range, a cma allocation, a
 *     hot-added block's memmap, or the boot state), no free page has one,
 *     and no owner claims a page that is not online memory; the pages of
 *     unplugged virtio-mem sub-blocks are virtio-mem's alone (PageOffline,
 *     refcount 0) and no other page is PageOffline; the first 512 pages of
 *     a memmap_on_memory block are its memmap's alone (PG_reserved,
 *     PGTY_TABLE, never free); and the virtio-mem driver's bookkeeping
 *     agrees with itself, the kernel's blocks and the device
 *     (fvm_check_driver());
 *   - a command that fails returns a negative errno and printed why; one
 *     that succeeds printed something (the mm commands never succeed
 *     silently), except `trace`, which is silent by design.
 * At the end everything is given back through the commands themselves
 * (`free all`, `contig free` of every held range, `cma release all`,
 * `devmem destroy` of every range), virtio-mem is asked for nothing and
 * the DIMMs are ejected, in passes (a block's memmap may live in the
 * other kind's memory); each of those must succeed, and then free pages,
 * managed pages and the populated memmap are what they were after boot.
 *
 * Not covered: `bench automovable` and large `contig bench`/`devmem
 * bench` runs (only small sizes and one or two repetitions: they are
 * measurements, each run costs seconds under ASan); a lying virtio-mem
 * device (fuzz_virtio_mem.c does that), a second device, and devmem over
 * virtio-mem memory the driver has not added (refused: not present).
 *
 * FUZZ_VERBOSE=1 prints every line and its output.
 *
 * Build and run (the Makefile's test-fuzz does this with all HOST_SRCS):
 *   make build/fuzz/fuzz_mm_cmds
 *   mkdir -p build/fuzz/corpus-fuzz_mm_cmds
 *   build/fuzz/fuzz_mm_cmds -max_total_time=60 build/fuzz/corpus-fuzz_mm_cmds
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * The mm headers' inline helpers (pfn_valid, page_zone, ...) are included
 * first without coverage instrumentation: the checkers call them for every
 * page, and their edges say nothing about the commands.
 */
#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)
#include <mm/page.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/buddy_internal.h"
#include <mm/memory_hotplug.h>
#include <mm/cma.h>
#include <mm/memremap.h>
#pragma clang attribute pop

#include "../../shell/internal.h"

/* The checkers and the machine get no coverage: feedback is the commands'. */
#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)
#include "../host/mm_host.h"
#include "../host/virtio_mem_fake.h"
#include "../host/hotplug_check.h"
#include "../host/mm_cmds_machine.h"
#pragma clang attribute pop

#include <views/vfs.h>
#include <views/memory_sysfs.h>
#include "platform_stub.h"

int htest_failures;		/* hotplug_check.c's CHECK() counts here */

#define MAX_OPS		40
#define NR_GARBAGE	16

static bool fz_verbose;
static const char *fz_line;	/* the line being checked, for the report */

static void fz_fail(const char *what)
{
	if (fz_verbose)
		fprintf(stderr, "fuzz_mm_cmds: %s\n  after: %s\n", what, fz_line ? fz_line : "(setup)");
	__builtin_trap();
}

/* ---- the input ----------------------------------------------------------- */

static const u8 *in_data;
static size_t in_pos, in_size;

static u8 in_u8(void)
{
	return in_pos < in_size ? in_data[in_pos++] : 0;
}

static u64 in_u64(void)
{
	u64 v = 0;

	for (int i = 0; i < 8; i++)
		v |= (u64)in_u8() << (8 * i);
	return v;
}

/* ---- words ------------------------------------------------------------------ */

static const char *const garbage[NR_GARBAGE] = {
	"-1", "0x", "abc", "18446744073709551616", "0xffffffffffffffff", "1T", "99999999999G",
	"\"\"", "1-", "--", "0x1g", "-", "12abc", "4k", "0x8000000000000000", "\"a b\"",
};

static char line[512];
static size_t line_len;

static void put(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void put(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (line_len < sizeof(line))
		line_len += (size_t)vsnprintf(line + line_len, sizeof(line) - line_len, fmt, ap);
	va_end(ap);
	if (line_len >= sizeof(line))
		line_len = sizeof(line) - 1;
}

/* A number as the shell user could type it: decimal, hex, or with a suffix. */
static void put_num(u64 v)
{
	u8 f = in_u8();

	if (f % 4 == 0)
		put("%llu", (unsigned long long)v);
	else if (f % 4 == 3 && v && !(v & ((1ULL << 20) - 1)))
		put("%lluM", (unsigned long long)(v >> 20));
	else
		put("%#llx", (unsigned long long)v);
}

/* ---- values from the state, and hostile ones ---------------------------------- */

static struct mm_handle *some_handle(void)
{
	unsigned start = in_u8() * 16u;

	for (unsigned n = 0; n < MM_MAX_HANDLES; n++) {
		struct mm_handle *h = &handles[(start + n) % MM_MAX_HANDLES];

		if (h->id)
			return h;
	}
	return NULL;
}

static struct contig_range *some_range(void)
{
	unsigned start = in_u8();

	for (unsigned n = 0; n < CONTIG_MAX_RANGES; n++) {
		struct contig_range *c = &contig_ranges[(start + n) % CONTIG_MAX_RANGES];

		if (c->nr_pages)
			return c;
	}
	return NULL;
}

static u64 hostile_u64(u8 k)
{
	static const u64 v[8] = { 0, ~0ULL, 1ULL << 63, (1ULL << 32) - 1, 1ULL << 32,
				  MAX_PFN, MAX_PFN - 1, (u64)-4096 };

	return k & 8 ? in_u64() : v[k % 8];
}

/*
 * A block id: boot blocks 0-3, window blocks 32-39 (DIMMs 32-35, virtio-mem
 * 36-39), their neighbours, hostile ones.
 */
static u64 gen_block_id(void)
{
	u8 k = in_u8();

	switch (k % 8) {
	case 0: case 1: return k / 8 % 4;
	case 2: case 3: case 4: return MCM_FIRST_HOT + k / 8 % 8;
	case 5: return k & 0x80 ? 4 : MCM_END_BLOCK;
	case 6: return k & 0x80 ? MEMORY_BLOCKS_STATIC : 31;
	default: return hostile_u64(k / 8);
	}
}

static u64 gen_pfn(void)
{
	u8 k = in_u8();
	u64 off = in_u8();
	struct mm_handle *h;
	struct contig_range *c;

	switch (k % 12) {
	case 0: case 1:
		h = some_handle();
		return h ? page_to_pfn(h->page) + (k & 0x10 ? off % (1ULL << h->order) : 0) : off;
	case 2:
		c = some_range();
		return c ? c->pfn + (k & 0x10 ? off % c->nr_pages : 0) : 0x1000 + off;
	case 3:
		return cma_areas[0].base_pfn + (k & 0x10 ? off * 64 : 0) - (k & 0x20 ? 1 : 0);
	case 4: case 5:
		return gen_block_id() % MCM_END_BLOCK * PAGES_PER_MEMORY_BLOCK + off * 512;
	case 6:
		return in_u64() % (MCM_BOOT_RAM >> PAGE_SHIFT);
	case 7:
		return (MCM_WINDOW >> PAGE_SHIFT) + in_u64() % ((MCM_SIM_RAM - MCM_WINDOW) >> PAGE_SHIFT);
	case 8:
		return off * 1024 + (k & 0x10);
	default:
		return hostile_u64(k / 16);
	}
}

/* A number of pages for contig/cma. */
static u64 gen_pages(void)
{
	u8 k = in_u8();

	switch (k % 8) {
	case 0: case 1: return 1 + k / 8 % 16;
	case 2: case 3: return 1ULL << (k / 8 % 14);
	case 4: return 512 * (1 + k / 8 % 8);
	case 5: return k & 0x80 ? (1ULL << 24) + (k & 1) : MCM_CMA_SIZE >> PAGE_SHIFT;
	default: return hostile_u64(k / 8);
	}
}

/* Small counts for compare and bench (each page costs there). */
static u64 gen_small(void)
{
	u8 k = in_u8();

	if (k % 4 == 3)
		return hostile_u64(k / 4);
	return 1 + (u64)k * 8 % 2048;
}

static u64 gen_handle_id(void)
{
	u8 k = in_u8();
	struct mm_handle *h;

	switch (k % 6) {
	case 0: case 1: case 2:
		h = some_handle();
		return h ? h->id : 1;
	case 3: return next_handle_id - 1 - (next_handle_id > 1 ? k / 8 % next_handle_id : 0);
	case 4: return next_handle_id + k / 8 % 2;
	default: return hostile_u64(k / 8);
	}
}

/* A devmem address: window blocks mostly (the virtio-mem region's too), boot memory, unaligned, hostile. */
static u64 gen_addr(void)
{
	u8 k = in_u8();

	switch (k % 8) {
	case 0: case 1: case 2: case 3: return MCM_WINDOW + (k / 8 % 9) * MEMORY_BLOCK_SIZE;
	case 4: return (k / 8 % 4) * MEMORY_BLOCK_SIZE;
	case 5: return MCM_WINDOW + (u64)in_u8() * 2 * MCM_MiB + (k & 0x80 ? 4096 : 0);
	default: return hostile_u64(k / 8);
	}
}

static u64 gen_size(void)
{
	u8 k = in_u8();

	switch (k % 8) {
	case 0: case 1: case 2: case 3: return (1 + k / 8 % 4) * MEMORY_BLOCK_SIZE;
	case 4: return (k / 8 % 2) * MEMORY_BLOCK_SIZE + 2 * MCM_MiB;
	default: return hostile_u64(k / 8);
	}
}

static u64 gen_devmem_id(void)
{
	u8 k = in_u8();

	if (k % 4 == 3)
		return hostile_u64(k / 4);
	for (int i = 0; i < DEVMEM_MAX_RANGES; i++)
		if (devmem_find((k / 4 + i) % DEVMEM_MAX_RANGES))
			return (u64)(k / 4 + i) % DEVMEM_MAX_RANGES;
	return k / 4 % (DEVMEM_MAX_RANGES + 1);
}

/* An address for `virtio-mem state`: in the region (maybe unaligned), or not. */
static u64 gen_vmem_addr(void)
{
	u8 k = in_u8();

	switch (k % 8) {
	case 0: case 1: case 2: case 3: case 4: return MCM_VMEM + (u64)in_u8() * MCM_VMEM_BS;
	case 5: return MCM_VMEM + (u64)in_u8() * MCM_VMEM_BS + 4096;
	case 6: return MCM_VMEM - MCM_VMEM_BS;
	default: return hostile_u64(k / 8);
	}
}

/* A size for `virtio-mem state`: device blocks, unaligned, too many, hostile. */
static u64 gen_vmem_size(void)
{
	u8 k = in_u8();

	switch (k % 8) {
	case 0: case 1: case 2: case 3: case 4: return (1 + (u64)in_u8() % 64) * MCM_VMEM_BS;
	case 5: return (u64)in_u8() * MCM_VMEM_BS + 4096;
	case 6: return 0x10000 * MCM_VMEM_BS;
	default: return hostile_u64(k / 8);
	}
}

static const char *pick(const char *const *words, unsigned n)
{
	return words[in_u8() % n];
}

#define PICK(...) ({ static const char *const w_[] = { __VA_ARGS__ }; pick(w_, ARRAY_SIZE(w_)); })

/* "N", "N-M", "memoryN": one block or a range of them. */
static void put_block_spec(void)
{
	u8 k = in_u8();
	u64 a = gen_block_id();

	if (k % 4 == 0) {
		put("memory%llu", (unsigned long long)a);
	} else if (k % 4 == 1) {
		u64 b = k & 0x40 ? gen_block_id() : a + k / 8 % 8;

		put("%llu-%llu", (unsigned long long)a, (unsigned long long)b);
	} else {
		put("%llu", (unsigned long long)a);
	}
}

/* Expand one placeholder letter of a template. */
static void expand(char c)
{
	switch (c) {
	case 'O': put_num(in_u8() % 16 < 12 ? in_u8() % 12 : hostile_u64(in_u8())); break;
	case 'C': put_num(in_u8() % 8 ? 1 + in_u8() % 8 : hostile_u64(in_u8()) % 8192); break;
	case 'M': put("%s", PICK("movable", "unmovable", "movable", "quiet", "node=0", "node=1",
				 "node=2", "node=64", "node=", "node=-1")); break;
	case 'H': put_num(gen_handle_id()); break;
	case 'W': put("%s", PICK("0", "0xdeadbeef", "pattern", "1G", "x")); break;
	case 'P': put_num(gen_pfn()); break;
	case 'N': put_num(gen_pages()); break;
	case 'n': put_num(gen_small()); break;
	case 'r': put_num(in_u8() % 8 ? 1 + in_u8() % 2 : hostile_u64(in_u8())); break;
	case 'A': put_num(gen_addr()); break;
	case 'S': put_num(gen_size()); break;
	case 'G': put("%s", PICK("4k", "2m", "2M", "4K", "1g", "0")); break;
	case 'I': put_num(gen_devmem_id()); break;
	case 'E': put("%s", PICK("old", "new", "template-nt", "template", "newer", "")); break;
	case 'B': put_block_spec(); break;
	case 'b': put("%llu", (unsigned long long)gen_block_id()); break;
	case 'T': put("%s", PICK("online", "online_kernel", "online_movable", "kernel", "movable",
				 "offline", "onlinex")); break;
	case 'L': put("%s", PICK("-a", "-b", "-n", "-abn", "--all", "-x", "--bytes")); break;
	case 'K': put("%s", PICK("contig_check", "memmap_init", "contig_free", "auto_movable_stats",
				 "all", "nosuch")); break;
	case 'o': put("%s", PICK("on", "off", "1")); break;
	case 'V': put_num(gen_vmem_addr()); break;
	case 'v': put_num(gen_vmem_size()); break;
	case 'J': put("%s", PICK("nack", "busy", "error", "off", "ack")); break;
	case 'Z': put("%s", PICK("0", "1", "Y", "N", "on", "maybe")); break;
	case 'X': put("%s", PICK("0", "-16", "-12", "-4095", "-4096", "5", "x")); break;
	case 'R': {			/* a held contig range, or part of one, as START NR */
		struct contig_range *c = some_range();
		u8 k = in_u8();
		u64 s, n;

		if (!c) {
			put_num(gen_pfn());
			put(" ");
			put_num(gen_pages());
			break;
		}
		s = c->pfn;
		n = c->nr_pages;
		switch (k % 6) {
		case 0: case 1: break;					/* all of it */
		case 2: n = 1 + in_u8() % n; break;			/* the head */
		case 3: s += n - 1 - in_u8() % n; n = c->pfn + c->nr_pages - s; break; /* the tail */
		case 4: s += in_u8() % n; n = 1 + in_u8() % (c->pfn + c->nr_pages - s); break;
		default: n += 1 + in_u8() % 4; break;			/* beyond its end */
		}
		put_num(s);
		put(" ");
		put_num(n);
		break;
	}
	default: put("%%%c", c); break;
	}
}

/*
 * The lines: a template per entry, placeholders as in expand().  Repeated
 * entries weigh the paths with state.
 */
static const char *const lines[] = {
	"alloc %O", "alloc %O %C %M", "alloc %O %C %M %M", "alloc %O %M quiet",
	"free %H", "free %H", "free all", "fill %H %W", "check %H", "check all", "move %H",
	"move %H", "handles", "drain", "page %P", "page %P", "sections", "memmap map",
	"memblock", "numa", "meminit",
	"contig alloc %P %N", "contig alloc %P %N", "contig alloc %P %N frozen",
	"contig free %R", "contig free %R", "contig free %P %N", "contig list",
	"contig compare %n %o", "contig compare frozen", "contig bench %n %r",
	"cma", "cma alloc %N", "cma alloc %N", "cma release %N", "cma release all",
	"devmem", "devmem list", "devmem create %A %S %G", "devmem create %A %S %G",
	"devmem rebind %I %E", "devmem rebind %I", "devmem destroy %I", "devmem compare %I",
	"devmem bench %A %S %r", "devmem bench %A %S %r warm",
	"memory", "memory online %B %T", "memory online %B", "memory online %B %T",
	"memory offline %B", "memory offline %B", "lsmem %L", "lsmem",
	"mech", "mech %K", "mech %K %E", "trace %K %o", "trace", "contiguity", "bench contig",
	"echo %N > /sys/kernel/debug/cma/cma0/alloc", "echo %N > /sys/kernel/debug/cma/cma0/free",
	"cat /sys/kernel/debug/cma/cma0/bitmap", "cat /sys/kernel/mm/cma/cma0/available_pages",
	"echo %T > /sys/devices/system/memory/memory%b/state",
	"echo %Z > /sys/devices/system/memory/memory%b/online",
	"cat /sys/devices/system/memory/memory%b/valid_zones",
	"echo %T > /sys/devices/system/memory/auto_online_blocks",
	"echo %T > /sys/devices/system/memory/auto_online_blocks",
	"echo %Z > /sys/module/memory_hotplug/parameters/memmap_on_memory",
	"echo %Y > /sys/module/memory_hotplug/parameters/online_policy",
	"echo %n > /sys/module/memory_hotplug/parameters/auto_movable_ratio",
	"echo %X > /sys/kernel/debug/notifier-error-inject/memory/actions/MEM_GOING_OFFLINE/error",
	"echo %X > /sys/kernel/debug/notifier-error-inject/memory/actions/MEM_GOING_ONLINE/error",
	"echo %E > /sys/kernel/mm/memlab/%K",
	"virtio-mem", "virtio-mem", "virtio-mem retry", "virtio-mem state %V %v",
	"virtio-mem inject %J %n", "virtio-mem inject %J",
};

/* Build the line of template t from the input, then maybe spoil one word. */
static void build_line(const char *t)
{
	u8 m;

	line_len = 0;
	line[0] = '\0';
	for (const char *s = t; *s; s++) {
		if (*s == '%' && s[1]) {
			s++;
			if (*s == 'Y')
				put("%s", PICK("contig-zones", "auto-movable", "auto_movable"));
			else
				expand(*s);
		} else {
			put("%c", *s);
		}
	}
	m = in_u8();
	if (m % 16 == 0) {			/* a word replaced by garbage */
		char *sp = strrchr(line, ' ');

		if (sp && !strchr(sp, '>')) {
			line_len = (size_t)(sp - line);
			line[line_len] = '\0';
			put(" %s", garbage[m / 16 % NR_GARBAGE]);
		}
	} else if (m % 16 == 1) {		/* the last word missing */
		char *sp = strrchr(line, ' ');

		if (sp && !strchr(line, '>')) {
			*sp = '\0';
			line_len = (size_t)(sp - line);
		}
	} else if (m % 16 == 2 && !strchr(line, '>')) {	/* one word too many */
		put(" %s", garbage[m / 16 % NR_GARBAGE]);
	}
}

/* ---- running and checking ----------------------------------------------------- */

static char out_buf[1 << 16];
static char exec_buf[sizeof(line)];

__attribute__((no_sanitize("coverage"))) static void check_state(void)
{
	const char *why;

	htest_failures = 0;
	hotplug_check_invariants();
	if (htest_failures)
		fz_fail("hotplug_check_invariants() failed");
	why = mcm_check_owners();
	if (why)
		fz_fail(why);
}

static int run_line(const char *text)
{
	struct buf_printer bp;
	int ret;

	fz_line = text;
	memcpy(exec_buf, text, strlen(text) + 1);
	buf_printer_init(&bp, out_buf, sizeof(out_buf));
	ret = shell_execute(&bp.p, exec_buf);
	if (fz_verbose)
		printf("> %s\n%s[%d]\n", text, out_buf, ret);
	/* an error says why; a success of an mm command says what it did */
	if (ret < 0 && !out_buf[0] && !strchr(text, '>'))
		fz_fail("a command failed without saying why");
	if (ret == 0 && !out_buf[0] && !strchr(text, '>') && strncmp(text, "trace ", 6))
		fz_fail("a command succeeded without output");
	check_state();
	return ret;
}

/* The host's requested-size for the virtio-mem device, from the input. */
static u64 gen_vmem_request(u8 a)
{
	switch (a % 8) {
	case 0: case 1: case 2: return (u64)in_u8() * MCM_VMEM_BS;	/* up to 510 MiB */
	case 3: case 4: return (u64)(in_u8() % 5) * MEMORY_BLOCK_SIZE;
	case 5: return 0;
	case 6: return (u64)in_u8() * MCM_VMEM_BS + 4096;		/* not a multiple */
	default: return MCM_VMEM_SIZE + (u64)in_u8() * MCM_VMEM_BS;	/* beyond the region */
	}
}

static void run_op(u8 op)
{
	if (op < 224) {
		build_line(lines[op % ARRAY_SIZE(lines)]);
		run_line(line);
		return;
	}
	if (op < 232) {
		u8 a = in_u8();
		u64 size = 0;

		if (op < 230) {		/* qom-set requested-size, the poller 100 ms later */
			size = gen_vmem_request(a);
			fz_line = "(virtio-mem request)";
			mcm_vmem_request(size);
			mcm_vmem_poll(10);
		} else {		/* seconds later: retries come due */
			fz_line = "(virtio-mem poll)";
			for (unsigned n = 0; n < 1 + a % 8; n++)
				mcm_vmem_poll(HZ);
		}
		if (fz_verbose)
			printf("> %s %#llx: plugged %llu MiB\n", fz_line, (unsigned long long)size,
			       (unsigned long long)(mcm_vmem()->plugged_sbs * mcm_vmem()->sb_size >> 20));
		check_state();
		return;
	}
	{
		u8 a = in_u8();
		unsigned first = a % MCM_NR_HOT, nr = 1 + a / 4 % (MCM_NR_HOT - first);
		int err;

		fz_line = op & 1 ? "(dimm eject)" : "(dimm add)";
		if (op & 1) {
			err = mcm_dimm_remove(first, nr);
		} else {
			if (a & 0x40)	/* the administrator set memory_hotplug.memmap_on_memory */
				memhp_set_memmap_on_memory(true);
			err = mcm_dimm_add(1 - (a >> 7), first, nr);
		}
		if (fz_verbose)
			printf("> %s blocks %llu-%llu: %d\n", fz_line, MCM_FIRST_HOT + first,
			       MCM_FIRST_HOT + first + nr - 1, err);
		check_state();
	}
}

/* Give everything back through the commands; each must succeed. */
static void teardown(void)
{
	char buf[96];

	memhp_set_inject_going_online_error(0);
	memhp_set_inject_going_offline_error(0);
	if (run_line("free all"))
		fz_fail("free all failed");
	for (unsigned i = 0; i < CONTIG_MAX_RANGES; i++) {
		struct contig_range *c = &contig_ranges[i];

		if (!c->nr_pages)
			continue;
		snprintf(buf, sizeof(buf), "contig free %#llx %llu", (unsigned long long)c->pfn,
			 (unsigned long long)c->nr_pages);
		if (run_line(buf))
			fz_fail("contig free of a held range failed");
	}
	if (cma_debug_allocated(&cma_areas[0]) && run_line("cma release all"))
		fz_fail("cma release all failed");
	for (int id = 0; id < DEVMEM_MAX_RANGES; id++) {
		if (!devmem_find(id))
			continue;
		snprintf(buf, sizeof(buf), "devmem destroy %d", id);
		if (run_line(buf))
			fz_fail("devmem destroy failed");
	}
	/*
	 * Eject the DIMMs block by block and unplug all of virtio-mem, in
	 * passes until nothing is left: a block's memmap may live in a DIMM
	 * block or in a virtio-mem block onlined before it.
	 */
	vmem_inject_count = 0;
	mcm_vmem_request(0);
	for (int pass = 0; pass < MCM_NR_HOT + MCM_NR_VMEM; pass++) {
		bool left = false;

		for (int b = MCM_NR_HOT - 1; b >= 0; b--)
			if (find_memory_block_by_id(MCM_FIRST_HOT + b))
				mcm_dimm_remove((unsigned)b, 1);
		if (run_line("virtio-mem retry"))
			fz_fail("virtio-mem retry failed");
		for (unsigned b = 0; b < MCM_NR_HOT; b++)
			left |= find_memory_block_by_id(MCM_FIRST_HOT + b) != NULL;
		if (!left && !mcm_vmem()->plugged_sbs)
			break;		/* the checks below say whether it all went */
	}
	fz_line = "(teardown)";
	for (unsigned b = 0; b < MCM_NR_HOT; b++)
		if (find_memory_block_by_id(MCM_FIRST_HOT + b))
			fz_fail("a hot-added block cannot be ejected once everything is freed");
	if (mcm_vmem()->plugged_sbs || fvm.plugged)
		fz_fail("virtio-mem cannot unplug everything once everything is freed");
	for (unsigned b = 0; b < MCM_NR_VMEM; b++)
		if (find_memory_block_by_id(MCM_FIRST_VMEM + b))
			fz_fail("a virtio-mem block is left once nothing is plugged");
	check_state();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned long start_free, start_total;
	u64 start_vmemmap;

	in_data = data;
	in_pos = 0;
	in_size = size;
	fz_verbose = getenv("FUZZ_VERBOSE") != NULL;
	printk_set_level(fz_verbose ? LOG_DEBUG : LOG_EMERG);
	fz_line = NULL;

	mcm_boot();		/* a fresh machine: no block listener until memory_sysfs_init() */
	vfs_init();
	memory_sysfs_init();
	check_state();
	start_free = global_free_pages();
	start_total = totalram_pages();
	start_vmemmap = host_vmemmap_populated_pages;

	for (unsigned n = 0; n < MAX_OPS && in_pos < in_size; n++)
		run_op(in_u8());

	teardown();
	mcm_drain_all();
	if (global_free_pages() != start_free || totalram_pages() != start_total ||
	    host_vmemmap_populated_pages != start_vmemmap) {
		if (fz_verbose)
			fprintf(stderr, "free %lu/%lu managed %lu/%lu memmap %llu/%llu\n",
				global_free_pages(), start_free, totalram_pages(), start_total,
				(unsigned long long)host_vmemmap_populated_pages,
				(unsigned long long)start_vmemmap);
		fz_fail("after giving everything back, free/managed pages or the memmap differ from boot");
	}
	return 0;
}
