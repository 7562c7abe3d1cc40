/*
 * test_acpi.c - the ACPI table code against hostile firmware: tables too
 * short for their fixed fields, a malformed or unrepresentable SRAT, a SLIT
 * that does not cover the nodes or breaks the distance rules, a malformed
 * MADT, a GPE0 block past port 0xffff.  Each
 * must be refused with a log line that says why, never read past a table,
 * and leave a consistent state.  One test per bug the fuzz target
 * (tests/fuzz/fuzz_acpi.c) found.
 *
 * The suite `acpi` links the real drivers/acpi/ (tables, SRAT, MADT,
 * decoders, events, memory hotplug) with the fakes below.  ioremap() serves
 * an image built by the test in a heap buffer of exactly its size, at
 * IMG_PHYS, so ASan catches a read past its end; port I/O goes to
 * host_port_in/out below, which log the writes.  Everything is checked
 * through the drivers' public API (include/drivers/acpi.h) and their log.
 */
#include "htest.h"
#include <drivers/acpi.h>
#include <views/acpi_views.h>
#include <lib/string.h>
#include <views/vfs.h>
#include <shell/shell.h>
#include <arch/bootinfo.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/traps.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <lib/printk.h>
#include <mm/mm_init.h>
#include "platform_stub.h"

#include <stdlib.h>

#define IMG_PHYS	0x7fe0000ULL

static u8 scratch[8192];	/* the image while it is built */
static size_t used;
static u8 *img;			/* the image the drivers see: exactly `used` bytes */
static struct boot_info bi;
static struct mm_boot_params bp;
static char out[8192];
static struct buf_printer outp;
static unsigned port_writes;	/* host_port_out() calls */
static u32 last_port;		/* and the last port written */

void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	(void)cache;
	if (!img || phys < IMG_PHYS || phys - IMG_PHYS > used || size > used - (phys - IMG_PHYS))
		return NULL;
	return img + (phys - IMG_PHYS);
}

u32 host_port_in(u16 port, unsigned width) { (void)port; return width == 2 ? 1 : 0; }
void host_port_out(u16 port, unsigned width, u32 v) { port_writes++; last_port = port; }
int irq_register_sci(unsigned sci_int, void (*handler)(unsigned irq), unsigned *line,
		     const char **how)
{
	*line = sci_int;
	*how = "level, active-high";
	return 0;
}
void schedule_work(struct work *w) { w->pending = true; }
void register_poller(struct poller *p) { (void)p; }
void udelay(u64 usecs) { (void)usecs; }
u64 ktime_ns(void) { return 0; }

