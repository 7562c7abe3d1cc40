/*
 * fuzz_virtio_mem.c - libFuzzer target: the virtio-mem driver against a
 * hostile virtio-mem device, on the host's simulated machine.
 *
 * How the driver is reached.  The target links drivers/virtio/virtio_pci.c
 * and the virtio-mem driver (drivers/virtio/virtio_mem*.c, Makefile:
 * FUZZ_SRCS_fuzz_virtio_mem) with the fake device of
 * tests/host/virtio_mem_fake.c (shared with the host tests in
 * test_virtio.c): the PCI accessors read a fake 256-byte config space whose
 * capabilities describe QEMU 7.2's layout over a fake 16 KiB BAR in host
 * memory.  Including the real transport rather than stubbing the seven
 * virtio_* calls the driver makes costs the same number of stubs and
 * fuzzes the transport's queue set-up, config reads and reply checks along
 * with the driver.  The fake device runs inside ktime_ns(): the transport
 * polls the used ring and calls ktime_ns() while it waits, so each call
 * looks at the available ring (through the queue addresses the driver
 * wrote into the common config, as a device would), and when a request is
 * there, answers it through the descriptors into the used ring.  Time is
 * virtual: 1 us per ktime_ns() call, 1 ms while a request is held back
 * (the 2 s request timeout is 2000 calls); jiffies() only moves when the
 * program below says so.  The machine is host_mm_reset() + mm_core_init()
 * on every input: 128 MiB of boot RAM on node 0 in a 5 GiB simulated RAM,
 * so device memory can live in [128 MiB, 5 GiB).  The driver entry points
 * used are its probe, the poller (vmem_poller), the `virtio-mem` command
 * (shell/cmd_virtio_mem.c) and its remove.
 *
 * The input, read from the front (0 once it runs out):
 *   - the device: block size, region address and size, usable size,
 *     plugged and requested size at probe (each a class byte: the QEMU
 *     value, a multiple of the block or of 128 MiB, 0, unaligned, not a
 *     power of two, smaller than a page or a sub-block, huge, wrapping past
 *     2^64, beyond the 46-bit physical space, overlapping boot RAM, or 8 raw
 *     bytes), the proximity domain, the offered features, the queue size,
 *     queue count, notify offset and device window length, and the online
 *     type auto_online_blocks gives;
 *   - then a program, one byte per operation (+ arguments): set
 *     requested_size; poll (vmem_poll(), the poller) after 0.1 s or after
 *     several seconds so retries come due; change plugged_size, the usable
 *     size, or a region field or the block size (a real device never does);
 *     `virtio-mem state ADDR SIZE`, the view, `retry`, `inject`; allocate or
 *     free kernel and movable pages (the movable ones carry a pattern that
 *     must survive migration), or all free 2 MiB blocks (no memmap for the
 *     next block then); offline or online one of the device's memory
 *     blocks behind the driver's back (the sysfs files); make onlining or
 *     offlining fail (memory_hotplug's error injection) or change
 *     auto_online_blocks.
 * Each request the device answers takes one byte from the BACK of the
 * input (fvm_reply): below 0x80 (and 0 once the input is spent) the device
 * behaves as QEMU does (PLUG beyond requested_size is NACKed, a range
 * outside the usable region or in the wrong state is ERROR, plugged_size
 * follows); otherwise it lies (enum fvm_lie): ACK without doing it,
 * NACK, BUSY, ERROR, a response type outside the enum, a short reply, a
 * STATE reply with garbage, an UNPLUG that is ACKed while the device goes
 * on counting the memory as plugged, a used element with a wrong id or
 * length, a used index that jumps, no reply at all, a reply after the
 * driver gave up, and requested_size or usable_region_size changing under
 * a request.
 * At the end the device is removed: the test frees what it allocated and
 * calls the driver's remove.
 *
 * Checked after every operation, the page walks after every 4th and at the
 * end (a violation is __builtin_trap(); ASan, UBSan and LeakSanitizer
 * catch the rest):
 *   - fvm_check_driver(), the driver's bookkeeping: plugged_sbs is the
 *     number of bits in the per-block bitmaps, the per-state counters match
 *     the states, no bit beyond the sub-blocks of a memory block, every
 *     plugged sub-block inside the region and inside the largest usable
 *     size the device ever showed; region, block size and first block
 *     never change after probe;
 *   - every memory block of the driver's group is one it tracks as added,
 *     and every block it tracks as added exists in its group;
 *   - in every online block the driver added, each page of an unplugged
 *     sub-block is PageOffline with refcount 0 and each page of a plugged
 *     one is not (nothing the driver says is unplugged is online);
 *   - while the device has told the truth so far (slow and late replies
 *     are not lies): the driver's bitmap equals the device's block by
 *     block, and plugged_size agrees; once the driver has marked the device
 *     broken, no sub-block the driver uses is unplugged at the device;
 *   - hotplug_check_invariants() (tests/host/hotplug_check.h): zone, node,
 *     block and group counters recounted, managed == free + allocated,
 *     watermarks and pcp sizes current;
 *   - movable allocations still hold their pattern wherever they migrated.
 * After the removal: no memory block of the driver is left, the device
 * slot is free, and free pages, managed pages, populated memmap and block
 * counts are what they were before the probe.
 *
 * Not covered: more than one device, interrupts (there are none), the
 * transport's capability parsing (tests/host/test_virtio.c), a feature set
 * in which ACPI_PXM and VERSION_1 differ (one fake register answers both
 * feature words), FEATURES_OK or DRIVER_OK refused, regions between the
 * simulated RAM's end (5 GiB) and 2^46 (the host cannot back them; such
 * regions are cut at 5 GiB), a config generation that changes during a
 * read (the fake config is plain memory), and jiffies moving during a
 * resize round.
 *
 * FUZZ_VERBOSE=1 in the environment prints the kernel log of each input,
 * and each reply byte the device takes from the back (numbered, so a seed
 * can put a lie on the request it means: tests/fuzz/seeds/make_seeds.py).
 *
 * Build and run (the Makefile's test-fuzz does this with all HOST_SRCS):
 *   make build/fuzz/fuzz_virtio_mem
 *   mkdir -p build/fuzz/corpus-fuzz_virtio_mem
 *   build/fuzz/fuzz_virtio_mem -max_total_time=60 build/fuzz/corpus-fuzz_virtio_mem
 */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/*
 * The mm headers' inline helpers (page_zone, pfn_valid, ...) are included
 * first without coverage instrumentation: the page walks of the checkers
 * call them for every page, and their edges say nothing about the driver.
 * The checkers and the fake device get none either (speed, and the
 * feedback should come from the driver).
 */
