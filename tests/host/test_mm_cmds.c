/*
 * test_mm_cmds.c - the memory-management shell commands through
 * shell_execute() on a simulated machine (tests/host/mm_cmds_machine.h):
 * what they print, what they change, and that hostile arguments are
 * refused with a reason and change nothing.  tests/fuzz/fuzz_mm_cmds.c
 * runs the same commands with generated arguments; the inputs it found
 * bugs with are kept here as plain tests.
 *
 * The suite `mm_cmds` (Makefile: HOST_SUITE_mm_cmds) links the real
 * command files (shell/cmd_*.c; cmd_contig.c and cmd_handles.c are still
 * compiled in here, since mm_cmds_machine.h resets and reads their
 * handle and range tables, which they keep static), views/sysfs_memory.c (memory_block_state_store()
 * behind `memory online`; memory_sysfs_init() is never called here, so no
 * per-block files are made), and the virtio-mem driver
 * (drivers/virtio/virtio_pci.c, virtio_mem*.c) with the fake device of
 * tests/host/virtio_mem_fake.c.
 */
#include "htest.h"
#include "test_owner.h"
#include <kernel/longop.h>
#include <views/vfs.h>
#include <views/memory_sysfs.h>
#include "../../shell/internal.h"
#include <stdlib.h>
#include <lib/errno.h>
#include "platform_stub.h"
#include "virtio_mem_fake.h"
#include "mm_cmds_machine.h"

static char out[1 << 16];

/* Run one line; its output is in out. */
static int run(const char *text)
{
	static char copy[512];
	struct buf_printer bp;

	snprintf(copy, sizeof(copy), "%s", text);
	buf_printer_init(&bp, out, sizeof(out));
	return shell_execute(&bp.p, copy);
}

/* The checks every test makes after every step. */
static void check_consistent(void)
{
	const char *why;

	hotplug_check_invariants();
	why = mcm_check_owners();
	if (why)
		fprintf(stderr, "  owners: %s\n", why);
	CHECK(why == NULL);
}

static void boot(void)
{
	printk_set_level(LOG_CRIT);
	mcm_boot();
	check_consistent();
}

HTEST(mm_cmds_alloc_fill_move_free)
{
	u64 free0;

	boot();
	free0 = global_free_pages();
	CHECK_EQ(run("alloc 3 2 movable"), 0);
	CHECK(strstr(out, "handle 1: pfn 0x") && strstr(out, "handles 1-2"));
	check_consistent();
	CHECK_EQ(run("fill 1 0xabc"), 0);
	CHECK_EQ(run("move 1"), 0);
	CHECK(strstr(out, "handle 1: moved from pfn") != NULL);
	check_consistent();
	CHECK_EQ(run("check 1"), 0);
	CHECK_STREQ(out, "handle 1: ok\n");
	CHECK_EQ(run("alloc 0"), 0);			/* unmovable: move refuses */
	CHECK_EQ(run("move 3"), -EBUSY);
	CHECK(strstr(out, "allocate with `movable`") != NULL);
	CHECK_EQ(run("free 2"), 0);
	CHECK_EQ(run("free 2"), -EINVAL);
	CHECK_STREQ(out, "free: handle 2 was already freed\n");
	CHECK_EQ(run("free all"), 0);
	CHECK_STREQ(out, "free: 2 handles freed (36 KiB)\n");
	check_consistent();
	mcm_drain_all();
	CHECK_EQ(global_free_pages(), free0);
}

HTEST(mm_cmds_contig_alloc_split_free)
{
	u64 free0, pfn = 0x9000;
	char line[96];

	boot();
	free0 = global_free_pages();
	snprintf(line, sizeof(line), "contig alloc %#llx 1024", (unsigned long long)pfn);
	CHECK_EQ(run(line), 0);
	CHECK(strstr(out, "contig: allocated [0x9000-0x9400) 1024 pages") != NULL);
	check_consistent();
	CHECK_EQ(run("contig free 0x9100 0x100"), 0);	/* a hole in the middle */
	check_consistent();
	CHECK_EQ(run("contig list"), 0);
	CHECK(strstr(out, "[0x9000-0x9100) 256 pages") && strstr(out, "[0x9200-0x9400) 512 pages"));
	CHECK_EQ(run("contig free 0x90ff 2"), -EINVAL);	/* across the hole */
	CHECK_EQ(run("contig alloc 0xa000 512 frozen"), 0);
	check_consistent();
	CHECK_EQ(run("contig free 0xa000 512"), 0);
	CHECK_EQ(run("contig free 0x9000 0x100"), 0);
	CHECK_EQ(run("contig free 0x9200 0x200"), 0);
	CHECK_EQ(run("contig list"), 0);
	CHECK(strstr(out, "0 ranges held") != NULL);
	check_consistent();
	mcm_drain_all();
	CHECK_EQ(global_free_pages(), free0);
}

