/*
 * test_topology.c - Icelake-class topology: the MADT's processor entries
 * (type 0 local APIC, type 9 local x2APIC) and NMI entries (types 4 and
 * 10), the SRAT's processor affinity (type 0 local APIC, type 2 x2APIC),
 * joined by acpi_numa_cpus_init() into mm's CPU table (mm/numa_cpu.c), and
 * the views' formats of it (cpulist, cpumap, `acpi madt`, `acpi srat`).
 * Well-formed tables as QEMU and a two-socket server give them, then
 * hostile ones: short entries, ids listed twice, the broadcast id,
 * disabled entries, a CPU in a domain with no memory or in none.
 *
 * The suite `topology` links the real srat.c, madt.c, decode.c and
 * numa_cpus.c; acpi_find_table() below hands them the test's tables in
 * heap buffers of exactly their length (ASan catches a read past the end).
 * Byte layouts are ACPI 6.5's (5.2.12 MADT, 5.2.16 SRAT).
 */
#include "htest.h"
#include <drivers/acpi.h>
#include <mm/mm_init.h>
#include <mm/mmzone.h>
#include <mm/numa_cpu.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include "platform_stub.h"

#include <stdlib.h>

static u8 *madt_tab, *srat_tab;
static struct mm_boot_params bp;
static char out[4096];
static struct buf_printer outp;

const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned n)
{
	if (n)
		return NULL;
	if (!memcmp(sig, "APIC", 4))
		return (const void *)madt_tab;
	if (!memcmp(sig, "SRAT", 4))
		return (const void *)srat_tab;
	return NULL;
}

/* ---- table images ---------------------------------------------------------- */

static u8 scratch[2048];
static u32 scratch_len;

static void table_begin(const char *sig, u32 header_len, u8 revision)
{
	memset(scratch, 0, sizeof(scratch));
	memcpy(scratch, sig, 4);
	scratch[8] = revision;
	scratch_len = header_len;
}

static void entry(const void *e, u8 len)
{
	memcpy(scratch + scratch_len, e, len);
	scratch_len += len;
}

/* The table into an exact heap buffer (checksums are tables.c's job). */
static u8 *table_end(u8 *old)
{
	u8 *t;

	memcpy(scratch + 4, &scratch_len, 4);
	free(old);
	t = malloc(scratch_len);
	memcpy(t, scratch, scratch_len);
	return t;
}

static void put32(u8 *at, u32 v) { memcpy(at, &v, 4); }

static void madt_lapic(u8 uid, u8 id, u32 flags)
{
	u8 e[8] = { 0, 8, uid, id };

	put32(e + 4, flags);
	entry(e, sizeof(e));
}

static void madt_x2apic(u32 id, u32 flags, u32 uid)
{
	u8 e[16] = { 9, 16 };

	put32(e + 4, id);
	put32(e + 8, flags);
	put32(e + 12, uid);
	entry(e, sizeof(e));
}

static void madt_ioapic(void)
{
	u8 e[12] = { 1, 12, 0, 0 };

	put32(e + 4, 0xfec00000);
	entry(e, sizeof(e));
}

/* Start a MADT with the local APIC address and one I/O APIC. */
static void madt_begin(void)
{
	table_begin("APIC", 44, 5);
	put32(scratch + 36, 0xfee00000);
	put32(scratch + 40, 1);
	madt_ioapic();
}

static void srat_cpu(u8 id, u32 pxm, u32 flags)
{
	u8 e[16] = { 0, 16, (u8)pxm, id };

	put32(e + 4, flags);
	e[9] = (u8)(pxm >> 8);
	e[10] = (u8)(pxm >> 16);
	e[11] = (u8)(pxm >> 24);
	entry(e, sizeof(e));
}

static void srat_x2apic(u32 id, u32 pxm, u32 flags)
{
	u8 e[24] = { 2, 24 };

	put32(e + 4, pxm);
	put32(e + 8, id);
	put32(e + 12, flags);
	entry(e, sizeof(e));
}

static void srat_mem(u32 pxm, u64 base, u64 size)
{
	u8 e[40] = { 1, 40 };
	u32 flags = 1;

	put32(e + 2, pxm);
	memcpy(e + 8, &base, 8);
	memcpy(e + 16, &size, 8);
	put32(e + 28, flags);
	entry(e, sizeof(e));
}

/* Parse both tables, bring the SRAT's nodes online as mm_core_init() would,
 * and build the CPU table for boot CPU boot_id. */
static void boot(u32 boot_id)
{
	printk_set_level(LOG_CRIT);
	memset(&bp, 0, sizeof(bp));
	madt_parse();
	srat_parse(&bp);
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		NODE_DATA(nid)->online = false;
	NODE_DATA(0)->online = true;
	for (u32 i = 0; i < bp.nr_numa; i++)
		NODE_DATA(bp.numa[i].nid)->online = true;
	acpi_numa_cpus_init(boot_id);
	printk_set_level(LOG_INFO);
	buf_printer_init(&outp, out, sizeof(out));
}

