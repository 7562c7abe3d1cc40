/*
 * view_detail.c - the view channel's messages that answer a question about
 * a part of memory, or follow the work in progress (protocol version 2,
 * docs/view.md): `pageblocks` (a zone's pageblocks as two strings, one
 * letter each), `page` (one struct page, and where it lives in the
 * vmemmap), `ops` (the running long operations and the boot memmap still
 * pending).  view_proto.c writes the state every message shares; these
 * read mm, the long-operation list and the vmemmap the same way.
 *
 * Context: (main).
 */
#include <views/view_proto.h>
#include <views/pageblock_map.h>
#include <kernel/kernel.h>
#include <kernel/longop.h>
#include <kernel/time.h>
#include <lib/errno.h>
#include <lib/printer.h>
#include <lib/string.h>
#include <mm/buddy.h>
#include <mm/deferred_init.h>
#include <mm/memory_hotplug.h>
#include <mm/mmzone.h>
#include <mm/page.h>
#include <mm/platform.h>
#include <mm/sparse.h>

/* {"v":2,"type":type,"ms":ms[,"tag":N], -- left open. */
static void detail_begin(struct json_writer *w, const char *type, const struct view_request *r,
			 u64 ms)
{
	json_object_begin(w);
	json_kv_u64(w, "v", VIEW_PROTO_VERSION);
	json_kv_string(w, "type", type);
	json_kv_u64(w, "ms", ms);
	if (r && r->has_tag)
		json_kv_u64(w, "tag", r->tag);
}

/*
 * pageblocks: from the section holding start_pfn (default: the zone's
 * first), up to PAGEBLOCK_MAP_MAX pageblocks (2 GiB) of the zone; next_pfn
 * says where the next chunk starts, 0 when this one reached the zone's end.
 */
int view_write_pageblocks(struct json_writer *w, const struct view_request *r, u64 ms,
			  char *why, size_t size)
{
	static char mt[PAGEBLOCK_MAP_MAX + 1], fr[PAGEBLOCK_MAP_MAX + 1];
	const struct zone *z;
	u64 start, end, n;

	if (!NODE_DATA(r->node)->online) {
		ksnprintf(why, size, "node %d is not online", r->node);
		return -EINVAL;
	}
	get_online_mems();
	z = &NODE_DATA(r->node)->node_zones[r->zone];
	if (zone_is_empty(z)) {
		put_online_mems();
		ksnprintf(why, size, "node %d has no zone %s", r->node, zone_names[r->zone]);
		return -EINVAL;
	}
	start = ALIGN_DOWN(r->has_pfn && r->pfn > z->zone_start_pfn ? r->pfn : z->zone_start_pfn,
			   PAGES_PER_SECTION);
	if (start >= zone_end_pfn(z)) {
		put_online_mems();
		ksnprintf(why, size, "start_pfn: past the zone's end 0x%llx",
			  (unsigned long long)zone_end_pfn(z));
		return -EINVAL;
	}
	end = ALIGN_UP((u64)zone_end_pfn(z), pageblock_nr_pages);
	n = (end - start) / pageblock_nr_pages;
	if (n > PAGEBLOCK_MAP_MAX)
		n = PAGEBLOCK_MAP_MAX;
	pageblock_map(z, start, (unsigned)n, mt, fr);
	mt[n] = fr[n] = '\0';
	detail_begin(w, "pageblocks", r, ms);
	json_kv_i64(w, "node", r->node);
	json_kv_string(w, "zone", z->name);
	json_kv_u64(w, "start_pfn", start);
	json_kv_u64(w, "pageblock_pages", pageblock_nr_pages);
	json_kv_string(w, "mt", mt);
	json_kv_string(w, "free", fr);
	json_kv_u64(w, "next_pfn", start + n * pageblock_nr_pages < zone_end_pfn(z) ?
		    start + n * pageblock_nr_pages : 0);
	json_object_end(w);
	put_online_mems();
	return 0;
}

/* The page's PG_* flags by name, '|' between them, into buf. */
static void flag_names(const struct page *page, char *buf, size_t size)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int f = 0; f < __NR_PAGEFLAGS && used + 1 < size; f++) {
		if (!page_flag_test(page, (enum pageflags)f))
			continue;
		used += (size_t)ksnprintf(buf + used, size - used, "%s%s", used ? "|" : "",
					  page_flag_name((enum pageflags)f));
	}
}

/* Where the page stands in the buddy: "buddy" (a free block's head),
 * "pcp" (on a per-CPU list), "inside" (a tail of a free block) or null. */
