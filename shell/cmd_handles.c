/*
 * cmd_handles.c - the allocation handles: alloc, free, drain, fill, check,
 * move, handles.  Allocate blocks by hand, write patterns into them, move
 * them, and watch the allocator (and offlining, and migration) treat them.
 *
 * Handles.  `alloc ORDER [COUNT]` asks alloc_pages() for COUNT blocks of
 * 2^ORDER pages and keeps each in a handle, numbered from 1 and never
 * reused, so a stale number is recognised as "already freed" instead of
 * silently naming a newer block.  The table is a fixed array of
 * MM_MAX_HANDLES slots; a handle id is found by a scan (4096 slots take
 * microseconds, and the shell is not a fast path).
 *
 * Every page of a handle's block carries page->index = the handle's id.
 * A movable handle (`alloc ... movable`) is also a movable owner
 * (migrate.h): struct mm_handle starts with a struct movable_owner, every
 * page of its block has page->owner pointing at it, and its
 * movable_operations tell migration where the block starts (block_of) and
 * take the news of a move (moved).  That is how memory offlining and
 * `move` migrate the block, the handle following its data.  An unmovable
 * handle leaves page->owner NULL, so migration sees a page without a
 * movable owner -- unmovable, and offlining refuses it, as it should; its
 * pages are still found from page->index.  `page PFN` names the handle of
 * either kind.  The handle stores the head page, so `check` always reads
 * the block where it is now.
 *
 * Patterns.  `fill` writes, into each 8-byte word of the block, a value
 * made of the pattern and the word's offset in the block; `check` recomputes
 * it.  Because the value depends on the offset in the block and not on the
 * pfn, a block that was migrated still checks, while a word copied to the
 * wrong place, a stale page or a lost write shows up at its exact pfn and
 * offset.
 *
 * Context: (main).
 */
#include <shell/mm_handles.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <shell/args.h>
#include <shell/shell.h>
#include "internal.h"
#include <lib/string.h>
#include <mm/buddy.h>
#include <mm/memblock.h>
#include <mm/migrate.h>
#include <mm/mm_init.h>
#include <views/mm_views.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>

struct mm_handle handles[MM_MAX_HANDLES];
unsigned long next_handle_id = 1;
unsigned nr_live_handles;

static unsigned long order_kb(unsigned order)
{
	return (PAGE_SIZE << order) >> 10;
}

static const char *gfp_type_name(gfp_t gfp)
{
	return gfp & __GFP_MOVABLE ? "movable" : "unmovable";
}

static bool is_handle(const void *owner)
{
	const struct mm_handle *h = owner;

	return h >= handles && h < handles + MM_MAX_HANDLES &&
	       ((uintptr_t)h - (uintptr_t)handles) % sizeof(*h) == 0 && h->id;
}

/* The live handle with this id, or NULL. */
static struct mm_handle *handle_find(unsigned long id)
{
	if (!id || id >= next_handle_id)
		return NULL;
	for (unsigned i = 0; i < MM_MAX_HANDLES; i++)
		if (handles[i].id == id)
			return &handles[i];
	return NULL;
}

static struct mm_handle *handle_slot_alloc(void)
{
	static unsigned hint;

	for (unsigned n = 0; n < MM_MAX_HANDLES; n++) {
		unsigned i = (hint + n) % MM_MAX_HANDLES;

		if (!handles[i].id) {
			hint = i + 1;
			return &handles[i];
		}
	}
	return NULL;
}

/*
 * Mark (or unmark, h == NULL) every page of the block as the handle's:
 * index = id always, owner = the handle's movable_owner only if movable.
 */
static void block_set_owner(struct page *head, unsigned order, struct mm_handle *h)
{
	struct movable_owner *owner = h && (h->gfp & __GFP_MOVABLE) ? &h->mo : NULL;

	set_block_owner(head, order, owner, h ? h->id : 0);
}

/*
 * The live handle whose block holds page: through page->owner for a
 * movable handle, through page->index (checked against the handle's
 * block) for an unmovable one; NULL if none.
 */
static struct mm_handle *handle_of_page(const struct page *page)
{
	struct mm_handle *h = page->owner;

	if (is_handle(h))
		return h;
	if (page->owner || !page->index || page->refcount < 1)
		return NULL;
	h = handle_find(page->index);
	if (h && page >= h->page && page < h->page + (1UL << h->order))
		return h;
	return NULL;
}