#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)
#include <mm/page.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>
#include "../../mm/buddy_internal.h"
#include <mm/memory_hotplug.h>
#pragma clang attribute pop

#pragma clang attribute push(__attribute__((no_sanitize("coverage"))), apply_to = function)
#include <stdio.h>
#include "../host/mm_host.h"
#include "../host/virtio_mem_fake.h"
#include "../../drivers/virtio/virtio_pci_internal.h"
#include "../host/hotplug_check.h"
#include "../host/test_owner.h"
#pragma clang attribute pop

#include <shell/shell.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include "platform_stub.h"

int htest_failures;		/* hotplug_check.c's CHECK() counts here */

#undef CHECK
#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			if (fz_verbose)					\
				fprintf(stderr, "fuzz_virtio_mem.c:%d: CHECK(%s) failed\n", \
					__LINE__, #cond);		\
			__builtin_trap();				\
		}							\
	} while (0)

#define MiB		FVM_MiB
#define GiB		FVM_GiB
#define PHYS_LIMIT	(1ULL << MAX_PHYSMEM_BITS)
#define NR_HELD		16

/* ---- the input ----------------------------------------------------------- */

static const u8 *in_data;
static size_t in_front, in_back;

static u8 in_u8(void)
{
	return in_front < in_back ? in_data[in_front++] : 0;
}

