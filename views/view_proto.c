/*
 * view_proto.c - the view channel's protocol, version 2: requests parsed
 * from a line, the state of memory written as JSON messages
 * (include/views/view_proto.h; every message and field in docs/view.md).
 *
 * The state is read as /proc/zoneinfo and /sys/devices/system/memory read
 * it: zones through their counters and zone_free_blocks(), blocks through
 * memory_block_next(), device ranges through devmem_find(), all under
 * get_online_mems() so that one message shows one moment.  "free" is
 * zone_nr_free_pages(), zoneinfo's "pages free"; "pcp" the pages on the
 * per-CPU lists, which zoneinfo counts as allocated.
 *
 * Context: (main).
 */
#include <views/view_proto.h>
#include <kernel/kernel.h>
#include <lib/errno.h>
#include <lib/printer.h>
#include <lib/string.h>
#include <mm/buddy.h>
#include <mm/memblock.h>
#include <mm/memory_hotplug.h>
#include <mm/memremap.h>
#include <mm/migrate.h>
#include <mm/mechanisms.h>
#include <mm/mmzone.h>
#include <mm/sparse.h>

/* ---- requests -------------------------------------------------------------- */

#define VIEW_MAX_FIELDS	8

static const struct {
	const char *name;
	enum view_req req;
	const char *fields;	/* the fields it takes besides v, req, tag */
} requests[] = {
	{ "hello", VIEW_REQ_HELLO, "" },
	{ "snapshot", VIEW_REQ_SNAPSHOT, "" },
	{ "alloc", VIEW_REQ_ALLOC, " order count movable " },
	{ "free", VIEW_REQ_FREE, " order count " },
	{ "pageblocks", VIEW_REQ_PAGEBLOCKS, " node zone start_pfn " },
	{ "page", VIEW_REQ_PAGE, " pfn " },
	{ "ops", VIEW_REQ_OPS, "" },
	{ "trace", VIEW_REQ_TRACE, " mech on verbose " },
};

#define REQ_NAMES	"hello, snapshot, alloc, free, pageblocks, page, ops, trace"

/* Is word one of the space-separated words of list?  ("" never is.) */
static bool word_in(const char *list, const char *word)
{
	size_t n = strlen(word);

	while (*list) {
		size_t len;

		while (*list == ' ')
			list++;
		for (len = 0; list[len] && list[len] != ' '; len++)
			;
		if (len && len == n && !strncmp(list, word, n))
			return true;
		list += len;
	}
	return false;
}

/* An integer field in [lo, hi] into *v; false with the reason if not. */
static bool int_field(const struct json_field *f, u64 lo, u64 hi, u64 *v, char *why, size_t size)
{
	if (f->kind != JSON_INT || f->negative || f->mag < lo || f->mag > hi) {
		ksnprintf(why, size, "%s: must be an integer %llu-%llu", f->key,
			  (unsigned long long)lo, (unsigned long long)hi);
		return false;
	}
	*v = f->mag;
	return true;
}

/* A bool field into *v (left alone when the field is absent). */
static bool bool_field(const struct json_field *fields, int n, const char *key, bool *v,
		       char *why, size_t size)
{
	const struct json_field *f = json_field_find(fields, n, key);

	if (!f)
		return true;
	if (f->kind != JSON_BOOL) {
		ksnprintf(why, size, "%s: must be true or false", key);
		return false;
	}
	*v = f->b;
	return true;
}

/* pageblocks: node and zone needed, start_pfn optional. */
static int parse_pageblocks(const struct json_field *fields, int n, struct view_request *r,
			    char *why, size_t size)
{
	const struct json_field *f = json_field_find(fields, n, "node");
	u64 v;

	if (!f) {
		ksnprintf(why, size, "node: needed for pageblocks");
		return -EINVAL;
	}
	if (!int_field(f, 0, MAX_NUMNODES - 1, &v, why, size))
		return -EINVAL;
	r->node = (int)v;
	f = json_field_find(fields, n, "zone");
	if (!f) {
		ksnprintf(why, size, "zone: needed for pageblocks");
		return -EINVAL;
	}
	r->zone = -1;
	for (int z = 0; f->kind == JSON_STRING && z < MAX_NR_ZONES; z++)
		if (!strcmp(zone_names[z], f->str))
			r->zone = z;
	if (r->zone < 0) {
		ksnprintf(why, size, "zone: must be DMA, DMA32, Normal, Movable or Device");
		return -EINVAL;
	}
	f = json_field_find(fields, n, "start_pfn");
	if (f) {
		if (!int_field(f, 0, VIEW_MAX_PFN, &r->pfn, why, size))
			return -EINVAL;
		r->has_pfn = true;
	}
	return 0;
}