/* Contract in include/shell/mm_handles.h. */
unsigned long mm_handle_of(const struct page *page)
{
	const struct mm_handle *h = handle_of_page(page);

	return h ? h->id : 0;
}

/* mm_handle_block() - the head (and *order) of the live handle's block that
 * page belongs to, or NULL: the movable owner's block_of(). */
static struct page *mm_handle_block(const struct page *page, unsigned *order)
{
	const struct mm_handle *h = handle_of_page(page);

	if (!h)
		return NULL;
	*order = h->order;
	return h->page;
}

/*
 * mm_handles_page_moved() - the movable owner's moved(): the block that
 * old_head started was copied to new_head (same order); the handle now
 * points at the new block, owner and index set on every new page and
 * cleared on every old one.  Pages of no live handle are ignored (logged
 * once).  Context: (main), from migration.
 */
static void mm_handles_page_moved(struct page *old_head, struct page *new_head)
{
	static bool warned;
	struct mm_handle *h = handle_of_page(old_head);

	if (!h || h->page != old_head) {
		if (!warned)
			pr_warn("mm_handles_page_moved: pfn 0x%llx is not the head of a handle's block",
				(unsigned long long)page_to_pfn(old_head));
		warned = true;
		return;
	}
	block_set_owner(new_head, h->order, h);
	block_set_owner(old_head, h->order, NULL);
	h->page = new_head;
}

/* movable_operations of a movable handle: migration asks where its block is. */
static bool handle_block_of(struct page *page, struct page **head, unsigned *order)
{
	*head = mm_handle_block(page, order);
	return *head != NULL;
}

/* ... and tells it that the block moved (contents already copied). */
static void handle_moved(struct page *old_head, struct page *new_head, unsigned order)
{
	mm_handles_page_moved(old_head, new_head);
}

static const struct movable_operations handle_movable_ops = {
	.name = "shell handle",
	.block_of = handle_block_of,
	.moved = handle_moved,
};

/* A handle number from the shell; prints why not and returns NULL. */
static struct mm_handle *handle_arg(struct printer *out, const char *cmd, const char *arg)
{
	struct mm_handle *h;
	u64 id;

	if (shell_arg_u64(out, cmd, "handle", arg, 0, ~0ULL, NULL, &id))
		return NULL;
	h = handle_find(id);
	if (h)
		return h;
	if (id && id < next_handle_id)
		pr_printf(out, "%s: handle %llu was already freed\n", cmd, (unsigned long long)id);
	else if (next_handle_id == 1)
		pr_printf(out, "%s: no handle %llu: nothing was allocated yet\n", cmd,
			  (unsigned long long)id);
	else
		pr_printf(out, "%s: no handle %llu: handles given so far are 1-%lu\n", cmd,
			  (unsigned long long)id, next_handle_id - 1);
	return NULL;
}

/* ---- alloc ---------------------------------------------------------------- */

/* Contract in shell/internal.h. */
struct mm_handle *mm_handle_alloc(unsigned order, gfp_t gfp, int nid, int *err)
{
	struct mm_handle *h = handle_slot_alloc();
	struct page *page;

	if (!h) {
		*err = -ENOSPC;
		return NULL;
	}
	page = nid == NUMA_NO_NODE ? alloc_pages(gfp, order) : alloc_pages_node(nid, gfp, order);
	if (!page) {
		*err = -ENOMEM;
		return NULL;
	}
	*h = (struct mm_handle){
		.mo.ops = &handle_movable_ops, .id = next_handle_id++, .page = page,
		.order = order, .gfp = gfp,
	};
	block_set_owner(page, h->order, h);
	nr_live_handles++;
	*err = 0;
	return h;
}

static void print_handle_line(struct printer *out, const struct mm_handle *h)
{
	const struct page *page = h->page;

	pr_printf(out, "handle %lu: pfn 0x%llx order %u (%lu KiB) node %d zone %s %s\n", h->id,
		  (unsigned long long)page_to_pfn(page), h->order, order_kb(h->order),
		  page_to_nid(page), zone_names[page_zonenum(page)], gfp_type_name(h->gfp));
}

/*
 * An option that picks one of two things (movable/unmovable, node=N) may
 * be repeated with the same value; a second, different value contradicts
 * the first and is refused.
 */