static void done(void)
{
	free(madt_tab);
	free(srat_tab);
	madt_tab = srat_tab = NULL;
	for (int nid = 0; nid < MAX_NUMNODES; nid++)
		NODE_DATA(nid)->online = false;
	numa_cpus_reset();
}

static const char *cpulist(int nid)
{
	static char buf[128];
	struct buf_printer b;

	buf_printer_init(&b, buf, sizeof(buf));
	node_cpulist_print(&b.p, nid);
	return buf;
}

static const char *cpumap(int nid)
{
	static char buf[128];
	struct buf_printer b;

	buf_printer_init(&b, buf, sizeof(buf));
	node_cpumap_print(&b.p, nid);
	return buf;
}

static void expect_cpu(unsigned cpu, u32 hw_id, s32 pxm, int nid, bool is_boot)
{
	struct numa_cpu c;

	CHECK(numa_cpu_get(cpu, &c));
	CHECK_EQ(c.hw_id, hw_id);
	CHECK_EQ(c.pxm, pxm);
	CHECK_EQ(c.nid, nid);
	CHECK_EQ(c.boot, is_boot);
}

/* ---- well-formed ------------------------------------------------------------ */

/*
 * QEMU's `-smp 4,sockets=2 -numa node,cpus=0-1 -numa node,cpus=2-3`: four
 * type 0 MADT entries and four type 0 SRAT entries, two per domain, and
 * one memory range per domain.  Expect CPUs 0-1 on node 0 and 2-3 on node
 * 1, the masks "3" and "c", and has_cpu for both nodes.
 */
HTEST(topology_qemu_two_sockets)
{
	madt_begin();
	for (u8 i = 0; i < 4; i++)
		madt_lapic(i, i, 1);
	madt_tab = table_end(madt_tab);
	table_begin("SRAT", 48, 3);
	for (u8 i = 0; i < 4; i++)
		srat_cpu(i, i / 2, 1);
	srat_mem(0, 0, SZ_1G);
	srat_mem(1, SZ_1G, SZ_1G);
	srat_tab = table_end(srat_tab);
	boot(0);

	CHECK_EQ(madt_info.nr_cpus, 4);
	CHECK_EQ(nr_numa_cpus(), 4);
	expect_cpu(0, 0, 0, 0, true);
	expect_cpu(3, 3, 1, 1, false);
	CHECK_STREQ(cpulist(0), "0-1");
	CHECK_STREQ(cpulist(1), "2-3");
	CHECK_STREQ(cpumap(0), "3");
	CHECK_STREQ(cpumap(1), "c");
	CHECK(node_has_cpus(0) && node_has_cpus(1) && !node_has_cpus(2));
	acpi_decode_srat(&outp.p);
	CHECK(strstr(out, "  processor: APIC id 2, proximity 1 -> node 1\n") != NULL);
	done();
}

/*
 * A two-socket server past 255 APIC ids: socket 1's CPUs have x2APIC ids
 * 256 and 257, so the MADT gives them as type 9 and the SRAT as type 2;
 * NMI entries of both kinds.  The boot CPU is APIC id 1 (not the first
 * entry): it becomes CPU 0.  Expect the x2APIC CPUs on node 1, the NMI
 * entries decoded, and the SRAT view naming x2APIC ids.
 */
