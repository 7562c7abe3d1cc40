/*
 * acpi_harness.c - the platform the ACPI drivers see under the fuzz target
 * tests/fuzz/fuzz_acpi.c, and the checks run on what they make of each
 * input (acpi_harness.h).
 *
 * The platform: ioremap() serves the memory image at IMG_PHYS and refuses
 * any range not wholly inside it; device registers (the local APIC, I/O
 * APICs with a pin count or dead, chosen by bits of their address) are
 * modelled windows; ports read "no DIMM, SCI_EN set"; machine_poweroff()
 * and machine_reboot() end in a longjmp.  The checks are the ones listed
 * in fuzz_acpi.c's top comment ("After each: ...").  Linked into the
 * target through FUZZ_SRCS_fuzz_acpi in the Makefile.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drivers/acpi.h>
#include <drivers/nfit.h>
#include <lib/fw_memmap.h>
#include "../../drivers/acpi/internal.h"
#include <arch/bootinfo.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/power.h>
#include <arch/traps.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <mm/mm_init.h>
#include <mm/page.h>
#include <mm/numa_cpu.h>
#include <shell/shell.h>
#include "platform_stub.h"
#include <setjmp.h>
#include "acpi_harness.h"

/* ---- the platform, as the drivers see it ----------------------------------- */

u8 *img;			/* exactly img_len bytes (ASan-checked) */
size_t img_len;

/*
 * Device registers (ioremap uncached): one window per address asked for,
 * up to MMIO_WINDOWS.  A 0x20-byte window is an I/O APIC: index at +0x00,
 * data at +0x10; its pin count is bits 4-11 of its address + 1, and one
 * at an odd multiple of 0x1000 reads all ones (nothing there).  Any other
 * window is plain registers (the local APIC).
 */
#define MMIO_WINDOWS	(APIC_MAX_IOAPICS + 1)

struct mmio_window {
	u64 phys;			/* the address ioremap was given */
	u64 size;			/* and the size */
	u32 regs[0x400 / 4];		/* plain registers, or +0x00 the I/O APIC's index */
	u32 rte[512];			/* I/O APIC registers 0x10-0x20f */
};

static struct mmio_window mmio[MMIO_WINDOWS];
static unsigned nr_mmio;

static bool ioapic_dead(const struct mmio_window *w) { return (w->phys >> 12) & 1; }
static u32 ioapic_pins(const struct mmio_window *w) { return ((w->phys >> 4) & 0xff) + 1; }

void *ioremap(phys_addr_t phys, u64 size, enum ioremap_cache cache)
{
	if (cache == IOREMAP_UC) {
		CHECK(size <= sizeof(mmio[0].regs));
		if (nr_mmio == MMIO_WINDOWS)
			return NULL;
		mmio[nr_mmio] = (struct mmio_window){ .phys = phys, .size = size };
		return mmio[nr_mmio++].regs;
	}
	if (!img || phys < IMG_PHYS || phys - IMG_PHYS > img_len ||
	    size > img_len - (phys - IMG_PHYS))
		return NULL;
	return img + (phys - IMG_PHYS);
}

static struct mmio_window *mmio_of(const volatile u32 *reg, unsigned *off)
{
	for (unsigned i = 0; i < nr_mmio; i++)
		if (reg >= mmio[i].regs && reg < mmio[i].regs + mmio[i].size / 4) {
			*off = (unsigned)(reg - mmio[i].regs) * 4;
			return &mmio[i];
		}
	CHECK(0);	/* outside every window */
	return NULL;
}

u32 host_mmio_read32(const volatile u32 *reg)
{
	unsigned off;
	struct mmio_window *w = mmio_of(reg, &off);

	if (w->size != 0x20)
		return w->regs[off / 4];
	if (ioapic_dead(w))
		return ~0u;
	CHECK(off == 0x00 || off == 0x10);
	if (off == 0x00)
		return w->regs[0];			/* the index */
	if (w->regs[0] == 0x00)
		return 0;				/* id */
	if (w->regs[0] == 0x01)
		return (ioapic_pins(w) - 1) << 16 | 0x20;
	CHECK(w->regs[0] >= 0x10 && w->regs[0] < 0x10 + 2 * ioapic_pins(w));
	return w->rte[w->regs[0] - 0x10];
}

