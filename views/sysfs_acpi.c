/*
 * sysfs_acpi.c - /sys/firmware/acpi/tables/: the firmware's ACPI tables,
 * one binary file each, named and sized as Linux names and sizes them
 * (include/views/acpi_views.h).  The files read the tables where the
 * firmware put them (drivers/acpi/tables.c mapped and checked them at
 * boot); nothing is copied.  Linux's tables/data and tables/dynamic
 * directories (BERT data, tables loaded by AML) are not made: memlab has
 * neither.
 */
#include <views/acpi_views.h>
#include <views/vfs.h>
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <lib/string.h>

#define TABLES_DIR	"/sys/firmware/acpi/tables"

/* data: the table's header, mapped; its length field is checked and stays. */
static int table_show(struct printer *p, void *data)
{
	const struct acpi_sdt_header *h = data;

	p->write(p, (const char *)h, h->length);
	return 0;
}

static unsigned long table_size(void *data)
{
	const struct acpi_sdt_header *h = data;

	return h->length;
}

static const struct vfs_file_ops table_ops = { .show = table_show, .size = table_size };

/* How many accepted tables have h's signature, and which of them (from 1)
 * is h. */
static void instance_of(const struct acpi_sdt_header *h, unsigned *nth, unsigned *count)
{
	const struct acpi_sdt_header *t;
	phys_addr_t phys;

	*nth = 0;
	*count = 0;
	for (unsigned i = 0; (t = acpi_table_by_index(i, &phys)); i++) {
		if (memcmp(t->signature, h->signature, 4))
			continue;
		(*count)++;
		if (t == h)
			*nth = *count;
	}
}

void acpi_tables_views_init(void)
{
	const struct acpi_sdt_header *h;
	phys_addr_t phys;

	for (unsigned i = 0; (h = acpi_table_by_index(i, &phys)); i++) {
		char sig[5], path[VFS_PATH_MAX];
		unsigned nth, count;
		int err;

		/* a file name cannot hold '/' or a control byte */
		for (int k = 0; k < 4; k++)
			sig[k] = h->signature[k] > 0x20 && h->signature[k] < 0x7f &&
				 h->signature[k] != '/' ? h->signature[k] : '?';
		sig[4] = '\0';
		instance_of(h, &nth, &count);
		if (count > 1)
			ksnprintf(path, sizeof(path), TABLES_DIR "/%s%u", sig, nth);
		else
			ksnprintf(path, sizeof(path), TABLES_DIR "/%s", sig);
		err = vfs_create(path, &table_ops, (void *)h);
		if (err)
			pr_warn("acpi: %s not created: error %d", path, err);
	}
}