static u16 in_u16(void)
{
	return (u16)(in_u8() | in_u8() << 8);
}

static u64 in_u64(void)
{
	u64 v = 0;

	for (int i = 0; i < 8; i++)
		v |= (u64)in_u8() << (8 * i);
	return v;
}

static bool fz_verbose;		/* FUZZ_VERBOSE set: log lines and the failed check */

static unsigned nr_replies;	/* reply bytes taken so far, for FUZZ_VERBOSE */

/* One byte from the back: how the device answers the next request. */
static u8 in_reply(void)
{
	u8 r = in_back > in_front ? in_data[--in_back] : 0;

	if (fz_verbose)
		printf("device: reply byte %u: %#x%s, %zu input bytes left\n", ++nr_replies, r,
		       r < 0x80 ? "" : " (a lie)", in_back - in_front);
	return r;
}

/* ---- building the device from the input ----------------------------------- */

static u64 pick_block_size(void)
{
	switch (in_u8() % 16) {
	case 0: case 1: case 2: case 3: case 4: case 5: return 2 * MiB;	/* QEMU's */
	case 6: return 4 * MiB;
	case 7: return 128 * MiB;
	case 8: return 64 * MiB;
	case 9: return GiB;			/* bigger than a memory block */
	case 10: return 0;
	case 11: return 3 * MiB;		/* not a power of two */
	case 12: return 4096;			/* a page */
	case 13: return 1 * MiB;		/* below a pageblock */
	case 14: return 1ULL << 63;
	default: return in_u64();
	}
}

static u64 pick_addr(u64 bs)
{
	u64 k = in_u8();

	switch (in_u8() % 12) {
	case 0: case 1: case 2: return FVM_WINDOW;
	case 3: return FVM_WINDOW + (k % 16) * bs;		/* not 128 MiB aligned */
	case 4: return 0;					/* over boot RAM */
	case 5: return 64 * MiB;				/* partly over boot RAM */
	case 6: return FVM_BOOT_RAM + (k % 8) * 128 * MiB;	/* below 4 GiB (DMA32) */
	case 7: return ~0ULL - (k + 1) * 128 * MiB + 1;		/* wraps */
	case 8: return PHYS_LIMIT - 128 * MiB * (k % 4);	/* at the physical limit */
	case 9: return FVM_WINDOW + 4096 * (k + 1);		/* unaligned */
	case 10: return (1ULL << 63) + k * 128 * MiB;
	default: return in_u64();
	}
}

static u64 pick_size(u64 bs, u64 region)
{
	u64 k = in_u8();

	switch (in_u8() % 12) {
	case 0: case 1: case 2: return (k % 17) * 128 * MiB;
	case 3: case 4: return (k % 64) * bs;
	case 5: return region;
	case 6: return 0;
	case 7: return region + (k + 1) * bs;			/* beyond */
	case 8: return (k % 64) * bs + 4096;			/* unaligned */
	case 9: return ~0ULL - k;
	case 10: return 1ULL << (40 + k % 24);
	default: return in_u64();
	}
}