void host_mmio_write32(volatile u32 *reg, u32 v)
{
	unsigned off;
	struct mmio_window *w = mmio_of(reg, &off);

	if (w->size != 0x20 || off == 0x00) {
		w->regs[off / 4] = v;
		return;
	}
	CHECK(off == 0x10 && !ioapic_dead(w));
	CHECK(w->regs[0] >= 0x10 && w->regs[0] < 0x10 + 2 * ioapic_pins(w));
	w->rte[w->regs[0] - 0x10] = v;
}

struct cpu_info boot_cpu = { .has_apic = true };
static u64 apic_base_msr;
u64 host_rdmsr(u32 msr) { return apic_base_msr; }
void host_wrmsr(u32 msr, u64 v) { apic_base_msr = v; }
u64 irq_count(unsigned irq) { return irq; }
u64 host_rdtsc(void) { static u64 tsc; return tsc += 1000; }	/* apic.c's IPI wait */

/* machine_poweroff() and machine_reboot() end here. */
static jmp_buf cpu_stopped;
void host_cpu_halt(void) { longjmp(cpu_stopped, 1); }
void host_cpu_triple_fault(void) { longjmp(cpu_stopped, 2); }

/* Ports: no DIMM in any slot, SCI_EN already set, everything else 0. */
u32 host_port_in(u16 port, unsigned width)
{
	(void)port;
	return width == 2 ? 1 : 0;
}

static void (*check_port_write)(u16 port, unsigned width, u32 v);	/* or NULL */

void host_port_out(u16 port, unsigned width, u32 v)
{
	if (check_port_write)
		check_port_write(port, width, v);
}

int irq_register_sci(unsigned sci_int, void (*handler)(unsigned irq), unsigned *line,
		     const char **how)
{
	(void)handler;
	*line = sci_int;
	*how = "level, active-low";
	return sci_int < 24 ? 0 : -1;
}
void schedule_work(struct work *w) { w->pending = true; }
void register_poller(struct poller *p) { (void)p; }
void udelay(u64 usecs) { (void)usecs; }
u64 ktime_ns(void) { return 0; }

/* The harness's own device models, fresh for each input. */
static void reset_models(void)
{
	nr_mmio = 0;
	apic_base_msr = 0xfee00900;
}

/* ---- the checks ---------------------------------------------------------- */

static struct boot_info bi;
static struct mm_boot_params bp;

static u32 min_len_of(const char *sig)
{
	if (!memcmp(sig, "FACP", 4))
		return 116;
	if (!memcmp(sig, "APIC", 4) || !memcmp(sig, "SLIT", 4) || !memcmp(sig, "MCFG", 4))
		return 44;
	if (!memcmp(sig, "SRAT", 4))
		return 48;
	return 36;
}

static void check_tables(void)
{
	const struct acpi_sdt_header *hdr;
	const char *sig;
	phys_addr_t phys;
	u32 length;
	unsigned i;

	for (i = 0; acpi_table_entry(i, &sig, &phys, &length, &hdr); i++) {
		const u8 *h = (const u8 *)hdr;

		CHECK(memchr(sig, '\0', 5));
		if (!h)
			continue;
		CHECK(h >= img && h - img <= (ptrdiff_t)img_len);
		CHECK(length == hdr->length);
		CHECK(length <= img_len - (size_t)(h - img));
		CHECK(length >= min_len_of(sig));
		CHECK(acpi_checksum_ok(h, length));
	}
	CHECK(i <= ACPI_MAX_TABLES);
}

/*
 * The tables the views show (acpi_table_by_index(): the accepted ones and
 * the FACS, which has no entry) lie inside the image, each once; and
 * acpidump prints each as a header line, one row per 16 bytes and a blank
 * line, nothing else, without reading past it (ASan).
 */
struct line_counter {
	struct printer p;	/* must stay first */
	size_t lines;
};

static void count_lines(struct printer *p, const char *s, size_t len)
{
	struct line_counter *c = (struct line_counter *)p;

	for (size_t i = 0; i < len; i++)
		c->lines += s[i] == '\n';
}