static void sum_fix(u8 *t, size_t len, size_t at)
{
	u8 sum = 0;

	t[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += t[i];
	t[at] = (u8)-sum;
}

/* Start an image: the RSDP (ACPI 1.0) at 0, an RSDT with room for 8 entries at 32. */
static void img_begin(void)
{
	free(img);
	img = NULL;
	memset(scratch, 0, sizeof(scratch));
	used = 32 + 36 + 8 * 4;
}

/* Add a table of `length` bytes (header included) with these body bytes. */
static u64 img_table(const char *sig, u32 length, u8 revision, const void *body, size_t body_len)
{
	u8 *t = scratch + used;
	u64 phys = IMG_PHYS + used;

	memcpy(t, sig, 4);
	memcpy(t + 4, &length, 4);
	t[8] = revision;
	memcpy(t + 10, "MEMLAB", 6);
	memcpy(t + 16, "HOSTTEST", 8);
	if (body_len)
		memcpy(t + 36, body, body_len);
	sum_fix(t, length, 9);
	used += length;
	return phys;
}

/* Finish: the RSDT lists `n` tables; copy to an exact heap buffer; boot. */
static void img_boot(const u64 *tabs, unsigned n)
{
	u8 *rsdt = scratch + 32;
	u32 len = 36 + 4 * n, rsdt_phys = (u32)IMG_PHYS + 32;

	memcpy(rsdt, "RSDT", 4);
	memcpy(rsdt + 4, &len, 4);
	rsdt[8] = 1;
	for (unsigned i = 0; i < n; i++) {
		u32 e = (u32)tabs[i];

		memcpy(rsdt + 36 + 4 * i, &e, 4);
	}
	sum_fix(rsdt, len, 9);
	memcpy(scratch, "RSD PTR ", 8);
	memcpy(scratch + 16, &rsdt_phys, 4);
	sum_fix(scratch, 20, 8);

	img = malloc(used);
	memcpy(img, scratch, used);
	memset(&bi, 0, sizeof(bi));
	memcpy(bi.rsdp, img, 20);
	bi.rsdp_len = 20;
	bi.rsdp_tag = 14;
	printk_set_level(LOG_CRIT);
	acpi_tables_init(&bi);
	memset(&bp, 0, sizeof(bp));
	buf_printer_init(&outp, out, sizeof(out));
}

static void img_end(void)
{
	printk_set_level(LOG_INFO);
	free(img);
	img = NULL;
}

/* An SRAT memory affinity entry (40 bytes). */
static void srat_mem(u8 *e, u8 len, u32 pxm, u64 base, u64 size, u32 flags)
{
	memset(e, 0, 40);
	e[0] = 1;
	e[1] = len;
	memcpy(e + 2, &pxm, 4);
	memcpy(e + 8, &base, 8);
	memcpy(e + 16, &size, 8);
	memcpy(e + 28, &flags, 4);
}

#define MEM_ON		1u
#define MEM_HOTPLUG	2u

/* An SRAT of n 40-byte memory entries at body[12 + 40 i]. */
static u64 add_srat(u8 *body, unsigned n)
{
	return img_table("SRAT", 48 + 40 * n, 3, body, 12 + 40 * n);
}

static void expect_no_numa(void)
{
	CHECK_EQ(bp.nr_numa, 0);
	CHECK_EQ(acpi_node_to_pxm(0), -1);
	CHECK_EQ(bp.distance[0][0], 0);
	CHECK(strstr(host_last_log, "SRAT ignored: no NUMA information, one node") != NULL);
}

/*
 * Two nodes (pxm 0: [0, 1 GiB), pxm 1: [1, 2 GiB) and a hot-pluggable
 * window at 4 GiB), a SLIT with 10/20, a q35-sized FADT pointing at a DSDT.
 * Expect every table found and every range, node and distance as given.
 */
HTEST(acpi_well_formed_tables)
{
	u8 body[12 + 3 * 40] = { 0 }, slit[8 + 4] = { 2, 0, 0, 0, 0, 0, 0, 0, 10, 20, 20, 10 };
	u8 fbody[244 - 36] = { 0 };
	u64 tabs[3];
	u32 dsdt_phys;

	img_begin();
	srat_mem(body + 12, 40, 0, 0, SZ_1G, MEM_ON);
	srat_mem(body + 52, 40, 1, SZ_1G, SZ_1G, MEM_ON);
	srat_mem(body + 92, 40, 1, SZ_4G, 16 * SZ_1G, MEM_ON | MEM_HOTPLUG);
	tabs[0] = add_srat(body, 3);
	tabs[1] = img_table("SLIT", 36 + sizeof(slit), 1, slit, sizeof(slit));
	dsdt_phys = (u32)(IMG_PHYS + used);
	img_table("DSDT", 36, 1, NULL, 0);
	memcpy(fbody + 4, &dsdt_phys, 4);
	tabs[2] = img_table("FACP", 244, 3, fbody, sizeof(fbody));
	img_boot(tabs, 3);

	CHECK(acpi_find_table("SRAT", 0) != NULL);
	CHECK(acpi_find_table("SLIT", 0) != NULL);
	CHECK(acpi_find_table("FACP", 0) != NULL);
	CHECK(acpi_find_table("DSDT", 0) != NULL);
	CHECK_EQ(srat_parse(&bp), 3);
	CHECK_EQ(bp.numa[0].nid, 0);
	CHECK_EQ(bp.numa[1].nid, 1);
	CHECK_EQ(bp.numa[2].nid, 1);
	CHECK(bp.numa[2].hotpluggable);
	CHECK_EQ(bp.numa[2].end, SZ_4G + 16 * SZ_1G);
	CHECK_EQ(bp.distance[0][1], 20);
	CHECK_EQ(bp.distance[1][1], 10);
	acpi_dump(&outp.p);
	CHECK(strstr(out, "SRAT  0x0000000007fe") != NULL);
	CHECK(strstr(out, "rejected") == NULL);
	img_end();
}

/*
 * Bug: a FADT shorter than its ACPI 1.0 fields (116 bytes) passed the
 * checks; acpi_tables_init() then read its DSDT field past a 36-43 byte
 * table and `acpi fadt` read `flags` past a 94-115 byte one.  Expect it
 * rejected, with its length in the reason, and no reader to see it.
 */
HTEST(acpi_short_fadt_is_rejected)
{
	u8 fbody[100 - 36] = { 0 };
	u64 tabs[1];

	img_begin();
	tabs[0] = img_table("FACP", 100, 1, fbody, sizeof(fbody));	/* last: ASan guards */
	img_boot(tabs, 1);
	CHECK(acpi_find_table("FACP", 0) == NULL);
	acpi_dump(&outp.p);
	CHECK(strstr(out, "length 100 is less than the 116 bytes of its fixed part") != NULL);
	acpi_decode_fadt(&outp.p);
	CHECK(strstr(out, "no usable FADT") != NULL);

	img_begin();
	tabs[0] = img_table("FACP", 40, 1, fbody, 4);	/* the DSDT field would be at 40 */
	img_boot(tabs, 1);
	CHECK(acpi_find_table("FACP", 0) == NULL);
	CHECK(acpi_find_table("DSDT", 0) == NULL);
	img_end();
}

/*
 * Bug: acpi_tables_init() kept what an earlier call found when the RSDP of
 * a later one was bad (the fuzz target calls it once per image).  Expect
 * the second call to start over.  And: a root table listing itself, or a
 * table twice, is a rejected entry, not a second copy.
 */
HTEST(acpi_tables_init_starts_over)
{
	u8 body[8] = { 0 };
	u64 tabs[3];

	img_begin();
	tabs[0] = img_table("HPET", 44, 1, body, sizeof(body));
	tabs[1] = tabs[0];
	tabs[2] = IMG_PHYS + 32;	/* the RSDT */
	img_boot(tabs, 3);
	CHECK(acpi_find_table("HPET", 0) != NULL);
	CHECK(acpi_find_table("HPET", 1) == NULL);
	acpi_dump(&outp.p);
	CHECK(strstr(out, "listed twice (see entry 0)") != NULL);
	CHECK(strstr(out, "the RSDT lists itself") != NULL);

	bi.rsdp[8] ^= 1;	/* the RSDP checksum */
	acpi_tables_init(&bi);
	CHECK(acpi_find_table("HPET", 0) == NULL);
	buf_printer_init(&outp, out, sizeof(out));
	acpi_dump(&outp.p);
	CHECK(strstr(out, "no ACPI tables: the RSDP checksum is wrong") != NULL);
	img_end();
}

/*
 * Bug: an SRAT entry with a bad length stopped the walk but kept the
 * ranges and nodes read before it, half an SRAT.  Expect no NUMA
 * information at all and the reason.
 *   [pxm 0: 0-1G][pxm 1: 1-2G][type 1, length 60 > what is left]
 */
HTEST(srat_malformed_entry_drops_the_whole_table)
{
	u8 body[12 + 3 * 40] = { 0 };
	u64 tabs[1];

	img_begin();
	srat_mem(body + 12, 40, 0, 0, SZ_1G, MEM_ON);
	srat_mem(body + 52, 40, 1, SZ_1G, SZ_1G, MEM_ON);
	srat_mem(body + 92, 60, 2, 2 * SZ_1G, SZ_1G, MEM_ON);
	tabs[0] = add_srat(body, 3);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 0);
	expect_no_numa();
	CHECK(strstr(host_last_log, "entry at offset 128 (type 1) has length 60, past the end") != NULL);

	/* a memory entry shorter than 40 bytes, as the last one */
	img_begin();
	srat_mem(body + 92, 32, 2, 2 * SZ_1G, SZ_1G, MEM_ON);
	tabs[0] = img_table("SRAT", 48 + 80 + 32, 3, body, 12 + 80 + 32);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 0);
	expect_no_numa();
	CHECK(strstr(host_last_log, "memory entry at offset 128 has length 32, not 40") != NULL);
	img_end();
}

