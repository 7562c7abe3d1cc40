/*
 * cmd_hotplug.c - the shell's view of memory blocks: `lsmem`, as util-linux
 * prints it, and `memory`, the hotplug core's own dump plus online/offline
 * by hand.
 *
 * lsmem.  util-linux's lsmem reads /sys/devices/system/memory (the state
 * and removable files of every memoryN) and prints one line per run of
 * blocks that are adjacent and agree in every column shown; its default
 * columns are RANGE SIZE STATE REMOVABLE BLOCK.  memlab reads the same
 * facts from the block table directly (the sysfs files print exactly
 * these) and lays them out as util-linux's table library does:
 *   - columns are separated by one space; RANGE is left-aligned, the
 *     others right-aligned; no trailing blanks;
 *   - a column is as wide as its widest cell or its header, whichever is
 *     wider; SIZE, whose width hint is 5, is widened to 5 when its widest
 *     cell is at least as wide as the header "SIZE" (so "128M" gets a
 *     column of 5 but "2G" one of 4), as util-linux's test outputs show;
 *   - STATE is "online", "offline" or "on->off" (going-offline); REMOVABLE
 *     is "yes"/"no" for online ranges and empty otherwise; BLOCK is "N" or
 *     "FIRST-LAST";
 *   - sizes are "human" with one-letter suffixes (B K M G T P E), one
 *     decimal when the value is not whole, rounded from the remainder in
 *     1024ths of the unit: 21 blocks of 128M print as "2.6G", 10 as "1.3G";
 *   - then an empty line and the summary, "%-23s %5s" per line:
 *         Memory block size:       128M
 *         Total online memory:       2G
 *         Total offline memory:      0B
 *     (with -b the sizes are bytes, "%-23s %15s").
 * Options: -a (every block on its own line), -b (bytes), -n (no header).
 *
 * memory.  `memory` prints memory_hotplug_dump(); `memory online N [TYPE]`
 * and `memory offline N` do exactly what `echo TYPE > .../memoryN/state`
 * does (the same function, memory_block_state_store()), for one block or a
 * range N-M, and say which zone the block went to or why it could not.
 *
 * Context: (main).
 */
#include <lib/errno.h>
#include <kernel/longop.h>
#include <shell/shell.h>
#include <shell/args.h>
#include <lib/string.h>
#include <mm/memory_hotplug.h>
#include <views/memory_sysfs.h>

/* ---- lsmem ---------------------------------------------------------------- */

/* A run of blocks [first, first + count) printed as one line. */
struct lsmem_range {
	unsigned long first;		/* id of the first block */
	unsigned long count;		/* blocks in the run */
	enum memory_block_state state;	/* shared by all of them */
	bool removable;			/* shared by all of them */
};

struct lsmem_opts {
	bool all;		/* -a: one line per block */
	bool bytes;		/* -b: sizes in bytes */
	bool noheadings;	/* -n */
};

/* The first existing block with an id >= from, or NULL. */
static struct memory_block *block_at_or_after(unsigned long from)
{
	unsigned long id = from;

	return memory_block_next(&id);
}

/* memoryN/removable: memlab can offline every block, as Linux says. */
static bool block_removable(const struct memory_block *mem)
{
	(void)mem;
	return true;
}

/*
 * The run that starts at the first block with id >= *cursor: following
 * blocks join while their ids are consecutive and state and removable
 * agree (never with opts->all).  *cursor moves past the run.  Returns
 * false when no block is left.
 */
static bool lsmem_next_range(unsigned long *cursor, const struct lsmem_opts *opts,
			     struct lsmem_range *r)
{
	struct memory_block *mem = block_at_or_after(*cursor);

	if (!mem)
		return false;
	r->first = mem->block_id;
	r->count = 1;
	r->state = mem->state;
	r->removable = block_removable(mem);
	while (!opts->all) {
		struct memory_block *next = find_memory_block_by_id(r->first + r->count);

		if (!next || next->state != r->state || block_removable(next) != r->removable)
			break;
		r->count++;
	}
	*cursor = r->first + r->count;
	return true;
}