static int alloc_contradiction(struct printer *out, const char *first, const char *second)
{
	pr_printf(out, "alloc: '%s' and '%s' contradict each other: give one\n", first, second);
	return -EINVAL;
}

static int cmd_alloc(struct printer *out, int argc, char **argv)
{
	u64 order, count = 1, val;
	int nid = NUMA_NO_NODE, err;
	bool movable = false, quiet = false, have_count = false;
	const char *type_word = NULL, *node_word = NULL, *count_word = NULL;
	unsigned long first_id = 0, done = 0;
	char why[64];
	gfp_t gfp;

	if (argc < 2)
		return shell_usage(out, shell_find("alloc"));
	ksnprintf(why, sizeof(why), "MAX_PAGE_ORDER, %lu KiB blocks", order_kb(MAX_PAGE_ORDER));
	err = shell_arg_u64(out, "alloc", "order", argv[1], 0, MAX_PAGE_ORDER, why, &order);
	if (err)
		return err;
	for (int i = 2; i < argc; i++) {
		const char *w = argv[i];

		if (!strcmp(w, "movable") || !strcmp(w, "unmovable")) {
			if (type_word && strcmp(type_word, w))
				return alloc_contradiction(out, type_word, w);
			type_word = w;
			movable = !strcmp(w, "movable");
		} else if (!strcmp(w, "quiet")) {
			quiet = true;
		} else if (!strncmp(w, "node=", 5)) {
			err = shell_arg_u64(out, "alloc", "node", w + 5, 0, MAX_NUMNODES - 1,
					    "MAX_NUMNODES", &val);
			if (err)
				return err;
			if (!NODE_DATA(val)->online) {
				pr_printf(out, "alloc: %s: not an online node\n", w);
				return -EINVAL;
			}
			if (node_word && nid != (int)val)
				return alloc_contradiction(out, node_word, w);
			node_word = w;
			nid = (int)val;
		} else if (w[0] >= '0' && w[0] <= '9') {
			if (have_count) {
				pr_printf(out, "alloc: count given twice ('%s' and '%s'): give one\n",
					  count_word, w);
				return -EINVAL;
			}
			ksnprintf(why, sizeof(why), "the handle table's size");
			err = shell_arg_u64(out, "alloc", "count", w, 1, MM_MAX_HANDLES, why, &count);
			if (err)
				return err;
			have_count = true;
			count_word = w;
		} else {
			return shell_usage(out, shell_find("alloc"));
		}
	}

	gfp = (movable ? __GFP_MOVABLE : GFP_KERNEL) | __GFP_NOWARN;
	for (; done < count; done++) {
		struct mm_handle *h = mm_handle_alloc((unsigned)order, gfp, nid, &err);

		if (!h && err == -ENOSPC) {
			pr_printf(out, "alloc: the handle table is full (%d handles): free some first; "
				  "%lu of %llu allocated\n", MM_MAX_HANDLES, done,
				  (unsigned long long)count);
			return -ENOSPC;
		}
		if (!h) {
			pr_printf(out, "alloc: order %llu: no free block for a%s %s allocation "
				  "(node %d first, above the watermarks); %lu of %llu allocated\n",
				  (unsigned long long)order, movable ? "" : "n",
				  gfp_type_name(gfp), nid == NUMA_NO_NODE ? 0 : nid,
				  done, (unsigned long long)count);
			return -ENOMEM;
		}
		if (!first_id)
			first_id = h->id;
		if (!quiet)
			print_handle_line(out, h);
	}
	if (quiet || count > 1)
		pr_printf(out, "alloc: %lu blocks of order %llu (%lu KiB): handles %lu-%lu\n", done,
			  (unsigned long long)order, done * order_kb((unsigned)order), first_id,
			  next_handle_id - 1);
	return 0;
}

SHELL_COMMAND(alloc, .name = "alloc",
	      .usage = "alloc ORDER [COUNT] [movable|unmovable] [node=N] [quiet]",
	      .summary = "allocate COUNT blocks of 2^ORDER pages and keep them as handles",
	      .help = "Each block comes from alloc_pages() (node=N: alloc_pages_node, which\n"
		      "prefers node N and falls back by distance) and gets a handle number,\n"
		      "printed with the block's pfn, size, node and zone.  unmovable (the\n"
		      "default) may use zones up to Normal; movable may also use Movable.\n"
		      "Stops at the first failure.  quiet prints only the summary line.\n"
		      "See also: free, fill, check, handles, page PFN.",
	      .fn = cmd_alloc);

