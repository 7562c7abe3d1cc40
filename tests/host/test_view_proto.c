/*
 * test_view_proto.c - views/view_proto.c, the view channel's protocol: the
 * requests (each kind with its defaults and limits, and every malformed
 * one refused with a reason), and the zones message of a simulated zone
 * (tests/host/buddy_fixture.c), whose numbers must be the zone's counters.
 */
#include "htest.h"
#include "buddy_fixture.h"
#include <lib/errno.h>
#include <lib/printer.h>
#include <mm/memory_hotplug.h>
#include <mm/mechanisms.h>
#include <views/view_proto.h>

static int req(const char *s, struct view_request *r, char *why)
{
	return view_request_parse(s, strlen(s), r, why, 96);
}

HTEST(view_request_kinds)
{
	struct view_request r;
	char why[96];

	CHECK_EQ(req("{\"req\":\"snapshot\"}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_SNAPSHOT);
	CHECK(!r.has_tag);
	CHECK_EQ(req("{\"v\":2,\"req\":\"hello\",\"tag\":99}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_HELLO);
	CHECK(r.has_tag && r.tag == 99);
	CHECK_EQ(req("{\"req\":\"alloc\",\"order\":3}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_ALLOC);
	CHECK_EQ(r.order, 3);
	CHECK_EQ(r.count, 1);
	CHECK(!r.movable);
	CHECK_EQ(req("{\"req\":\"alloc\",\"order\":10,\"count\":1024,\"movable\":true}", &r, why), 0);
	CHECK_EQ(r.order, 10);
	CHECK_EQ(r.count, VIEW_MAX_COUNT);
	CHECK(r.movable);
	CHECK_EQ(req("{\"req\":\"free\",\"order\":0,\"count\":5}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_FREE);
	CHECK_EQ(r.order, 0);
	CHECK_EQ(r.count, 5);
	CHECK_EQ(req("{\"req\":\"pageblocks\",\"node\":0,\"zone\":\"DMA32\"}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_PAGEBLOCKS);
	CHECK_EQ(r.node, 0);
	CHECK_EQ(r.zone, ZONE_DMA32);
	CHECK(!r.has_pfn);
	CHECK_EQ(req("{\"req\":\"pageblocks\",\"node\":1,\"zone\":\"Movable\",\"start_pfn\":4096}",
		     &r, why), 0);
	CHECK_EQ(r.node, 1);
	CHECK_EQ(r.zone, ZONE_MOVABLE);
	CHECK(r.has_pfn && r.pfn == 4096);
	CHECK_EQ(req("{\"req\":\"page\",\"pfn\":4503599627370495}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_PAGE);
	CHECK_EQ(r.pfn, VIEW_MAX_PFN);
	CHECK_EQ(req("{\"req\":\"ops\",\"tag\":5}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_OPS);
	CHECK_EQ(req("{\"req\":\"trace\",\"mech\":\"contig_check\"}", &r, why), 0);
	CHECK_EQ(r.req, VIEW_REQ_TRACE);
	CHECK_EQ(r.mech, MECH_CONTIG_CHECK);
	CHECK(r.on && !r.verbose);
	CHECK_EQ(req("{\"req\":\"trace\",\"mech\":\"memmap_init\",\"on\":false,\"verbose\":true}",
		     &r, why), 0);
	CHECK_EQ(r.mech, MECH_MEMMAP_INIT);
	CHECK(!r.on && r.verbose);
}

HTEST(view_request_refusals)
{
	static const struct { const char *in, *why; } cases[] = {
		{ "snapshot", "not a request: expected '{'" },
		{ "{}", "req: a string is needed (hello, snapshot, alloc, free, pageblocks, page, ops, trace)" },
		{ "{\"req\":1}", "req: a string is needed (hello, snapshot, alloc, free, pageblocks, page, ops, trace)" },
		{ "{\"req\":\"reboot\"}", "unknown req 'reboot'" },
		{ "{\"v\":1,\"req\":\"hello\"}", "v: this is protocol version 2" },
		{ "{\"req\":\"pageblocks\",\"zone\":\"DMA\"}", "node: needed for pageblocks" },
		{ "{\"req\":\"pageblocks\",\"node\":0}", "zone: needed for pageblocks" },
		{ "{\"req\":\"pageblocks\",\"node\":0,\"zone\":\"High\"}",
		  "zone: must be DMA, DMA32, Normal, Movable or Device" },
		{ "{\"req\":\"pageblocks\",\"node\":0,\"zone\":3}",
		  "zone: must be DMA, DMA32, Normal, Movable or Device" },
		{ "{\"req\":\"pageblocks\",\"node\":99,\"zone\":\"DMA\"}",
		  "node: must be an integer 0-7" },
		{ "{\"req\":\"pageblocks\",\"node\":0,\"zone\":\"DMA\",\"start_pfn\":-1}",
		  "start_pfn: must be an integer 0-4503599627370495" },
		{ "{\"req\":\"page\"}", "pfn: needed for page" },
		{ "{\"req\":\"page\",\"pfn\":4503599627370496}",
		  "pfn: must be an integer 0-4503599627370495" },
		{ "{\"req\":\"page\",\"pfn\":1,\"order\":2}", "unknown field 'order' for req 'page'" },
		{ "{\"req\":\"ops\",\"pfn\":1}", "unknown field 'pfn' for req 'ops'" },
		{ "{\"req\":\"trace\"}", "mech: needed for trace" },
		{ "{\"req\":\"trace\",\"mech\":\"nope\"}", "mech: not a mechanism (see `mech`)" },
		{ "{\"req\":\"trace\",\"mech\":1}", "mech: not a mechanism (see `mech`)" },
		{ "{\"req\":\"trace\",\"mech\":\"contig_free\",\"on\":\"yes\"}",
		  "on: must be true or false" },
		{ "{\"req\":\"trace\",\"mech\":\"contig_free\",\"verbose\":0}",
		  "verbose: must be true or false" },
		{ "{\"req\":\"snapshot\",\"order\":1}", "unknown field 'order' for req 'snapshot'" },
		{ "{\"req\":\"free\",\"order\":1,\"movable\":true}",
		  "unknown field 'movable' for req 'free'" },
		{ "{\"req\":\"free\",\"\":3}", "unknown field '' for req 'free'" },
		{ "{\"req\":\"free\",\"ord\":3}", "unknown field 'ord' for req 'free'" },
		{ "{\"req\":\"alloc\"}", "order: needed for alloc" },
		{ "{\"req\":\"alloc\",\"order\":11}", "order: must be an integer 0-10" },
		{ "{\"req\":\"alloc\",\"order\":-1}", "order: must be an integer 0-10" },
		{ "{\"req\":\"alloc\",\"order\":\"3\"}", "order: must be an integer 0-10" },
		{ "{\"req\":\"free\",\"order\":1,\"count\":0}", "count: must be an integer 1-1024" },
		{ "{\"req\":\"free\",\"order\":1,\"count\":1025}", "count: must be an integer 1-1024" },
		{ "{\"req\":\"alloc\",\"order\":1,\"movable\":1}", "movable: must be true or false" },
		{ "{\"req\":\"hello\",\"tag\":-3}", "tag: must be an integer 0-18446744073709551615" },
		{ "{\"req\":\"hello\"} trailing", "not a request: bytes after the object" },
	};
	struct view_request r;
	char why[96];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int err = req(cases[i].in, &r, why);

		if (err != -EINVAL || strcmp(why, cases[i].why)) {
			htest_failures++;
			fprintf(stderr, "  %s: got %d \"%s\", expected \"%s\"\n", cases[i].in, err,
				err ? why : "", cases[i].why);
		}
	}
	/* a tag read before the error is kept, so the error can carry it */
	CHECK_EQ(req("{\"tag\":5,\"req\":\"nope\"}", &r, why), -EINVAL);
	CHECK(r.has_tag && r.tag == 5);
}

HTEST(view_messages_of_a_zone)
{
	struct zone *z = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	static char text[4096];
	struct buf_printer bp;
	struct json_writer w;
	struct view_request r = { .has_tag = true, .tag = 4 };
	u64 sig;

	bf_machine(64ULL << 20);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 3072, MIGRATE_MOVABLE);
	bf_handover(z, 0, 3072);
	NODE_DATA(0)->online = true;
	buf_printer_init(&bp, text, sizeof(text));
	json_writer_init(&w, &bp.p);
	view_write_zones(&w, 1234);
	CHECK(!w.error);
	CHECK(!bp.overflow);
	CHECK_STREQ(text, "{\"v\":2,\"type\":\"zones\",\"ms\":1234,\"zones\":[{\"name\":\"Normal\","
		    "\"node\":0,\"start_pfn\":0,\"spanned\":3072,\"present\":3072,\"managed\":3072,"
		    "\"free\":3072,\"pcp\":0,\"cma\":0,\"free_blocks\":[0,0,0,0,0,0,0,0,0,0,3],"
		    "\"free_mt\":[[0,0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0,3],"
		    "[0,0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0,0],[0,0,0,0,0,0,0,0,0,0,0],"
		    "[0,0,0,0,0,0,0,0,0,0,0]],\"pcp_cpus\":[0]}]}");

	sig = view_zones_signature();
	CHECK_EQ(view_zones_signature(), sig);
	z->nr_free_buddy--;		/* any counter moves the signature */
	CHECK(view_zones_signature() != sig);
	z->nr_free_buddy++;
	CHECK_EQ(view_zones_signature(), sig);
	zone_pcp(z, 0)->count++;	/* so do a CPU's pcp pages */
	CHECK(view_zones_signature() != sig);
	zone_pcp(z, 0)->count--;

	buf_printer_init(&bp, text, sizeof(text));
	json_writer_init(&w, &bp.p);
	view_write_error(&w, &r, "line \"too\" long");
	CHECK_STREQ(text, "{\"v\":2,\"type\":\"error\",\"why\":\"line \\\"too\\\" long\",\"tag\":4}");
	NODE_DATA(0)->online = false;
}

/* A pageblock that changes type with no free count moving (the free pages
 * move lists, or the block is isolated) still moves the zones signature:
 * the channel's poller sends the zones, and the page redraws its map. */
HTEST(view_zones_signature_follows_pageblock_types)
{
	struct zone *z = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	u64 sig, free;

	bf_machine(64ULL << 20);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 3072, MIGRATE_MOVABLE);
	bf_handover(z, 0, 3072);
	NODE_DATA(0)->online = true;
	sig = view_zones_signature();
	free = zone_nr_free_pages(z);
	bf_set_pageblock_migratetype(z, 512, MIGRATE_MOVABLE);	/* the type it has */
	CHECK_EQ(view_zones_signature(), sig);
	bf_set_pageblock_migratetype(z, 512, MIGRATE_UNMOVABLE);
	CHECK_EQ(zone_nr_free_pages(z), free);			/* no count moved */
	CHECK_EQ((u64)get_pageblock_migratetype(512), (u64)MIGRATE_UNMOVABLE);
	CHECK(view_zones_signature() != sig);
	sig = view_zones_signature();
	CHECK_EQ(view_zones_signature(), sig);
	bf_isolate_pageblock(z, 1024, true);
	CHECK(view_zones_signature() != sig);
	sig = view_zones_signature();
	bf_isolate_pageblock(z, 1024, false);
	CHECK(view_zones_signature() != sig);
	NODE_DATA(0)->online = false;
}

static const struct movable_operations test_handle_ops = { .name = "shell handle" };
static struct movable_owner test_handle = { .ops = &test_handle_ops };
static const struct page *test_handle_page;

/* The shell's mm_handle_of() for the test: handle 7 holds test_handle_page. */
static unsigned long test_handle_of(const struct page *page)
{
	return page == test_handle_page ? 7 : 0;
}

/* The page message's owner: free in the buddy (head or inside), a shell
 * handle's block (by the movable owner's name, with its index), the
 * kernel's own (a reference, no owner), reserved at boot, nobody. */
HTEST(view_page_owner)
{
	struct zone *z = &NODE_DATA(0)->node_zones[ZONE_NORMAL];
	static char text[512];
	struct buf_printer bp;
	struct json_writer w;
	struct page *page;

	bf_machine(64ULL << 20);
	bf_zone_init(z, 0, ZONE_NORMAL, 0, 3072, MIGRATE_MOVABLE);
	bf_handover(z, 0, 3072);
#define OWNER(pfn) do {							\
		buf_printer_init(&bp, text, sizeof(text));		\
		json_writer_init(&w, &bp.p);				\
		json_object_begin(&w);					\
		view_write_page_owner(&w, (pfn), pfn_to_page(pfn));	\
		json_object_end(&w);					\
		CHECK(!w.error && !bp.overflow);			\
	} while (0)
	OWNER(1029);
	CHECK_STREQ(text, "{\"owner_kind\":\"buddy\",\"owner\":\"free: in the buddy, order-10 "
		    "block at pfn 0x400\"}");
	OWNER(2048);
	CHECK_STREQ(text, "{\"owner_kind\":\"buddy\",\"owner\":\"free: in the buddy, order-10 "
		    "block at pfn 0x800\"}");
	page = bf_rmqueue_smallest(z, 0, MIGRATE_MOVABLE);
	CHECK(page != NULL);
	page->refcount = 1;
	OWNER(page_to_pfn(page));
	CHECK_STREQ(text, "{\"owner_kind\":\"kernel\",\"owner\":\"allocated, no owner recorded "
		    "(the kernel's own)\"}");
	set_block_owner(page, 0, &test_handle, 7);	/* a movable owner memlab can name */
	OWNER(page_to_pfn(page));
	CHECK_STREQ(text, "{\"owner_kind\":\"movable\",\"owner\":\"shell handle, movable "
		    "(index 7)\",\"owner_index\":7}");
	set_block_owner(page, 0, NULL, 7);		/* an unmovable handle: index only */
	test_handle_page = page;
	view_set_handle_lookup(test_handle_of);		/* the shell tells */
	OWNER(page_to_pfn(page));
	CHECK_STREQ(text, "{\"owner_kind\":\"handle\",\"owner\":\"shell handle 7 (alloc)\","
		    "\"owner_index\":7}");
	view_set_handle_lookup(NULL);
	set_block_owner(page, 0, NULL, 0);
	page->refcount = 0;
	OWNER(page_to_pfn(page));
	CHECK_STREQ(text, "{\"owner_kind\":\"none\",\"owner\":\"none\"}");
	page->flags |= 1UL << PG_reserved;
	OWNER(page_to_pfn(page));
	CHECK(strstr(text, "\"owner_kind\":\"reserved\"") || strstr(text, "\"owner_kind\":\"hole\""));
	page->flags &= ~(1UL << PG_reserved);
#undef OWNER
}
