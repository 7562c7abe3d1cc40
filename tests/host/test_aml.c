/*
 * test_aml.c - the AML interpreter's own checks on the fake machine: the
 * accesses field units make (widths, update rules, index/bank registers),
 * the limits that stop hostile AML with the method's path and reason, the
 * boot walk of _STA/_INI, devices by _HID, _OSI, and that every object is
 * freed.  Results compared with acpiexec are in test_aml_ref.c.
 */
#include "htest.h"
#include "aml_fake.h"

static struct aml_fake fake;

static struct aml_ns *load1(const char *name, const struct aml_limits *lim)
{
	char path[128];
	const char *files[1] = { path };

	memset(&fake, 0, sizeof(fake));
	snprintf(path, sizeof(path), "build/aml/%s.aml", name);
	return aml_fake_ns(&fake, files, 1, lim);
}

static u64 eval_int(struct aml_ns *ns, const char *path)
{
	u64 v = 0xdeadbeef;
	int r = aml_eval_integer(ns, NULL, path, &v);
	if (r)
		printf("  %s: error %d: %s\n", path, r, aml_last_error(ns)->reason);
	return v;
}

HTEST(aml_field_access_widths)
{
	struct aml_ns *ns = load1("fields", NULL);

	CHECK(ns != NULL);
	if (!ns)
		return;
	fake.nlog = 0;
	CHECK_EQ(aml_eval(ns, "\\WRIO", NULL, 0, NULL), 0);
	/* PB0 = 0x5a: one byte write at 0xa00; PB1: Preserve reads 0xa01 first */
	CHECK_EQ(fake.log[0].write, 1);
	CHECK_EQ(fake.log[0].width, 1);
	CHECK_EQ(fake.log[0].addr, 0xa00);
	CHECK_EQ(fake.log[0].val, 0x5a);
	CHECK_EQ(fake.log[1].write, 0);
	CHECK_EQ(fake.log[1].addr, 0xa01);
	CHECK_EQ(aml_fake_peek(&fake, AML_SPACE_IO, 0xa01), 0x3f);
	CHECK_EQ(aml_fake_peek(&fake, AML_SPACE_IO, 0xa04), 0x44);
	/* WriteAsZeros (DWordAcc): ZHI written as one dword, no read first */
	fake.nlog = 0;
	aml_fake_poke(&fake, AML_SPACE_IO, 0xa08, 0x99);
	CHECK_EQ(aml_eval(ns, "\\UPDR", NULL, 0, NULL), 0);
	CHECK_EQ(fake.log[0].write, 1);
	CHECK_EQ(fake.log[0].width, 4);
	CHECK_EQ(fake.log[0].addr, 0xa08);
	CHECK_EQ(fake.log[0].val, 0x7700);
	/* WriteAsOnes (WordAcc): the other 12 bits set */
	CHECK_EQ(fake.log[1].width, 2);
	CHECK_EQ(fake.log[1].val, 0xfff1);
	/* PCI_Config: _ADR 0x00030001 under _BBN 0 */
	fake.nlog = 0;
	CHECK_EQ(aml_eval(ns, "\\PCI0.DEV1.RDPC", NULL, 0, NULL), 0);
	CHECK_EQ(fake.log[0].space, AML_SPACE_PCI);
	CHECK_EQ(fake.log[0].addr, (3u << 15) | (1u << 12) | 0x40);
	CHECK_EQ(fake.log[0].width, 4);
	/* the Lock rule takes and gives back the global lock */
	CHECK_EQ(aml_eval(ns, "\\WRMM", NULL, 0, NULL), 0);
	CHECK_EQ(fake.global_lock_depth, 0);
	CHECK(aml_fake_done(ns));
}

/* The namespace's counters: every opcode run, every method call, every
 * region access (as many as the fake machine saw) and the time the
 * accesses took by the platform's clock read around each. */
