/*
 * tables.c - find and check the ACPI tables.
 *
 * The chain is RSDP -> RSDT (32-bit pointers) or XSDT (64-bit pointers) ->
 * tables.  Firmware is not trusted: every structure is checked (signature,
 * checksum, length against its header, against the fixed part of its type
 * and against a sane bound) before any field is read, and a table that
 * fails is recorded with the reason and its values, logged, and skipped; so
 * is a table listed twice, or a root table that lists itself.  A rejected
 * XSDT falls back to the RSDT when the RSDP has one.  GRUB copies the RSDP
 * into the multiboot2 information (tag 14 for ACPI 1.0, 15 for 2.0+);
 * SeaBIOS gives only tag 14, so only the RSDT.
 */
#include <drivers/acpi.h>
#include "internal.h"
#include <arch/bootinfo.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <arch/paging.h>

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
	char problem[72];			/* why it was rejected, "" if not */
};

static struct acpi_table_entry tables[ACPI_MAX_TABLES];
static unsigned nr_tables;
static const char *root_name = "none";	/* "RSDT" or "XSDT" */
static phys_addr_t root_phys;
static char rsdp_problem[128];		/* why there are no tables, "" if there are */
static const struct acpi_sdt_header *root_hdr;	/* the root table, mapped, or NULL */
static const struct acpi_sdt_header *facs_hdr;	/* the FACS, mapped, or NULL */
static phys_addr_t facs_phys;

#define ACPI_FACS_MIN_LEN	64	/* the FACS of ACPI 1.0 and later */
#define ACPI_FACS_MAX_LEN	4096	/* larger is taken as corrupt */

/*
 * The fixed part of each table memlab reads fields from.  A table shorter
 * than this is rejected here, so no reader (decode.c, events.c, power.c,
 * pci.c, ...) reads past its end.
 */
static const struct { char sig[4]; u32 len; } min_lengths[] = {
	{ "FACP", offsetof(struct acpi_fadt, reset_reg) },	/* ACPI 1.0: 116 */
	{ "APIC", 44 },		/* + local APIC address, flags */
	{ "SRAT", 48 },		/* + 12 reserved bytes */
	{ "SLIT", 44 },		/* + number of localities */
	{ "MCFG", 44 },		/* + 8 reserved bytes */
	{ "NFIT", 40 },		/* + 4 reserved bytes */
};

static u32 min_table_length(const char sig[4])
{
	for (unsigned i = 0; i < ARRAY_SIZE(min_lengths); i++)
		if (!memcmp(sig, min_lengths[i].sig, 4))
			return min_lengths[i].len;
	return sizeof(struct acpi_sdt_header);
}

/* The sum of len bytes at p, mod 256: 0 for a good ACPI checksum. */
static u8 byte_sum(const void *p, size_t len)
{
	const u8 *b = p;
	u8 sum = 0;

	for (size_t i = 0; i < len; i++)
		sum += b[i];
	return sum;
}

bool acpi_checksum_ok(const void *p, size_t len)
{
	return byte_sum(p, len) == 0;
}

/*
 * Map and check the table at phys.  On success returns the mapping; on
 * failure NULL with the reason, values included, in problem[0, size).
 * expect_sig may be NULL.  The length is read once: every check and the
 * mapping use the same value.
 */
static const struct acpi_sdt_header *map_table(phys_addr_t phys, const char *expect_sig,
					       u32 *length, char *problem, size_t size,
					       char sig_out[5])
{
	const struct acpi_sdt_header *h;
	u32 len, min;

	*length = 0;
	problem[0] = '\0';
	memcpy(sig_out, "????", 5);
	if (!phys) {
		ksnprintf(problem, size, "null address");
		return NULL;
	}
	h = ioremap(phys, sizeof(*h), IOREMAP_WB);
	if (!h) {
		ksnprintf(problem, size, "cannot map its header");
		return NULL;
	}
	for (int i = 0; i < 4; i++)
		sig_out[i] = (h->signature[i] >= 0x20 && h->signature[i] < 0x7f) ? h->signature[i] : '?';
	*length = len = h->length;
	if (expect_sig && memcmp(h->signature, expect_sig, 4)) {
		ksnprintf(problem, size, "signature is not %s", expect_sig);
		return NULL;
	}
	min = min_table_length(h->signature);
	if (len < min) {
		ksnprintf(problem, size, "length %u is less than the %u bytes of its fixed part",
			  len, min);
		return NULL;
	}
	if (len > ACPI_MAX_TABLE_LEN) {
		ksnprintf(problem, size, "length %u is over the %u MiB limit", len,
			  ACPI_MAX_TABLE_LEN >> 20);
		return NULL;
	}
	h = ioremap(phys, len, IOREMAP_WB);
	if (!h) {
		ksnprintf(problem, size, "cannot map its %u bytes", len);
		return NULL;
	}
	if (!acpi_checksum_ok(h, len)) {
		ksnprintf(problem, size, "bad checksum (its %u bytes sum to %#x, not 0)", len,
			  byte_sum(h, len));
		return NULL;
	}
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
	t->hdr = NULL;
	t->length = 0;
	memcpy(t->signature, "????", 5);
	/* A root table that lists itself, or a table twice, is a firmware bug. */
	for (unsigned i = 0; phys && i + 1 < nr_tables; i++)
		if (tables[i].phys == phys) {
			memcpy(t->signature, tables[i].signature, 5);
			t->length = tables[i].length;
			ksnprintf(t->problem, sizeof(t->problem), "listed twice (see entry %u)", i);
			goto rejected;
		}
	if (phys && phys == root_phys) {
		memcpy(t->signature, root_name, 5);
		ksnprintf(t->problem, sizeof(t->problem), "the %s lists itself", root_name);
		goto rejected;
	}
	t->hdr = map_table(phys, expect_sig, &t->length, t->problem, sizeof(t->problem),
			   t->signature);
	if (t->hdr)
		return;
rejected:
	pr_warn("acpi: table %s at %#llx rejected: %s", t->signature,
		(unsigned long long)phys, t->problem);
}

