/*
 * test_pci.c - drivers/pci/pci.c and hotplug.c against a model of PCI
 * configuration space (tests/host/pci_model.h): a q35-like machine
 * enumerates to the expected bus numbers, BARs and bridge windows; a
 * function hot-added behind a root port gets its BARs inside the port's
 * window, or a window opened for it; and hostile firmware and devices
 * (MCFGs that are short or empty or do not fit, capability lists that
 * loop, BARs of absurd sizes, bridges with garbage bus numbers, a device
 * on every function, vendor ids 0xffff and 0x0000) each end with a logged
 * reason, bounded work and a consistent table.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"

static char text[8192];
static struct buf_printer tp;

/* lspci() - the `lspci` view into text. */
static const char *lspci(void)
{
	buf_printer_init(&tp, text, sizeof(text));
	pcitest_dump(&tp.p);
	return text;
}

/* shell() - one shell line (lspci/setpci/pcihp) into text; its status. */
static int shell(const char *line)
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
static struct pci_dev *bdf(unsigned bus, unsigned dev, unsigned fn)
{
	return find_bdf(bus, dev, fn);
}

/* Indices of the q35 machine's functions in the model. */
static int q_host, q_vga, q_rp1, q_nic, q_rp2, q_rp3, q_dev2;

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
static void q35(void)
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
static int init_quiet(void)
{
	int err;

	printk_set_level(LOG_WARNING);
	err = pm_init();
	printk_set_level(LOG_INFO);
	return err;
}

/* rescan_quiet() - pci_rescan() likewise. */
static int rescan_quiet(void)
{
	int n;

	printk_set_level(LOG_WARNING);
	n = pcitest_rescan();
	printk_set_level(LOG_INFO);
	return n;
}

/*
 * The q35 machine: every function found once, with the bus numbers the
 * firmware gave (root port 00:02.0 -> bus 1) or the next free one for the
 * unconfigured port 00:04.0 (bus 3, subordinate cut back from ff to 3 when
 * its walk ends), the BARs' types, sizes and addresses, the windows, and
 * nothing written anywhere the model has no register.
 */
HTEST(pci_q35_enumeration)
{
	struct pci_dev *d;

	q35();
	CHECK_EQ(init_quiet(), 0);
	CHECK_EQ(pcitest_device_count(), 7);
	CHECK_EQ(pm.stray_writes, 0);
	CHECK_EQ(pm.oob, 0);

	d = bdf(0, 1, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK_EQ(d->bars[0].base, 0xfd000000);
		CHECK_EQ(d->bars[0].size, 16 << 20);
		CHECK(d->bars[0].prefetchable);
		CHECK_EQ(d->bars[2].base, 0xfebd0000);
		CHECK_EQ(d->bars[2].size, 4096);
		CHECK(d->bridge == NULL);
	}
	d = bdf(1, 0, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK(d->bars[0].is_io);
		CHECK_EQ(d->bars[0].size, 32);
		CHECK_EQ(d->bars[0].base, 0xc000);
		CHECK_EQ(d->bars[1].base, 0xfe800000);
		CHECK(d->bars[4].is_64 && d->bars[4].prefetchable);
		CHECK_EQ(d->bars[4].size, 16384);
		CHECK_EQ(d->bars[4].base, 0xfc000000);
		CHECK_EQ(d->bars[5].size, 0);
		CHECK(d->bridge == bdf(0, 2, 0));
	}
	d = bdf(0, 2, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK_EQ(d->secondary_bus, 1);
		CHECK_EQ(d->subordinate_bus, 1);
		CHECK_EQ(d->mem_window_base, 0xfe800000);
		CHECK_EQ(d->mem_window_limit, 0xfe9fffff);
		CHECK_EQ(d->pref_window_base, 0xfc000000);
		CHECK_EQ(d->pref_window_limit, 0xfc1fffff);
		CHECK_EQ(pcitest_find_capability(d, PCI_CAP_ID_EXP, 0), 0x40);
	}
	d = bdf(0, 4, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK_EQ(d->secondary_bus, 3);
		CHECK_EQ(d->subordinate_bus, 3);
		CHECK_EQ(pm.f[q_rp3].cfg[0x18], 0);
		CHECK_EQ(pm.f[q_rp3].cfg[0x19], 3);
		CHECK_EQ(pm.f[q_rp3].cfg[0x1a], 3);
	}
	d = bdf(3, 0, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK_EQ(d->vendor, 0x1af4);
		CHECK_EQ(d->device, 0x1042);
		CHECK_EQ(d->bars[0].base, 0);		/* boot keeps what firmware gave */
		CHECK(d->bridge == bdf(0, 4, 0));
	}
	CHECK(strstr(lspci(), "00:02.0 0604: 1b36:000c (pcie-root-port) bus 01-01 "
			      "mem fe800000-fe9fffff pref fc000000-fc1fffff\n") != NULL);
	CHECK(strstr(text, "01:00.0 0200: 1af4:1041 (virtio-net) bar0 io c000+20 "
			   "bar1 mem32 fe800000+1000 bar4 mem64p fc000000+4000\n") != NULL);
	CHECK(strstr(text, "00:03.0 0604: 1b36:000c (pcie-root-port) bus 02-02 mem closed "
			   "pref closed\n") != NULL);
	/* sizing restored every BAR */
	CHECK_EQ(pm_get(&pm.f[q_nic], 0x14, 4), 0xfe800000);
	CHECK_EQ(pm_get(&pm.f[q_nic], 0x20, 4), 0xfc00000c);
	CHECK_EQ(pm_get(&pm.f[q_nic], 0x24, 4), 0);
}

