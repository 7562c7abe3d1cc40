/*
 * tables.c - find and check the ACPI tables.
 *
 * The chain is RSDP -> RSDT (32-bit pointers) or XSDT (64-bit pointers) ->
 * tables.  Firmware is not trusted: every structure is checked (signature,
 * checksum, length against its header and against a sane bound) before any
 * field is read, and a table that fails is recorded with the reason and
 * skipped.  GRUB copies the RSDP into the multiboot2 information (tag 14 for
 * ACPI 1.0, 15 for 2.0+); SeaBIOS gives only tag 14, so only the RSDT.
 */
#include <drivers/acpi.h>
#include <kernel/bootinfo.h>
#include <kernel/printk.h>
#include <kernel/string.h>
#include <kernel/shell.h>
#include <arch/paging.h>
#include <arch/traps.h>

#define ACPI_MAX_TABLES	64
#define ACPI_MAX_TABLE_LEN (16u << 20)	/* larger is taken as corrupt */

struct acpi_rsdp {
	char signature[8];	/* "RSD PTR " */
	u8 checksum;		/* first 20 bytes sum to 0 */
	char oem_id[6];
	u8 revision;		/* 0 = ACPI 1.0, 2 = ACPI 2.0+ */
	u32 rsdt_address;
	u32 length;		/* revision 2+: whole structure */
	u64 xsdt_address;
	u8 ext_checksum;	/* whole structure sums to 0 */
	u8 reserved[3];
} __packed;

struct acpi_table_entry {
	char signature[5];			/* NUL-terminated copy */
	phys_addr_t phys;			/* where the firmware put it */
	u32 length;				/* from its header, 0 if unreadable */
	const struct acpi_sdt_header *hdr;	/* mapped, NULL if rejected */
	const char *problem;			/* why it was rejected, or NULL */
};

static struct acpi_table_entry tables[ACPI_MAX_TABLES];
static unsigned nr_tables;
static const char *root_name = "none";	/* "RSDT" or "XSDT" */
static phys_addr_t root_phys;
static const char *rsdp_problem;

bool acpi_checksum_ok(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum == 0;
}

/*
 * Map and check the table at phys.  On success returns the mapping; on
 * failure NULL with *problem set.  expect_sig may be NULL.
 */
static const struct acpi_sdt_header *map_table(phys_addr_t phys, const char *expect_sig,
					       u32 *length, const char **problem,
					       char sig_out[5])
{
	const struct acpi_sdt_header *h;

	*length = 0;
	memcpy(sig_out, "????", 5);
	if (!phys) {
		*problem = "null address";
		return NULL;
	}
	h = ioremap(phys, sizeof(*h), IOREMAP_WB);
	if (!h) {
		*problem = "cannot map header";
		return NULL;
	}
	for (int i = 0; i < 4; i++)
		sig_out[i] = (h->signature[i] >= 0x20 && h->signature[i] < 0x7f) ? h->signature[i] : '?';
	*length = h->length;
	if (expect_sig && memcmp(h->signature, expect_sig, 4)) {
		*problem = "wrong signature";
		return NULL;
	}
	if (h->length < sizeof(*h) || h->length > ACPI_MAX_TABLE_LEN) {
		*problem = "impossible length";
		return NULL;
	}
	h = ioremap(phys, h->length, IOREMAP_WB);
	if (!h) {
		*problem = "cannot map table";
		return NULL;
	}
	if (!acpi_checksum_ok(h, h->length)) {
		*problem = "bad checksum";
		return NULL;
	}
	*problem = NULL;
	return h;
}

static void add_table(phys_addr_t phys, const char *expect_sig)
{
	struct acpi_table_entry *t;

	if (nr_tables == ACPI_MAX_TABLES) {
		pr_warn("acpi: more than %d tables; ignoring the one at %#llx",
			ACPI_MAX_TABLES, (unsigned long long)phys);
		return;
	}
	t = &tables[nr_tables++];
	t->phys = phys;
	t->hdr = map_table(phys, expect_sig, &t->length, &t->problem, t->signature);
	if (t->problem)
		pr_warn("acpi: table %s at %#llx rejected: %s", t->signature,
			(unsigned long long)phys, t->problem);
}