/*
 * Map the FACS the FADT points to.  It has no checksum and only the
 * signature and length of a table header, so those two are what is
 * checked; a FACS that fails is logged and left out (nothing in memlab
 * reads its fields: it is kept for the views of the tables).
 */
static void map_facs(phys_addr_t phys)
{
	/* the usual 64 bytes in one mapping; a longer FACS is mapped again */
	const struct acpi_sdt_header *h = ioremap(phys, ACPI_FACS_MIN_LEN, IOREMAP_WB);
	u32 len;

	if (!h) {
		pr_warn("acpi: FACS at %#llx rejected: cannot map its first %u bytes",
			(unsigned long long)phys, ACPI_FACS_MIN_LEN);
		return;
	}
	len = h->length;
	if (memcmp(h->signature, "FACS", 4)) {
		pr_warn("acpi: FACS at %#llx rejected: signature is not FACS",
			(unsigned long long)phys);
		return;
	}
	if (len < ACPI_FACS_MIN_LEN || len > ACPI_FACS_MAX_LEN) {
		pr_warn("acpi: FACS at %#llx rejected: length %u is not %u..%u",
			(unsigned long long)phys, len, ACPI_FACS_MIN_LEN, ACPI_FACS_MAX_LEN);
		return;
	}
	if (len > ACPI_FACS_MIN_LEN)
		h = ioremap(phys, len, IOREMAP_WB);
	if (!h) {
		pr_warn("acpi: FACS at %#llx rejected: cannot map its %u bytes",
			(unsigned long long)phys, len);
		return;
	}
	/* the length is read once: the copy that was checked is the one kept */
	if (h->length != len) {
		pr_warn("acpi: FACS at %#llx rejected: its length changed while mapped",
			(unsigned long long)phys);
		return;
	}
	facs_hdr = h;
	facs_phys = phys;
}

/*
 * Why the XSDT part of a revision 2+ RSDP cannot be used, or NULL if it can.
 * The RSDP is bi->rsdp_len bytes (GRUB's copy).
 */
static const char *rsdp_xsdt_problem(const struct acpi_rsdp *rsdp, u32 rsdp_len, char *buf,
				     size_t size)
{
	if (rsdp_len < sizeof(*rsdp))
		ksnprintf(buf, size, "the boot loader copied %u bytes, not %u", rsdp_len,
			  (unsigned)sizeof(*rsdp));
	else if (rsdp->length < sizeof(*rsdp) || rsdp->length > rsdp_len)
		ksnprintf(buf, size, "its length field is %u (%u..%u expected)", rsdp->length,
			  (unsigned)sizeof(*rsdp), rsdp_len);
	else if (!acpi_checksum_ok(rsdp, rsdp->length))
		ksnprintf(buf, size, "its extended checksum is wrong (sum %#x)",
			  byte_sum(rsdp, rsdp->length));
	else if (!rsdp->xsdt_address)
		ksnprintf(buf, size, "its XSDT address is 0");
	else
		return NULL;
	return buf;
}

/*
 * acpi_tables_init() - see acpi.h.  Starts over on every call: what an
 * earlier call found is forgotten (the host tests and the fuzz target call
 * it once per image).
 */