static void device_build(void)
{
	u64 bs, addr, region, end, usable, plugged, requested;
	u16 pxm;
	u8 t;

	bs = pick_block_size();
	addr = pick_addr(bs);
	region = pick_size(bs, 0);
	/* the host cannot back memory between its RAM's end and 2^46: cut such a region */
	end = addr + region;
	if (end >= addr && end <= PHYS_LIMIT && end > FVM_SIM_RAM) {
		if (addr >= FVM_SIM_RAM)
			addr = FVM_WINDOW + (addr & (GiB - 1));
		region = addr < FVM_SIM_RAM ? FVM_SIM_RAM - addr : 0;
		if (bs && bs <= GiB)
			region -= region % bs;
	}
	usable = pick_size(bs, region);
	requested = pick_size(bs, region);
	plugged = in_u8() % 4 ? 0 : pick_size(bs, region);
	pxm = in_u8();
	if (pxm >= 0xf0)
		pxm = in_u16();
	fvm_setup(bs, pxm, addr, region, usable, plugged, requested);

	/* transport: features, queue, windows */
	t = in_u8();
	/* bit 0: VERSION_1 and ACPI_PXM (one register for both words), bit 1: UNPLUGGED_INACCESSIBLE */
	fake_bar[BAR_COMMON + VCC_DF] = t & 0x40 ? 0 : (t & 0x80 ? 3 : 1);
	fake_bar[BAR_COMMON + VCC_NUM_QUEUES] = t & 0x20 ? 0 : 1;
	static const u16 qsizes[4] = { 64, 1024, 1, 0 };
	u16 qs = qsizes[t & 3];

	memcpy(fake_bar + BAR_COMMON + VCC_Q_SIZE, &qs, 2);
	u16 noff = t & 0x04 ? 0x400 : 0;
	memcpy(fake_bar + BAR_COMMON + VCC_Q_NOFF, &noff, 2);
	if (t & 0x08)		/* device config window too short */
		put_cap(0xa4, 0xb4, VIRTIO_PCI_CAP_DEVICE_CFG, 4, BAR_DEVICE, 0x30, 0);

	t = in_u8();
	memhp_set_default_online_type((enum mmop)(t % 4));
	memhp_set_online_policy(t & 4 ? ONLINE_POLICY_AUTO_MOVABLE : ONLINE_POLICY_CONTIG_ZONES);
}

/* ---- what else uses memory ----------------------------------------------- */

struct held {
	struct page *page;		/* unmovable block, or NULL */
	unsigned order;
	struct test_owner mov;		/* movable block (mov.live) */
};

static struct held held[NR_HELD];

static void held_free(struct held *h)
{
	if (h->page)
		free_pages(h->page, h->order);
	h->page = NULL;
	if (h->mov.live)
		owner_free(&h->mov);
}

/* The hog: every free 2 MiB block of kernel memory, so memmaps cannot be had. */
#define NR_HOG		(FVM_SIM_RAM / (2 * MiB))
static struct page *hog[NR_HOG];
static unsigned nr_hog;

static void hog_toggle(void)
{
	if (nr_hog) {
		while (nr_hog)
			free_pages(hog[--nr_hog], 9);
		return;
	}
	while (nr_hog < NR_HOG && (hog[nr_hog] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 9)))
		nr_hog++;
}

/* ---- invariants ---------------------------------------------------------- */

static void check_mm(void)
{
	htest_failures = 0;
	hotplug_check_invariants();
	CHECK(htest_failures == 0);
	for (unsigned i = 0; i < NR_HELD; i++)
		if (held[i].mov.live)
			CHECK(owner_ok(&held[i].mov));
}

/* The page walks are most of the time per input: every 4th operation and at the end. */
static void check_all(bool pages)
{
	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		if (!vmem_devs[d].in_use)
			continue;
		int line = fvm_check_driver(&vmem_devs[d], pages);

		if (line && fz_verbose)
			fprintf(stderr, "virtio_mem_fake.h:%d: driver rule broken\n", line);
		CHECK(line == 0);
	}
	if (pages)
		check_mm();
}

/* ---- the program ------------------------------------------------------------ */

static void run_shell(const char *line)
{
	static char buf[4096];
	struct buf_printer bp;
	char copy[128], *argv[8];
	int argc = 0;

	strlcpy(copy, line, sizeof(copy));
	for (char *s = strtok(copy, " "); s && argc < 8; s = strtok(NULL, " "))
		argv[argc++] = s;
	buf_printer_init(&bp, buf, sizeof(buf));
	shell_find("virtio-mem")->fn(&bp.p, argc, argv);
}