/* trace: mech needed (a name `mech` lists), on (default true), verbose (default false). */
static int parse_trace(const struct json_field *fields, int n, struct view_request *r,
		       char *why, size_t size)
{
	const struct json_field *f = json_field_find(fields, n, "mech");

	if (!f) {
		ksnprintf(why, size, "mech: needed for trace");
		return -EINVAL;
	}
	r->mech = f->kind == JSON_STRING ? mech_find(f->str) : -ENOENT;
	if (r->mech < 0) {
		ksnprintf(why, size, "mech: not a mechanism (see `mech`)");
		return -EINVAL;
	}
	r->on = true;
	if (!bool_field(fields, n, "on", &r->on, why, size) ||
	    !bool_field(fields, n, "verbose", &r->verbose, why, size))
		return -EINVAL;
	return 0;
}

/* alloc, free: order needed, count optional, movable (alloc only). */
static int parse_alloc(const struct json_field *fields, int n, const char *name,
		       struct view_request *r, char *why, size_t size)
{
	const struct json_field *f = json_field_find(fields, n, "order");
	u64 v;

	if (!f) {
		ksnprintf(why, size, "order: needed for %s", name);
		return -EINVAL;
	}
	if (!int_field(f, 0, MAX_PAGE_ORDER, &v, why, size))
		return -EINVAL;
	r->order = (unsigned)v;
	f = json_field_find(fields, n, "count");
	if (f) {
		if (!int_field(f, 1, VIEW_MAX_COUNT, &v, why, size))
			return -EINVAL;
		r->count = (unsigned long)v;
	}
	return bool_field(fields, n, "movable", &r->movable, why, size) ? 0 : -EINVAL;
}

int view_request_parse(const char *line, size_t len, struct view_request *r, char *why,
		       size_t size)
{
	struct json_field fields[VIEW_MAX_FIELDS];
	const struct json_field *f;
	const char *perr = NULL;
	int n = json_parse_flat(line, len, fields, VIEW_MAX_FIELDS, &perr);
	size_t k;

	memset(r, 0, sizeof(*r));
	r->count = 1;
	if (n < 0) {
		ksnprintf(why, size, "not a request: %s", perr);
		return -EINVAL;
	}
	f = json_field_find(fields, n, "tag");
	if (f) {
		if (!int_field(f, 0, ~0ULL, &r->tag, why, size))
			return -EINVAL;
		r->has_tag = true;
	}
	f = json_field_find(fields, n, "v");
	if (f && (f->kind != JSON_INT || f->negative || f->mag != VIEW_PROTO_VERSION)) {
		ksnprintf(why, size, "v: this is protocol version %d", VIEW_PROTO_VERSION);
		return -EINVAL;
	}
	f = json_field_find(fields, n, "req");
	if (!f || f->kind != JSON_STRING) {
		ksnprintf(why, size, "req: a string is needed (" REQ_NAMES ")");
		return -EINVAL;
	}
	for (k = 0; k < ARRAY_SIZE(requests); k++)
		if (!strcmp(requests[k].name, f->str))
			break;
	if (k == ARRAY_SIZE(requests)) {
		ksnprintf(why, size, "unknown req '%s'", f->str);
		return -EINVAL;
	}
	r->req = requests[k].req;
	for (int i = 0; i < n; i++) {
		const char *key = fields[i].key;

		if (strcmp(key, "v") && strcmp(key, "req") && strcmp(key, "tag") &&
		    !word_in(requests[k].fields, key)) {
			ksnprintf(why, size, "unknown field '%s' for req '%s'", key, requests[k].name);
			return -EINVAL;
		}
	}
	switch (r->req) {
	case VIEW_REQ_ALLOC:
	case VIEW_REQ_FREE:
		return parse_alloc(fields, n, requests[k].name, r, why, size);
	case VIEW_REQ_PAGEBLOCKS:
		return parse_pageblocks(fields, n, r, why, size);
	case VIEW_REQ_PAGE:
		f = json_field_find(fields, n, "pfn");
		if (!f) {
			ksnprintf(why, size, "pfn: needed for page");
			return -EINVAL;
		}
		return int_field(f, 0, VIEW_MAX_PFN, &r->pfn, why, size) ? 0 : -EINVAL;
	case VIEW_REQ_TRACE:
		return parse_trace(fields, n, r, why, size);
	default:
		return 0;
	}
}