HTEST(mm_cmds_cma_alloc_release)
{
	u64 free0;

	boot();
	free0 = global_free_pages();
	CHECK_EQ(run("cma alloc 100"), 0);
	CHECK(strstr(out, "cma0: allocated 100 pages") != NULL);
	check_consistent();
	CHECK_EQ(run("cma alloc 5000"), -EINVAL);	/* more than the area */
	check_consistent();
	CHECK_EQ(run("cma release 101"), -EINVAL);
	CHECK(strstr(out, "nothing released") != NULL);
	CHECK_EQ(run("cma release all"), 0);
	CHECK_EQ(run("cma release all"), 0);
	CHECK(strstr(out, "nothing to release") != NULL);
	check_consistent();
	mcm_drain_all();
	CHECK_EQ(global_free_pages(), free0);
}

HTEST(mm_cmds_dimm_online_offline_devmem)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 3), 0);
	check_consistent();
	CHECK_EQ(run("memory online 32 movable"), 0);
	CHECK_STREQ(out, "memory32: online (zone Movable, node 1)\n");
	CHECK_EQ(run("memory online 32"), -EINVAL);
	CHECK(strstr(out, "the block is not offline") != NULL);
	check_consistent();
	CHECK_EQ(run("alloc 2 4 movable"), 0);
	CHECK_EQ(run("devmem create 0x108000000 256M 2m"), 0);	/* blocks 33-34 */
	CHECK(strstr(out, "devmem0: created, 2 MiB compound pages") != NULL);
	check_consistent();
	CHECK_EQ(run("page 0x108201"), 0);			/* a device page's owner, by name */
	CHECK(strstr(out, "  owner:      devmem0 (device range [0x108000-0x118000), ") != NULL);
	CHECK_EQ(run("memory online 33"), -EBUSY);		/* a device range's block */
	CHECK(strstr(out, "in use as device memory") != NULL);
	CHECK(strstr(out, "cannot move") == NULL);
	CHECK_EQ(run("devmem rebind 0 old"), 0);
	CHECK_EQ(run("devmem compare 0"), 0);
	CHECK(strstr(out, "identical") != NULL);
	CHECK_EQ(run("devmem destroy 0"), 0);
	CHECK_EQ(run("devmem destroy 0"), -ENOENT);
	check_consistent();
	CHECK_EQ(run("memory offline 32"), 0);			/* the handles migrate */
	check_consistent();
	CHECK_EQ(run("free all"), 0);
	CHECK_EQ(mcm_dimm_remove(0, 3), 0);
	check_consistent();
}

/*
 * The design words: `mech` and `devmem rebind` read them with the one
 * parser (mech_parse_design()); `devmem rebind` also takes "template", the
 * benchmark tables' name for the new design, and `mech` does not.
 */
HTEST(mm_cmds_design_words)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 3), 0);
	CHECK_EQ(run("devmem create 0x108000000 256M 2m"), 0);
	CHECK_EQ(run("devmem rebind 0 template"), 0);
	CHECK(strstr(out, "devmem0: rebind (new): ") != NULL);
	CHECK_EQ(run("devmem rebind 0 template-nt"), 0);
	CHECK(strstr(out, "devmem0: rebind (template-nt): ") != NULL);
	CHECK_EQ(run("devmem rebind 0 old"), 0);
	CHECK(strstr(out, "devmem0: rebind (old): ") != NULL);
	CHECK_EQ(run("devmem rebind 0 newer"), -EINVAL);
	CHECK_STREQ(out, "devmem: newer: the design is old, new or template-nt\n");
	CHECK_EQ(run("mech memmap_init template"), -EINVAL);
	CHECK_STREQ(out, "mech: memmap_init: 'template' is not a design (old, new, template-nt)\n");
	CHECK_EQ(run("mech contig_free template-nt"), -EINVAL);
	CHECK_STREQ(out, "mech: contig_free: 'template-nt' is not a design (old, new)\n");
	CHECK_EQ(run("mech memmap_init template-nt"), 0);
	CHECK_STREQ(out, "memmap_init: template-nt\n");
	CHECK_EQ(run("mech memmap_init new"), 0);
	CHECK_EQ(run("devmem destroy 0"), 0);
	CHECK_EQ(mcm_dimm_remove(0, 3), 0);
	check_consistent();
}

/*
 * bench free_contig_range times each design through mech_override(): with
 * the trace on, its switches narrate nothing (the trace is off while the
 * rounds run; only the last free, after them, is narrated), and the
 * switch and the trace are as before after it.
 */
HTEST(mm_cmds_bench_free_contig_range_overrides)
{
	int since;

	boot();
	CHECK_EQ(run("trace contig_free on"), 0);
	since = host_log_count;
	CHECK_EQ(run("bench free_contig_range 64 2"), 0);
	CHECK(strstr(out, "speedup new/old") != NULL);
	CHECK(!host_log_seen("[contig_free] design", since));
	CHECK(host_log_seen("[contig_free] ", since));		/* the last free */
	CHECK_EQ(contig_free_design(), DESIGN_NEW);
	CHECK(mech_tracing(MECH_CONTIG_FREE));
	CHECK_EQ(run("trace contig_free off"), 0);
	check_consistent();
}