/*
 * util-linux's one-letter human size: the largest unit the value reaches,
 * the whole part, and one decimal unless it rounds to zero (a decimal that
 * rounds to 10 carries into the whole part).
 */
static void human_size(u64 bytes, char *buf, size_t size)
{
	static const char suffix[] = "BKMGTPE";
	unsigned unit = 0;	/* power of 1024 */
	u64 whole, frac = 0;

	while (unit < 6 && bytes >= (1ULL << (10 * (unit + 1))))
		unit++;
	whole = bytes >> (10 * unit);
	if (unit) {
		u64 rest = bytes & ((1ULL << (10 * unit)) - 1);

		/* the remainder in 1024ths of the unit, to tenths, rounded */
		frac = ((rest >> (10 * (unit - 1))) + 50) / 100;
		if (frac == 10) {
			whole++;
			frac = 0;
		}
	}
	if (frac)
		ksnprintf(buf, size, "%llu.%llu%c", (unsigned long long)whole,
			  (unsigned long long)frac, suffix[unit]);
	else
		ksnprintf(buf, size, "%llu%c", (unsigned long long)whole, suffix[unit]);
}

/* The cells of one line. */
struct lsmem_cells {
	char range[40];
	char size[24];
	const char *state;
	const char *removable;
	char block[48];
};

static void lsmem_cells(const struct lsmem_range *r, const struct lsmem_opts *opts,
			struct lsmem_cells *c)
{
	u64 start = (u64)r->first * memory_block_size_bytes();
	u64 bytes = (u64)r->count * memory_block_size_bytes();

	ksnprintf(c->range, sizeof(c->range), "0x%016llx-0x%016llx", (unsigned long long)start,
		  (unsigned long long)(start + bytes - 1));
	if (opts->bytes)
		ksnprintf(c->size, sizeof(c->size), "%llu", (unsigned long long)bytes);
	else
		human_size(bytes, c->size, sizeof(c->size));
	c->state = r->state == MEM_ONLINE ? "online" :
		   r->state == MEM_OFFLINE ? "offline" :
		   r->state == MEM_GOING_OFFLINE ? "on->off" : "?";
	c->removable = r->state == MEM_ONLINE ? (r->removable ? "yes" : "no") : "";
	if (r->count == 1)
		ksnprintf(c->block, sizeof(c->block), "%lu", r->first);
	else
		ksnprintf(c->block, sizeof(c->block), "%lu-%lu", r->first, r->first + r->count - 1);
}

/* Column widths: the widest cell or the header; SIZE's width hint (5). */
enum { COL_RANGE, COL_SIZE, COL_STATE, COL_REMOVABLE, COL_BLOCK, NR_COLS };
static const char *const col_header[NR_COLS] = { "RANGE", "SIZE", "STATE", "REMOVABLE", "BLOCK" };
#define SIZE_WIDTH_HINT	5

static size_t width_of(size_t widest_cell, size_t header, size_t hint)
{
	if (widest_cell < header)
		return header;
	return widest_cell < hint ? hint : widest_cell;
}