/* ---- free ----------------------------------------------------------------- */

/*
 * Give the block back; the handle goes only if the allocator took it.  A
 * refusal ("BUG: Bad page state" in the log: someone broke the block's
 * struct pages) keeps the handle, so the block can still be inspected.
 */
static int handle_free(struct printer *out, struct mm_handle *h)
{
	u64 pfn = page_to_pfn(h->page);
	unsigned long id = h->id;
	int err = mm_handle_release(h);

	if (err)
		pr_printf(out, "free: handle %lu: the allocator refused pfn 0x%llx order %u (%s); "
			  "the handle is kept\n", id, (unsigned long long)pfn,
			  h->order, err_text(err));
	return err;
}

/* Contract in shell/internal.h. */
int mm_handle_release(struct mm_handle *h)
{
	struct page *page = h->page;
	int err;

	block_set_owner(page, h->order, NULL);
	err = zone_free_pages(page_zone(page), page, h->order);
	if (err) {
		block_set_owner(page, h->order, h);
		return err;
	}
	h->id = 0;
	h->page = NULL;
	nr_live_handles--;
	return 0;
}

static int cmd_free(struct printer *out, int argc, char **argv)
{
	struct mm_handle *h;
	unsigned long id;
	unsigned order;
	u64 pfn;
	int err;

	if (argc != 2)
		return shell_usage(out, shell_find("free"));
	if (!strcmp(argv[1], "all")) {
		unsigned long n = 0, kb = 0;
		int ret = 0;

		for (unsigned i = 0; i < MM_MAX_HANDLES; i++) {
			unsigned block_order = handles[i].order;

			if (!handles[i].id)
				continue;
			if (handle_free(out, &handles[i])) {
				ret = -EIO;
				continue;
			}
			kb += order_kb(block_order);
			n++;
		}
		pr_printf(out, "free: %lu handles freed (%lu KiB)\n", n, kb);
		return ret;
	}
	h = handle_arg(out, "free", argv[1]);
	if (!h)
		return -EINVAL;
	id = h->id;
	pfn = page_to_pfn(h->page);
	order = h->order;
	err = handle_free(out, h);
	if (!err)
		pr_printf(out, "handle %lu: freed pfn 0x%llx order %u (%lu KiB)\n", id,
			  (unsigned long long)pfn, order, order_kb(order));
	return err;
}

SHELL_COMMAND(free, .name = "free", .usage = "free HANDLE|all",
	      .summary = "give a handle's block (or every handle's) back to the allocator",
	      .help = "free_pages() of the block.  A handle number that was already freed\n"
		      "or never given is refused, and nothing changes.",
	      .fn = cmd_free);

/*
 * Every zone's lists of every CPU to the buddy, each CPU's drained on that
 * CPU when it is free to (pcp_drain_each_cpu()): the total, then the CPUs
 * whose lists had pages, each with where its lists were drained.
 */
static int cmd_drain(struct printer *out, int argc, char **argv)
{
	static struct pcp_drain_report r;	/* 1 KiB: not on the stack */
	unsigned long pages = 0;
	const char *sep = " (";
	unsigned cpu, self = mm_this_cpu();

	if (argc != 1)
		return shell_usage(out, shell_find("drain"));
	pcp_drain_each_cpu(NULL, &r);
	for_each_pcp_cpu(cpu)
		pages += r.pages[cpu];
	pr_printf(out, "drain: %lu pages moved from the per-CPU lists to the buddy", pages);
	for_each_pcp_cpu(cpu) {
		if (!r.pages[cpu])
			continue;
		pr_printf(out, "%scpu %u: %lu", sep, cpu, r.pages[cpu]);
		if (cpu != self)
			pr_printf(out, r.where[cpu] == PCP_DRAIN_THERE ? " on cpu %u" :
				  " from cpu %u (it was busy)", r.where[cpu] == PCP_DRAIN_THERE ? cpu : self);
		sep = ", ";
	}
	pr_printf(out, "%s\n", pages ? ")" : "");
	return 0;
}