/*
 * Malformed and impossible commands: each fails with an errno, prints a
 * line that says why (or the usage), and changes no counter.
 */
HTEST(mm_cmds_hostile_arguments_change_nothing)
{
	static const char *const lines[] = {
		"alloc", "alloc 11", "alloc -1", "alloc 0 0", "alloc 0 4097", "alloc 0 node=7",
		"alloc 0 node=", "alloc 0 1 2", "alloc 18446744073709551616",
		"free", "free 0", "free 99", "free x", "free 1 2",
		"fill 1", "check 5", "move 0", "page", "page -1", "page 0xffffffffffffffff",
		"page 0x1000000", "contig alloc 0 0", "contig alloc 0xffffffffffffffff 1",
		"contig alloc 0x1000 0x1000001", "contig alloc 0x100000 16", "contig alloc 0x1000 x",
		"contig free 0x1000 1", "contig free 0 0", "contig bench 0", "contig bench 1 32",
		"contig compare 65537", "contig alloc 0x1000 1 thawed", "contig",
		"cma alloc 0", "cma alloc -1", "cma release 0", "cma release x", "cma alloc",
		"devmem create 0x100000000 128M 1g", "devmem create 0 128M 4k",
		"devmem create 0x100000000 0 4k", "devmem create 0x100001000 128M 4k",
		"devmem create 0xffffffffffffffff 0xffffffffffffffff 4k", "devmem rebind 16",
		"devmem rebind 0", "devmem destroy 0", "devmem compare x", "devmem bench 0 0",
		"devmem bench 0x100000000 128M 0", "devmem frob",
		"memory online 99", "memory offline 32", "memory online 5-2", "memory online 1 sideways",
		"memory online 99999999999999999999", "memory offline 32-x", "contig compare 8 16",
		"memory offline -", "memory online 0", "lsmem -x",
		"mech nosuch", "mech contig_free newest", "trace contig_free maybe", "bench",
	};

	boot();
	for (size_t i = 0; i < ARRAY_SIZE(lines); i++) {
		u64 free0 = global_free_pages(), total0 = totalram_pages();
		int ret = run(lines[i]);

		if (ret >= 0 || !out[0])
			fprintf(stderr, "  '%s' returned %d and printed '%s'\n", lines[i], ret, out);
		CHECK(ret < 0);
		CHECK(out[0] != '\0');
		mcm_drain_all();
		CHECK_EQ(global_free_pages(), free0);
		CHECK_EQ(totalram_pages(), total0);
		check_consistent();
	}
}

/*
 * Found by fuzz_mm_cmds: `page PFN` of a hot-added block that is not
 * online decoded its poisoned memmap (node 63, zone 7) and indexed past
 * the node table (UBSan).  Now refused with the reason, from the section's
 * state, with or without the poison.
 */
HTEST(mm_cmds_page_of_an_offline_block_is_refused)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 2), 0);
	CHECK_EQ(run("page 0x100201"), -EINVAL);
	CHECK_STREQ(out, "page: pfn 0x100201: memmap not initialised: memory block 32 is offline "
			 "(online it first); its struct pages hold the poison\n");
	/* without memmap_poison= the section alone tells, over a stale memmap */
	memmap_poison_enable(false);
	CHECK_EQ(mcm_dimm_add(1, 2, 1), 0);
	CHECK_EQ(run("page 0x110201"), -EINVAL);
	CHECK_STREQ(out, "page: pfn 0x110201: memmap not initialised: memory block 34 is offline "
			 "(online it first)\n");
	CHECK_EQ(run("memory online 32"), 0);
	CHECK_EQ(run("page 0x100201"), 0);
	CHECK(strstr(out, "node 1 zone") != NULL);
	check_consistent();
	memmap_poison_enable(true);
}

/*
 * Found by fuzz_mm_cmds: `memory online N-M` visited every id of the
 * range, so 32-18446744073709551615 never ended, and a range without any
 * block "succeeded" with "0 blocks onlined".  Now only the blocks that
 * exist are visited, and an empty range is an error.
 */
HTEST(mm_cmds_memory_range_visits_existing_blocks_only)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 2), 0);
	CHECK_EQ(run("memory online 32-18446744073709551615 movable"), 0);
	CHECK_STREQ(out, "memory32: online (zone Movable, node 1)\n"
			 "memory33: online (zone Movable, node 1)\n"
			 "memory: 2 blocks onlined\n");
	CHECK_EQ(run("memory offline 40-100000000"), -ENODEV);
	CHECK_STREQ(out, "memory: no memory block in 40-100000000 (see lsmem)\n");
	CHECK_EQ(run("memory offline 36"), -ENODEV);
	CHECK_STREQ(out, "memory: memory36: no such memory block\n");
	CHECK_EQ(run("memory offline memory33-18446744073709551615"), 0);
	CHECK_STREQ(out, "memory33: offline\nmemory: 1 blocks offlined\n");
	check_consistent();
}