static void check_views_tables(void)
{
	const struct acpi_sdt_header *h;
	struct line_counter c = { .p.write = count_lines };
	phys_addr_t phys;
	size_t want = 0;
	unsigned i;

	h = acpi_root_table(&phys);
	if (h)
		want += 2 + (h->length + 15) / 16;
	for (i = 0; (h = acpi_table_by_index(i, &phys)); i++) {
		const u8 *t = (const u8 *)h;

		CHECK(t >= img && h->length <= img_len - (size_t)(t - img));
		CHECK(phys == IMG_PHYS + (size_t)(t - img));
		want += 2 + (h->length + 15) / 16;
	}
	CHECK(i <= ACPI_MAX_TABLES + 1);
	CHECK(acpi_dump_tables(&c.p, NULL) == i + (acpi_root_table(&phys) != NULL));
	CHECK(c.lines == want);
}

/* Is [base, base+size) with this pxm an enabled memory entry of the SRAT? */
static bool srat_has(u64 base, u64 size, int nid)
{
	const struct acpi_sdt_header *h = acpi_find_table("SRAT", 0);
	const u8 *t = (const u8 *)h;

	if (!h)
		return false;
	for (u32 off = 48; off + 40 <= h->length && t[off + 1] >= 2; off += t[off + 1]) {
		u32 pxm, flags;
		u64 b, s;

		if (t[off] != 1 || t[off + 1] < 40)
			continue;
		memcpy(&pxm, t + off + 2, 4);
		memcpy(&b, t + off + 8, 8);
		memcpy(&s, t + off + 16, 8);
		memcpy(&flags, t + off + 28, 4);
		if (h->revision <= 1)
			pxm &= 0xff;
		if (b == base && s == size && (flags & 1) && acpi_pxm_find_node(pxm) == nid)
			return true;
	}
	return false;
}

static void check_numa(int ret)
{
	int nr_nodes = 0;

	CHECK(ret >= 0 && (u32)ret == bp.nr_numa);
	CHECK(bp.nr_numa <= MM_MAX_NUMA_BLKS);
	/* node -> pxm -> node */
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		long pxm = acpi_node_to_pxm(nid);

		if (pxm < 0) {
			for (int later = nid; later < MAX_NUMNODES; later++)
				CHECK(acpi_node_to_pxm(later) < 0);	/* dense ids */
			break;
		}
		CHECK(pxm <= 0xffffffffL);
		CHECK(acpi_pxm_find_node((u32)pxm) == nid);
		nr_nodes++;
	}
	CHECK(acpi_node_to_pxm(-1) < 0 && acpi_node_to_pxm(MAX_NUMNODES) < 0);
	for (u32 i = 0; i < bp.nr_numa; i++) {
		const struct numa_memblk *b = &bp.numa[i];

		CHECK(b->start < b->end);
		CHECK(b->end <= (1ULL << MAX_PHYSMEM_BITS));
		CHECK(b->nid >= 0 && b->nid < MAX_NUMNODES && b->nid < nr_nodes);
		CHECK(srat_has(b->start, b->end - b->start, b->nid));
		for (u32 j = 0; j < i; j++)
			CHECK(bp.numa[j].nid == b->nid || bp.numa[j].end <= b->start ||
			      b->end <= bp.numa[j].start);
	}
	/* every node has at least one range: no half-made nodes */
	for (int nid = 0; nid < nr_nodes; nid++) {
		bool found = false;

		for (u32 i = 0; i < bp.nr_numa; i++)
			found |= bp.numa[i].nid == nid;
		CHECK(found);
	}
	for (int a = 0; a < MAX_NUMNODES; a++)
		for (int b = 0; b < MAX_NUMNODES; b++) {
			u8 d = bp.distance[a][b];

			if (a >= nr_nodes || b >= nr_nodes) {
				CHECK(d == 0);
				continue;
			}
			if (d)
				CHECK(a == b ? d == 10 : d > 10);
			/* all or nothing: a SLIT gives every pair of nodes */
			CHECK(!d == !bp.distance[0][0]);
		}
}