HTEST(aml_counts_opcodes_calls_and_accesses)
{
	struct aml_ns *ns = load1("fields", NULL);
	struct aml_stats a, b, d;

	CHECK(ns != NULL);
	if (!ns)
		return;
	a = *aml_get_stats(ns);
	fake.nlog = 0;
	CHECK_EQ(aml_eval(ns, "\\WRIO", NULL, 0, NULL), 0);
	b = *aml_get_stats(ns);
	CHECK_EQ(b.io_accesses - a.io_accesses, fake.nlog);
	CHECK(fake.nlog >= 8);	/* four writes, PB1's Preserve read, four reads */
	CHECK_EQ(b.io_ns - a.io_ns, 7 * (u64)fake.nlog);
	CHECK_EQ(b.calls - a.calls, 1);
	CHECK(b.ops - a.ops >= 20);
	/* the same method again runs the same opcodes (names kept per call
	 * site change nothing) and a method calling others counts them */
	CHECK_EQ(aml_eval(ns, "\\WRIO", NULL, 0, NULL), 0);
	d = *aml_get_stats(ns);
	CHECK_EQ(d.ops - b.ops, b.ops - a.ops);
	CHECK_EQ(d.io_accesses - b.io_accesses, b.io_accesses - a.io_accesses);
	CHECK(aml_fake_done(ns));
	ns = load1("methods", NULL);
	CHECK(ns != NULL);
	if (!ns)
		return;
	a = *aml_get_stats(ns);
	struct aml_obj *arg = aml_new_integer(ns, 5);
	CHECK_EQ(aml_eval(ns, "\\FACT", &arg, 1, NULL), 0);
	aml_put(ns, arg);
	CHECK_EQ(aml_get_stats(ns)->calls - a.calls, 5);	/* FACT(5) .. FACT(1) */
	CHECK_EQ(aml_get_stats(ns)->io_accesses, a.io_accesses);
	CHECK(aml_fake_done(ns));
}

HTEST(aml_index_bank_registers)
{
	struct aml_ns *ns = load1("indexfield", NULL);

	CHECK(ns != NULL);
	if (!ns)
		return;
	fake.nlog = 0;
	CHECK_EQ(eval_int(ns, "\\IR10"), 0);
	/* index register 0xb00 written with 0x10, data 0xb01 read */
	CHECK_EQ(fake.log[0].write, 1);
	CHECK_EQ(fake.log[0].addr, 0xb00);
	CHECK_EQ(fake.log[0].val, 0x10);
	CHECK_EQ(fake.log[1].write, 0);
	CHECK_EQ(fake.log[1].addr, 0xb01);
	CHECK_EQ(aml_eval(ns, "\\BNKW", NULL, 0, NULL), 0);
	CHECK_EQ(aml_fake_peek(&fake, AML_SPACE_IO, 0xc00), 2);
	CHECK(aml_fake_done(ns));
}

/* A hostile method fails with its path and the limit, the namespace goes on. */
HTEST(aml_hostile_limits)
{
	struct aml_limits lim = aml_default_limits;
	lim.max_loop_iters = 1000;
	struct aml_ns *ns = load1("hostile", &lim);
	const struct aml_error *e;

	CHECK(ns != NULL);
	if (!ns)
		return;
	CHECK_EQ(aml_eval(ns, "\\LOOP", NULL, 0, NULL), AML_ELIMIT);
	e = aml_last_error(ns);
	CHECK_STREQ(e->path, "\\LOOP");
	CHECK_STR_CONTAINS(e->reason, "ran 1000 iterations: gave up");
	CHECK(e->offset > 36);
	struct aml_obj *zero = aml_new_integer(ns, 0);
	CHECK_EQ(aml_eval(ns, "\\RECU", &zero, 1, NULL), AML_ELIMIT);
	CHECK_STR_CONTAINS(aml_last_error(ns)->reason, "call depth");
	CHECK_EQ(aml_eval(ns, "\\HUGE", NULL, 0, NULL), AML_ENOMEM);
	CHECK_EQ(aml_eval(ns, "\\GROW", NULL, 0, NULL), AML_ENOMEM);
	CHECK_EQ(aml_eval(ns, "\\DIV0", &zero, 1, NULL), AML_ETYPE);
	struct aml_obj *res = NULL;
	CHECK_EQ(aml_eval(ns, "\\NEST", &zero, 1, &res), 0);
	CHECK_EQ(res ? res->integer : 0, 19);
	aml_put(ns, res);
	CHECK_EQ(eval_int(ns, "\\FINE"), 7);
	lim.max_nesting = 10;
	aml_put(ns, zero);
	CHECK(aml_fake_done(ns));
	ns = load1("hostile", &lim);
	zero = aml_new_integer(ns, 0);
	CHECK_EQ(aml_eval(ns, "\\NEST", &zero, 1, NULL), AML_ELIMIT);
	CHECK_STR_CONTAINS(aml_last_error(ns)->reason, "nested");
	aml_put(ns, zero);
	CHECK(aml_fake_done(ns));
}