static void write_free_state(struct json_writer *w, u64 pfn)
{
	unsigned order = 0;
	u64 head = NO_PFN;
	const char *state = NULL;

	if (free_block_at(pfn, FREE_BLOCK_BUDDY, &order)) {
		state = "buddy";
		head = pfn;
	} else if (free_block_at(pfn, FREE_BLOCK_PCP, &order)) {
		state = "pcp";
		head = pfn;
	} else {
		head = free_block_containing(pfn, &order);
		if (head != NO_PFN)
			state = "inside";
	}
	json_kv_string(w, "free", state);
	if (state) {
		json_kv_u64(w, "free_order", order);
		json_kv_u64(w, "free_head_pfn", head);
	}
}

/*
 * page: pfn -> its section -> the vmemmap address of its struct page ->
 * the fields there.  Only a pfn with an initialised memmap is answered.
 */
int view_write_page(struct json_writer *w, const struct view_request *r, u64 ms,
		    char *why, size_t size)
{
	const struct mem_section *ms_;
	const struct page *page;
	char flags[160];
	u64 pfn = r->pfn;

	get_online_mems();
	if (!pfn_valid(pfn) || pfn_pending(pfn)) {
		put_online_mems();
		ksnprintf(why, size, "pfn 0x%llx: %s", (unsigned long long)pfn,
			  pfn_valid(pfn) ? "its memmap is not initialised yet (deferred init)" :
			  "no memmap there (a hole, or memory not added)");
		return -EINVAL;
	}
	page = pfn_to_page(pfn);
	ms_ = __pfn_to_section(pfn);
	flag_names(page, flags, sizeof(flags));
	detail_begin(w, "page", r, ms);
	json_kv_u64(w, "pfn", pfn);
	json_kv_u64(w, "phys", PFN_PHYS(pfn));
	json_kv_u64(w, "section", pfn_to_section_nr(pfn));
	json_kv_bool(w, "section_online", online_section(ms_));
	json_kv_bool(w, "section_early", early_section(ms_));
	json_kv_u64(w, "vmemmap_base", (u64)(unsigned long)mm_vmemmap);
	json_kv_u64(w, "struct_page", (u64)(unsigned long)page);
	json_kv_u64(w, "struct_page_bytes", sizeof(struct page));
	json_kv_i64(w, "node", page_to_nid(page));
	json_kv_string(w, "zone", zone_names[page_zonenum(page)]);
	json_kv_u64(w, "flags", page->flags);
	json_kv_string(w, "flag_names", flags);
	json_kv_u64(w, "page_type", page->page_type);
	json_kv_string(w, "type_name", page_type_name(page));
	json_kv_i64(w, "refcount", page->refcount);
	json_kv_u64(w, "private", page_private(page));
	json_kv_string(w, "pageblock_mt", migratetype_name(get_pageblock_migratetype(pfn)));
	json_kv_bool(w, "isolated", get_pageblock_isolate(pfn));
	write_free_state(w, pfn);
	view_write_page_owner(w, pfn, page);
	json_object_end(w);
	put_online_mems();
	return 0;
}

/* ops: every running long operation, and the boot memmap not initialised yet. */
void view_write_ops(struct json_writer *w, const struct view_request *r, u64 ms)
{
	u64 now = ktime_ns();

	detail_begin(w, "ops", r, ms);
	json_key(w, "ops");
	json_array_begin(w);
	for (const struct longop *op = longop_next(NULL); op; op = longop_next(op)) {
		json_object_begin(w);
		json_kv_string(w, "name", op->name);
		json_kv_string(w, "unit", op->unit);
		json_kv_u64(w, "done", op->done);
		json_kv_u64(w, "total", op->total);
		json_kv_u64(w, "elapsed_ms", (now - op->start_ns) / 1000000);
		json_kv_bool(w, "waiting", op->waiting);
		json_object_end(w);
	}
	json_array_end(w);
	json_kv_u64(w, "deferred_pending_pages", deferred_init_pending_pages(NUMA_NO_NODE));
	json_kv_u64(w, "deferred_pending_sections", deferred_init_pending_sections());
	json_object_end(w);
}

u64 view_ops_signature(void)
{
	u64 h = 0xcbf29ce484222325ULL;

	for (const struct longop *op = longop_next(NULL); op; op = longop_next(op))
		h = (h ^ (op->done * 31 + op->total + (unsigned long)op)) * 0x100000001b3ULL;
	return (h ^ deferred_init_pending_sections()) * 0x100000001b3ULL;
}