/* A Ctrl-C that is always waiting (the console's check, faked). */
static bool always_interrupted(void)
{
	return true;
}

/* A long operation that never ends by itself; the test claims its range. */
static bool never_done(struct longop *op, u64 deadline_ns)
{
	(void)op;
	(void)deadline_ns;
	return true;
}

/*
 * Ctrl-C during `memory online N-M` stops after the first block, which
 * stays online; the rest stay offline.  A long operation working on a
 * block makes a state change of it wait (-EBUSY, its name in the message),
 * through the command and through the sysfs file, and so does
 * `devmem create`; once it is gone the same command goes through.
 */
HTEST(mm_cmds_ctrl_c_and_busy_ranges)
{
	struct longop op = { .name = "test resize", .unit = "MiB", .step = never_done,
			     .total = 8 };

	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 3), 0);
	shell_interrupt_check = always_interrupted;
	CHECK_EQ(run("memory online 32-34"), -EINTR);
	shell_interrupt_check = NULL;
	CHECK(strstr(out, "memory: interrupted after 1 blocks: they stay online\n") != NULL);
	CHECK_EQ(find_memory_block_by_id(32)->state, MEM_ONLINE);
	CHECK_EQ(find_memory_block_by_id(33)->state, MEM_OFFLINE);
	check_consistent();

	longop_start(&op);
	longop_claim(&op, 33ull * MEMORY_BLOCK_SIZE, 34ull * MEMORY_BLOCK_SIZE);
	CHECK_EQ(run("memory online 33"), -EBUSY);
	CHECK_STREQ(out, "memory: memory33: busy: test resize is working on it (0/8 MiB done); "
			 "try again when `work` no longer lists it\n");
	CHECK_EQ(memory_block_state_store(33, "online", 6), -EBUSY);
	CHECK_EQ(find_memory_block_by_id(33)->state, MEM_OFFLINE);
	CHECK_EQ(run("memory online 34"), 0);		/* outside the range */
	CHECK_EQ(run("devmem create 0x108000000 0x8000000 4k"), -EBUSY);
	CHECK(strstr(out, "test resize is working on that memory") != NULL);
	longop_cancel(&op);
	CHECK_EQ(run("memory online 33"), 0);
	CHECK_EQ(find_memory_block_by_id(33)->state, MEM_ONLINE);
	check_consistent();

	/* a contig alloc of 3 blocks is taken a block at a time: Ctrl-C frees the part taken */
	u64 free_before = global_free_pages();

	shell_interrupt_check = always_interrupted;
	CHECK_EQ(run("contig alloc 0x100000 98304"), -EINTR);
	shell_interrupt_check = NULL;
	CHECK_STREQ(out, "contig alloc: interrupted after 32768 of 98304 pages: they are freed again\n");
	CHECK_EQ(global_free_pages(), free_before);
	check_consistent();
	CHECK_EQ(run("contig alloc 0x100000 98304"), 0);
	CHECK_EQ(run("contig free 0x100000 98304"), 0);
	check_consistent();
}

/*
 * `bench contig` onlines the offline hot-added blocks and offlines them
 * again.  When offlining was refused (here: the MEM_GOING_OFFLINE error
 * injection) the blocks stayed online, yet the bench reported its numbers
 * as a success, or "online failed ... blocks left offline" on the second
 * round.  Now it fails and names the blocks it left online.
 */
HTEST(mm_cmds_bench_contig_reports_blocks_left_online)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 2), 0);
	memhp_set_inject_going_offline_error(-EBUSY);
	CHECK_EQ(run("bench contig"), -EBUSY);
	CHECK(strstr(out, "bench contig: offlining failed; left online: memory32 memory33\n") != NULL);
	CHECK_EQ(find_memory_block_by_id(32)->state, MEM_ONLINE);
	check_consistent();
	memhp_set_inject_going_offline_error(0);
	CHECK_EQ(run("memory offline 32-33"), 0);
	CHECK_EQ(run("bench contig"), 0);
	CHECK(strstr(out, "old/new total") != NULL);
	/* two blocks cannot show the walk's growth, and the bench says so */
	CHECK(strstr(out, "  bench contig: warning: only a few blocks to online; the old walk's "
			  "growth cannot show: hot-add a DIMM of 4096 MiB or more") != NULL);
	CHECK_EQ(find_memory_block_by_id(32)->state, MEM_OFFLINE);
	check_consistent();
}

/* ---- virtio-mem in the machine ------------------------------------------------ */

/* The host asks for size bytes; the driver's poller runs 100 ms later. */
static void host_request(u64 size)
{
	mcm_vmem_request(size);
	mcm_vmem_poll(10);
}


