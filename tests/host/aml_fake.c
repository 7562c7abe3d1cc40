/*
 * aml_fake.c - the fake machine of tests/host/aml_fake.h.
 */
#include "aml_fake.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/printer.h>

static u8 *find_byte(struct aml_fake *f, u8 space, u64 addr, bool create)
{
	for (unsigned i = 0; i < f->nbytes; i++)
		if (f->bytes[i].space == space && f->bytes[i].addr == addr)
			return &f->bytes[i].val;
	if (!create || f->nbytes == FAKE_MAX_BYTES)
		return NULL;
	f->bytes[f->nbytes].space = space;
	f->bytes[f->nbytes].addr = addr;
	f->bytes[f->nbytes].val = 0;
	return &f->bytes[f->nbytes++].val;
}

void aml_fake_poke(struct aml_fake *f, u8 space, u64 addr, u8 val)
{
	u8 *b = find_byte(f, space, addr, true);
	if (b)
		*b = val;
}

u8 aml_fake_peek(struct aml_fake *f, u8 space, u64 addr)
{
	u8 *b = find_byte(f, space, addr, false);
	return b ? *b : 0;
}

static void record(struct aml_fake *f, u8 space, bool write, unsigned width, u64 addr, u64 val)
{
	if (f->nlog < FAKE_MAX_LOG)
		f->log[f->nlog++] = (struct fake_access){ space, write, (u8)width, addr, val };
}

static int rd(struct aml_fake *f, u8 space, u64 addr, unsigned width, u64 *val)
{
	u64 v = 0;
	for (unsigned i = 0; i < width; i++)
		v |= (u64)aml_fake_peek(f, space, addr + i) << (8 * i);
	*val = v;
	record(f, space, false, width, addr, v);
	return 0;
}

static int wr(struct aml_fake *f, u8 space, u64 addr, unsigned width, u64 val)
{
	for (unsigned i = 0; i < width; i++)
		aml_fake_poke(f, space, addr + i, (u8)(val >> (8 * i)));
	record(f, space, true, width, addr, val);
	return 0;
}

static int io_read(void *ctx, u32 port, unsigned width, u64 *val)
{
	return rd(ctx, AML_SPACE_IO, port, width, val);
}
static int io_write(void *ctx, u32 port, unsigned width, u64 val)
{
	return wr(ctx, AML_SPACE_IO, port, width, val);
}
static int mem_read(void *ctx, u64 phys, unsigned width, u64 *val)
{
	return rd(ctx, AML_SPACE_MEMORY, phys, width, val);
}
static int mem_write(void *ctx, u64 phys, unsigned width, u64 val)
{
	return wr(ctx, AML_SPACE_MEMORY, phys, width, val);
}
static u64 pci_addr(u16 seg, u8 bus, u8 dev, u8 fn, u16 off)
{
	return (u64)seg << 32 | (u64)bus << 20 | (u64)dev << 15 | (u64)fn << 12 | off;
}
static int pci_read(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 *val)
{
	return rd(ctx, AML_SPACE_PCI, pci_addr(seg, bus, dev, fn, off), width, val);
}
static int pci_write(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 val)
{
	return wr(ctx, AML_SPACE_PCI, pci_addr(seg, bus, dev, fn, off), width, val);
}
static void stall_us(void *ctx, u32 us)
{
	((struct aml_fake *)ctx)->now_ns += (u64)us * 1000;
}
static void sleep_ms(void *ctx, u32 ms)
{
	((struct aml_fake *)ctx)->now_ns += (u64)ms * 1000000;
}
static u64 time_ns(void *ctx)
{
	return ((struct aml_fake *)ctx)->now_ns += 10;
}
static void log_line(void *ctx, const char *line)
{
	struct aml_fake *f = ctx;
	size_t n = strlen(line);
	if (f->echo)
		printf("[aml] %s\n", line);
	if (f->lines_len + n + 2 < sizeof(f->lines)) {
		memcpy(f->lines + f->lines_len, line, n);
		f->lines_len += n;
		f->lines[f->lines_len++] = '\n';
		f->lines[f->lines_len] = 0;
	}
}
static void notify(void *ctx, struct aml_node *node, u64 value)
{
	struct aml_fake *f = ctx;
	if (f->nnotify < 32) {
		f->notifies[f->nnotify].node = node;
		f->notifies[f->nnotify++].value = value;
	}
}
static bool global_lock(void *ctx, bool acquire)
{
	struct aml_fake *f = ctx;
	if (acquire)
		f->global_lock_depth++;
	else
		f->global_lock_depth--;
	return true;
}

static u64 io_clock_ns(void *ctx)
{
	return ((struct aml_fake *)ctx)->io_clock_ns += 7;
}

