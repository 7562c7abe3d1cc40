/*
 * view_proto.h - the view channel's protocol, version 2 (docs/view.md):
 * the requests memlab understands and the messages that describe memory.
 *
 * Everything here is text in and text out, no port: the requests are
 * parsed from one line, the messages are written through a JSON writer
 * (include/lib/json.h).  The channel itself (shell/view_channel.c) reads
 * the lines from COM2, sends the messages back and decides when.
 *
 * Every message is one object with "v": VIEW_PROTO_VERSION and a "type";
 * the state in them is read through mm's query functions, as the /proc and
 * /sys views read it.
 *
 * Context: (main).
 */
#ifndef VIEWS_VIEW_PROTO_H
#define VIEWS_VIEW_PROTO_H

#include <lib/json.h>

struct page;

#define VIEW_PROTO_VERSION	2
#define VIEW_LINE_MAX		512	/* a request longer than this is refused */
#define VIEW_MAX_COUNT		1024	/* blocks one alloc or free request may ask for */
#define VIEW_MAX_PFN		((1ULL << 52) - 1)	/* pfns of a 64-bit physical address */

enum view_req {
	VIEW_REQ_HELLO, VIEW_REQ_SNAPSHOT, VIEW_REQ_ALLOC, VIEW_REQ_FREE,
	VIEW_REQ_PAGEBLOCKS, VIEW_REQ_PAGE, VIEW_REQ_OPS, VIEW_REQ_TRACE,
};

struct view_request {
	enum view_req req;
	unsigned order;		/* alloc, free: 0 .. MAX_PAGE_ORDER */
	unsigned long count;	/* alloc, free: 1 .. VIEW_MAX_COUNT (default 1) */
	bool movable;		/* alloc: a movable allocation */
	int node, zone;		/* pageblocks: the zone (enum zone_type) of node */
	u64 pfn;		/* page: the pfn; pageblocks: start_pfn, if has_pfn */
	bool has_pfn;
	int mech;		/* trace: enum mech_id */
	bool on, verbose;	/* trace: on (default true), step by step (default false) */
	bool has_tag;		/* the request carried "tag": the reply repeats it */
	u64 tag;
};

/*
 * view_request_parse() - parse the request in line[0, len) (no newline)
 * into *r.  Returns 0, or -EINVAL with the reason in why[0, size) ("unknown
 * req 'x'", "order: must be an integer 0-10", "unknown field 'y'", ...);
 * *r is then unspecified.  Context: (any).
 */
int view_request_parse(const char *line, size_t len, struct view_request *r, char *why,
		       size_t size);

/*
 * view_write_hello() / view_write_snapshot() / view_write_zones() /
 * view_write_blocks() - one whole message (without its newline) to w: the
 * greeting (with the tag of the request r it answers; r is NULL for the
 * one sent at boot), the full state, the zones update, the layout update
 * (nodes, blocks, device ranges).  ms is the time since boot stamped on
 * it.  Context: (main), no hotplug lock held (they take it for reading).
 */
void view_write_hello(struct json_writer *w, const struct view_request *r, u64 ms);
void view_write_snapshot(struct json_writer *w, u64 ms);
void view_write_zones(struct json_writer *w, u64 ms);
void view_write_blocks(struct json_writer *w, u64 ms);
/* view_write_mechs() - {"type":"mechs","mechs":[...]}: each mechanism's
 * design and trace switches, as the snapshot's "mechs".  Context: (main). */
void view_write_mechs(struct json_writer *w, u64 ms);

/*
 * view_write_pageblocks() / view_write_page() - the answer to a
 * `pageblocks` or `page` request r (views/view_detail.c): a chunk of the
 * zone's pageblocks as strings (the letters of include/views/pageblock_map.h),
 * or the struct page of r->pfn with its vmemmap address.  Return 0, or
 * -EINVAL with the reason in why[0, size) and nothing written (no such
 * zone, a pfn without an initialised memmap).  view_write_ops() - the
 * running long operations and deferred init's pending memmap.
 * view_ops_signature() - changes when what view_write_ops() writes does.
 * Context: (main), no hotplug lock held.
 */
int view_write_pageblocks(struct json_writer *w, const struct view_request *r, u64 ms,
			  char *why, size_t size);
int view_write_page(struct json_writer *w, const struct view_request *r, u64 ms,
		    char *why, size_t size);
/*
 * view_write_page_owner() - the page message's "owner_kind", "owner" (a
 * sentence) and, when page->owner names one, "owner_index" (page->index):
 * who holds the page at pfn (free in the buddy or on a pcp list, a
 * handle, a hot-added block's memmap, a device range, ...; docs/view.md).
 * Context: (main), the hotplug lock held for reading.
 */
void view_write_page_owner(struct json_writer *w, u64 pfn, const struct page *page);
/* view_set_handle_lookup() - how the owner names a shell handle's page: fn
 * returns the handle's id, or 0 (the shell's mm_handle_of(): views/ does
 * not reach into shell/).  Context: (boot). */
void view_set_handle_lookup(unsigned long (*fn)(const struct page *page));
void view_write_ops(struct json_writer *w, const struct view_request *r, u64 ms);
u64 view_ops_signature(void);

/* view_write_error() - {"v":1,"type":"error","why":why} (with the tag if
 * r has one; r may be NULL).  Context: (any). */
void view_write_error(struct json_writer *w, const struct view_request *r, const char *why);

/*
 * view_zones_signature() / view_blocks_signature() - numbers that change
 * when what view_write_zones() (every counter of every zone) or
 * view_write_blocks() (the blocks' generation, the device ranges, the
 * node spans) would write changes.  Cheap: a few words per zone.
 * Context: (main).
 */
u64 view_zones_signature(void);
u64 view_blocks_signature(void);

#endif