static int cmd_lsmem(struct printer *out, int argc, char **argv)
{
	struct lsmem_opts opts = { 0 };
	size_t widest[NR_COLS] = { 0 }, w[NR_COLS];
	u64 online = 0, offline = 0;
	unsigned long cursor = 0;
	struct lsmem_range r;
	struct lsmem_cells c;
	char a[24], b[24], d[24];

	for (int i = 1; i < argc; i++) {
		const char *s = argv[i];

		if (!strcmp(s, "--all"))
			opts.all = true;
		else if (!strcmp(s, "--bytes"))
			opts.bytes = true;
		else if (!strcmp(s, "--noheadings"))
			opts.noheadings = true;
		else if (s[0] == '-' && s[1] && s[1] != '-') {
			for (s++; *s; s++) {
				if (*s == 'a')
					opts.all = true;
				else if (*s == 'b')
					opts.bytes = true;
				else if (*s == 'n')
					opts.noheadings = true;
				else
					return shell_usage(out, shell_find("lsmem"));
			}
		} else {
			return shell_usage(out, shell_find("lsmem"));
		}
	}

	/* First pass: widths and totals. */
	while (lsmem_next_range(&cursor, &opts, &r)) {
		u64 bytes = (u64)r.count * memory_block_size_bytes();

		lsmem_cells(&r, &opts, &c);
		widest[COL_RANGE] = MAX(widest[COL_RANGE], strlen(c.range));
		widest[COL_SIZE] = MAX(widest[COL_SIZE], strlen(c.size));
		widest[COL_STATE] = MAX(widest[COL_STATE], strlen(c.state));
		widest[COL_REMOVABLE] = MAX(widest[COL_REMOVABLE], strlen(c.removable));
		widest[COL_BLOCK] = MAX(widest[COL_BLOCK], strlen(c.block));
		if (r.state == MEM_ONLINE)
			online += bytes;
		else
			offline += bytes;
	}
	if (!cursor) {
		pr_printf(out, "lsmem: no memory blocks in /sys/devices/system/memory\n");
		return -ENOENT;
	}
	for (int i = 0; i < NR_COLS; i++)
		w[i] = width_of(widest[i], strlen(col_header[i]), i == COL_SIZE ? SIZE_WIDTH_HINT : 0);

	/* Second pass: the table. */
	if (!opts.noheadings)
		pr_printf(out, "%-*s %*s %*s %*s %*s\n", (int)w[COL_RANGE], col_header[COL_RANGE],
			  (int)w[COL_SIZE], col_header[COL_SIZE], (int)w[COL_STATE],
			  col_header[COL_STATE], (int)w[COL_REMOVABLE], col_header[COL_REMOVABLE],
			  (int)w[COL_BLOCK], col_header[COL_BLOCK]);
	cursor = 0;
	while (lsmem_next_range(&cursor, &opts, &r)) {
		lsmem_cells(&r, &opts, &c);
		pr_printf(out, "%-*s %*s %*s %*s %*s\n", (int)w[COL_RANGE], c.range,
			  (int)w[COL_SIZE], c.size, (int)w[COL_STATE], c.state,
			  (int)w[COL_REMOVABLE], c.removable, (int)w[COL_BLOCK], c.block);
	}

	pr_printf(out, "\n");
	if (opts.bytes) {
		pr_printf(out, "%-23s %15llu\n", "Memory block size:",
			  (unsigned long long)memory_block_size_bytes());
		pr_printf(out, "%-23s %15llu\n", "Total online memory:", (unsigned long long)online);
		pr_printf(out, "%-23s %15llu\n", "Total offline memory:", (unsigned long long)offline);
	} else {
		human_size(memory_block_size_bytes(), a, sizeof(a));
		human_size(online, b, sizeof(b));
		human_size(offline, d, sizeof(d));
		pr_printf(out, "%-23s %5s\n", "Memory block size:", a);
		pr_printf(out, "%-23s %5s\n", "Total online memory:", b);
		pr_printf(out, "%-23s %5s\n", "Total offline memory:", d);
	}
	return 0;
}

SHELL_COMMAND(lsmem, .name = "lsmem", .usage = "lsmem [-a] [-b] [-n]",
	      .summary = "list the memory blocks by range and state, as util-linux lsmem",
	      .help = "The default output of util-linux's lsmem: adjacent memory blocks\n"
		      "with the same state and removability are merged into one line\n"
		      "(RANGE SIZE STATE REMOVABLE BLOCK), then the block size and the\n"
		      "online and offline totals.  STATE on->off is a block going offline.\n"
		      "-a lists every block, -b prints sizes in bytes, -n drops the header.\n"
		      "The same facts are in /sys/devices/system/memory/memoryN/.",
	      .fn = cmd_lsmem);

/* ---- memory --------------------------------------------------------------- */

/*
 * "N" or "N-M" (block ids, inclusive; also "memoryN"), each end read by
 * shell_arg_u64() as `memory`'s "block" argument, so a bad or overflowing
 * id is named with its range (any 64-bit id: a range is walked over the
 * blocks that exist); M below N is an error too.  Prints the
 * error and returns -EINVAL or -ERANGE.
 */