/* ---- messages -------------------------------------------------------------- */

/* {"v":1,"type":type,"ms":ms, -- left open for the message's fields. */
static void message_begin(struct json_writer *w, const char *type, u64 ms)
{
	json_object_begin(w);
	json_kv_u64(w, "v", VIEW_PROTO_VERSION);
	json_kv_string(w, "type", type);
	json_kv_u64(w, "ms", ms);
}

static u64 present_bytes(void)
{
	u64 pages = 0;
	int nid;

	for_each_online_node(nid)
		pages += NODE_DATA(nid)->node_present_pages;
	return pages * PAGE_SIZE;
}

/* The constants of this memlab: its version, sizes and units. */
static void write_machine(struct json_writer *w)
{
	json_kv_string(w, "kernel", "memlab");
	json_kv_string(w, "version", MEMLAB_VERSION);
	json_kv_u64(w, "mem_bytes", present_bytes());
	json_kv_u64(w, "page_size", PAGE_SIZE);
	json_kv_u64(w, "block_bytes", memory_block_size_bytes());
	json_kv_u64(w, "max_order", MAX_PAGE_ORDER);
	json_kv_u64(w, "pageblock_pages", pageblock_nr_pages);
	json_kv_u64(w, "section_pages", PAGES_PER_SECTION);
	json_kv_u64(w, "nr_cpus", mm_nr_cpus());
	json_key(w, "migratetypes");
	json_array_begin(w);
	for (int mt = 0; mt < MIGRATE_TYPES; mt++)
		json_string(w, migratetype_name(mt));
	json_array_end(w);
}

/* "mechs": each mechanism's name, design and whether its trace is on. */
static void write_mechs(struct json_writer *w)
{
	json_key(w, "mechs");
	json_array_begin(w);
	for (int id = 0; id < NR_MECHS; id++) {
		json_object_begin(w);
		json_kv_string(w, "name", mech_name((enum mech_id)id));
		json_kv_string(w, "design", mech_design_name(mech_design((enum mech_id)id)));
		json_kv_bool(w, "trace", mech_tracing((enum mech_id)id));
		json_kv_bool(w, "verbose", mech_tracing_verbose((enum mech_id)id));
		json_object_end(w);
	}
	json_array_end(w);
}

static void write_nodes(struct json_writer *w)
{
	int nid;

	json_key(w, "nodes");
	json_array_begin(w);
	for_each_online_node(nid) {
		const struct pglist_data *pgdat = NODE_DATA(nid);

		json_object_begin(w);
		json_kv_i64(w, "id", nid);
		json_kv_u64(w, "start_pfn", pgdat->node_start_pfn);
		json_kv_u64(w, "spanned", pgdat->node_spanned_pages);
		json_kv_u64(w, "present", pgdat->node_present_pages);
		json_object_end(w);
	}
	json_array_end(w);
}

/* Pages on the zone's per-CPU lists, every CPU's. */
static unsigned long zone_pcp_pages(const struct zone *zone)
{
	unsigned long n = 0;

	for (unsigned cpu = 0; cpu < MM_NR_CPUS; cpu++)
		n += (unsigned long)zone_pcp(zone, cpu)->count;
	return n;
}

/*
 * "free_mt": the free lists by migratetype and order, /proc/pagetypeinfo's
 * rows: one array per migratetype (hello's "migratetypes" order) of the
 * blocks on each order's list, each count stopping at VIEW_LIST_CAP.
 */
