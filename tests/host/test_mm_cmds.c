/*
 * test_mm_cmds.c - the memory-management shell commands through
 * shell_execute() on a simulated machine (tests/host/mm_cmds_machine.h):
 * what they print, what they change, and that hostile arguments are
 * refused with a reason and change nothing.  tests/fuzz/fuzz_mm_cmds.c
 * runs the same commands with generated arguments; the inputs it found
 * bugs with are kept here as plain tests.
 *
 * The command files are compiled into this file (they are not in
 * HOST_SRCS: their SHELL_COMMAND()s would be in every host test, which is
 * harmless, but their VFS_FILE()s would appear in the file tree of the
 * other tests).  VFS_FILE() keeps each entry as an unused static, and
 * kernel/sysfs_memory.c, included for memory_block_state_store() behind
 * `memory online`, has its hooks renamed as test_sysfs_memory.c does, so
 * no per-block files are made.
 */
#include "htest.h"
#include <kernel/vfs.h>

#include "vfs_unused.h"
#define memory_sysfs_block_added	mm_cmds_test_block_added
#define memory_sysfs_block_removed	mm_cmds_test_block_removed
#define memory_sysfs_init		mm_cmds_test_sysfs_init
#define memory_block_state_store	mm_cmds_test_state_store

#include "../../kernel/cmd_contig.c"
#include "../../kernel/cmd_devmem.c"
#include "../../kernel/cmd_hotplug.c"
#include "../../kernel/cmd_handles.c"
#include "../../kernel/cmd_mm.c"
#include "../../kernel/cmd_mech.c"
#include "../../kernel/cmd_bench.c"
#include "../../kernel/sysfs_memory.c"

#include <stdlib.h>
#include <kernel/errno.h>
#include "platform_stub.h"
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
	CHECK_EQ(mcm_dimm_add(1, 0, 3, MHP_NONE), 0);
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
 * the node table (UBSan).  Now refused with the reason.
 */
HTEST(mm_cmds_page_of_an_offline_block_is_refused)
{
	boot();
	CHECK_EQ(mcm_dimm_add(1, 0, 2, MHP_NONE), 0);
	CHECK_EQ(run("page 0x100201"), -EINVAL);
	CHECK_STREQ(out, "page: pfn 0x100201: memmap not initialised: memory block 32 is offline (online it first)\n");
	CHECK_EQ(run("memory online 32"), 0);
	CHECK_EQ(run("page 0x100201"), 0);
	CHECK(strstr(out, "node 1 zone") != NULL);
	check_consistent();
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
	CHECK_EQ(mcm_dimm_add(1, 0, 2, MHP_NONE), 0);
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
	CHECK_EQ(mcm_dimm_add(1, 0, 2, MHP_NONE), 0);
	memhp_inject_going_offline_error = -EBUSY;
	CHECK_EQ(run("bench contig"), -EBUSY);
	CHECK(strstr(out, "bench contig: offlining failed; left online: memory32 memory33\n") != NULL);
	CHECK_EQ(find_memory_block_by_id(32)->state, MEM_ONLINE);
	check_consistent();
	memhp_inject_going_offline_error = 0;
	CHECK_EQ(run("memory offline 32-33"), 0);
	CHECK_EQ(run("bench contig"), 0);
	CHECK(strstr(out, "old/new total") != NULL);
	CHECK_EQ(find_memory_block_by_id(32)->state, MEM_OFFLINE);
	check_consistent();
}