static int parse_block_range(struct printer *out, const char *s, unsigned long *first,
			     unsigned long *last)
{
	char buf[48];
	char *dash;
	u64 a, b;
	int err;

	if (!strncmp(s, "memory", 6))
		s += 6;
	if (strlcpy(buf, s, sizeof(buf)) >= sizeof(buf)) {
		pr_printf(out, "memory: block range '%s' is too long (N or N-M)\n", s);
		return -EINVAL;
	}
	dash = strchr(buf, '-');
	if (dash)
		*dash = '\0';
	err = shell_arg_u64(out, "memory", "block", buf, 0, ~0ULL, NULL, &a);
	if (err)
		return err;
	b = a;
	if (dash) {
		err = shell_arg_u64(out, "memory", "block", dash + 1, 0, ~0ULL, NULL, &b);
		if (err)
			return err;
	}
	if (b < a) {
		pr_printf(out, "memory: block range %llu-%llu ends before it starts\n",
			  (unsigned long long)a, (unsigned long long)b);
		return -EINVAL;
	}
	*first = (unsigned long)a;
	*last = (unsigned long)b;
	return 0;
}

/* The state-file word for a TYPE argument: "movable" is short for "online_movable". */
static const char *online_word(const char *type)
{
	if (!type || !strcmp(type, "online"))
		return "online";
	if (!strcmp(type, "kernel") || !strcmp(type, "online_kernel"))
		return "online_kernel";
	if (!strcmp(type, "movable") || !strcmp(type, "online_movable"))
		return "online_movable";
	return NULL;
}

/* Why a state write failed, in words, for the errors state_store() gives. */
static const char *state_error_hint(const struct memory_block *mem, bool online, int err)
{
	if (err == -EINVAL && online && mem->state != MEM_OFFLINE)
		return " (the block is not offline)";
	if (err == -EINVAL && !online && mem->state != MEM_ONLINE)
		return " (the block is not online)";
	if (err == -EBUSY && online)
		return " (the block is in use as device memory: devmem list)";
	if (err == -EBUSY)
		return " (pages that cannot move: the log above names the first)";
	if (err == -EINVAL)
		return " (no zone can take the block, or a notifier refused: see the log)";
	return "";
}

/* The memory blocks that exist in [first, last]. */
static u64 blocks_in(unsigned long first, unsigned long last)
{
	unsigned long id = first;
	u64 n = 0;

	for (; memory_block_next(&id) && id <= last; id++) {
		n++;
		if (id == ~0UL)
			break;
	}
	return n;
}

/*
 * As a job, memory N-M holds the physical range of the blocks it will
 * change: a state write, a `devmem create` or another range there is
 * refused while it runs (the same rule as for hotplug's own operations).
 */
static void claim_blocks(unsigned long first, unsigned long last)
{
	unsigned long id = first, lo = 0, hi = 0;
	bool any = false;

	if (!shell_job_longop())
		return;
	for (; memory_block_next(&id) && id <= last; id++) {
		if (!any)
			lo = id;
		hi = id;
		any = true;
		if (id == ~0UL)
			break;
	}
	shell_progress(0, blocks_in(first, last), "blocks");
	if (any)
		shell_claim_range((u64)lo * MEMORY_BLOCK_SIZE, ((u64)hi + 1) * MEMORY_BLOCK_SIZE);
}

/*
 * memory online/offline of one block, or of every existing block in N-M:
 * the range is walked through the block table (memory_block_next), so its
 * cost is the blocks that exist, not the width of the range the user typed
 * (0-18446744073709551615 included).  A range without any block is an
 * error, as a missing single block is.  Stops at the first failure, the
 * blocks done so far staying done.  Context: (main).
 */
