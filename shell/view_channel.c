/*
 * view_channel.c - the view channel: memlab's state as JSON lines on COM2,
 * for a program on the host that draws it; the protocol, version 1, is
 * in docs/view.md.
 *
 * The serial shell is for people; this is its machine-readable twin.  One
 * poller of the main loop (kernel/workqueue.c), every timer tick:
 *   1. reads what arrived on COM2 (polled: at most VIEW_BYTES_PER_POLL
 *      bytes a call) into a line; each complete line is one request,
 *      parsed by view_request_parse() (views/view_proto.c) and answered
 *      at once: hello, snapshot, alloc or free; anything malformed gets an
 *      error message and changes nothing;
 *   2. once a snapshot was asked for, compares two cheap signatures, of the
 *      zones' counters and of the layout (memory_blocks_generation(), the
 *      device ranges, the node spans), with those last sent, and sends a
 *      `zones` or `blocks` message for the one that changed, each at most
 *      once per VIEW_UPDATE_TICKS (100 ms): the message shows the state
 *      when it is sent, so changes in between coalesce into one.
 * Allocations are the shell's handles (shell/cmd_handles.c), so `handles`
 * and `free` at the prompt see and free what the page allocated.
 *
 * It lives in shell/ because it calls the shell's handle table; what it
 * writes is formatted by views/view_proto.c over mm's query functions.
 * Without COM2 (QEMU gives the second -serial to COM2) it says so once at
 * boot and does nothing more.
 *
 * Context: (main).
 */
#include <shell/view_channel.h>
#include <drivers/serial.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <mm/gfp.h>
#include <views/view_proto.h>
#include "internal.h"

#define VIEW_UPDATE_TICKS	10	/* 100 ms between two updates of one kind */
#define VIEW_BYTES_PER_POLL	256

static char line[VIEW_LINE_MAX + 1];
static size_t line_len;
static bool line_too_long;	/* this line overflowed: refuse it at its end */
static bool subscribed;		/* a snapshot was sent: updates follow */
static u64 zones_sent, blocks_sent;		/* signatures last sent */
static u64 zones_sent_tick, blocks_sent_tick;	/* when */

static void port_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	serial_aux_write(s, len);
}

static struct printer port_printer = { .write = port_write };

static u64 now_ms(void)
{
	return ktime_ns() / 1000000;
}

/* message_end() - the newline that ends every message on the line. */
static void message_end(void)
{
	serial_aux_write("\n", 1);
}

static void send_error(const struct view_request *r, const char *why)
{
	struct json_writer w;

	json_writer_init(&w, &port_printer);
	view_write_error(&w, r, why);
	message_end();
}

/* The reply's first fields: {"v":1,"type":type[,"tag":N], -- left open. */
static void reply_begin(struct json_writer *w, const struct view_request *r, const char *type)
{
	json_writer_init(w, &port_printer);
	json_object_begin(w);
	json_kv_u64(w, "v", VIEW_PROTO_VERSION);
	json_kv_string(w, "type", type);
	if (r->has_tag)
		json_kv_u64(w, "tag", r->tag);
	json_kv_u64(w, "order", r->order);
	json_kv_u64(w, "count", r->count);
}

/* alloc: r->count blocks of r->order as handles; stops at the first failure. */
static void do_alloc(const struct view_request *r)
{
	gfp_t gfp = (r->movable ? __GFP_MOVABLE : GFP_KERNEL) | __GFP_NOWARN;
	unsigned long done = 0, first = 0, last = 0;
	struct json_writer w;
	int err = 0;

	for (; done < r->count; done++) {
		struct mm_handle *h = mm_handle_alloc(r->order, gfp, NUMA_NO_NODE, &err);

		if (!h)
			break;
		if (!first)
			first = h->id;
		last = h->id;
	}
	reply_begin(&w, r, "alloc");
	json_kv_bool(&w, "movable", r->movable);
	json_kv_u64(&w, "done", done);
	json_kv_u64(&w, "first", first);
	json_kv_u64(&w, "last", last);
	if (err)
		json_kv_string(&w, "why", err == -ENOSPC ? "the handle table is full" :
				"no free block above the watermarks");
	json_object_end(&w);
	message_end();
}

/* The live handle of that order with the highest id, or NULL. */
static struct mm_handle *newest_handle(unsigned order)
{
	struct mm_handle *best = NULL;

