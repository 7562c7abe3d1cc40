/*
 * fuzz_view_request.c - libFuzzer target for the view channel's request
 * parser (views/view_proto.c) and the flat JSON reader under it
 * (lib/json.c).
 *
 * Each input is one request line.  The checks, beyond the sanitizers':
 *   - json_parse_flat() returns -1 with a reason or a count within its
 *     array, and every field it fills has a NUL-terminated key and string;
 *   - view_request_parse() returns 0 or -EINVAL with a reason, and a
 *     request it accepts is within the protocol's limits (order 0-10,
 *     count 1-1024);
 *   - an accepted request, written again with the JSON writer, parses to
 *     the same request (the reader and the writer agree);
 *   - the error message for a refused request is itself valid for the
 *     reader's grammar up to its length (it is a flat object).
 * A broken check calls __builtin_trap().
 *
 * Build: make build/fuzz/fuzz_view_request (make test-fuzz runs it, with
 * the seeds of tests/fuzz/seeds/fuzz_view_request/).
 */
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <lib/errno.h>
#include <lib/json.h>
#include <lib/printer.h>
#include <mm/page.h>
#include <views/view_proto.h>

#define FUZZ_CHECK(cond)	do { if (!(cond)) __builtin_trap(); } while (0)

static const char *const req_names[] = { "hello", "snapshot", "alloc", "free" };

/* The request r as a line, through the writer. */
static size_t write_request(const struct view_request *r, char *buf, size_t size)
{
	struct buf_printer bp;
	struct json_writer w;

	buf_printer_init(&bp, buf, size);
	json_writer_init(&w, &bp.p);
	json_object_begin(&w);
	json_kv_u64(&w, "v", VIEW_PROTO_VERSION);
	json_kv_string(&w, "req", req_names[r->req]);
	if (r->has_tag)
		json_kv_u64(&w, "tag", r->tag);
	if (r->req == VIEW_REQ_ALLOC || r->req == VIEW_REQ_FREE) {
		json_kv_u64(&w, "order", r->order);
		json_kv_u64(&w, "count", r->count);
	}
	if (r->req == VIEW_REQ_ALLOC)
		json_kv_bool(&w, "movable", r->movable);
	json_object_end(&w);
	FUZZ_CHECK(!w.error && !bp.overflow);
	return bp.len;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct json_field fields[6];
	struct view_request r, again;
	const char *why = NULL;
	char reason[96], line[256], text[256];
	int n;

	if (size > VIEW_LINE_MAX)
		return 0;
	n = json_parse_flat((const char *)data, size, fields, 6, &why);
	FUZZ_CHECK(n >= -1 && n <= 6);
	if (n < 0)
		FUZZ_CHECK(why && *why);
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(memchr(fields[i].key, 0, sizeof(fields[i].key)));
		FUZZ_CHECK(memchr(fields[i].str, 0, sizeof(fields[i].str)));
	}

	reason[0] = 0;
	if (view_request_parse((const char *)data, size, &r, reason, sizeof(reason))) {
		struct buf_printer bp;
		struct json_writer w;

		FUZZ_CHECK(reason[0]);
		buf_printer_init(&bp, text, sizeof(text));
		json_writer_init(&w, &bp.p);
		view_write_error(&w, &r, reason);
		FUZZ_CHECK(!w.error && !bp.overflow);
		/* the reason may be longer than the reader's strings: check the grammar only */
		n = json_parse_flat(text, bp.len, fields, 6, &why);
		FUZZ_CHECK(n >= 3 || (n == -1 && !strcmp(why, "string too long")));
		return 0;
	}
	FUZZ_CHECK(r.req <= VIEW_REQ_FREE);
	if (r.req == VIEW_REQ_ALLOC || r.req == VIEW_REQ_FREE) {
		FUZZ_CHECK(r.order <= MAX_PAGE_ORDER);
		FUZZ_CHECK(r.count >= 1 && r.count <= VIEW_MAX_COUNT);
	}
	size = write_request(&r, line, sizeof(line));
	FUZZ_CHECK(view_request_parse(line, size, &again, reason, sizeof(reason)) == 0);
	FUZZ_CHECK(again.req == r.req && again.order == r.order && again.count == r.count &&
		   again.movable == r.movable && again.has_tag == r.has_tag && again.tag == r.tag);
	return 0;
}