/*
 * Bug: ranges of two nodes that overlap were both kept, so memory was on
 * whichever node memblock_set_node() saw last.  Expect the SRAT refused.
 *   pxm 0: [0 ------- 2G)
 *   pxm 1:       [1G ------- 3G)
 * Same-node overlaps stay allowed.
 */
HTEST(srat_overlapping_nodes_are_refused)
{
	u8 body[12 + 2 * 40] = { 0 };
	u64 tabs[1];

	img_begin();
	srat_mem(body + 12, 40, 0, 0, 2 * SZ_1G, MEM_ON);
	srat_mem(body + 52, 40, 1, SZ_1G, 2 * SZ_1G, MEM_ON);
	tabs[0] = add_srat(body, 2);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 0);
	expect_no_numa();
	CHECK(strstr(host_last_log, "[mem 0x40000000-0xbfffffff] of pxm 1 overlaps "
			"[mem 0-0x7fffffff] of pxm 0") != NULL);

	img_begin();
	srat_mem(body + 52, 40, 0, SZ_1G, 2 * SZ_1G, MEM_ON);
	tabs[0] = add_srat(body, 2);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 2);
	img_end();
}

/*
 * Bugs: a range ending above memlab's 2^46 physical address space was
 * kept; and a 65th range gave its proximity domain a node, then was
 * dropped, leaving a node without memory.  Expect the first skipped with a
 * warning (the rest kept), the second to refuse the SRAT.
 */