/* The driver's view: state name and plugged count of memory block id. */
static bool vmem_block_is(unsigned long id, const char *state, unsigned plugged)
{
	struct vmem_dev *vm = mcm_vmem();
	unsigned i = (unsigned)(id - vm->first_mb_id);

	if (!strcmp(vmem_mb_state_names[vm->mb_state[i]], state) && vmem_mb_nr_plugged(vm, i) == plugged)
		return true;
	fprintf(stderr, "  memory%lu: %s %u/64, expected %s %u/64\n", id,
		vmem_mb_state_names[vm->mb_state[i]], vmem_mb_nr_plugged(vm, i), state, plugged);
	return false;
}

/*
 * virtio-mem plugs 200 MiB: memory36 whole, memory37 with 36 of its 64
 * sub-blocks; the other 28 are PageOffline, owned by virtio-mem, and
 * `contig alloc` over them is refused with the reason.  A kernel
 * allocation (a contig range) and movable handles in the plugged memory;
 * then the host asks for nothing: movable pages migrate, the sub-block
 * under the contig range stays plugged and `virtio-mem` says why; once the
 * range is freed a retry unplugs the rest.  memory37's memmap, taken from
 * memory36, moves out of the way.  Every page keeps exactly one owner
 * throughout.
 */
HTEST(mm_cmds_vmem_unplug_under_contig_and_handles)
{
	boot();
	host_request(200 * MCM_MiB);
	CHECK(vmem_block_is(36, "kernel", 64));
	CHECK(vmem_block_is(37, "kernel-partial", 36));
	check_consistent();
	CHECK_EQ(run("virtio-mem"), 0);
	CHECK(strstr(out, "plugged:     200 MiB (device: 200 MiB)") != NULL);
	CHECK(strstr(out, "memory37     Normal   kernel-partial   36/64") != NULL);

	/* sub-block 36 of memory37, pfn 0x128000 + 36 * 512, is unplugged */
	CHECK_EQ(run("contig alloc 0x12c800 512"), -EBUSY);
	CHECK(strstr(out, "pfn 0x12c800: offline page (no memory to give)") != NULL);
	CHECK_EQ(run("contig alloc 0x12c600 1024 frozen"), -EBUSY);
	CHECK(strstr(out, "pfn 0x12c800: offline page") != NULL);
	CHECK_EQ(run("page 0x12c9ff"), 0);
	CHECK(strstr(out, "page_type:  0xf2000000 (offline)") && strstr(out, "refcount:   0"));
	check_consistent();

	CHECK_EQ(run("contig alloc 0x12a000 512"), 0);	/* sub-block 16 of memory37 */
	CHECK_EQ(run("alloc 9 8 movable node=1"), 0);
	CHECK_EQ(run("alloc 3 8 movable node=1 quiet"), 0);
	CHECK_EQ(run("cma alloc 100"), 0);
	check_consistent();

	/* left: the contig range's sub-block only; memory37's memmap, which
	 * lay in memory36, moved out of it and memory36 went whole */
	host_request(0);
	check_consistent();
	CHECK_EQ(mcm_vmem()->plugged_sbs, 1);
	CHECK(vmem_block_is(37, "kernel-partial", 1));
	CHECK(find_memory_block_by_id(36) == NULL);
	CHECK(pfn_to_block_id(PHYS_PFN(__nr_to_section(37)->memmap_pa)) != 36);
	CHECK_EQ(run("virtio-mem"), 0);
	CHECK(strstr(out, "stopped short: sub-block [0x12a000000, +2 MiB) of memory37 is in use") != NULL);
	CHECK_EQ(run("page 0x12a000"), 0);
	CHECK(strstr(out, "refcount:   1") != NULL);
	CHECK_EQ(run("check all"), 0);			/* the handles migrated intact */

	CHECK_EQ(run("contig free 0x12a000 512"), 0);
	CHECK_EQ(run("virtio-mem retry"), 0);
	CHECK_STREQ(out, "virtio-mem 01:00.0: plugged 0 MiB, requested 0 MiB\n");
	CHECK(find_memory_block_by_id(37) == NULL);
	CHECK_EQ(fvm.plugged, 0);
	check_consistent();
}

/*
 * A virtio-mem block offlined behind the driver's back (`memory offline`):
 * the next plug round fills that offline block first (an offline-partial
 * block), `memory online` then gives only the plugged sub-blocks to the
 * buddy; offline again, a shrink unplugs from the offline block and
 * removes it.
 */
HTEST(mm_cmds_vmem_block_offlined_behind_its_back)
{
	u64 managed;

	boot();
	host_request(200 * MCM_MiB);
	CHECK_EQ(run("memory offline 37"), 0);
	CHECK_EQ(run("virtio-mem"), 0);			/* the driver looks again */
	CHECK(vmem_block_is(37, "offline-partial", 36));
	check_consistent();
	host_request(220 * MCM_MiB);
	CHECK(vmem_block_is(37, "offline-partial", 46));
	managed = totalram_pages();
	CHECK_EQ(run("memory online 37 movable"), 0);
	CHECK_STREQ(out, "memory37: online (zone Movable, node 1)\n");
	CHECK_EQ(totalram_pages() - managed, 46 * 512);
	CHECK_EQ(run("virtio-mem"), 0);
	CHECK(vmem_block_is(37, "movable-partial", 46));
	check_consistent();
	CHECK_EQ(run("memory offline 37"), 0);
	host_request(128 * MCM_MiB);
	CHECK(find_memory_block_by_id(37) == NULL);
	CHECK(vmem_block_is(36, "kernel", 64));
	CHECK_EQ(fvm.plugged, 128 * MCM_MiB);
	check_consistent();
}