	for (unsigned i = 0; i < MM_MAX_HANDLES; i++)
		if (handles[i].id && handles[i].order == order &&
		    (!best || handles[i].id > best->id))
			best = &handles[i];
	return best;
}

/* free: the r->count newest handles of order r->order (the shell's too). */
static void do_free(const struct view_request *r)
{
	unsigned long done = 0;
	struct json_writer w;
	const char *why = NULL;

	for (; done < r->count; done++) {
		struct mm_handle *h = newest_handle(r->order);

		if (!h) {
			why = "no more handles of this order";
			break;
		}
		if (mm_handle_release(h)) {
			why = "the allocator refused a block (see the log)";
			break;
		}
	}
	reply_begin(&w, r, "free");
	json_kv_u64(&w, "done", done);
	if (why)
		json_kv_string(&w, "why", why);
	json_object_end(&w);
	message_end();
}

/* The snapshot, and from now on updates measured against it. */
static void send_snapshot(void)
{
	struct json_writer w;

	zones_sent = view_zones_signature();
	blocks_sent = view_blocks_signature();
	zones_sent_tick = blocks_sent_tick = jiffies();
	json_writer_init(&w, &port_printer);
	view_write_snapshot(&w, now_ms());
	message_end();
	subscribed = true;
}

/* The greeting: at boot (r NULL), or the answer to a hello request. */
static void send_hello(const struct view_request *r)
{
	struct json_writer w;

	json_writer_init(&w, &port_printer);
	view_write_hello(&w, r, now_ms());
	message_end();
}

/* One complete line: parse it and answer. */
static void handle_line(const char *s, size_t len)
{
	struct view_request r;
	char why[96];

	if (view_request_parse(s, len, &r, why, sizeof(why))) {
		send_error(&r, why);
		return;
	}
	switch (r.req) {
	case VIEW_REQ_HELLO:
		send_hello(&r);
		break;
	case VIEW_REQ_SNAPSHOT:
		send_snapshot();
		break;
	case VIEW_REQ_ALLOC:
		do_alloc(&r);
		break;
	case VIEW_REQ_FREE:
		do_free(&r);
		break;
	}
}

/* Bytes from COM2 into lines; each line ends at '\n' (a '\r' before it is dropped). */
static void read_requests(void)
{
	for (unsigned n = 0; n < VIEW_BYTES_PER_POLL; n++) {
		int c = serial_aux_getc();

		if (c < 0)
			return;
		if (c != '\n') {
			if (line_len < VIEW_LINE_MAX)
				line[line_len++] = (char)c;
			else
				line_too_long = true;
			continue;
		}
		if (line_len && line[line_len - 1] == '\r')
			line_len--;
		if (line_too_long)
			send_error(NULL, "line too long");
		else if (line_len)
			handle_line(line, line_len);
		line_len = 0;
		line_too_long = false;
	}
}

/* The updates that are due: what changed and was not sent for 100 ms. */
static void send_updates(void)
{
	u64 now = jiffies();
	struct json_writer w;
	u64 sig;

	if (!subscribed)
		return;
	if (now - blocks_sent_tick >= VIEW_UPDATE_TICKS) {
		sig = view_blocks_signature();
		if (sig != blocks_sent) {
			blocks_sent = sig;
			blocks_sent_tick = now;
			json_writer_init(&w, &port_printer);
			view_write_blocks(&w, now_ms());
			message_end();
		}
	}
	if (now - zones_sent_tick >= VIEW_UPDATE_TICKS) {
		sig = view_zones_signature();
		if (sig != zones_sent) {
			zones_sent = sig;
			zones_sent_tick = now;
			json_writer_init(&w, &port_printer);
			view_write_zones(&w, now_ms());
			message_end();
		}
	}
}

static void view_poll(void)
{
	read_requests();
	send_updates();
}

static struct poller view_poller = { .fn = view_poll, .name = "view channel", .period = 1 };

void view_channel_init(void)
{
	if (!serial_aux_init()) {
		pr_info("view: no COM2: the view channel is off");
		return;
	}
	pr_info("view: channel on COM2, protocol version %d", VIEW_PROTO_VERSION);
	send_hello(NULL);
	register_poller(&view_poller);
}