HTEST(topology_x2apic_entries)
{
	u8 nmi4[6] = { 4, 6, 0xff, 0x05, 0x00, 1 };		/* all, high edge, LINT1 */
	u8 nmi10[12] = { 10, 12, 0x0d, 0x00 };			/* high level */

	put32(nmi10 + 4, 0xffffffff);
	nmi10[8] = 1;
	madt_begin();
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	madt_x2apic(256, 1, 2);
	madt_x2apic(257, 1, 3);
	madt_x2apic(258, 2, 4);		/* online-capable, not present */
	entry(nmi4, sizeof(nmi4));
	entry(nmi10, sizeof(nmi10));
	madt_tab = table_end(madt_tab);
	table_begin("SRAT", 48, 3);
	srat_cpu(0, 0, 1);
	srat_cpu(1, 0, 1);
	srat_x2apic(256, 7, 1);
	srat_x2apic(257, 7, 1);
	srat_x2apic(258, 7, 1);
	srat_mem(0, 0, SZ_1G);
	srat_mem(7, SZ_4G, SZ_4G);
	srat_tab = table_end(srat_tab);
	boot(1);

	CHECK_EQ(madt_nr_cpus(), 5);
	CHECK_EQ(madt_info.nr_cpus, 4);		/* enabled ones */
	CHECK_EQ(srat_cpu_pxm(257), 7);
	CHECK_EQ(srat_cpu_pxm(3), -1);
	CHECK_EQ(nr_numa_cpus(), 4);
	expect_cpu(0, 1, 0, 0, true);
	expect_cpu(1, 0, 0, 0, false);
	expect_cpu(2, 256, 7, 1, false);
	expect_cpu(3, 257, 7, 1, false);
	CHECK_STREQ(cpulist(1), "2-3");
	madt_dump(&outp.p);
	CHECK(strstr(out, "MADT: local APIC at 0xfee00000, 4 CPUs") != NULL);
	CHECK(strstr(out, "  local APIC: APIC id 1, UID 1, enabled\n") != NULL);
	CHECK(strstr(out, "  local x2APIC: APIC id 257, UID 3, enabled\n") != NULL);
	CHECK(strstr(out, "  local x2APIC: APIC id 258, UID 4, online-capable (not present)\n"));
	CHECK(strstr(out, "  local APIC NMI: all processors, LINT1, active-high, edge\n"));
	CHECK(strstr(out, "  local x2APIC NMI: all processors, LINT1, active-high, level\n"));
	buf_printer_init(&outp, out, sizeof(out));
	acpi_decode_srat(&outp.p);
	CHECK(strstr(out, "  processor: x2APIC id 256, proximity 7 -> node 1\n") != NULL);
	done();
}

/* No MADT, no SRAT: the fallback, one CPU 0 on the first online node. */
HTEST(topology_without_tables)
{
	boot(0);
	CHECK(!numa_cpus_listed());
	CHECK_EQ(nr_numa_cpus(), 1);
	expect_cpu(0, 0, -1, 0, true);
	CHECK_STREQ(cpulist(0), "0");
	CHECK_STREQ(cpumap(0), "1");
	done();
}

/* ---- hostile ---------------------------------------------------------------- */

/*
 * SRAT processor entries shorter than their type's length (type 0: 16,
 * type 2: 24 bytes) make the SRAT malformed: ignored as a whole, one node,
 * every CPU on it, with the reason in the log.
 */
HTEST(topology_short_srat_processor_entries)
{
	static const u8 short0[12] = { 0, 12, 1, 2, 1 };
	static const u8 short2[16] = { 2, 16, 0, 0, 1 };
	const u8 *bad[] = { short0, short2 };

	for (int i = 0; i < 2; i++) {
		madt_begin();
		madt_lapic(0, 0, 1);
		madt_lapic(1, 1, 1);
		madt_tab = table_end(madt_tab);
		table_begin("SRAT", 48, 3);
		srat_cpu(0, 0, 1);
		entry(bad[i], bad[i][1]);
		srat_mem(0, 0, SZ_1G);
		srat_mem(1, SZ_1G, SZ_1G);
		srat_tab = table_end(srat_tab);
		boot(0);
		CHECK_EQ(bp.nr_numa, 0);
		CHECK(host_log_seen("has length", host_log_count - 8));
		CHECK_EQ(srat_cpu_pxm(0), -1);
		CHECK_EQ(nr_numa_cpus(), 2);
		CHECK_STREQ(cpulist(0), "0-1");
		done();
	}
}

/*
 * A MADT type 9 entry shorter than 16 bytes (or a type 10 shorter than
 * 12) is a malformed MADT: ignored whole, the 8259s stay, and the CPU
 * table falls back to the boot CPU alone.
 */
HTEST(topology_short_madt_x2apic_entries)
{
	static const u8 short9[12] = { 9, 12, 0, 0, 1, 1 };
	static const u8 short10[8] = { 10, 8, 0, 0, 0xff, 0xff, 0xff, 0xff };
	const u8 *bad[] = { short9, short10 };

	for (int i = 0; i < 2; i++) {
		madt_begin();
		madt_lapic(0, 0, 1);
		entry(bad[i], bad[i][1]);
		madt_tab = table_end(madt_tab);
		boot(0);
		CHECK_EQ(madt_nr_cpus(), 0);
		CHECK_EQ(madt_info.nr_ioapics, 0);
		CHECK(!numa_cpus_listed());
		CHECK_EQ(nr_numa_cpus(), 1);
		done();
	}
}

/*
 * Ids listed twice (the MADT with a type 0 and a type 9 entry for APIC id
 * 1, the SRAT with two domains for APIC id 1), the broadcast ids 0xff and
 * 0xffffffff, disabled entries (a disabled SRAT entry for APIC id 2 before
 * its real one), a CPU whose domain has no memory (pxm 5) and one with no
 * affinity entry at all (APIC id 3).  Expect the first entry of each id,
 * no broadcast CPU, CPU 2 on node 1, CPU 3 on the first node, CPU 4 with
 * no node; the views print all of it without a node for CPU 4.
 */