void acpi_tables_init(const struct boot_info *bi)
{
	const struct acpi_rsdp *rsdp = (const void *)bi->rsdp;
	const struct acpi_sdt_header *root;
	u32 root_len;
	char sig[5];
	bool use_xsdt;
	unsigned entry_size, nr_entries;

	if (bi->rsdp_len < 20) {
		rsdp_problem = "the boot loader gave no RSDP";
		pr_warn("acpi: %s; no ACPI tables", rsdp_problem);
		return;
	}
	if (memcmp(rsdp->signature, "RSD PTR ", 8) || !acpi_checksum_ok(rsdp, 20)) {
		rsdp_problem = "RSDP signature or checksum is wrong";
		pr_warn("acpi: %s; no ACPI tables", rsdp_problem);
		return;
	}
	use_xsdt = rsdp->revision >= 2 && bi->rsdp_len >= sizeof(*rsdp) &&
		   rsdp->length >= sizeof(*rsdp) && rsdp->length <= bi->rsdp_len &&
		   acpi_checksum_ok(rsdp, rsdp->length) && rsdp->xsdt_address;
	if (rsdp->revision >= 2 && !use_xsdt)
		pr_warn("acpi: RSDP revision %u but its XSDT part is unusable; using the RSDT",
			rsdp->revision);
	root_phys = use_xsdt ? rsdp->xsdt_address : rsdp->rsdt_address;
	root_name = use_xsdt ? "XSDT" : "RSDT";
	entry_size = use_xsdt ? 8 : 4;
	root = map_table(root_phys, root_name, &root_len, &rsdp_problem, sig);
	if (!root) {
		pr_warn("acpi: %s at %#llx rejected: %s; no ACPI tables", root_name,
			(unsigned long long)root_phys, rsdp_problem);
		return;
	}
	nr_entries = (root_len - sizeof(*root)) / entry_size;
	for (unsigned i = 0; i < nr_entries; i++) {
		const u8 *p = (const u8 *)(root + 1) + i * entry_size;
		u64 phys = 0;

		memcpy(&phys, p, entry_size);
		add_table(phys, NULL);
	}
	/* The DSDT is not in the root table; the FADT points to it. */
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);

	if (fadt) {
		u64 dsdt = fadt->h.length >= offsetof(struct acpi_fadt, x_dsdt) + 8 && fadt->x_dsdt
			   ? fadt->x_dsdt : fadt->dsdt;

		add_table(dsdt, "DSDT");
	}
	pr_info("acpi: RSDP rev %u (multiboot2 tag %u), %s at %#llx, %u tables",
		rsdp->revision, bi->rsdp_tag, root_name,
		(unsigned long long)root_phys, nr_tables);
}

const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned n)
{
	for (unsigned i = 0; i < nr_tables; i++) {
		if (!tables[i].hdr || memcmp(tables[i].signature, sig, 4))
			continue;
		if (n-- == 0)
			return tables[i].hdr;
	}
	return NULL;
}

void acpi_dump(struct printer *p)
{
	if (rsdp_problem && !nr_tables) {
		pr_printf(p, "no ACPI tables: %s\n", rsdp_problem);
		return;
	}
	pr_printf(p, "root table: %s at %#llx\n", root_name, (unsigned long long)root_phys);
	pr_printf(p, "%-4s  %-18s  %8s  %-6s  %-8s  %s\n", "SIG", "ADDRESS", "LENGTH",
		  "OEM", "OEMTABLE", "STATUS");
	for (unsigned i = 0; i < nr_tables; i++) {
		const struct acpi_table_entry *t = &tables[i];
		char oem[7] = "", oemt[9] = "";

		if (t->hdr) {
			memcpy(oem, t->hdr->oem_id, 6);
			memcpy(oemt, t->hdr->oem_table_id, 8);
			for (int k = 0; k < 8; k++) {
				if (k < 6 && (oem[k] < 0x20 || oem[k] >= 0x7f))
					oem[k] = '?';
				if (oemt[k] < 0x20 || oemt[k] >= 0x7f)
					oemt[k] = '?';
			}
		}
		pr_printf(p, "%-4s  %#018llx  %8u  %-6s  %-8s  %s\n", t->signature,
			  (unsigned long long)t->phys, t->length, oem, oemt,
			  t->problem ? t->problem : "ok");
	}
}

static int cmd_acpi(struct printer *out, int argc, char **argv)
{
	const char *what = argc == 2 ? argv[1] : "tables";

	if (argc > 2)
		return shell_usage(out, shell_find("acpi"));
	if (!strcmp(what, "tables"))
		acpi_dump(out);
	else if (!strcmp(what, "madt"))
		madt_dump(out);
	else if (!strcmp(what, "events"))
		acpi_events_dump(out);
	else if (!strcmp(what, "irq"))
		apic_dump(out);
	else if (!strcmp(what, "fadt"))
		acpi_decode_fadt(out);
	else if (!strcmp(what, "srat"))
		acpi_decode_srat(out);
	else if (!strcmp(what, "slit"))
		acpi_decode_slit(out);
	else if (!strcmp(what, "mcfg"))
		acpi_decode_mcfg(out);
	else
		return shell_usage(out, shell_find("acpi"));
	return 0;
}

SHELL_COMMAND(acpi, .name = "acpi", .usage = "acpi [tables|fadt|madt|srat|slit|mcfg|events|irq]",
	      .summary = "ACPI tables, interrupt controllers, SCI and GPE events",
	      .help = "acpi tables: the root table (RSDT or XSDT) and every table it\n"
		      "  points to, plus the DSDT from the FADT: signature, address,\n"
		      "  length, OEM ids, and `ok` or why it was rejected (bad checksum,\n"
		      "  impossible length, ...). Rejected tables are never used.\n"
		      "acpi fadt|madt|srat|slit|mcfg: one table decoded field by field\n"
		      "  (PM blocks and GPE0; interrupt controllers and overrides; NUMA\n"
		      "  memory ranges; node distances; PCIe configuration space).\n"
		      "acpi events: the SCI, the GPE0 block and which GPEs have handlers.\n"
		      "acpi irq: the I/O APIC lines in use, with their trigger mode.",
	      .fn = cmd_acpi);