/* A MADT is used whole or not at all: if it was, every entry was sound. */
static void check_madt(bool ok)
{
	static const u8 min_len[11] = { 8, 12, 10, 2, 6, 12, 2, 2, 2, 16, 12 };
	const struct acpi_sdt_header *h = acpi_find_table("APIC", 0);
	const u8 *t = (const u8 *)h;

	CHECK(madt_info.nr_ioapics <= APIC_MAX_IOAPICS);
	CHECK(madt_info.nr_overrides <= APIC_MAX_OVERRIDES);
	if (!ok)
		return;
	CHECK(madt_info.nr_ioapics > 0 && madt_info.lapic_addr);
	CHECK(h != NULL);
	for (u32 off = 44; off < h->length; off += t[off + 1]) {
		CHECK(h->length - off >= 2);
		CHECK(t[off + 1] >= 2 && t[off + 1] <= h->length - off);
		CHECK(t[off] > 10 || t[off + 1] >= min_len[t[off]]);
	}
}

/*
 * The CPU table (drivers/acpi/numa_cpus.c into mm/numa_cpu.c): MADT
 * processor ids listed once and never the broadcast id; after
 * acpi_numa_cpus_init() with the last MADT CPU as the boot CPU: at most
 * NUMA_MAX_CPUS, the boot CPU alone at number 0, hardware ids distinct,
 * every node id NUMA_NO_NODE or below MAX_NUMNODES and, when a domain
 * was given, that domain's node; the node views bounded.
 */
static void check_cpus(void)
{
	unsigned n = madt_nr_cpus();
	u32 boot = n ? madt_cpu(n - 1)->apic_id : 0;
	struct numa_cpu c, d;
	char text[8192];
	struct buf_printer b;

	CHECK(n <= MADT_MAX_CPUS);
	for (unsigned i = 0; i < n; i++) {
		const struct acpi_madt_cpu *m = madt_cpu(i);

		CHECK(m->apic_id != (m->type == MADT_LOCAL_APIC ? 0xffu : 0xffffffffu));
		for (unsigned k = 0; k < i; k++)
			CHECK(madt_cpu(k)->apic_id != m->apic_id);
	}
	CHECK(madt_cpu(n) == NULL);
	acpi_numa_cpus_init(boot);
	CHECK(nr_numa_cpus() >= 1 && nr_numa_cpus() <= NUMA_MAX_CPUS);
	for (unsigned i = 0; i < nr_numa_cpus(); i++) {
		CHECK(numa_cpu_get(i, &c));
		CHECK(c.boot == (i == 0));
		CHECK(!n || i || c.hw_id == boot);
		CHECK(c.nid == NUMA_NO_NODE || (c.nid >= 0 && c.nid < MAX_NUMNODES));
		if (c.pxm >= 0 && c.nid != NUMA_NO_NODE)
			CHECK(acpi_node_to_pxm(c.nid) == c.pxm);
		for (unsigned k = 0; k < i; k++) {
			CHECK(numa_cpu_get(k, &d));
			CHECK(d.hw_id != c.hw_id);
		}
	}
	CHECK(!numa_cpu_get(nr_numa_cpus(), &c));
	for (int nid = 0; nid < MAX_NUMNODES; nid++) {
		buf_printer_init(&b, text, sizeof(text));
		node_cpulist_print(&b.p, nid);
		node_cpumap_print(&b.p, nid);
		CHECK(!b.overflow);
	}
}

/* A view's text, in a static buffer. */
static const char *view_text(void (*dump)(struct printer *p))
{
	static char text[1 << 16];
	struct buf_printer b;

	buf_printer_init(&b, text, sizeof(text));
	dump(&b.p);
	return text;
}

/* The GPE0 block in use (acpi_events_dump() names it) is the FADT's,
 * whole, within the 16-bit port space. */
static void check_ports(void)
{
	const struct acpi_fadt *f = (const void *)acpi_find_table("FACP", 0);
	const char *t = view_text(acpi_events_dump), *g;
	unsigned port, bytes;

	if (!strncmp(t, "no GPE0 block", 13))
		return;
	g = strstr(t, "GPE0: port ");
	CHECK(g && sscanf(g, "GPE0: port %x, %u bytes", &port, &bytes) == 2);
	CHECK(f && port == f->gpe0_blk && bytes == f->gpe0_blk_len / 2u);
	CHECK(port + 2 * bytes <= 0x10000);
}

/* Memory hotplug (acpi_memhp_dump()) is on only with PNP0C80 devices of
 * the AML; this harness has no namespace, so it must be off whatever the
 * DSDT bytes say (no code outside the interpreter reads them for it). */