SHELL_COMMAND(drain, .name = "drain", .usage = "drain",
	      .summary = "empty the per-CPU page lists of every zone into the buddy",
	      .help = "Every CPU's lists of every zone, each drained on its own CPU (a\n"
		      "work item; one that runs other work is drained from here), as Linux's\n"
		      "drain_all_pages().  The pages stay free: they move from the pcp\n"
		      "lists (zoneinfo's pagesets count) to the buddy (buddyinfo), where\n"
		      "they merge, and MemFree (the buddy only, as Linux's NR_FREE_PAGES)\n"
		      "rises by as many.  Prints the total and what came back from each\n"
		      "CPU's lists, and where they were drained.",
	      .fn = cmd_drain);

/* ---- fill and check ------------------------------------------------------- */

/* The value of the 8-byte word at byte offset off of a block filled with pattern. */
static u64 pattern_word(u64 pattern, u64 off)
{
	return pattern ^ (((off >> 3) + 1) * 0x9e3779b97f4a7c15ULL);
}

/* A number is the pattern itself; any other word is hashed (FNV-1a). */
static u64 pattern_from_arg(const char *arg)
{
	u64 v;

	if (!parse_u64(arg, &v))
		return v;
	v = 0xcbf29ce484222325ULL;
	for (const char *s = arg; *s; s++)
		v = (v ^ (u8)*s) * 0x100000001b3ULL;
	return v;
}

static int cmd_fill(struct printer *out, int argc, char **argv)
{
	struct mm_handle *h;
	u64 pattern;

	if (argc != 3)
		return shell_usage(out, shell_find("fill"));
	h = handle_arg(out, "fill", argv[1]);
	if (!h)
		return -EINVAL;
	pattern = pattern_from_arg(argv[2]);
	for (unsigned long i = 0; i < (1UL << h->order); i++) {
		u64 *word = mm_phys_to_virt(page_to_phys(h->page + i));
		u64 base = i * PAGE_SIZE;

		for (u64 off = 0; off < PAGE_SIZE; off += 8)
			word[off / 8] = pattern_word(pattern, base + off);
	}
	h->pattern = pattern;
	h->filled = true;
	pr_printf(out, "handle %lu: filled %lu KiB at pfn 0x%llx with pattern 0x%llx\n", h->id,
		  order_kb(h->order), (unsigned long long)page_to_pfn(h->page),
		  (unsigned long long)pattern);
	return 0;
}

SHELL_COMMAND(fill, .name = "fill", .usage = "fill HANDLE PATTERN",
	      .summary = "write a pattern into every byte of a handle's block",
	      .help = "PATTERN is a number, or a word that is hashed into one.  Each 8-byte\n"
		      "word gets PATTERN combined with its offset in the block, so `check`\n"
		      "can tell exactly which word is wrong.",
	      .fn = cmd_fill);

/* Verify one handle; 0, or -EIO after printing the first wrong word. */
static int handle_check(struct printer *out, const struct mm_handle *h)
{
	for (unsigned long i = 0; i < (1UL << h->order); i++) {
		const u64 *word = mm_phys_to_virt(page_to_phys(h->page + i));
		u64 base = i * PAGE_SIZE;

		for (u64 off = 0; off < PAGE_SIZE; off += 8) {
			u64 want = pattern_word(h->pattern, base + off);

			if (word[off / 8] != want) {
				pr_printf(out, "check: handle %lu: mismatch at pfn 0x%llx offset 0x%llx "
					  "(block offset 0x%llx): expected 0x%016llx, found 0x%016llx\n",
					  h->id, (unsigned long long)page_to_pfn(h->page + i),
					  (unsigned long long)off, (unsigned long long)(base + off),
					  (unsigned long long)want, (unsigned long long)word[off / 8]);
				return -EIO;
			}
		}
	}
	return 0;
}

static int cmd_check(struct printer *out, int argc, char **argv)
{
	struct mm_handle *h;
	int err;

	if (argc != 2)
		return shell_usage(out, shell_find("check"));
	if (!strcmp(argv[1], "all")) {
		unsigned long checked = 0, bad = 0, unfilled = 0;

		for (unsigned i = 0; i < MM_MAX_HANDLES; i++) {
			if (!handles[i].id)
				continue;
			if (!handles[i].filled) {
				unfilled++;
				continue;
			}
			checked++;
			if (handle_check(out, &handles[i]))
				bad++;
		}
		if (bad) {
			pr_printf(out, "check: %lu of %lu filled handles differ\n", bad, checked);
			return -EIO;
		}
		pr_printf(out, "ok: %lu handles checked (%lu live handles never filled)\n",
			  checked, unfilled);
		return 0;
	}
	h = handle_arg(out, "check", argv[1]);
	if (!h)
		return -EINVAL;
	if (!h->filled) {
		pr_printf(out, "check: handle %lu was never filled (fill it first)\n", h->id);
		return -EINVAL;
	}
	err = handle_check(out, h);
	if (!err)
		pr_printf(out, "handle %lu: ok\n", h->id);
	return err;
}