static void run_op(u8 op)
{
	struct vmem_dev *vm = vmem_devs[0].in_use ? &vmem_devs[0] : NULL;
	char line[128];
	u8 a = in_u8();

	switch (op % 16) {
	case 0: case 1: {			/* the host asks for a size */
		u64 v;

		switch (a % 8) {
		case 0: case 1: case 2: v = (u64)in_u8() * fvm.bs; break;
		case 3: v = (u64)(in_u8() % 17) * 128 * MiB; break;
		case 4: v = 0; break;
		case 5: v = (u64)in_u8() * fvm.bs + 4096; break;	/* not a multiple */
		case 6: v = fvm.usable + (u64)in_u8() * fvm.bs; break;	/* beyond usable */
		default: v = in_u64(); break;
		}
		fvm_request_size(v);
		if (a & 0x80) {		/* QEMU grows usable with the request */
			u64 u = v + 256 * MiB;

			if (u > fvm.usable && u >= v) {
				fvm.usable = u;
				fvm_cfg_set(VMEM_CFG_USABLE_SIZE, u);
			}
		}
		break;
	}
	case 2: case 3: case 4:			/* the poller, 100 ms later */
		fvm_poll(10);
		break;
	case 5:					/* seconds later: retries come due */
		for (unsigned n = 0; n < 1 + a % 8; n++)
			fvm_poll(HZ);
		break;
	case 6:					/* plugged_size changes on its own */
		fvm.honest = false;
		fvm_cfg_set(VMEM_CFG_PLUGGED_SIZE, a & 1 ? in_u64() : (u64)in_u8() * fvm.bs);
		break;
	case 7:					/* usable size changes */
		if (a & 1) {
			fvm.honest = false;	/* may shrink under plugged memory */
			fvm.usable = (u64)in_u8() * fvm.bs;
		} else {
			fvm.usable += (u64)in_u8() * fvm.bs;
		}
		fvm_cfg_set(VMEM_CFG_USABLE_SIZE, fvm.usable);
		break;
	case 8: {				/* fields a device must never change */
		static const u32 offs[4] = { VMEM_CFG_BLOCK_SIZE, VMEM_CFG_ADDR,
					     VMEM_CFG_REGION_SIZE, VMEM_CFG_NODE_ID };
		u32 off = offs[a % 4];

		if (off == VMEM_CFG_NODE_ID) {
			u16 pxm = in_u8();

			memcpy(fake_bar + BAR_DEVICE + off, &pxm, 2);
			fvm_cfg_show();
		} else {
			fvm_cfg_set(off, a & 4 ? in_u64() : bar_rd64(BAR_DEVICE + off) + (u64)in_u8() * 2 * MiB);
		}
		break;
	}
	case 9: {				/* virtio-mem state ADDR SIZE */
		u64 addr = fvm.addr + (u64)in_u8() * fvm.bs;
		u64 size = (u64)(1 + in_u8() % 64) * fvm.bs;

		if (a & 1)
			addr += 4096;
		if (a & 2)
			size = (u64)in_u16() * 4096;
		snprintf(line, sizeof(line), "virtio-mem state %#llx %#llx", (unsigned long long)addr,
			 (unsigned long long)size);
		run_shell(line);
		break;
	}
	case 10:				/* the shell's other forms */
		switch (a % 6) {
		case 0: run_shell("virtio-mem"); break;
		case 1: run_shell("virtio-mem retry"); break;
		case 2: run_shell("virtio-mem inject off"); break;
		default: {
			static const char *const what[3] = { "nack", "busy", "error" };

			snprintf(line, sizeof(line), "virtio-mem inject %s %u", what[a % 3], 1 + in_u8() % 8);
			run_shell(line);
			break;
		}
		}
		break;
	case 11: case 12: {			/* someone allocates */
		struct held *h = &held[in_u8() % NR_HELD];
		unsigned order = a % 4;

		held_free(h);
		if (a & 0x10) {
			struct page *page = alloc_pages(GFP_MOVABLE | __GFP_NOWARN, order);

			if (page)
				owner_attach(&h->mov, page_to_pfn(page), order, a);
		} else {
			h->page = alloc_pages(GFP_KERNEL | __GFP_NOWARN, order);
			h->order = order;
		}
		break;
	}
	case 13:				/* ... and frees, or takes all there is */
		if (a & 0x80)
			hog_toggle();
		else
			held_free(&held[a % NR_HELD]);
		break;
	case 14: {				/* sysfs: offline or online one of its blocks */
		if (!vm || !vm->nr_mbs)
			break;
		struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + in_u8() % vm->nr_mbs);

		if (!mem || !mem->group || mem->group->id != vm->mgid)
			break;
		if (mem->state == MEM_ONLINE)
			memory_block_offline(mem);
		else
			memory_block_online(mem, (enum mmop)(1 + a % 3));
		break;
	}
	default:
		if (a & 0x10)			/* MEM_GOING_ONLINE/OFFLINE refused, or not */
			(a & 0x20 ? memhp_set_inject_going_offline_error :
				    memhp_set_inject_going_online_error)(a & 0x40 ? -EBUSY : 0);
		else				/* auto_online_blocks changes */
			memhp_set_default_online_type((enum mmop)(a % 4));
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	u64 start_free, start_total, start_vmemmap;
	unsigned long start_blocks[NR_MEM_STATES];
	struct vmem_dev *vm;
	int err;

	in_data = data;
	in_front = 0;
	in_back = size;
	nr_replies = 0;
	printk_set_level(LOG_EMERG);
	fz_verbose = getenv("FUZZ_VERBOSE") != NULL;
	if (fz_verbose) {		/* FUZZ_VERBOSE=1 build/fuzz/fuzz_virtio_mem CRASH */
		printk_set_level(LOG_DEBUG);
		setvbuf(stdout, NULL, _IONBF, 0);
	}
	fvm_machine();
	fvm_reply = in_reply;
	memset(held, 0, sizeof(held));
	nr_hog = 0;
	device_build();

	start_free = global_free_pages();
	start_total = totalram_pages();
	start_vmemmap = host_vmemmap_populated_pages;
	memcpy(start_blocks, nr_memory_blocks_in_state, sizeof(start_blocks));

	err = fvm_probe();
	vm = vmem_devs[0].in_use ? &vmem_devs[0] : NULL;
	CHECK((err == 0) == (vm != NULL));
	if (vm) {
		CHECK(fake_pci.driver_data == vm);
		check_all(true);
		for (unsigned n = 0; n < 64 && in_front < in_back; n++) {
			run_op(in_u8());
			check_all(n % 4 == 3);
		}
		check_all(true);
	}

	/* the device goes away; nothing else holds its memory then */
	for (unsigned i = 0; i < NR_HELD; i++)
		held_free(&held[i]);
	if (nr_hog)
		hog_toggle();
	memhp_set_inject_going_online_error(0);
	memhp_set_inject_going_offline_error(0);
	if (vm)
		vmem_driver.remove(&fake_pci);
	CHECK(!vmem_devs[0].in_use);
	check_mm();
	if (fz_verbose)
		printf("end: free %lu (start %llu), managed %lu (start %llu), memmap %llu (start %llu)\n",
		       global_free_pages(), (unsigned long long)start_free, totalram_pages(),
		       (unsigned long long)start_total, (unsigned long long)host_vmemmap_populated_pages,
		       (unsigned long long)start_vmemmap);
	CHECK(global_free_pages() == start_free);
	CHECK(totalram_pages() == start_total);
	CHECK(host_vmemmap_populated_pages == start_vmemmap);
	for (int s = 0; s < NR_MEM_STATES; s++)
		CHECK(nr_memory_blocks_in_state[s] == start_blocks[s]);
	return 0;
}