static int memory_set(struct printer *out, bool online, const char *range, const char *type)
{
	const char *word = online ? online_word(type) : "offline";
	unsigned long first, last, id, done = 0;
	struct memory_block *mem;
	int perr;

	if (!word) {
		pr_printf(out, "memory: online type '%s' is not one of online, online_kernel (kernel), online_movable (movable)\n",
			  type);
		return -EINVAL;
	}
	perr = parse_block_range(out, range, &first, &last);
	if (perr)
		return perr;
	claim_blocks(first, last);
	for (id = first; (mem = memory_block_next(&id)) && id <= last; id++) {
		u64 pa = (u64)id * MEMORY_BLOCK_SIZE;
		char head[48];

		ksnprintf(head, sizeof(head), "memory: memory%lu: busy: ", id);
		if (shell_range_busy(out, pa, pa + MEMORY_BLOCK_SIZE, head, "it", true))
			return -EBUSY;
		int err = memory_block_state_store(id, word, strlen(word));

		if (err) {
			pr_printf(out, "memory: memory%lu: cannot %s: %s%s\n", id,
				  online ? word : "offline", err_text(err),
				  state_error_hint(mem, online, err));
			return err;
		}
		if (mem->state == MEM_ONLINE && mem->zone)
			pr_printf(out, "memory%lu: online (zone %s, node %d)\n", id, mem->zone->name,
				  mem->nid);
		else
			pr_printf(out, "memory%lu: %s\n", id, mem->state == MEM_ONLINE ? "online" :
				  mem->state == MEM_OFFLINE ? "offline" : "going-offline");
		done++;
		shell_progress(done, blocks_in(first, last), "blocks");
		if (id == ~0UL)
			break;
		if (id < last && shell_checkpoint()) {
			pr_printf(out, "memory: interrupted after %lu blocks: they stay %s\n", done,
				  online ? "online" : "offline");
			return -EINTR;
		}
	}
	if (!done) {
		if (first == last)
			pr_printf(out, "memory: memory%lu: no such memory block\n", first);
		else
			pr_printf(out, "memory: no memory block in %lu-%lu (see lsmem)\n", first, last);
		return -ENODEV;
	}
	if (first != last)
		pr_printf(out, "memory: %lu blocks %s\n", done, online ? "onlined" : "offlined");
	return 0;
}

static int cmd_memory(struct printer *out, int argc, char **argv)
{
	if (argc == 1) {
		memory_hotplug_dump(out);
		return 0;
	}
	if (!strcmp(argv[1], "online") && (argc == 3 || argc == 4))
		return memory_set(out, true, argv[2], argc == 4 ? argv[3] : NULL);
	if (!strcmp(argv[1], "offline") && argc == 3)
		return memory_set(out, false, argv[2], NULL);
	return shell_usage(out, shell_find("memory"));
}

/* A range N-M may be thousands of blocks: it runs as a job. */
static bool memory_runs_long(int argc, char **argv)
{
	return argc >= 3 && (!strcmp(argv[1], "online") || !strcmp(argv[1], "offline")) &&
	       strchr(argv[2], '-');
}

SHELL_COMMAND(memory, .name = "memory",
	      .usage = "memory [online N[-M] [online|online_kernel|online_movable] | offline N[-M]]",
	      .summary = "memory blocks and hotplug state; online or offline blocks by hand",
	      .help = "Without arguments: the hotplug core's dump (blocks by range and\n"
		      "state, memory groups, the policy knobs, counters).\n"
		      "`memory online N [TYPE]` and `memory offline N` do what\n"
		      "`echo TYPE > /sys/devices/system/memory/memoryN/state` does, with\n"
		      "the same errors (Invalid argument: wrong state for that change;\n"
		      "Device or resource busy: unmovable pages), and print the zone the\n"
		      "block joined.  N-M does a range of blocks, skipping ids that are\n"
		      "not memory, and stops at the first failure.  TYPE may be written\n"
		      "kernel or movable for short; the default is online (the policy\n"
		      "in /sys/module/memory_hotplug/parameters/online_policy chooses).\n"
		      "A range runs as a job (see `help jobs`): the console answers\n"
		      "meanwhile, Ctrl-C stops it after the block it is on (the blocks\n"
		      "done stay done), and the range is busy for other state changes.",
	      .fn = cmd_memory,
	      .runs_long = memory_runs_long);