#define VIEW_LIST_CAP	100000
static void write_free_by_type(struct json_writer *w, const struct zone *zone)
{
	json_key(w, "free_mt");
	json_array_begin(w);
	for (int mt = 0; mt < MIGRATE_TYPES; mt++) {
		json_array_begin(w);
		for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++) {
			bool overflow = false;

			json_u64(w, zone_free_list_count(zone, order, mt, VIEW_LIST_CAP, &overflow));
		}
		json_array_end(w);
	}
	json_array_end(w);
}

/* Every zone of every online node with a span, in zoneinfo's order. */
static void write_zones(struct json_writer *w)
{
	int nid;

	json_key(w, "zones");
	json_array_begin(w);
	for_each_online_node(nid) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			if (zone_is_empty(zone))
				continue;
			json_object_begin(w);
			json_kv_string(w, "name", zone->name);
			json_kv_i64(w, "node", nid);
			json_kv_u64(w, "start_pfn", zone->zone_start_pfn);
			json_kv_u64(w, "spanned", zone->spanned_pages);
			json_kv_u64(w, "present", zone->present_pages);
			json_kv_u64(w, "managed", zone->managed_pages);
			json_kv_u64(w, "free", zone_nr_free_pages(zone));
			json_kv_u64(w, "pcp", zone_pcp_pages(zone));
			json_kv_u64(w, "cma", zone->cma_pages);
			json_key(w, "free_blocks");
			json_array_begin(w);
			for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++)
				json_u64(w, zone_free_blocks(zone, order));
			json_array_end(w);
			write_free_by_type(w, zone);
			json_key(w, "pcp_cpus");
			json_array_begin(w);
			for (unsigned cpu = 0; cpu < mm_nr_cpus(); cpu++)
				json_i64(w, zone_pcp(zone, cpu)->count);
			json_array_end(w);
			json_object_end(w);
		}
	}
	json_array_end(w);
}

static const char *state_name(enum memory_block_state state)
{
	const char *name = memory_block_state_name(state);

	return name ? name : "unknown";
}

/* Every memory block, in id order, and every device range. */
static void write_layout(struct json_writer *w)
{
	unsigned long id = 0;
	struct memory_block *mem;

	json_key(w, "blocks");
	json_array_begin(w);
	while ((mem = memory_block_next(&id))) {
		json_object_begin(w);
		json_kv_u64(w, "id", mem->block_id);
		json_kv_string(w, "state", state_name(mem->state));
		json_kv_string(w, "zone", mem->zones_mixed ? "mixed" : mem->zone ? mem->zone->name : NULL);
		json_kv_i64(w, "node", mem->nid);
		json_kv_bool(w, "early", mem->early);
		json_kv_string(w, "group", mem->group ? mem->group->name : NULL);
		json_object_end(w);
		id = mem->block_id + 1;
	}
	json_array_end(w);
	json_key(w, "devmem");
	json_array_begin(w);
	for (int d = 0; d < DEVMEM_MAX_RANGES; d++) {
		const struct dev_pagemap *pgmap = devmem_find(d);

		if (!pgmap)
			continue;
		json_object_begin(w);
		json_kv_i64(w, "id", pgmap->id);
		json_kv_u64(w, "start_pfn", pgmap->start_pfn);
		json_kv_u64(w, "nr_pages", pgmap->nr_pages);
		json_kv_i64(w, "node", pgmap->nid);
		json_object_end(w);
	}
	json_array_end(w);
}

void view_write_hello(struct json_writer *w, const struct view_request *r, u64 ms)
{
	get_online_mems();
	message_begin(w, "hello", ms);
	if (r && r->has_tag)
		json_kv_u64(w, "tag", r->tag);
	write_machine(w);
	json_kv_u64(w, "proto", VIEW_PROTO_VERSION);
	json_object_end(w);
	put_online_mems();
}

/*
 * Where the last offline that migrated pages put them ("migration": its
 * sequence number, the block, and the blocks its pages landed in with
 * their pages; "other": pages that went to blocks past those listed), once
 * there has been one.  The eject timeline draws its arrows from it.
 */
static void write_migration(struct json_writer *w)
{
	const struct migrate_dests *d = &memhp_stats.last_offline_dests;

	if (!memhp_stats.offlines_migrated)
		return;
	json_key(w, "migration");
	json_object_begin(w);
	json_kv_u64(w, "seq", memhp_stats.offlines_migrated);
	json_kv_u64(w, "from", memhp_stats.last_offline_block);
	json_key(w, "to");
	json_array_begin(w);
	for (u32 i = 0; i < d->nr && i < MIGRATE_DESTS_MAX; i++) {
		json_array_begin(w);
		json_u64(w, d->to[i].block_id);
		json_u64(w, d->to[i].pages);
		json_array_end(w);
	}
	json_array_end(w);
	json_kv_u64(w, "other", d->other_pages);
	json_object_end(w);
}