struct aml_platform aml_fake_platform(struct aml_fake *fake)
{
	return (struct aml_platform){
		.ctx = fake, .io_read = io_read, .io_write = io_write,
		.mem_read = mem_read, .mem_write = mem_write,
		.pci_read = pci_read, .pci_write = pci_write,
		.stall_us = stall_us, .sleep_ms = sleep_ms, .time_ns = time_ns,
		.io_clock_ns = io_clock_ns, .log = log_line, .notify = notify, .global_lock = global_lock,
	};
}

/* Tables stay loaded while the namespace lives: kept here until
 * aml_fake_done(). */
static struct { struct aml_ns *ns; void *arena; void *tables[8]; unsigned n; } live[4];

struct aml_ns *aml_fake_ns(struct aml_fake *fake, const char *const *files, unsigned n,
			   const struct aml_limits *lim)
{
	unsigned slot;
	for (slot = 0; slot < 4 && live[slot].ns; slot++)
		;
	if (slot == 4 || n > 8)
		return NULL;
	size_t size = 4 << 20;
	live[slot].arena = malloc(size);
	struct aml_platform plat = aml_fake_platform(fake);
	struct aml_ns *ns = aml_create(live[slot].arena, size, &plat, lim);
	if (!ns) {
		free(live[slot].arena);
		return NULL;
	}
	live[slot].ns = ns;
	for (unsigned i = 0; i < n; i++) {
		FILE *fp = fopen(files[i], "rb");
		if (!fp) {
			printf("aml_fake: cannot open %s (run make build/host-tests-aml)\n", files[i]);
			aml_fake_done(ns);
			return NULL;
		}
		void *buf = malloc(1 << 20);
		size_t len = fread(buf, 1, 1 << 20, fp);
		fclose(fp);
		live[slot].tables[live[slot].n++] = buf;
		if (aml_load_table(ns, buf, len)) {
			const struct aml_error *e = aml_last_error(ns);
			printf("aml_fake: %s: %s at 0x%x: %s\n", files[i], e->path, e->offset, e->reason);
		}
	}
	return ns;
}

bool aml_fake_done(struct aml_ns *ns)
{
	for (unsigned s = 0; s < 4; s++) {
		if (live[s].ns != ns)
			continue;
		size_t left = aml_destroy(ns);
		for (unsigned i = 0; i < live[s].n; i++)
			free(live[s].tables[i]);
		free(live[s].arena);
		live[s].ns = NULL;
		live[s].n = 0;
		if (left)
			printf("aml_fake: %zu arena bytes still in use after destroy\n", left);
		return left == 0;
	}
	return false;
}

int aml_fake_eval_text(struct aml_ns *ns, const char *path, const u64 *args, unsigned nargs,
		       char *buf, size_t size)
{
	struct aml_obj *av[7] = { 0 }, *res = NULL;
	struct buf_printer bp;
	char full[128];
	struct aml_node *n = aml_lookup(ns, NULL, path);

	buf_printer_init(&bp, buf, size);
	for (unsigned i = 0; i < nargs && i < 7; i++)
		av[i] = aml_new_integer(ns, args[i]);
	int r = aml_eval(ns, path, av, nargs, &res);
	for (unsigned i = 0; i < nargs && i < 7; i++)
		aml_put(ns, av[i]);
	if (n)
		aml_node_path(n, full, sizeof(full));
	else
		snprintf(full, sizeof(full), "%s", path);
	if (r) {
		const struct aml_error *e = aml_last_error(ns);
		pr_printf(&bp.p, "error %d: %s at 0x%x: %s\n", r, e->path, e->offset, e->reason);
		return r;
	}
	aml_print_result(&bp.p, full, res);
	aml_put(ns, res);
	return 0;
}

struct collect {
	const char *const *names;
	unsigned nnames, *n, max;
	char (*paths)[64];
};

static int collect_dev(struct aml_ns *ns, struct aml_node *dev, void *arg)
{
	struct collect *c = arg;
	(void)ns;
	for (unsigned i = 0; i < c->nnames && *c->n < c->max; i++) {
		struct aml_node *x = aml_child(dev, c->names[i]);
		struct aml_obj *o = x ? aml_node_object(x) : NULL;
		if (!o || (o->type == AML_METHOD && (o->method.flags & 7)))
			continue;
		aml_node_path(x, c->paths[(*c->n)++], 64);
	}
	return 0;
}

void aml_collect_paths(struct aml_ns *ns, const char *const *names, unsigned nnames,
		       char (*paths)[64], unsigned *n, unsigned max)
{
	struct collect c = { names, nnames, n, max, paths };
	aml_walk_devices(ns, collect_dev, &c);
}