HTEST(topology_hostile_duplicates_and_orphans)
{
	char text[1024];
	struct buf_printer b;

	madt_begin();
	madt_lapic(0, 0, 1);
	madt_lapic(1, 1, 1);
	madt_x2apic(1, 1, 9);		/* id 1 again: skipped */
	madt_lapic(2, 0xff, 1);		/* broadcast: skipped */
	madt_x2apic(0xffffffff, 1, 8);	/* broadcast: skipped */
	madt_lapic(3, 2, 1);
	madt_lapic(4, 3, 1);
	madt_x2apic(300, 1, 5);
	madt_lapic(6, 4, 0);		/* disabled: not a CPU */
	madt_tab = table_end(madt_tab);
	table_begin("SRAT", 48, 3);
	srat_cpu(0, 0, 1);
	srat_cpu(1, 1, 1);
	srat_cpu(1, 0, 1);		/* a second domain for id 1: skipped */
	srat_cpu(2, 0, 0);		/* disabled: ignored */
	srat_cpu(2, 1, 1);
	srat_x2apic(300, 5, 1);		/* a domain without memory */
	srat_mem(0, 0, SZ_1G);
	srat_mem(1, SZ_1G, SZ_1G);
	srat_tab = table_end(srat_tab);
	boot(0);

	CHECK_EQ(madt_nr_cpus(), 6);
	CHECK_EQ(madt_info.nr_cpus, 5);
	CHECK_EQ(madt_cpu(1)->type, MADT_LOCAL_APIC);
	CHECK_EQ(srat_cpu_pxm(1), 1);
	CHECK_EQ(srat_cpu_pxm(2), 1);
	CHECK_EQ(nr_numa_cpus(), 5);
	expect_cpu(0, 0, 0, 0, true);
	expect_cpu(1, 1, 1, 1, false);
	expect_cpu(2, 2, 1, 1, false);
	expect_cpu(3, 3, -1, 0, false);
	expect_cpu(4, 300, 5, NUMA_NO_NODE, false);
	CHECK_STREQ(cpulist(0), "0,3");
	CHECK_STREQ(cpulist(1), "1-2");
	CHECK_STREQ(cpumap(0), "09");
	CHECK_STREQ(cpumap(1), "06");
	buf_printer_init(&b, text, sizeof(text));
	acpi_decode_srat(&b.p);
	CHECK(strstr(text, "x2APIC id 300, proximity 5 -> no node (no memory in that domain)"));
	CHECK(strstr(text, "APIC id 2, proximity 0 (disabled)"));
	done();
}

/* ---- mm's CPU table alone ---------------------------------------------------- */

/*
 * numa_cpu_add(): the boot CPU becomes number 0 wherever it comes, an id
 * is listed once, a node id out of range is refused, and past
 * NUMA_MAX_CPUS the rest are counted.  The formats: "%*pbl" ranges and
 * "%*pb" 32-bit groups, the first one only as wide as its bits.
 */
HTEST(numa_cpu_table_rules_and_formats)
{
	struct numa_cpu c = { .nid = 0 };

	numa_cpus_reset();
	NODE_DATA(0)->online = NODE_DATA(1)->online = true;
	for (u32 i = 0; i < 40; i++) {
		c.hw_id = 100 + i;
		c.nid = i < 4 ? 0 : 1;
		c.boot = i == 2;
		CHECK(numa_cpu_add(&c) >= 0);
	}
	expect_cpu(0, 102, 0, 0, true);
	expect_cpu(2, 100, 0, 0, false);
	CHECK_STREQ(cpulist(0), "0-3");
	CHECK_STREQ(cpulist(1), "4-39");
	CHECK_STREQ(cpumap(0), "00,0000000f");
	CHECK_STREQ(cpumap(1), "ff,fffffff0");
	c.hw_id = 105;
	CHECK_EQ(numa_cpu_add(&c), -EEXIST);
	c.hw_id = 1;
	c.nid = MAX_NUMNODES;
	CHECK_EQ(numa_cpu_add(&c), -EINVAL);
	c.nid = 0;
	for (u32 i = 40; i < NUMA_MAX_CPUS; i++) {
		c.hw_id = 100 + i;
		CHECK(numa_cpu_add(&c) >= 0);
	}
	c.hw_id = 5000;
	CHECK_EQ(numa_cpu_add(&c), -ENOSPC);
	CHECK_EQ(numa_cpus_dropped(), 1);
	CHECK_EQ(nr_numa_cpus(), NUMA_MAX_CPUS);
	CHECK_STREQ(cpulist(1), "4-39");
	done();
}