void acpi_tables_init(const struct boot_info *bi)
{
	const struct acpi_rsdp *rsdp = (const void *)bi->rsdp;
	const struct acpi_sdt_header *root = NULL;
	u32 root_len;
	char sig[5], why[80];
	bool use_xsdt;
	unsigned entry_size, nr_entries;

	nr_tables = 0;
	root_name = "none";
	root_phys = 0;
	root_hdr = NULL;
	facs_hdr = NULL;
	facs_phys = 0;
	rsdp_problem[0] = '\0';
	if (bi->rsdp_len < 20) {
		ksnprintf(rsdp_problem, sizeof(rsdp_problem), "the boot loader gave no RSDP");
		pr_warn("acpi: %s; no ACPI tables", rsdp_problem);
		return;
	}
	if (memcmp(rsdp->signature, "RSD PTR ", 8)) {
		ksnprintf(rsdp_problem, sizeof(rsdp_problem), "the RSDP signature is not \"RSD PTR \"");
		pr_warn("acpi: %s; no ACPI tables", rsdp_problem);
		return;
	}
	if (!acpi_checksum_ok(rsdp, 20)) {
		ksnprintf(rsdp_problem, sizeof(rsdp_problem),
			  "the RSDP checksum is wrong (its first 20 bytes sum to %#x)",
			  byte_sum(rsdp, 20));
		pr_warn("acpi: %s; no ACPI tables", rsdp_problem);
		return;
	}
	use_xsdt = rsdp->revision >= 2 &&
		   !rsdp_xsdt_problem(rsdp, bi->rsdp_len, why, sizeof(why));
	if (rsdp->revision >= 2 && !use_xsdt)
		pr_warn("acpi: RSDP revision %u but its XSDT part is unusable: %s; using the RSDT",
			rsdp->revision, why);
	if (use_xsdt) {
		root_phys = rsdp->xsdt_address;
		root = map_table(root_phys, "XSDT", &root_len, rsdp_problem, sizeof(rsdp_problem),
				 sig);
		if (!root && rsdp->rsdt_address) {
			pr_warn("acpi: XSDT at %#llx rejected: %s; trying the RSDT",
				(unsigned long long)root_phys, rsdp_problem);
			use_xsdt = false;
		}
	}
	if (!use_xsdt) {
		root_phys = rsdp->rsdt_address;
		root = map_table(root_phys, "RSDT", &root_len, rsdp_problem, sizeof(rsdp_problem),
				 sig);
	}
	root_name = use_xsdt ? "XSDT" : "RSDT";
	if (!root) {
		/* keep the reason, and say which table it was about */
		ksnprintf(why, sizeof(why), "%s", rsdp_problem);
		ksnprintf(rsdp_problem, sizeof(rsdp_problem), "%s at %#llx rejected: %s", root_name,
			  (unsigned long long)root_phys, why);
		pr_warn("acpi: %s; no ACPI tables", rsdp_problem);
		return;
	}
	root_hdr = root;
	entry_size = use_xsdt ? 8 : 4;
	nr_entries = (root_len - sizeof(*root)) / entry_size;
	if ((root_len - sizeof(*root)) % entry_size)
		pr_warn("acpi: %s length %u is not a whole number of %u-byte entries; "
			"the last %u bytes are ignored", root_name, root_len, entry_size,
			(unsigned)((root_len - sizeof(*root)) % entry_size));
	for (unsigned i = 0; i < nr_entries; i++) {
		const u8 *p = (const u8 *)(root + 1) + i * entry_size;
		u64 phys = 0;

		memcpy(&phys, p, entry_size);
		add_table(phys, NULL);
	}
	/* The DSDT is not in the root table; the FADT points to it (a FADT
	 * that passed map_table is at least 116 bytes: dsdt is readable). */
	const struct acpi_fadt *fadt = (const void *)acpi_find_table("FACP", 0);

	if (fadt) {
		u64 dsdt = fadt->h.length >= offsetof(struct acpi_fadt, x_dsdt) + 8 && fadt->x_dsdt
			   ? fadt->x_dsdt : fadt->dsdt;

		add_table(dsdt, "DSDT");

		u64 facs = fadt->h.length >= offsetof(struct acpi_fadt, x_firmware_ctrl) + 8 &&
			   fadt->x_firmware_ctrl ? fadt->x_firmware_ctrl : fadt->firmware_ctrl;

		if (facs)
			map_facs(facs);
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

const struct acpi_sdt_header *acpi_table_by_index(unsigned i, phys_addr_t *phys)
{
	for (unsigned k = 0; k < nr_tables; k++) {
		if (!tables[k].hdr)
			continue;
		if (i-- == 0) {
			*phys = tables[k].phys;
			return tables[k].hdr;
		}
	}
	if (i == 0 && facs_hdr) {
		*phys = facs_phys;
		return facs_hdr;
	}
	return NULL;
}

const struct acpi_sdt_header *acpi_root_table(phys_addr_t *phys)
{
	*phys = root_phys;
	return root_hdr;
}

bool acpi_table_entry(unsigned i, const char **sig, phys_addr_t *phys, u32 *length,
		      const struct acpi_sdt_header **hdr)
{
	if (i >= nr_tables)
		return false;
	*sig = tables[i].signature;
	*phys = tables[i].phys;
	*length = tables[i].length;
	*hdr = tables[i].hdr;
	return true;
}

void acpi_dump(struct printer *p)
{
	if (rsdp_problem[0] && !nr_tables) {
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
			  t->problem[0] ? t->problem : "ok");
	}
}