/* bars_disjoint() - no two assigned memory BARs in the table overlap. */
static bool bars_disjoint(void)
{
	for (unsigned i = 0; i < nr_devices; i++)
		for (unsigned a = 0; a < 6; a++) {
			const struct pci_bar *x = &devices[i].bars[a];

			if (!devices[i].cfg || !x->size || x->is_io || !x->base)
				continue;
			for (unsigned j = i; j < nr_devices; j++)
				for (unsigned b = j == i ? a + 1 : 0; b < 6; b++) {
					const struct pci_bar *y = &devices[j].bars[b];

					if (!devices[j].cfg || !y->size || y->is_io || !y->base)
						continue;
					if (x->base < y->base + y->size && y->base < x->base + x->size) {
						printf("  %02x:%02x.%x BAR%u %llx+%llx overlaps "
						       "%02x:%02x.%x BAR%u %llx+%llx\n",
						       devices[i].bus, devices[i].dev, devices[i].fn, a,
						       (unsigned long long)x->base,
						       (unsigned long long)x->size, devices[j].bus,
						       devices[j].dev, devices[j].fn, b,
						       (unsigned long long)y->base,
						       (unsigned long long)y->size);
						return false;
					}
				}
		}
	return true;
}

/* inside() - [base, base+size) lies in [lo, hi]. */
static bool inside(u64 base, u64 size, u64 lo, u64 hi)
{
	return hi > lo && base >= lo && size && base + size - 1 <= hi && base + size > base;
}

/*
 * Hot-add behind a root port with windows (00:05.0, buses 4-4, memory
 * fe600000-fe7fffff, prefetchable 800000000-8001fffff): a function with
 * two 32-bit BARs (4 and 8 KiB) and a 64-bit prefetchable 1 MiB BAR.
 * Expect each BAR inside the port's window of its kind, programmed into
 * the function, no two BARs overlapping (the function's own included),
 * memory decoding on, and the rescan counting one new function.
 */
HTEST(pci_hotplug_bars_inside_the_ports_windows)
{
	int rp4, hot;
	struct pci_dev *d;

	q35();
	rp4 = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp4, 0, 4, 4);
	pm_mem_window(rp4, 0xfe600000, 0xfe7fffff);
	pm_pref_window(rp4, 0x800000000ULL, 0x8001fffffULL);
	CHECK_EQ(init_quiet(), 0);
	CHECK_EQ(rescan_quiet(), 0);

	hot = pm_add(rp4, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 4096, 0, 0);
	pm_bar(hot, 1, 8192, 0, 0);
	pm_bar(hot, 2, 1 << 20, 4 | 8, 0);
	CHECK_EQ(rescan_quiet(), 1);
	d = bdf(4, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(d->hotplugged);
	CHECK(inside(d->bars[0].base, 4096, 0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[1].base, 8192, 0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[2].base, 1 << 20, 0x800000000ULL, 0x8001fffffULL));
	CHECK(bars_disjoint());
	CHECK_EQ(pm_get(&pm.f[hot], 0x10, 4), (u32)d->bars[0].base);
	CHECK_EQ(pm_get(&pm.f[hot], 0x14, 4), (u32)d->bars[1].base);
	CHECK_EQ(pm_get(&pm.f[hot], 0x18, 4), (u32)d->bars[2].base | 0xc);
	CHECK_EQ(pm_get(&pm.f[hot], 0x1c, 4), 8);
	CHECK(pm_get(&pm.f[hot], 0x04, 2) & CMD_MEMORY);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Hot-add behind the root port whose windows are closed (00:03.0): a
 * 2 MiB memory window is opened at the highest free 2 MiB of the 32-bit
 * hole (fea00000 holds the VGA's BAR2, fe800000 is 00:02.0's window, so
 * fe600000), programmed into the port, and the 16 KiB BAR placed in it.
 */
HTEST(pci_hotplug_opens_a_window)
{
	int hot;
	struct pci_dev *d, *rp;

	q35();
	CHECK_EQ(init_quiet(), 0);
	hot = pm_add(q_rp2, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 16384, 0, 0);
	CHECK_EQ(rescan_quiet(), 1);
	rp = bdf(0, 3, 0);
	d = bdf(2, 0, 0);
	CHECK(rp && d);
	if (!rp || !d)
		return;
	CHECK_EQ(rp->mem_window_base, 0xfe600000);
	CHECK_EQ(rp->mem_window_limit, 0xfe7fffff);
	CHECK_EQ(pm_get(&pm.f[q_rp2], 0x20, 4), 0xfe70fe60);
	CHECK_EQ(d->bars[0].base, 0xfe600000);
	CHECK(bars_disjoint());
	CHECK_EQ(pm.stray_writes, 0);
}
