/*
 * acpidump.c - the firmware's tables in the text format of ACPICA's
 * `acpidump`, which its `acpixtract -a` turns back into one binary file
 * per table (dsdt.dat, ssdt1.dat, ...), for `iasl -d` to disassemble on
 * the host.  Each table is a header line with its signature and address,
 * its bytes in rows (lib/hexdump.h, HEXDUMP_ACPI), and a blank line:
 *
 *   DSDT @ 0x000000007FFDF040
 *       0000: 44 53 44 54 0B 28 00 00 01 D4 42 4F 43 48 53 20  DSDT.(....BOCHS
 *
 * The tables are the ones drivers/acpi/tables.c accepted: the root table
 * (RSDT or XSDT), the tables it lists, the DSDT and the FACS; a rejected
 * table is not printed (`acpi tables` says why).  ACPICA also prints the
 * RSDP; memlab has only GRUB's copy of it, not the firmware's, so it
 * does not.  Context: main loop.
 */
#include <drivers/acpi.h>
#include <lib/hexdump.h>
#include <lib/string.h>

/* The signature as the header line shows it: 4 characters, '?' for a
 * byte that is not printable. */
static void sig_text(const struct acpi_sdt_header *h, char out[5])
{
	for (int i = 0; i < 4; i++)
		out[i] = h->signature[i] > 0x20 && h->signature[i] < 0x7f ? h->signature[i] : '?';
	out[4] = '\0';
}

static char upper(char c)
{
	return c >= 'a' && c <= 'z' ? (char)(c - 'a' + 'A') : c;
}

/* Does the table's signature match sig (4 characters, any case)? NULL: all. */
static bool wanted(const struct acpi_sdt_header *h, const char *sig)
{
	if (!sig)
		return true;
	for (int i = 0; i < 4; i++)
		if (upper(sig[i]) != h->signature[i])
			return false;
	return true;
}

static void dump_one(struct printer *p, const struct acpi_sdt_header *h, phys_addr_t phys)
{
	char sig[5];

	sig_text(h, sig);
	pr_printf(p, "%s @ 0x%016llX\n", sig, (unsigned long long)phys);
	hexdump_buffer(p, HEXDUMP_ACPI, h, h->length);
	pr_puts(p, "\n");
}

/*
 * acpi_dump_tables() - see acpi.h.  sig, when not NULL, has 4 characters
 * (the caller checks); "SSDT" prints every SSDT, as `acpidump -n SSDT`.
 */
unsigned acpi_dump_tables(struct printer *p, const char *sig)
{
	const struct acpi_sdt_header *h;
	phys_addr_t phys;
	unsigned n = 0;

	h = acpi_root_table(&phys);
	if (h && wanted(h, sig)) {
		dump_one(p, h, phys);
		n++;
	}
	for (unsigned i = 0; (h = acpi_table_by_index(i, &phys)); i++)
		if (wanted(h, sig)) {
			dump_one(p, h, phys);
			n++;
		}
	return n;
}