static void check_memhp(void)
{
	const char *t = view_text(acpi_memhp_dump);

	CHECK(!strncmp(t, "no ACPI memory hotplug device", 29));
}

/*
 * apic_init() over the MADT that madt_parse() accepted: every override
 * left is an ISA IRQ on a GSI below NR_IRQ_LINES that an I/O APIC which
 * answers serves, so every ISA IRQ with a line routes (idt.c's BUG_ON),
 * no two share a GSI, and routing writes only pins that exist (the model
 * checks that).
 */
static void check_apic(void)
{
	if (!apic_init(madt_parse() ? &madt_info : NULL)) {
		CHECK(!apic_enabled());
		return;
	}
	CHECK(madt_info.nr_ioapics > 0);
	for (u32 i = 0; i < madt_info.nr_overrides; i++) {
		u32 gsi = madt_info.overrides[i].gsi;

		CHECK(madt_info.overrides[i].bus_irq < 16);
		CHECK(gsi < NR_IRQ_LINES);
		/* an I/O APIC that answers serves it: routing succeeds */
		CHECK(ioapic_route(gsi, IRQ_BASE + gsi, false, false) == 0);
	}
	bool taken[NR_IRQ_LINES] = { false };

	for (unsigned irq = 0; irq < NR_IRQS; irq++) {
		unsigned gsi;
		bool level, low;

		if (apic_isa_irq_to_gsi(irq, &gsi, &level, &low)) {
			/* no line: an override sends another IRQ to its GSI */
			CHECK(gsi == irq && apic_gsi_owner(gsi) >= 0 && apic_gsi_owner(gsi) != (int)irq);
			continue;
		}
		CHECK(gsi < NR_IRQ_LINES);
		CHECK(!taken[gsi]);	/* one IRQ per line */
		taken[gsi] = true;
		ioapic_route(gsi, IRQ_BASE + gsi, level, low);
	}
}

/* The FADT power.c sees, and whether its PM1 blocks / reset register may
 * be written (see the header comment). */
static const struct acpi_fadt *power_fadt;

static void check_poweroff_write(u16 port, unsigned width, u32 v)
{
	const struct acpi_fadt *f = power_fadt;
	bool pm1_ok = f && f->pm1a_cnt_blk <= 0xfffe && f->pm1b_cnt_blk <= 0xfffe;

	CHECK(width == 2 && (v & ~0x1c00u) == 0x2000);
	CHECK(port == 0x604 || port == 0xb004 ||
	      (pm1_ok && (port == f->pm1a_cnt_blk || port == f->pm1b_cnt_blk)));
}

static void check_reboot_write(u16 port, unsigned width, u32 v)
{
	const struct acpi_fadt *f = power_fadt;

	CHECK(width == 1);
	if (port == 0xcf9 || port == 0x64)
		return;
	CHECK(f && f->h.length >= 129 && f->reset_reg.space_id == 1 &&
	      f->reset_reg.address == port && v == f->reset_value);
}

static void check_power(void)
{
	power_fadt = (const void *)acpi_find_table("FACP", 0);
	acpi_power_init();
	check_port_write = check_poweroff_write;
	if (!setjmp(cpu_stopped))
		machine_poweroff();
	check_port_write = check_reboot_write;
	if (!setjmp(cpu_stopped))
		machine_reboot();
	check_port_write = NULL;
}

/*
 * nfit_parse() against a firmware map with RAM at [1 MiB, 128 MiB): what
 * it kept is a table it accepted whole (no problem), or nothing with the
 * reason; every SPA range is non-empty, does not wrap, ends within
 * MAX_PHYSMEM_BITS, has a unique non-zero index, meets no other range
 * and, unless volatile, no RAM; every memory device map names a range
 * that is there (or none) and a control region that is there.
 */