HTEST(srat_ranges_memlab_cannot_hold)
{
	static u8 body[12 + 65 * 40];
	u64 tabs[1];

	img_begin();
	memset(body, 0, sizeof(body));
	srat_mem(body + 12, 40, 0, 0, SZ_1G, MEM_ON);
	srat_mem(body + 52, 40, 1, (1ULL << 46) - SZ_1G, 2 * SZ_1G, MEM_ON | MEM_HOTPLUG);
	tabs[0] = add_srat(body, 2);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 1);
	CHECK_EQ(acpi_node_to_pxm(1), -1);	/* pxm 1 got no node */
	CHECK(strstr(host_last_log, "ACPI: SRAT: Node 0 PXM 0") != NULL);

	/* 64 ranges of pxm 0, then one of pxm 1 */
	for (unsigned i = 0; i < 65; i++)
		srat_mem(body + 12 + 40 * i, 40, i == 64, i * SZ_128M, SZ_128M, MEM_ON);
	img_begin();
	tabs[0] = add_srat(body, 65);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 0);
	expect_no_numa();
	CHECK(strstr(host_last_log, "more than 64 memory ranges") != NULL);
	img_end();
}

/*
 * Bugs: a SLIT whose localities did not cover a node's proximity domain
 * gave some distances and left the others 0 (a half matrix); one that
 * broke ACPI's rules (10 on the diagonal, more elsewhere) was used as is.
 * Expect either to be ignored whole, with the reason.
 */
HTEST(slit_that_does_not_fit_the_nodes_is_ignored)
{
	u8 body[12 + 2 * 40] = { 0 };
	u8 slit1[8 + 1] = { 1, 0, 0, 0, 0, 0, 0, 0, 10 };
	u8 slit2[8 + 4] = { 2, 0, 0, 0, 0, 0, 0, 0, 10, 5, 20, 10 };
	u64 tabs[2];

	img_begin();
	srat_mem(body + 12, 40, 0, 0, SZ_1G, MEM_ON);
	srat_mem(body + 52, 40, 1, SZ_1G, SZ_1G, MEM_ON);
	tabs[0] = add_srat(body, 2);
	tabs[1] = img_table("SLIT", 36 + sizeof(slit1), 1, slit1, sizeof(slit1));
	img_boot(tabs, 2);
	CHECK_EQ(srat_parse(&bp), 2);
	CHECK_EQ(bp.distance[0][0], 0);
	CHECK(strstr(host_last_log, "SLIT has 1 localities but node 1 is proximity domain 1") != NULL);

	img_begin();
	tabs[0] = add_srat(body, 2);
	tabs[1] = img_table("SLIT", 36 + sizeof(slit2), 1, slit2, sizeof(slit2));
	img_boot(tabs, 2);
	CHECK_EQ(srat_parse(&bp), 2);
	CHECK_EQ(bp.distance[0][1], 0);
	CHECK(strstr(host_last_log, "SLIT distance from locality 0 to 1 is 5, not more than 10") != NULL);
	img_end();
}