/*
 * The auto-movable online policy with virtio-mem's dynamic memory group:
 * each block is placed on its own (a unit of one block), ZONE_MOVABLE
 * while movable memory stays within auto_movable_ratio (301%) of the
 * kernel memory of the machine and of node 1: memory36 goes to Normal, the
 * other three to Movable.  Movable handles and CMA in
 * use while it shrinks: the handles migrate, intact.
 */
HTEST(mm_cmds_vmem_auto_movable_groups)
{
	unsigned movable = 0;

	boot();
	memhp_set_online_policy(ONLINE_POLICY_AUTO_MOVABLE);
	host_request(512 * MCM_MiB);
	CHECK_EQ(mcm_vmem()->plugged_sbs, 256);
	for (unsigned long id = MCM_FIRST_VMEM; id < MCM_END_BLOCK; id++) {
		struct memory_block *mem = find_memory_block_by_id(id);

		CHECK(mem && mem->state == MEM_ONLINE);
		if (mem && mem->zone && mem->zone->idx == ZONE_MOVABLE)
			movable++;
	}
	CHECK_EQ(movable, 3);
	check_consistent();
	CHECK_EQ(run("alloc 10 8 movable node=1"), 0);
	CHECK_EQ(run("cma alloc 2048"), 0);
	host_request(128 * MCM_MiB);
	CHECK_EQ(mcm_vmem()->plugged_sbs, 64);
	CHECK_EQ(run("check all"), 0);
	check_consistent();
	host_request(0);
	CHECK_EQ(mcm_vmem()->plugged_sbs, 0);
	check_consistent();
}

/* ---- memmap_on_memory ---------------------------------------------------------- */

/*
 * A DIMM added with memmap_on_memory (the knob set, as the ACPI driver
 * passes it): the first 512 pages of each block hold that block's struct
 * pages.  Online, they are PG_reserved PGTY_TABLE pages owned by the
 * memmap (the owner walk checks it), never free, and a contiguous
 * allocation over them is refused naming the block; the block still
 * offlines (its memmap goes with it), onlines again, and is ejected.
 */
HTEST(mm_cmds_memmap_on_memory_pages_belong_to_the_memmap)
{
	u64 managed;

	boot();
	memhp_set_memmap_on_memory(true);
	CHECK_EQ(mcm_dimm_add(1, 0, 2), 0);
	CHECK_EQ(find_memory_block_by_id(32)->nr_vmemmap_pages, 512);
	managed = totalram_pages();
	CHECK_EQ(run("memory online 32-33"), 0);
	CHECK_EQ(totalram_pages() - managed, 2 * (32768 - 512));
	check_consistent();
	CHECK_EQ(run("page 0x1001ff"), 0);
	CHECK(strstr(out, "flags:      0x4080000000000001 (reserved)") != NULL);
	CHECK(strstr(out, "page_type:  0xf3000000 (table)") != NULL);
	CHECK(strstr(out, "memory:     block 32's own memmap (memmap_on_memory: its first 512 pages hold its struct pages)") != NULL);
	CHECK_EQ(run("page 0x100200"), 0);	/* the first page after it */
	CHECK(strstr(out, "own memmap") == NULL);
	CHECK_EQ(run("contig alloc 0x100000 512"), -EBUSY);
	CHECK(strstr(out, "pfn 0x100000: memory block 32's own memmap (memmap_on_memory") != NULL);
	CHECK_EQ(run("contig alloc 0x1081ff 2 frozen"), -EBUSY);
	CHECK(strstr(out, "pfn 0x1081ff: memory block 33's own memmap") != NULL);
	CHECK_EQ(run("contig alloc 0x100200 512"), 0);	/* right after it: fine */
	check_consistent();
	CHECK_EQ(run("contig free 0x100200 512"), 0);
	CHECK_EQ(run("memory offline 33"), 0);
	check_consistent();
	CHECK_EQ(run("memory online 33 movable"), 0);
	check_consistent();
	CHECK_EQ(run("memory offline 32-33"), 0);
	CHECK_EQ(mcm_dimm_remove(0, 2), 0);
	check_consistent();
}

/*
 * The owner walk itself: each rule for kept pages breaks when a page is
 * changed by hand, and holds again once it is put back.  (A check that
 * cannot fail checks nothing.)
 */
