/*
 * view_channel.c - the view channel: memlab's state as JSON lines on COM2,
 * for a program on the host that draws it; the protocol, version 2, is
 * in docs/view.md.
 *
 * The serial shell is for people; this is its machine-readable twin.  One
 * poller of the main loop (kernel/workqueue.c), every timer tick:
 *   1. reads what arrived on COM2 (polled: at most VIEW_BYTES_PER_POLL
 *      bytes a call) into a line; each complete line is one request,
 *      parsed by view_request_parse() (views/view_proto.c) and answered
 *      at once: hello, snapshot, alloc, free, pageblocks, page, ops or
 *      trace; anything malformed gets an error message and changes nothing;
 *   2. once a snapshot was asked for, compares two cheap signatures, of the
 *      zones' counters and of the layout (memory_blocks_generation(), the
 *      device ranges, the node spans), with those last sent, and sends a
 *      `zones` or `blocks` message for the one that changed, each at most
 *      once per VIEW_UPDATE_TICKS (100 ms): the message shows the state
 *      when it is sent, so changes in between coalesce into one; the same
 *      for `ops` (the long operations' progress) and `mechs` (designs and
 *      trace switches);
 *   3. once a snapshot was asked for (or while a mechanism's trace is on),
 *      follows the kernel log (printk_log_read()): each of the mechanisms'
 *      trace lines, "[name] ...", goes out as a `trace` message (the steps
 *      a student replays), every other line as a `log` message (add_memory,
 *      remove_memory, acpi-memhp, virtio-mem: the events of a plug or an
 *      eject, with the log's microsecond time).
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
#include <lib/string.h>
#include <mm/gfp.h>
#include <mm/mechanisms.h>
#include <shell/mm_handles.h>
#include <views/view_proto.h>
#include <shell/shell.h>
#include "internal.h"

#define VIEW_UPDATE_TICKS	10	/* 100 ms between two updates of one kind */
#define VIEW_BYTES_PER_POLL	256

static char line[VIEW_LINE_MAX + 1];
static size_t line_len;
static bool line_too_long;	/* this line overflowed: refuse it at its end */
static bool line_resync;	/* drop bytes up to the next '\n' (the rest of a line cut at boot) */
static bool subscribed;		/* a snapshot was sent: updates follow */
static u64 dropped_seen;	/* serial_aux_tx_dropped() when the last snapshot began */
static u64 zones_sent, blocks_sent;		/* signatures last sent */
static u64 zones_sent_tick, blocks_sent_tick;	/* when */
static u64 ops_sent, ops_sent_tick, mechs_sent, mechs_sent_tick;
static bool following;		/* a trace is on: the log is being followed */
static u64 log_pos, log_lost;	/* where in the log, bytes the ring overwrote */
static char log_line[256];	/* the log line being assembled */
static size_t log_line_len;
#define VIEW_LOG_PER_POLL	4096	/* log bytes read at most per poll */

/* What the channel did since boot, for `view` (all (main)). */
static struct {
	bool on;		/* COM2 is there */
	u64 bytes, messages;	/* written to COM2 (dropped ones included) */
	u64 requests, refused;	/* lines read, and those answered with an error */
	u64 snapshots, resyncs;	/* snapshots sent, and those sent unasked after a loss */
} stats;

static void port_write(struct printer *p, const char *s, size_t len)
{
	(void)p;
	stats.bytes += len;
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
	stats.messages++;
	port_write(NULL, "\n", 1);
}