/*
 * Bug: `acpi srat` numbered a node for each proximity domain it showed
 * (it called acpi_pxm_to_node), so a disabled entry's domain took a node
 * id that a DIMM hot-added later should have had.  Expect the view to
 * leave the maps alone.
 */
HTEST(decode_srat_does_not_number_nodes)
{
	u8 body[12 + 2 * 40] = { 0 };
	u64 tabs[1];

	img_begin();
	srat_mem(body + 12, 40, 0, 0, SZ_1G, MEM_ON);
	srat_mem(body + 52, 40, 7, SZ_1G, SZ_1G, 0);	/* disabled */
	tabs[0] = add_srat(body, 2);
	img_boot(tabs, 1);
	CHECK_EQ(srat_parse(&bp), 1);
	acpi_decode_srat(&outp.p);
	CHECK(strstr(out, "proximity 7 disabled -> no node") != NULL);
	CHECK_EQ(acpi_node_to_pxm(1), -1);
	CHECK_EQ(acpi_pxm_to_node(9), 1);	/* the next domain gets node 1 */
	img_end();
}

/*
 * Bug: an MCFG entry whose end bus is below its start bus printed a size
 * of 18446744073709551615 MiB.  Expect the view to say what is wrong.
 */
HTEST(decode_mcfg_end_bus_below_start)
{
	u8 body[8 + 16] = { 0 };
	u64 tabs[1];

	body[8 + 3] = 0xb0;	/* ECAM at 0xb0000000 */
	body[8 + 10] = 5;	/* start bus */
	body[8 + 11] = 2;	/* end bus */
	img_begin();
	tabs[0] = img_table("MCFG", 60, 1, body, sizeof(body));
	img_boot(tabs, 1);
	acpi_decode_mcfg(&outp.p);
	CHECK_STREQ(out, "MCFG: 1 entries\n"
			 "  segment 0, buses 5-2: the end bus is below the start bus\n");
	img_end();
}

/*
 * Bug: a MADT entry running past the table stopped the walk but kept what
 * was read, so the I/O APIC was used without the interrupt overrides that
 * followed.  Expect the MADT ignored (8259s) with the reason.
 */
HTEST(madt_malformed_entry_drops_the_whole_table)
{
	u8 body[8 + 12 + 10] = { 0 };
	u64 tabs[1];

	body[0] = 0x00;		/* local APIC at 0xfee00000 */
	body[2] = 0xe0;
	body[3] = 0xfe;
	body[8] = 1;		/* I/O APIC */
	body[9] = 12;
	body[20] = 2;		/* interrupt override, length 16: past the end */
	body[21] = 16;
	img_begin();
	tabs[0] = img_table("APIC", 36 + sizeof(body), 1, body, sizeof(body));
	img_boot(tabs, 1);
	CHECK(!madt_parse());
	CHECK_EQ(madt_info.nr_ioapics, 0);
	CHECK(strstr(host_last_log, "madt: entry at offset 56 (type 2) has length 16 "
			"(past the end of the table)") != NULL);

	body[21] = 10;
	img_begin();
	tabs[0] = img_table("APIC", 36 + sizeof(body), 1, body, sizeof(body));
	img_boot(tabs, 1);
	CHECK(madt_parse());
	CHECK_EQ(madt_info.nr_ioapics, 1);
	CHECK_EQ(madt_info.nr_overrides, 1);
	img_end();
}

/*
 * Bug: a GPE0 block near port 0xffff was cut to 16 bits and wrapped, so
 * memlab wrote zeros to ports 0x0000... (the DMA controller).  Expect no
 * events and no port write at all.
 */