HTEST(mm_cmds_owner_walk_sees_kept_pages)
{
	struct page *memmap_page, *unplugged, *plain;
	struct page saved;
	const char *why;

	boot();
	memhp_set_memmap_on_memory(true);
	CHECK_EQ(mcm_dimm_add(1, 0, 1), 0);
	CHECK_EQ(run("memory online 32"), 0);
	host_request(100 * MCM_MiB);		/* memory36: 50 of 64 sub-blocks */
	CHECK(mcm_check_owners() == NULL);

	memmap_page = pfn_to_page(0x100010);	/* memory32's own memmap */
	saved = *memmap_page;
	ClearPageReserved(memmap_page);
	memmap_page->page_type = PAGE_TYPE_NONE;	/* as if handed out */
	why = mcm_check_owners();
	CHECK(why && strstr(why, "a memmap_on_memory page is not PG_reserved PGTY_TABLE"));
	*memmap_page = saved;

	unplugged = pfn_to_page(0x120000 + 60 * 512);	/* sub-block 60 of memory36 */
	saved = *unplugged;
	unplugged->refcount = 1;
	why = mcm_check_owners();
	CHECK(why && strstr(why, "unplugged virtio-mem sub-block's page is not PageOffline"));
	*unplugged = saved;

	plain = pfn_to_page(0x120000 + 10 * 512);	/* plugged, free */
	CHECK(PageBuddy(plain) || plain->refcount == 0);
	saved = *plain;
	page_set_type(plain, PGTY_OFFLINE);
	why = mcm_check_owners();
	CHECK(why && strstr(why, "PageOffline page that no unplugged virtio-mem sub-block explains"));
	*plain = saved;

	CHECK(mcm_check_owners() == NULL);
}

/*
 * Every number reads one way.  `memory online/offline` ranges
 * name the bad end and its range (64-bit ids: a range walks the blocks
 * that exist); a range ending before it starts and an unknown online type
 * are errors that say so, not `usage:`.  Writes to the CMA debug files
 * log the file, the argument and the area's range.
 */
HTEST(mm_cmds_numbers_and_options_have_exact_errors)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 2), 0);
	CHECK_EQ(run("memory online 99999999999999999999"), -ERANGE);
	CHECK_STREQ(out, "memory: block 99999999999999999999 is out of range: 0-18446744073709551615\n");
	CHECK_EQ(run("memory online 32-99999999999999999999"), -ERANGE);
	CHECK_STREQ(out, "memory: block 99999999999999999999 is out of range: 0-18446744073709551615\n");
	CHECK_EQ(run("memory offline 3x"), -EINVAL);
	CHECK_STREQ(out, "memory: block '3x' is not a number\n");
	CHECK_EQ(run("memory offline 33-32"), -EINVAL);
	CHECK_STREQ(out, "memory: block range 33-32 ends before it starts\n");
	CHECK_EQ(run("memory online 32 sideways"), -EINVAL);
	CHECK_STREQ(out, "memory: online type 'sideways' is not one of online, online_kernel (kernel), online_movable (movable)\n");
	CHECK_EQ(find_memory_block_by_id(32)->state, MEM_OFFLINE);
	CHECK_EQ(run("alloc 0 1 2"), -EINVAL);
	CHECK_STREQ(out, "alloc: count given twice ('1' and '2'): give one\n");
	CHECK_EQ(run("contig compare 8 16"), -EINVAL);
	CHECK_STREQ(out, "contig compare: NR given twice ('8' and '16'): give one\n");

	vfs_init();		/* the VFS_FILE()s, /sys/kernel/debug/cma/cma0/ among them */
	CHECK(run("echo 99999999999999999999 > /sys/kernel/debug/cma/cma0/alloc") < 0);
	CHECK(strstr(host_last_log, "cma: cma0: alloc: count 99999999999999999999 is out of range: 1-4096 (the area's pages)") != NULL);
	CHECK(run("echo 0 > /sys/kernel/debug/cma/cma0/free") < 0);
	CHECK(strstr(host_last_log, "cma: cma0: free: count 0 is out of range: 1-4096 (the area's pages)") != NULL);
	CHECK(run("echo 12q > /sys/kernel/debug/cma/cma0/alloc") < 0);
	CHECK(strstr(host_last_log, "cma: cma0: alloc: count '12q' is not a number") != NULL);
	CHECK_EQ(run("echo 16 > /sys/kernel/debug/cma/cma0/alloc"), 0);
	CHECK_EQ(run("echo 16 > /sys/kernel/debug/cma/cma0/free"), 0);
	check_consistent();
}

/* `trace NAME on` warns when the console log level would hide the lines. */
HTEST(mm_cmds_trace_warns_when_the_log_level_hides_it)
{
	int level = printk_get_level();

	boot();
	printk_set_level(1);			/* dmesg -n 1 */
	CHECK_EQ(run("trace contig_free on"), 0);
	CHECK_STREQ(out, "trace: warning: the console shows messages up to level 1 only "
			 "(dmesg -n 1); trace lines are level 5 and will reach dmesg, not the "
			 "console: `dmesg -n 5` to see them\n");
	CHECK_EQ(run("trace contig_free off"), 0);
	CHECK_STREQ(out, "");			/* turning off needs no warning */
	printk_set_level(LOG_NOTICE);
	CHECK_EQ(run("trace contig_free on"), 0);
	CHECK_STREQ(out, "");
	CHECK_EQ(run("trace contig_free off"), 0);
	printk_set_level(level);
	check_consistent();
}