static void send_error(const struct view_request *r, const char *why)
{
	struct json_writer w;

	stats.refused++;
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

/* A number that changes when a design or a trace switch does. */
static u64 mechs_signature(void)
{
	u64 h = 0;

	for (int id = 0; id < NR_MECHS; id++)
		h = h * 131 + (u64)mech_design((enum mech_id)id) * 4 +
		    (mech_tracing((enum mech_id)id) ? 2 : 0) +
		    (mech_tracing_verbose((enum mech_id)id) ? 1 : 0);
	return h;
}

/* pageblocks, page: the answer, or the error that says why not. */
static void send_detail(const struct view_request *r)
{
	struct json_writer w;
	char why[96];
	int err;

	json_writer_init(&w, &port_printer);
	if (r->req == VIEW_REQ_PAGEBLOCKS)
		err = view_write_pageblocks(&w, r, now_ms(), why, sizeof(why));
	else
		err = view_write_page(&w, r, now_ms(), why, sizeof(why));
	if (err) {
		send_error(r, why);
		return;
	}
	message_end();
}

/* trace: switch the mechanism's trace, answer with the switches (mechs). */
static void do_trace(const struct view_request *r)
{
	struct json_writer w;

	if (r->on && r->verbose && mech_set_trace_verbose((enum mech_id)r->mech)) {
		send_error(r, "verbose: this mechanism has no step-by-step trace");
		return;
	}
	if (!r->verbose || !r->on)
		mech_set_trace((enum mech_id)r->mech, r->on);
	if (mech_any_tracing() && !following) {
		following = true;
		log_pos = printk_log_head();
		log_line_len = 0;
	}
	json_writer_init(&w, &port_printer);	/* the switches follow as `mechs` */
	json_object_begin(&w);
	json_kv_u64(&w, "v", VIEW_PROTO_VERSION);
	json_kv_string(&w, "type", "trace_set");
	if (r->has_tag)
		json_kv_u64(&w, "tag", r->tag);
	json_kv_string(&w, "mech", mech_name((enum mech_id)r->mech));
	json_kv_bool(&w, "on", mech_tracing((enum mech_id)r->mech));
	json_kv_bool(&w, "verbose", mech_tracing_verbose((enum mech_id)r->mech));
	json_object_end(&w);
	message_end();
}

/* A kernel log line that is no trace: {"type":"log","ms":..,"text":..}. */
static void send_log_line(u64 ms, const char *s, size_t len)
{
	struct json_writer w;
	char text[sizeof(log_line)];

	memcpy(text, s, len);
	text[len] = '\0';
	json_writer_init(&w, &port_printer);
	json_object_begin(&w);
	json_kv_u64(&w, "v", VIEW_PROTO_VERSION);
	json_kv_string(&w, "type", "log");
	json_kv_u64(&w, "ms", ms);
	json_kv_string(&w, "text", text);
	json_object_end(&w);
	message_end();
}

/*
 * One whole log line "[  secs.micros] text", with the log's own time in
 * ms: when text is "[name] ..." with name a mechanism, a trace message
 * {"type":"trace","mech":name,"ms":..,"text":..}; any other a log message.
 */
static void log_line_done(const char *s, size_t len)
{
	struct json_writer w;
	u64 secs = 0, micros = 0;
	size_t i = 0, name_at, name_len;
	char name[32];

	if (len < 4 || s[i++] != '[')
		return;
	while (i < len && s[i] == ' ')
		i++;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		secs = secs * 10 + (u64)(s[i] - '0');
	if (i >= len || s[i++] != '.')
		return;
	for (; i < len && s[i] >= '0' && s[i] <= '9'; i++)
		micros = micros * 10 + (u64)(s[i] - '0');
	if (i + 1 >= len || s[i] != ']' || s[i + 1] != ' ')
		return;
	if (i + 2 >= len || s[i + 2] != '[') {
		send_log_line(secs * 1000 + micros / 1000, s + i + 2, len - (i + 2));
		return;
	}
	name_at = i + 3;
	for (name_len = 0; name_at + name_len < len && s[name_at + name_len] != ']'; name_len++)
		;
	if (!name_len || name_len >= sizeof(name) || name_at + name_len + 1 >= len) {
		send_log_line(secs * 1000 + micros / 1000, s + name_at - 1, len - (name_at - 1));
		return;
	}
	memcpy(name, s + name_at, name_len);
	name[name_len] = '\0';
	if (mech_find(name) < 0) {
		send_log_line(secs * 1000 + micros / 1000, s + name_at - 1, len - (name_at - 1));
		return;
	}
	i = name_at + name_len + 1;
	if (s[i] == ' ')
		i++;
	json_writer_init(&w, &port_printer);
	json_object_begin(&w);
	json_kv_u64(&w, "v", VIEW_PROTO_VERSION);
	json_kv_string(&w, "type", "trace");
	json_kv_u64(&w, "ms", secs * 1000 + micros / 1000);
	json_kv_string(&w, "mech", name);
	{
		char text[sizeof(log_line)];
		size_t n = len - i;

		memcpy(text, s + i, n);
		text[n] = '\0';
		json_kv_string(&w, "text", text);
	}
	json_object_end(&w);
	message_end();
}

/* The log since last time, line by line; stops following once no trace is on. */
static void follow_log(void)
{
	char buf[256];
	size_t n, total = 0;
	u64 lost = 0;

	if (!following)
		return;
	while (total < VIEW_LOG_PER_POLL && (n = printk_log_read(&log_pos, buf, sizeof(buf), &lost))) {
		total += n;
		for (size_t i = 0; i < n; i++) {
			if (buf[i] != '\n') {
				if (log_line_len < sizeof(log_line) - 1)
					log_line[log_line_len++] = buf[i];
				continue;
			}
			log_line_done(log_line, log_line_len);
			log_line_len = 0;
		}
	}
	if (lost) {
		struct json_writer w;

		log_lost += lost;
		log_line_len = 0;
		json_writer_init(&w, &port_printer);
		json_object_begin(&w);
		json_kv_u64(&w, "v", VIEW_PROTO_VERSION);
		json_kv_string(&w, "type", "trace");
		json_kv_u64(&w, "ms", now_ms());
		json_kv_u64(&w, "lost_bytes", lost);
		json_object_end(&w);
		message_end();
	}
	if (!subscribed && !mech_any_tracing() && log_pos == printk_log_head())
		following = false;
}

/* The snapshot, and from now on updates measured against it. */
static void send_snapshot(void)
{
	struct json_writer w;

	stats.snapshots++;
	dropped_seen = serial_aux_tx_dropped();	/* a fresh start: earlier losses no longer matter */
	zones_sent = view_zones_signature();
	blocks_sent = view_blocks_signature();
	zones_sent_tick = blocks_sent_tick = jiffies();
	json_writer_init(&w, &port_printer);
	view_write_snapshot(&w, now_ms());
	message_end();
	subscribed = true;
	if (!following) {		/* the log from now on: traces and events */
		following = true;
		log_pos = printk_log_head();
		log_line_len = 0;
	}
	ops_sent = view_ops_signature();
	mechs_sent = mechs_signature();
	ops_sent_tick = mechs_sent_tick = jiffies();
	json_writer_init(&w, &port_printer);
	view_write_ops(&w, NULL, now_ms());
	message_end();
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
	case VIEW_REQ_PAGEBLOCKS:
	case VIEW_REQ_PAGE:
		send_detail(&r);
		break;
	case VIEW_REQ_OPS: {
		struct json_writer w;

		json_writer_init(&w, &port_printer);
		view_write_ops(&w, &r, now_ms());
		message_end();
		break;
	}
	case VIEW_REQ_TRACE:
		do_trace(&r);
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
		if (line_resync) {
			line_resync = c != '\n';
			continue;
		}
		if (c != '\n') {
			if (line_len < VIEW_LINE_MAX)
				line[line_len++] = (char)c;
			else
				line_too_long = true;
			continue;
		}
		if (line_len && line[line_len - 1] == '\r')
			line_len--;
		if (line_len || line_too_long)
			stats.requests++;
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

/* ops and mechs: the same rule as zones and blocks. */
static void send_progress(void)
{
	u64 now = jiffies();
	struct json_writer w;
	u64 sig;

	if (!subscribed)
		return;
	if (now - ops_sent_tick >= VIEW_UPDATE_TICKS) {
		sig = view_ops_signature();
		if (sig != ops_sent) {
			ops_sent = sig;
			ops_sent_tick = now;
			json_writer_init(&w, &port_printer);
			view_write_ops(&w, NULL, now_ms());
			message_end();
		}
	}
	if (now - mechs_sent_tick >= VIEW_UPDATE_TICKS) {
		sig = mechs_signature();
		if (sig != mechs_sent) {
			mechs_sent = sig;
			mechs_sent_tick = now;
			json_writer_init(&w, &port_printer);
			view_write_mechs(&w, now_ms());
			message_end();
		}
	}
	if (!following && mech_any_tracing()) {	/* a trace turned on at the shell */
		following = true;
		log_pos = printk_log_head();
		log_line_len = 0;
	}
}

/*
 * resync_after_loss() - COM2 drops bytes while its transmitter stays busy
 * (the program on the host stopped reading for a second), so a message may
 * have lost its middle and the host's picture may be stale.  Once the line
 * moves again after bytes were dropped since the last snapshot began, a
 * fresh snapshot goes out, unasked, and the updates start again from it.
 * Context: (main).
 */
static void resync_after_loss(void)
{
	/* a loss inside the snapshot itself shows here at the next poll: again */
	if (subscribed && serial_aux_tx_dropped() != dropped_seen && !serial_aux_stuck()) {
		stats.resyncs++;
		send_snapshot();
	}
}

static void view_poll(void)
{
	read_requests();
	follow_log();
	send_updates();
	send_progress();
	resync_after_loss();
}

static struct poller view_poller = { .fn = view_poll, .name = "view channel", .period = 1 };

void view_channel_init(void)
{
	view_set_handle_lookup(mm_handle_of);	/* the page message names handles */
	if (!serial_aux_init()) {
		pr_info("view: no COM2: the view channel is off");
		return;
	}
	stats.on = true;
	pr_info("view: channel on COM2, protocol version %d", VIEW_PROTO_VERSION);
	/*
	 * What arrived before this boot's channel (the host program stays
	 * connected across a reset and keeps asking) belongs to a conversation
	 * with the memlab before: dropped, and a line it cut is dropped to its
	 * end, so the first request this boot reads is a whole one.
	 */
	{
		int c, last = '\n';

		for (unsigned n = 0; n < 65536 && (c = serial_aux_getc()) >= 0; n++)
			last = c;
		line_resync = last != '\n';
	}
	send_hello(NULL);
	register_poller(&view_poller);
}

/* cmd_view() - the `view` command: what the channel did since boot. */
static int cmd_view(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc > 1) {
		pr_printf(out, "view: no arguments\n");
		return -EINVAL;
	}
	if (!stats.on) {
		pr_printf(out, "view channel: off (no COM2)\n");
		return 0;
	}
	pr_printf(out, "view channel on COM2, protocol version %d: %s\n", VIEW_PROTO_VERSION,
		  subscribed ? "subscribed (a snapshot was sent; updates follow)" :
			       "not subscribed (no snapshot asked for yet)");
	pr_printf(out, "  sent:     %llu messages, %llu bytes; %llu snapshots, %llu of them unasked after lost bytes\n",
		  (unsigned long long)stats.messages, (unsigned long long)stats.bytes,
		  (unsigned long long)stats.snapshots, (unsigned long long)stats.resyncs);
	pr_printf(out, "  received: %llu requests, %llu refused\n",
		  (unsigned long long)stats.requests, (unsigned long long)stats.refused);
	pr_printf(out, "  dropped:  %llu bytes (COM2's transmitter stayed busy: the host program did not read)%s\n",
		  (unsigned long long)serial_aux_tx_dropped(),
		  serial_aux_stuck() ? "; dropping now" : "");
	return 0;
}

SHELL_COMMAND(view, .name = "view", .usage = "view",
	      .summary = "the view channel on COM2: subscribed or not, messages, requests, bytes dropped",
	      .help = "The machine-readable channel that tools/memview.py reads (docs/view.md):\n"
		      "whether a snapshot was asked for, what was sent and received since\n"
		      "boot, and the bytes dropped while COM2's transmitter stayed busy (then\n"
		      "a snapshot goes out unasked once the line moves again).",
	      .fn = cmd_view);