/* The boot walk: _STA failing hides a device, _INI failures are named. */
HTEST(aml_init_walk_reports)
{
	struct aml_limits lim = aml_default_limits;
	lim.max_loop_iters = 1000;
	struct aml_ns *ns = load1("hostile", &lim);
	struct aml_stats st;

	CHECK(ns != NULL);
	if (!ns)
		return;
	aml_init_devices(ns, &st);
	CHECK_EQ(st.failures, 2);
	CHECK_EQ(st.sta_run, 1);
	CHECK_EQ(st.ini_run, 1);
	CHECK_STR_CONTAINS(fake.lines, "aml: \\DEVL._STA failed: \\RECU at 0x");
	CHECK_STR_CONTAINS(fake.lines, "call depth");
	CHECK_STR_CONTAINS(fake.lines, "aml: \\DEVI._INI failed: \\LOOP at 0x");
	CHECK_STR_CONTAINS(fake.lines, "ran 1000 iterations: gave up");
	CHECK(aml_fake_done(ns));
}

static int count_dev(struct aml_ns *ns, struct aml_node *dev, void *arg)
{
	(void)ns;
	(void)dev;
	++*(int *)arg;
	return 0;
}

HTEST(aml_hid_walk_and_osi)
{
	struct aml_ns *ns = load1("fields", NULL);
	int n = 0;

	CHECK(ns != NULL);
	if (!ns)
		return;
	aml_walk_hid(ns, "PNP0A08", count_dev, &n);
	CHECK_EQ(n, 1);
	struct aml_obj *s = aml_new_string(ns, "Windows 2015"), *res = NULL;
	CHECK_EQ(aml_eval(ns, "\\_OSI", &s, 1, &res), 0);
	CHECK(res && res->integer == 0xffffffff);
	aml_put(ns, res);
	aml_put(ns, s);
	s = aml_new_string(ns, "Linux");
	CHECK_EQ(aml_eval(ns, "\\_OSI", &s, 1, &res), 0);
	CHECK(res && res->integer == 0);
	aml_put(ns, res);
	aml_put(ns, s);
	CHECK(aml_fake_done(ns));
}

/* Temporary names of a method vanish when it returns; a namespace dump
 * shows types. */
HTEST(aml_method_temporaries_and_dump)
{
	struct aml_ns *ns = load1("methods", NULL);
	char buf[8192];
	struct buf_printer bp;

	CHECK(ns != NULL);
	if (!ns)
		return;
	CHECK_EQ(eval_int(ns, "\\TMPN"), 6);
	CHECK_EQ(eval_int(ns, "\\TMPN"), 6);
	CHECK(aml_lookup(ns, NULL, "\\TMPN.TEMP") == NULL);
	buf_printer_init(&bp, buf, sizeof(buf));
	aml_dump_ns(ns, NULL, &bp.p);
	CHECK_STR_CONTAINS(buf, "FACT Method Args 1");
	CHECK_STR_CONTAINS(buf, "MTX1 Mutex");
	CHECK(aml_fake_done(ns));
}

/* The typed helpers: _STA defaults to 0xF, a relative path from a scope,
 * the counters. */
HTEST(aml_typed_helpers)
{
	struct aml_ns *ns = load1("fields", NULL);
	u64 v = 0;

	CHECK(ns != NULL);
	if (!ns)
		return;
	struct aml_node *pci = aml_lookup(ns, NULL, "\\PCI0");
	CHECK(pci != NULL);
	CHECK_EQ(aml_device_status(ns, pci, &v), 0);
	CHECK_EQ(v, 0xf);
	struct aml_obj *o = NULL;
	CHECK_EQ(aml_eval_at(ns, pci, "DEV1._ADR", NULL, 0, &o), 0);
	CHECK(o && o->integer == 0x30001);
	aml_put(ns, o);
	CHECK_EQ(aml_eval_at(ns, pci, "NOPE", NULL, 0, &o), AML_ENOENT);
	CHECK_EQ(aml_get_stats(ns)->tables, 1);
	CHECK(aml_get_stats(ns)->devices >= 2);
	CHECK(aml_fake_done(ns));
}