HTEST(events_gpe0_block_past_port_0xffff)
{
	u8 fbody[244 - 36] = { 0 };
	u32 gpe0 = 0xfff8;
	u64 tabs[1];

	memcpy(fbody + 80 - 36, &gpe0, 4);
	fbody[92 - 36] = 16;	/* 16 bytes: 0xfff8..0x10007 */
	img_begin();
	tabs[0] = img_table("FACP", 244, 3, fbody, sizeof(fbody));
	img_boot(tabs, 1);
	port_writes = 0;
	acpi_events_init();
	acpi_events_dump(&outp.p);
	CHECK_STREQ(out, "no GPE0 block\n");
	CHECK_EQ(port_writes, 0);
	CHECK(strstr(host_last_log, "GPE0 block at I/O 0xfff8 (16 bytes) runs past port 0xffff") != NULL);

	gpe0 = 0x620;		/* q35 */
	memcpy(fbody + 80 - 36, &gpe0, 4);
	img_begin();
	tabs[0] = img_table("FACP", 244, 3, fbody, sizeof(fbody));
	img_boot(tabs, 1);
	acpi_events_init();
	acpi_events_dump(&outp.p);
	CHECK(strstr(out, "GPE0: port 0x620, 8 bytes of status and enable\n") != NULL);
	CHECK_EQ(last_port, 0x62f);	/* the last enable byte cleared */
	img_begin();		/* no FADT: the events start over, none */
	img_boot(NULL, 0);
	acpi_events_init();
	img_end();
}

/*
 * The tables as Linux shows them (views/sysfs_acpi.c) and as acpidump
 * prints them (drivers/acpi/acpidump.c): a FADT pointing at a DSDT and a
 * FACS, two SSDTs and an HPET.  Expect one file per table, the SSDTs
 * numbered from 1 as Linux numbers them, the HPET alone unnumbered, each
 * file the table's bytes with its length as size; cat refuses the binary
 * and hexdump -C shows it; acpidump prints the root table and all five,
 * or only the SSDTs when asked.
 */
static int test_shell_run(const char *line, char *buf, size_t size)
{
	struct buf_printer bp;
	char copy[256];

	strlcpy(copy, line, sizeof(copy));
	buf_printer_init(&bp, buf, size);
	return shell_execute(&bp.p, copy);
}