static void check_nfit(void)
{
	static struct fw_memmap fw;
	int n;

	memset(&fw, 0, sizeof(fw));
	fw.map[0] = (struct fw_range){ SZ_1M, 128 * SZ_1M, FW_MEM_RAM };
	fw.nr = 1;
	n = nfit_parse(&fw);
	CHECK(n >= 0 && n <= NFIT_MAX_SPA);
	CHECK(nfit_spa((unsigned)n) == NULL);
	if (nfit_problem()[0]) {
		CHECK(n == 0 && !nfit_memdev(0) && !nfit_dcr(0) && !nfit_flush(0));
		return;
	}
	for (int i = 0; i < n; i++) {
		const struct nfit_spa *a = nfit_spa((unsigned)i);

		CHECK(a && a->range_index && a->length && a->base + a->length > a->base);
		CHECK(a->base + a->length <= (1ULL << MAX_PHYSMEM_BITS));
		CHECK(a->nid >= 0 && a->nid < MAX_NUMNODES);
		CHECK(a->kind == NFIT_SPA_VOLATILE || a->base >= 128 * SZ_1M ||
		      a->base + a->length <= SZ_1M);
		for (int j = 0; j < i; j++) {
			const struct nfit_spa *b = nfit_spa((unsigned)j);

			CHECK(a->range_index != b->range_index);
			CHECK(a->base >= b->base + b->length || b->base >= a->base + a->length);
		}
	}
	for (unsigned i = 0; nfit_memdev(i); i++) {
		const struct nfit_memdev *d = nfit_memdev(i);
		bool spa = !d->spa_index, dcr = false;

		for (int k = 0; k < n; k++)
			spa |= nfit_spa((unsigned)k)->range_index == d->spa_index;
		for (unsigned k = 0; nfit_dcr(k); k++)
			dcr |= nfit_dcr(k)->index == d->dcr_index;
		CHECK(spa && dcr);
	}
}

/* Each view into its own buffer: bounded, whatever the tables say. */
static void check_dump(void (*dump)(struct printer *p))
{
	static char text[1 << 18];
	struct buf_printer b;

	buf_printer_init(&b, text, sizeof(text));
	dump(&b.p);
	CHECK(!b.overflow);
	CHECK(strlen(text) == b.len);
}

/* The `acpi` command with each of its arguments, and a wrong one. */
static void cmd_acpi_all(struct printer *p)
{
	static const char *const what[] = {
		"tables", "fadt", "madt", "srat", "slit", "mcfg", "nfit", "events", "irq", "nosuch",
	};
	const struct shell_cmd *acpi = shell_find("acpi");
	char *argv[2] = { "acpi", NULL };

	CHECK(acpi != NULL);
	CHECK(acpi->fn(p, 1, argv) == 0);
	for (unsigned i = 0; i < ARRAY_SIZE(what); i++) {
		argv[1] = (char *)what[i];
		CHECK(acpi->fn(p, 2, argv) == (i + 1 < ARRAY_SIZE(what) ? 0 : -EINVAL));
	}
}

void run(size_t rsdp_len, u32 tag)
{
	bool madt_ok;
	int ret;

	memset(&bi, 0, sizeof(bi));
	bi.rsdp_len = (u32)MIN(rsdp_len, MIN(sizeof(bi.rsdp), img_len));
	bi.rsdp_tag = tag;
	memcpy(bi.rsdp, img, bi.rsdp_len);
	reset_models();

	acpi_tables_init(&bi);
	check_tables();
	check_views_tables();
	madt_ok = madt_parse();
	check_madt(madt_ok);
	memset(&bp, 0, sizeof(bp));
	ret = srat_parse(&bp);
	check_numa(ret);
	check_cpus();
	acpi_events_init();
	check_ports();
	acpi_memhp_init();
	check_memhp();
	check_apic();
	check_power();
	check_nfit();

	check_dump(acpi_dump);
	check_dump(nfit_dump);
	check_dump(madt_dump);
	check_dump(acpi_decode_fadt);
	check_dump(acpi_decode_srat);
	check_dump(acpi_decode_slit);
	check_dump(acpi_decode_mcfg);
	check_dump(acpi_events_dump);
	check_dump(acpi_memhp_dump);
	check_dump(cmd_acpi_all);
	/* The views only read: the node maps are as srat_parse left them. */
	check_numa(ret);
}

/* No AML namespace in this harness: memory hotplug stays off
 * (drivers/acpi/aml_kernel.c is the kernel's). */
struct aml_ns *acpi_aml(void)
{
	return NULL;
}

void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value))
{
	(void)fn;
}