SHELL_COMMAND(check, .name = "check", .usage = "check HANDLE|all",
	      .summary = "verify the pattern `fill` wrote into a handle's block",
	      .help = "Reads the block where it is now (it may have been migrated) and\n"
		      "reports the first word that differs: pfn, offset, expected, found.\n"
		      "`check all` verifies every filled handle.",
	      .fn = cmd_check);

/*
 * `move HANDLE`: migrate a block by hand with migrate_block(), the way
 * memory offlining migrates movable blocks: a new movable block of the same
 * order (the handle's node preferred), a copy of the contents, the handle's
 * moved() operation, then the old block is freed.  The old block itself is
 * the range to avoid.  An unmovable handle is refused with the reason
 * offlining would give.
 */
static int cmd_move(struct printer *out, int argc, char **argv)
{
	struct mm_handle *h;
	struct page *old;
	char why[160];
	u64 old_pfn;
	int err;

	if (argc != 2)
		return shell_usage(out, shell_find("move"));
	h = handle_arg(out, "move", argv[1]);
	if (!h)
		return -EINVAL;
	old = h->page;
	old_pfn = page_to_pfn(old);
	err = migrate_block(old, old_pfn, old_pfn + (1ULL << h->order), page_to_nid(old));
	if (err == -ENOMEM) {
		pr_printf(out, "move: handle %lu: no free block of order %u to move to\n", h->id,
			  h->order);
		return err;
	}
	if (err) {
		describe_unmovable(old_pfn, why, sizeof(why));
		pr_printf(out, "move: handle %lu cannot be migrated: %s%s\n", h->id, why,
			  h->gfp & __GFP_MOVABLE ? "" : " (allocate with `movable` to make it movable)");
		return err;
	}
	pr_printf(out, "handle %lu: moved from pfn 0x%llx to pfn 0x%llx (node %d zone %s)\n",
		  h->id, (unsigned long long)old_pfn, (unsigned long long)page_to_pfn(h->page),
		  page_to_nid(h->page), zone_names[page_zonenum(h->page)]);
	return 0;
}

SHELL_COMMAND(move, .name = "move", .usage = "move HANDLE",
	      .summary = "migrate a handle's block to a new block, contents and all",
	      .help = "What memory offlining does to a movable block, by hand\n"
		      "(migrate_block): allocate a movable block of the same order,\n"
		      "preferring the same node, copy the data, point the handle (and\n"
		      "page->owner/index) at the copy, free the original.  `check HANDLE`\n"
		      "afterwards proves nothing was lost.  Only `movable` handles move;\n"
		      "an unmovable one is refused with the reason offlining would give.",
	      .fn = cmd_move);

static int cmd_handles(struct printer *out, int argc, char **argv)
{
	if (argc != 1)
		return shell_usage(out, shell_find("handles"));
	pr_printf(out, "%7s %-14s %5s %9s %4s %-8s %-9s %s\n", "handle", "pfn", "order", "KiB",
		  "node", "zone", "type", "pattern");
	for (unsigned i = 0; i < MM_MAX_HANDLES; i++) {
		const struct mm_handle *h = &handles[i];

		if (!h->id)
			continue;
		pr_printf(out, "%7lu 0x%-12llx %5u %9lu %4d %-8s %-9s ", h->id,
			  (unsigned long long)page_to_pfn(h->page), h->order, order_kb(h->order),
			  page_to_nid(h->page), zone_names[page_zonenum(h->page)],
			  gfp_type_name(h->gfp));
		if (h->filled)
			pr_printf(out, "0x%llx\n", (unsigned long long)h->pattern);
		else
			pr_printf(out, "-\n");
	}
	pr_printf(out, "%u live handles of %d; next handle %lu\n", nr_live_handles,
		  MM_MAX_HANDLES, next_handle_id);
	return 0;
}

SHELL_COMMAND(handles, .name = "handles", .usage = "handles",
	      .summary = "list the blocks allocated with `alloc` and not freed",
	      .help = NULL, .fn = cmd_handles);