void view_write_snapshot(struct json_writer *w, u64 ms)
{
	get_online_mems();
	message_begin(w, "snapshot", ms);
	write_machine(w);
	write_nodes(w);
	write_zones(w);
	write_layout(w);
	json_kv_u64(w, "migrated_pages", memhp_stats.migrated_pages);
	write_migration(w);
	write_mechs(w);
	json_object_end(w);
	put_online_mems();
}

void view_write_mechs(struct json_writer *w, u64 ms)
{
	message_begin(w, "mechs", ms);
	write_mechs(w);
	json_object_end(w);
}

void view_write_zones(struct json_writer *w, u64 ms)
{
	get_online_mems();
	message_begin(w, "zones", ms);
	write_zones(w);
	json_object_end(w);
	put_online_mems();
}

void view_write_blocks(struct json_writer *w, u64 ms)
{
	get_online_mems();
	message_begin(w, "blocks", ms);
	json_kv_u64(w, "mem_bytes", present_bytes());
	json_kv_u64(w, "migrated_pages", memhp_stats.migrated_pages);
	write_migration(w);
	write_nodes(w);
	write_layout(w);
	json_object_end(w);
	put_online_mems();
}

void view_write_error(struct json_writer *w, const struct view_request *r, const char *why)
{
	json_object_begin(w);
	json_kv_u64(w, "v", VIEW_PROTO_VERSION);
	json_kv_string(w, "type", "error");
	json_kv_string(w, "why", why);
	if (r && r->has_tag)
		json_kv_u64(w, "tag", r->tag);
	json_object_end(w);
}

/* ---- a page's owner ---------------------------------------------------------- */

/*
 * The page message's owner: who the page belongs to, in the order `page
 * PFN` looks (a free block first, then what page->owner names, then what
 * the flags say).  Kinds: "buddy" (in a free block), "pcp" (on a per-CPU
 * list), "own_memmap" (memmap_on_memory: its block's own struct pages),
 * "devmem" (a device range's page), "handle" (a shell handle's block),
 * "memmap" (the memmap of a hot-added block), "movable" (another movable
 * owner), "other" (an owner memlab cannot name), "hole" (a hole in boot
 * memory), "reserved" (reserved at boot: the kernel, the memmap,
 * firmware), "kernel" (allocated, no owner recorded: page tables, the
 * file tree's chunks, ...), "none" (no owner, no reference).
 */
static unsigned long (*handle_lookup)(const struct page *page);

void view_set_handle_lookup(unsigned long (*fn)(const struct page *page))
{
	handle_lookup = fn;
}