/*
 * The two characters `buddy map` drew for pageblock pfn (a row of a zone
 * whose column there is not blank: a row of two zones is drawn for each),
 * or blanks if none was drawn.
 */
static void buddy_map_cell(u64 pfn, char *mt, char *fr)
{
	static const char free_tag[] = "\n                free ";
	char key[40];
	const char *row = out;
	size_t col = (size_t)((pfn % PAGES_PER_SECTION) / pageblock_nr_pages);

	*mt = *fr = ' ';
	snprintf(key, sizeof(key), "  0x%010llx  mt   ", (unsigned long long)ALIGN_DOWN(pfn, PAGES_PER_SECTION));
	while ((row = strstr(row, key)) != NULL) {
		const char *mts = row + strlen(key), *next = strstr(mts, free_tag);

		row = mts;
		if (!next || col >= (size_t)(next - mts) || mts[col] == ' ')
			continue;
		*mt = mts[col];
		*fr = next[strlen(free_tag) + col];
		return;
	}
}

/*
 * `buddy map` draws what the free lists hold: an order-10 block taken
 * turns its two pageblocks from 'A' to '.', and back when it is freed;
 * every column agrees with a walk of the free lists; bad arguments are
 * refused with the usage or the zone names.
 */
HTEST(mm_cmds_buddy_map_follows_the_free_lists)
{
	struct page *page;
	u64 pfn;
	char mt, fr;
	struct zone *z;

	boot();
	page = alloc_pages(GFP_KERNEL, MAX_PAGE_ORDER);
	CHECK(page != NULL);
	if (!page)
		return;
	pfn = page_to_pfn(page);
	CHECK_EQ(run("buddy map"), 0);
	CHECK(strstr(out, "one column per pageblock (512 pages, 2 MiB), one row per 128 MiB block\n"));
	buddy_map_cell(pfn, &mt, &fr);
	CHECK_EQ(fr, '.');
	buddy_map_cell(pfn + pageblock_nr_pages, &mt, &fr);
	CHECK_EQ(fr, '.');
	free_pages(page, MAX_PAGE_ORDER);
	CHECK_EQ(run("buddy map"), 0);
	buddy_map_cell(pfn, &mt, &fr);
	CHECK_EQ(fr, 'A');

	/* every drawn column against the free lists, zone by zone */
	for_each_populated_zone(z) {
		char name[64];

		snprintf(name, sizeof(name), "buddy map %s", z->name);
		CHECK_EQ(run(name), 0);
		for (u64 pb = pageblock_start_pfn(z->zone_start_pfn); pb < zone_end_pfn(z);
		     pb += pageblock_nr_pages) {
			int best = -1;

			for (unsigned o = 0; o < NR_PAGE_ORDERS; o++)
				for (int t = 0; t < MIGRATE_TYPES; t++) {
					struct page *f;

					list_for_each_entry(f, &z->free_area[o].free_list[t], lru) {
						u64 s = page_to_pfn(f), e = s + (1ULL << o);

						if (s < pb + pageblock_nr_pages && pb < e && (int)o > best)
							best = (int)o;
					}
				}
			buddy_map_cell(pb, &mt, &fr);
			if (!pfn_to_online_page(pb < z->zone_start_pfn ? z->zone_start_pfn : pb))
				continue;
			CHECK_EQ(fr, best < 0 ? '.' : best < 10 ? '0' + best : 'A');
			CHECK(strchr("UMRHCI", mt) != NULL);
		}
	}
	CHECK_EQ(run("buddy map Nowhere"), -ENOENT);
	CHECK(strstr(out, "no populated zone of that name"));
	CHECK(run("buddy") != 0);
	CHECK(strstr(out, "usage: buddy map [ZONE]"));
	check_consistent();
}

/* `page` names a movable owner that is not a handle by its operations' name. */
HTEST(mm_cmds_page_names_a_movable_owner)
{
	struct test_owner o = { 0 };
	struct page *page;
	char cmd[48];

	boot();
	page = alloc_pages(GFP_KERNEL | __GFP_MOVABLE, 2);
	CHECK(page != NULL);
	if (!page)
		return;
	owner_attach(&o, page_to_pfn(page), 2, 7);
	snprintf(cmd, sizeof(cmd), "page %#llx", (unsigned long long)page_to_pfn(page) + 1);
	CHECK_EQ(run(cmd), 0);
	CHECK(strstr(out, "  owner:      test owner, movable (0x") != NULL);
	set_owner(page_to_pfn(page), 2, NULL);
	free_pages(page, 2);
	check_consistent();
}
