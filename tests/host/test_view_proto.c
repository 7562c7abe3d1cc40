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