static bool starts(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

static void txt_list(const char *name, bool is_dir, void *ctx)
{
	struct buf_printer *bp = ctx;

	pr_printf(&bp->p, "%s%s ", name, is_dir ? "/" : "");
}

/* An image with a FADT whose FACS is facs_len bytes (0: none). */
static void boot_with_facs(u32 facs_len, u64 *ssdt1)
{
	u8 fbody[244 - 36] = { 0 }, hbody[20] = { 1, 2, 3 };
	u64 tabs[4];
	u32 dsdt_phys, facs_phys = 0;

	img_begin();
	tabs[0] = img_table("SSDT", 40, 2, "\x10\x05\x5c\x00", 4);
	tabs[1] = img_table("SSDT", 36, 2, NULL, 0);
	tabs[2] = img_table("HPET", 56, 1, hbody, sizeof(hbody));
	dsdt_phys = (u32)(IMG_PHYS + used);
	img_table("DSDT", 36, 1, NULL, 0);
	if (facs_len) {
		facs_phys = (u32)(IMG_PHYS + used);
		memcpy(scratch + used, "FACS", 4);
		memcpy(scratch + used + 4, &facs_len, 4);
		scratch[used + 32] = 0x5a;	/* no checksum: any byte goes */
		used += facs_len;
	}
	memcpy(fbody + 0, &facs_phys, 4);
	memcpy(fbody + 4, &dsdt_phys, 4);
	tabs[3] = img_table("FACP", 244, 3, fbody, sizeof(fbody));
	img_boot(tabs, 4);
	*ssdt1 = tabs[0];
}

HTEST(acpi_tables_in_sysfs_as_linux_names_them)
{
	static char list[512], text[4096];
	struct buf_printer lp, tp;
	struct vfs_attr a;
	u64 ssdt1;

	boot_with_facs(64, &ssdt1);
	vfs_init();
	acpi_tables_views_init();
	buf_printer_init(&lp, list, sizeof(list));
	CHECK_EQ(vfs_list("/sys/firmware/acpi/tables", txt_list, &lp), 0);
	CHECK_STREQ(list, "DSDT FACP FACS HPET SSDT1 SSDT2 ");
	CHECK_EQ(vfs_lstat("/sys/firmware/acpi/tables/SSDT1", &a), 0);
	CHECK(a.binary);
	CHECK_EQ(a.size, 40);
	CHECK_EQ(vfs_lstat("/sys/firmware/acpi/tables/FACS", &a), 0);
	CHECK_EQ(a.size, 64);
	CHECK_EQ(vfs_lstat("/sys/firmware/acpi/tables/FACP", &a), 0);
	CHECK_EQ(a.size, 244);

	/* the file is the table, byte for byte */
	buf_printer_init(&tp, text, sizeof(text));
	CHECK_EQ(vfs_read("/sys/firmware/acpi/tables/SSDT1", &tp.p), 0);
	CHECK_EQ(tp.len, 40);
	CHECK(!memcmp(text, img + (ssdt1 - IMG_PHYS), 40));

	/* ls -l shows the sizes; cat sends to hexdump, which shows the bytes */
	CHECK_EQ(test_shell_run("ls -l /sys/firmware/acpi/tables", text, sizeof(text)), 0);
	CHECK(strstr(text, "-r-------- 244 FACP\n") != NULL);
	CHECK(strstr(text, "-r--------  40 SSDT1\n") != NULL);
	CHECK(test_shell_run("cat /sys/firmware/acpi/tables/HPET", text, sizeof(text)) != 0);
	CHECK_STREQ(text, "cat: /sys/firmware/acpi/tables/HPET: binary file of 56 bytes; "
		    "see it with `hexdump -C /sys/firmware/acpi/tables/HPET`\n");
	CHECK_EQ(test_shell_run("hexdump -C /sys/firmware/acpi/tables/HPET", text,
				sizeof(text)), 0);
	CHECK(starts(text, "00000000  48 50 45 54 38 00 00 00  01 "));
	CHECK(strstr(text, "\n00000030  00 00 00 00 00 00 00 00                           "
			   "|........|\n00000038\n") != NULL);

	/* acpidump: the RSDT first, then every table; or one signature */
	buf_printer_init(&tp, text, sizeof(text));
	CHECK_EQ(acpi_dump_tables(&tp.p, NULL), 7);
	CHECK(starts(text, "RSDT @ 0x0000000007FE0020\n    0000: 52 53 44 54 "));
	CHECK(strstr(text, "\nFACS @ 0x") != NULL);
	buf_printer_init(&tp, text, sizeof(text));
	CHECK_EQ(acpi_dump_tables(&tp.p, "ssdt"), 2);
	CHECK(starts(text, "SSDT @ 0x0000000007FE0064\n"
			   "    0000: 53 53 44 54 28 00 00 00 02 "));
	CHECK(strstr(text, "    0020: 00 00 00 00 10 05 5C 00                          "
			   "......\\.\n\nSSDT @ 0x0000000007FE008C\n") != NULL);
	buf_printer_init(&tp, text, sizeof(text));
	CHECK_EQ(acpi_dump_tables(&tp.p, "XYZW"), 0);
	CHECK_STREQ(text, "");
	img_end();
}

/* A FACS shorter than the 64 bytes of ACPI 1.0 is left out, with a reason. */
HTEST(acpi_short_facs_is_left_out)
{
	static char list[512];
	struct buf_printer lp;
	u64 ssdt1;

	int since = host_log_count;

	boot_with_facs(32, &ssdt1);
	CHECK(host_log_seen("FACS at 0x7fe", since));
	CHECK(host_log_seen("rejected: length 32 is not 64..4096", since));
	vfs_init();
	acpi_tables_views_init();
	buf_printer_init(&lp, list, sizeof(list));
	CHECK_EQ(vfs_list("/sys/firmware/acpi/tables", txt_list, &lp), 0);
	CHECK_STREQ(list, "DSDT FACP HPET SSDT1 SSDT2 ");
	img_end();
}

/* No AML namespace in this harness: memory hotplug is off (the AML path
 * is tests/host/test_memhp_aml.c's; drivers/acpi/aml_kernel.c is the
 * kernel's). */
struct aml_ns *acpi_aml(void)
{
	return NULL;
}

void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value))
{
	(void)fn;
}
