/*
 * pci_machine.c - the q35 machine, the quiet init and rescan, the shell
 * into a buffer and the table checks of the PCI tests (pci_machine.h).
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include <kernel/resource.h>
#include "pci_machine.h"

char text[8192];
static struct buf_printer tp;

/* lspci() - the `lspci` view into text. */
const char *lspci(void)
{
	buf_printer_init(&tp, text, sizeof(text));
	pci_dump(&tp.p);
	return text;
}

/* shell() - one shell line (lspci/setpci/pcihp) into text; its status. */
int shell(const char *line)
{
	char buf[128];
	char *argv[8];
	int argc = 0;
	const struct shell_cmd *c;

	strlcpy(buf, line, sizeof(buf));
	for (char *s = strtok(buf, " "); s && argc < 8; s = strtok(NULL, " "))
		argv[argc++] = s;
	buf_printer_init(&tp, text, sizeof(text));
	c = shell_find(argv[0]);
	if (!c)
		return -1000;
	return c->fn(&tp.p, argc, argv);
}

/* bdf() - the table's entry for (bus, dev, fn), or NULL. */
struct pci_dev *bdf(unsigned bus, unsigned dev, unsigned fn)
{
	return pci_get_bdf(bus, dev, fn);
}

/* Indices of the q35 machine's functions in the model. */
int q_host, q_vga, q_rp1, q_nic, q_rp2, q_rp3, q_dev2;

/*
 * q35() - the machine most tests start from, as SeaBIOS leaves it:
 *   00:00.0 host bridge 8086:29c0
 *   00:01.0 vga 1234:1111: BAR0 16 MiB prefetchable at 0xfd000000, BAR2 4 KiB at 0xfebd0000
 *   00:02.0 root port, buses 1-1, memory window fe800000-fe9fffff,
 *           prefetchable fc000000-fc1fffff (64-bit capable, below 4 GiB)
 *     01:00.0 device 1af4:1041: BAR0 I/O 32 at 0xc000, BAR1 4 KiB at
 *             0xfe800000, BAR4 64-bit prefetchable 16 KiB at 0xfc000000
 *   00:03.0 root port, buses 2-2, windows closed (an empty hotplug slot)
 *   00:04.0 root port left unconfigured (bus numbers 0)
 *     (behind it) device 1af4:1042 with a 4 KiB BAR0, unassigned
 */
void q35(void)
{
	pm_reset(0, 0xff);
	q_host = pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	q_vga = pm_add(-1, 1, 0, 0x1234, 0x1111, 0, 0x03, 0x00);
	pm_bar(q_vga, 0, 16 << 20, 8, 0xfd000000);
	pm_bar(q_vga, 2, 4096, 0, 0xfebd0000);
	q_rp1 = pm_add(-1, 2, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(q_rp1, 0, 1, 1);
	pm_mem_window(q_rp1, 0xfe800000, 0xfe9fffff);
	pm_pref_window(q_rp1, 0xfc000000, 0xfc1fffff);
	pm_pcie_slot(q_rp1, 0x40, 0, true);
	q_nic = pm_add(q_rp1, 0, 0, 0x1af4, 0x1041, 0, 0x02, 0x00);
	pm_bar(q_nic, 0, 32, 1, 0xc000);
	pm_bar(q_nic, 1, 4096, 0, 0xfe800000);
	pm_bar(q_nic, 4, 16384, 4 | 8, 0xfc000000);
	q_rp2 = pm_add(-1, 3, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(q_rp2, 0, 2, 2);
	pm_pcie_slot(q_rp2, 0x40, 0, true);
	q_rp3 = pm_add(-1, 4, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	q_dev2 = pm_add(q_rp3, 0, 0, 0x1af4, 0x1042, 0, 0x01, 0x00);
	pm_bar(q_dev2, 0, 4096, 0, 0);
}

/* init_quiet() - pci_init() with only warnings and errors on stdout. */
int init_quiet(void)
{
	int err;

	printk_set_level(LOG_WARNING);
	err = pm_init();
	printk_set_level(LOG_INFO);
	return err;
}

/* rescan_quiet() - pci_rescan() likewise. */
int rescan_quiet(void)
{
	int n;

	printk_set_level(LOG_WARNING);
	n = pci_rescan();
	printk_set_level(LOG_INFO);
	return n;
}

/* bars_disjoint() - no two assigned memory BARs in the table overlap. */
bool bars_disjoint(void)
{
	for (unsigned i = 0; i < pci_nr_devices; i++)
		for (unsigned a = 0; a < 6; a++) {
			const struct pci_bar *x = &pci_devices[i].bars[a];

			if (!pci_devices[i].cfg || !x->size || x->is_io || !x->base)
				continue;
			for (unsigned j = i; j < pci_nr_devices; j++)
				for (unsigned b = j == i ? a + 1 : 0; b < 6; b++) {
					const struct pci_bar *y = &pci_devices[j].bars[b];

					if (!pci_devices[j].cfg || !y->size || y->is_io || !y->base)
						continue;
					if (x->base < y->base + y->size && y->base < x->base + x->size) {
						printf("  %02x:%02x.%x BAR%u %llx+%llx overlaps "
						       "%02x:%02x.%x BAR%u %llx+%llx\n",
						       pci_devices[i].bus, pci_devices[i].dev, pci_devices[i].fn, a,
						       (unsigned long long)x->base,
						       (unsigned long long)x->size, pci_devices[j].bus,
						       pci_devices[j].dev, pci_devices[j].fn, b,
						       (unsigned long long)y->base,
						       (unsigned long long)y->size);
						return false;
					}
				}
		}
	return true;
}

/* table_consistent() - every entry in use is inside the MCFG's buses, a
 * bridge's secondary bus is above its own, and each entry's bridge link
 * is a bridge in use whose bus range holds the entry's bus. */
bool table_consistent(void)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

		if (!d->cfg)
			continue;
		if (d->bus < pci_ecam.start_bus || d->bus > pci_ecam.end_bus)
			return false;
		if (d->bridge && (!d->bridge->cfg || d->bridge->header_type != 1 ||
				  d->bus != d->bridge->secondary_bus))
			return false;
		for (unsigned j = i + 1; j < pci_nr_devices; j++)
			if (pci_devices[j].cfg && pci_devices[j].bus == d->bus &&
			    pci_devices[j].dev == d->dev && pci_devices[j].fn == d->fn)
				return false;
	}
	return true;
}

/* id_count() - how many entries of the table are 1af4:`device`. */
unsigned id_count(u16 device)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pci_nr_devices; i++)
		if (pci_devices[i].cfg && pci_devices[i].vendor == 0x1af4 && pci_devices[i].device == device)
			n++;
	return n;
}

/*
 * has_device() - the table holds 1af4:`device` exactly once, on `bus`,
 * behind `bridge`.
 */
bool has_device(u16 device, unsigned bus, const struct pci_dev *bridge)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

		if (d->cfg && d->vendor == 0x1af4 && d->device == device)
			return id_count(device) == 1 && d->bus == bus && bridge &&
			       d->bridge == bridge;
	}
	return false;
}