void view_write_page_owner(struct json_writer *w, u64 pfn, const struct page *page)
{
	const struct movable_owner *mo = page_movable_owner(page);
	const struct memory_block *mem = memmap_on_memory_block_of(pfn);
	unsigned order = 0;
	u64 head = NO_PFN;
	const char *kind;
	char text[128];
	bool index = false;

	if (free_block_at(pfn, FREE_BLOCK_BUDDY, &order) ||
	    (head = free_block_containing(pfn, &order)) != NO_PFN) {
		kind = "buddy";
		ksnprintf(text, sizeof(text), "free: in the buddy, order-%u block at pfn 0x%llx",
			  order, (unsigned long long)(head == NO_PFN ? pfn : head));
	} else if (free_block_at(pfn, FREE_BLOCK_PCP, &order)) {
		kind = "pcp";
		ksnprintf(text, sizeof(text), "free: on a per-CPU list (order %u), allocated "
			  "as far as the counters go", order);
	} else if (mem) {
		kind = "own_memmap";
		ksnprintf(text, sizeof(text), "memory%llu's own memmap (memmap_on_memory)",
			  (unsigned long long)mem->block_id);
	} else if (page->owner && page_zonenum(page) == ZONE_DEVICE) {
		const struct dev_pagemap *pgmap = page->owner;

		kind = "devmem";
		ksnprintf(text, sizeof(text), "devmem%d (device range [0x%llx-0x%llx))", pgmap->id,
			  (unsigned long long)pgmap->start_pfn,
			  (unsigned long long)(pgmap->start_pfn + pgmap->nr_pages));
	} else if (handle_lookup && handle_lookup(page)) {
		kind = "handle";	/* movable or not: the shell knows its blocks */
		index = true;
		ksnprintf(text, sizeof(text), "shell handle %lu (alloc)", handle_lookup(page));
	} else if (mo) {
		const char *name = mo->ops && mo->ops->name ? mo->ops->name : "unnamed";

		index = true;
		if (!strcmp(name, "memmap of a hot-added block")) {
			kind = "memmap";
			ksnprintf(text, sizeof(text), "the memmap of a hot-added block (section %lu)",
				  page->index);
		} else {
			kind = "movable";
			ksnprintf(text, sizeof(text), "%s, movable (index %lu)", name, page->index);
		}
	} else if (page->owner) {
		kind = "other";
		index = true;
		ksnprintf(text, sizeof(text), "an owner at %p (index %lu)", page->owner, page->index);
	} else if (PageReserved(page) && early_section(__pfn_to_section(pfn)) &&
		   !memblock_is_memory(&memblock, PFN_PHYS(pfn))) {
		kind = "hole";
		ksnprintf(text, sizeof(text), "none: a hole in boot memory, initialised as reserved");
	} else if (PageReserved(page)) {
		kind = "reserved";
		ksnprintf(text, sizeof(text), "reserved at boot (kernel, memmap, firmware or tables)");
	} else if (page->refcount > 0) {
		kind = "kernel";
		ksnprintf(text, sizeof(text), "allocated, no owner recorded (the kernel's own)");
	} else {
		kind = "none";
		ksnprintf(text, sizeof(text), "none");
	}
	json_kv_string(w, "owner_kind", kind);
	json_kv_string(w, "owner", text);
	if (index)
		json_kv_u64(w, "owner_index", page->index);
}

/* ---- signatures ------------------------------------------------------------ */

/* One step of FNV-1a over a 64-bit word. */
static u64 mix(u64 h, u64 v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		h = (h ^ (v & 0xff)) * 0x100000001b3ULL;
	return h;
}

#define FNV_BASIS	0xcbf29ce484222325ULL

u64 view_zones_signature(void)
{
	/* the pageblock map follows the zones' updates: a migratetype or an
	 * isolate bit that changed alone moves the signature too */
	u64 h = mix(FNV_BASIS, pageblock_flags_generation());
	int nid;

	for_each_online_node(nid) {
		for (int z = 0; z < MAX_NR_ZONES; z++) {
			const struct zone *zone = &NODE_DATA(nid)->node_zones[z];

			h = mix(h, zone->zone_start_pfn);
			h = mix(h, zone->spanned_pages);
			h = mix(h, zone->present_pages);
			h = mix(h, zone->managed_pages);
			h = mix(h, zone_nr_free_pages(zone));
			h = mix(h, zone_pcp_pages(zone));
			h = mix(h, zone->cma_pages);
			for (unsigned order = 0; order <= MAX_PAGE_ORDER; order++)
				h = mix(h, zone_free_blocks(zone, order));
			for (unsigned cpu = 0; cpu < mm_nr_cpus(); cpu++)
				h = mix(h, (u64)zone_pcp(zone, cpu)->count);
		}
	}
	return h;
}

u64 view_blocks_signature(void)
{
	u64 h = mix(FNV_BASIS, memory_blocks_generation());
	int nid;

	for_each_online_node(nid) {
		h = mix(h, (u64)nid);
		h = mix(h, NODE_DATA(nid)->node_start_pfn);
		h = mix(h, NODE_DATA(nid)->node_spanned_pages);
		h = mix(h, NODE_DATA(nid)->node_present_pages);
	}
	for (int d = 0; d < DEVMEM_MAX_RANGES; d++) {
		const struct dev_pagemap *pgmap = devmem_find(d);

		h = mix(h, pgmap ? pgmap->start_pfn + 1 : 0);
		h = mix(h, pgmap ? pgmap->nr_pages : 0);
	}
	return h;
}
