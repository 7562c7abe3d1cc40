/*
 * test_pci.c - drivers/pci/ and the PCI commands (shell/cmd_pci.c) against a
 * model of PCI configuration space (tests/host/pci_model.h): a q35-like machine
 * enumerates to the expected bus numbers, BARs and bridge windows; a
 * function hot-added behind a root port gets its BARs inside the port's
 * window, or a window opened for it; and hostile firmware and devices
 * (MCFGs that are short or empty or do not fit, capability lists that
 * loop, BARs of absurd sizes, bridges with garbage bus numbers, a device
 * on every function, vendor ids 0xffff and 0x0000, which both mean "no
 * function") each end with a logged
 * reason, bounded work and a consistent table.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include <kernel/resource.h>

static char text[8192];
static struct buf_printer tp;

/* lspci() - the `lspci` view into text. */
static const char *lspci(void)
{
	buf_printer_init(&tp, text, sizeof(text));
	pci_dump(&tp.p);
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
	return pci_get_bdf(bus, dev, fn);
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
	n = pci_rescan();
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
	CHECK_EQ(pci_device_count(), 7);
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
		CHECK_EQ(pci_find_capability(d, PCI_CAP_ID_EXP, 0), 0x40);
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

/* table_consistent() - every entry in use is inside the MCFG's buses, a
 * bridge's secondary bus is above its own, and each entry's bridge link
 * is a bridge in use whose bus range holds the entry's bus. */
static bool table_consistent(void)
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

/*
 * MCFGs that cannot be used: shorter than its header (acpi_find_table()
 * guarantees the length field covers the table), no entry, only segment 1, buses
 * in the wrong order, a base that is 0 or not 1 MiB aligned, a range that
 * wraps past 2^64, and no MCFG at all.  Expect pci_init() to fail with
 * the reason logged, nothing mapped, and `lspci` to say PCI is off.
 */
HTEST(pci_mcfg_unusable)
{
	static const struct {
		unsigned len, entries;
		u64 base;
		u16 seg;
		u8 start, end;
		int err;
		const char *why;
	} cases[] = {
		{ 40, 0, 0, 0, 0, 0, -EINVAL, "not an MCFG of at least 44 bytes" },
		{ 43, 1, PM_ECAM_BASE, 0, 0, 255, -EINVAL, "not an MCFG of at least 44 bytes" },
		{ 44, 0, 0, 0, 0, 0, -ENOENT, "no entry for segment 0 in 0 entries" },
		{ 59, 0, PM_ECAM_BASE, 0, 0, 255, -ENOENT, "no entry for segment 0 in 0 entries" },
		{ 60, 1, PM_ECAM_BASE, 1, 0, 255, -ENOENT, "no entry for segment 0 in 1 entries" },
		{ 60, 1, PM_ECAM_BASE, 0, 5, 4, -EINVAL, "buses 5-4" },
		{ 60, 1, 0, 0, 0, 255, -EINVAL, "base 0 (must be nonzero" },
		{ 60, 1, PM_ECAM_BASE + 4096, 0, 0, 255, -EINVAL, "base 0xb0001000" },
		{ 60, 1, 0xfffffffff0000000ULL, 0, 0, 255, -EINVAL, "wraps past 2^64" },
	};

	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		u8 t[64] = { 'M', 'C', 'F', 'G' };
		u32 len = cases[i].len;
		int since;

		pm_reset(0, 255);
		memcpy(t + 4, &len, 4);
		if (cases[i].entries || cases[i].len > 44)
			pm_mcfg_entry(t + 44, cases[i].base, cases[i].seg, cases[i].start,
				      cases[i].end);
		pm_set_mcfg(t, cases[i].len);
		pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 6, 0);
		since = host_log_count;
		CHECK_EQ(init_quiet(), cases[i].err);
		if (!host_log_seen(cases[i].why, since))
			CHECK_STREQ(host_last_log, cases[i].why);
		CHECK(host_log_seen("pci: MCFG unusable", since));
		CHECK(pci_ecam_virt == NULL);
		CHECK_EQ(pci_device_count(), 0);
		CHECK_EQ(pm.reads + pm.writes, 0);
		CHECK_STREQ(lspci(), "pci: not initialised (no MCFG?)\n");
		CHECK_EQ(pci_rescan(), -ENODEV);
	}
	pm_reset(0, 255);
	pm_set_mcfg(NULL, 0);
	CHECK_EQ(init_quiet(), -ENODEV);
	CHECK(host_log_seen("no MCFG table", host_log_count - 1));
}

/*
 * Capability lists that loop (40 -> 50 -> 40), point below 0x40, or run
 * to the last dword: pci_find_capability() stops, says the list was cut,
 * and `lspci -v` prints a bounded list.
 */
HTEST(pci_capability_list_hostile)
{
	int a, b, c;
	int since;

	q35();
	a = pm_add(-1, 6, 0, 0x1af4, 0x1000, 0, 2, 0);
	pm_cap(a, 0x40, 0x09, 0x50, true, 4);
	pm_cap(a, 0x50, 0x05, 0x40, false, 4);
	b = pm_add(-1, 7, 0, 0x1af4, 0x1000, 0, 2, 0);
	pm_cap(b, 0x40, 0x09, 0x20, true, 4);
	c = pm_add(-1, 8, 0, 0x1af4, 0x1000, 0, 2, 0);
	pm_cap(c, 0xfc, 0x01, 0xff, true, 4);
	CHECK_EQ(init_quiet(), 0);

	since = host_log_count;
	CHECK_EQ(pci_find_capability(bdf(0, 6, 0), PCI_CAP_ID_EXP, 0), 0);
	CHECK(host_log_seen("00:06.0: capability list loops or points below 0x40; cut", since));
	CHECK_EQ(pci_find_capability(bdf(0, 6, 0), 0x05, 0), 0x50);
	since = host_log_count;
	CHECK_EQ(pci_find_capability(bdf(0, 7, 0), PCI_CAP_ID_EXP, 0), 0);
	CHECK(host_log_seen("00:07.0: capability list loops", since));
	CHECK_EQ(pci_find_capability(bdf(0, 8, 0), 0x01, 0), 0xfc);
	CHECK_EQ(pci_find_capability(bdf(0, 8, 0), 0x10, 0), 0);

	printk_set_level(LOG_ERR);
	CHECK_EQ(shell("lspci -v 00:06.0"), 0);
	printk_set_level(LOG_INFO);
	CHECK(strlen(text) < 4000);
	CHECK(strstr(text, "cap 09 @40 vendor specific") != NULL);
	CHECK_EQ(shell("lspci -v 00:08.0"), 0);
	CHECK(strstr(text, "cap 01 @fc power management") != NULL);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * BARs that claim what cannot be: one whose every bit reads one (not
 * implemented), a 64-bit BAR in the last slot (no upper half), and a
 * 32-bit BAR with holes in its size mask.  Expect the first ignored, the
 * second treated as a 32-bit BAR of its low mask, the third refused when
 * it must be placed, and every BAR register restored after sizing.
 */
HTEST(pci_bar_sizes_hostile)
{
	int x;
	struct pci_dev *d;

	q35();
	x = pm_add(q_rp2, 0, 0, 0x1af4, 0x1000, 0, 2, 0);
	pm_bar_raw(x, 0x10, 0xffffffff, 0);		/* all ones, read-only */
	pm_bar_raw(x, 0x24, 0x00000004, 0xfffff000);	/* 64-bit in BAR5 */
	pm_bar_raw(x, 0x14, 0x00000000, 0xf0f0f000);	/* holes in the mask */
	CHECK_EQ(init_quiet(), 0);
	d = bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->bars[0].size, 0);
	CHECK_EQ(d->bars[5].size, 4096);
	CHECK(!d->bars[5].is_64);
	CHECK_EQ(pm_get(&pm.f[x], 0x10, 4), 0xffffffff);
	CHECK_EQ(pm_get(&pm.f[x], 0x14, 4), 0);
	CHECK_EQ(pm_get(&pm.f[x], 0x24, 4), 4);
	CHECK_EQ(pm.stray_writes, 0);
	CHECK(table_consistent());
}
/*
 * A hot-added function with a 64-bit non-prefetchable BAR of 8 GiB behind
 * a port with closed windows: no window that size fits the 32-bit hole.
 * Expect the BAR left unassigned with a logged reason, the function left
 * disabled, and the port's window registers as they were (closed), with
 * no other window opened.
 */
HTEST(pci_hotplug_bar_larger_than_the_hole)
{
	int x, since;
	struct pci_dev *d;

	q35();
	CHECK_EQ(init_quiet(), 0);
	x = pm_add(q_rp2, 0, 0, 0x1af4, 0x1000, 0, 2, 0);
	pm_bar(x, 0, 8ULL << 30, 4, 0);
	since = host_log_count;
	CHECK_EQ(rescan_quiet(), 1);
	d = bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->bars[0].size, 8ULL << 30);
	CHECK_EQ(d->bars[0].base, 0);
	CHECK(host_log_seen("00:03.0: a 200000000-byte window does not fit the 32-bit PCI hole", since));
	CHECK(host_log_seen("02:00.0: cannot assign BARs", since));
	CHECK_EQ(pm_get(&pm.f[x], 0x04, 2) & CMD_MEMORY, 0);
	CHECK_EQ(pm_get(&pm.f[q_rp2], 0x20, 4), 0x0000fff0);
	CHECK(!pci_window_open(bdf(0, 3, 0)->mem_window_base, bdf(0, 3, 0)->mem_window_limit));
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Two functions hot-added behind one closed port, rescanned one after the
 * other: the first (16 KiB) opens a 2 MiB window; the second (4 MiB) does
 * not fit it.  The window must not move (it would strand the first BAR
 * outside it): the second is refused with the reason, the first keeps its
 * address inside the window.  Then a port whose first hot-added BAR is 8
 * MiB: its window is aligned to 8 MiB, so the BAR fits in it.
 */
HTEST(pci_hotplug_window_in_use_is_not_moved)
{
	int a, b, c, since;
	struct pci_dev *rp, *da, *db;

	q35();
	CHECK_EQ(init_quiet(), 0);
	a = pm_add(q_rp2, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(a, 0, 16384, 0, 0);
	CHECK_EQ(rescan_quiet(), 1);
	b = pm_add(q_rp2, 4, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(b, 0, 4ULL << 20, 0, 0);
	since = host_log_count;
	CHECK_EQ(rescan_quiet(), 1);
	rp = bdf(0, 3, 0);
	da = bdf(2, 0, 0);
	db = bdf(2, 4, 0);
	CHECK(rp && da && db);
	if (!rp || !da || !db)
		return;
	CHECK_EQ(rp->mem_window_base, 0xfe600000);
	CHECK_EQ(rp->mem_window_limit, 0xfe7fffff);
	CHECK_EQ(da->bars[0].base, 0xfe600000);
	CHECK_EQ(db->bars[0].base, 0);
	CHECK(host_log_seen("00:03.0: memory window fe600000-fe7fffff is too small for a 400000-byte BAR", since));
	CHECK(host_log_seen("02:04.0: cannot assign BARs", since));
	CHECK(bars_disjoint());

	q35();
	CHECK_EQ(init_quiet(), 0);
	c = pm_add(q_rp2, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(c, 0, 8ULL << 20, 0, 0);
	CHECK_EQ(rescan_quiet(), 1);
	rp = bdf(0, 3, 0);
	da = bdf(2, 0, 0);
	CHECK(rp && da);
	if (!rp || !da)
		return;
	CHECK_EQ(rp->mem_window_base & ((8ULL << 20) - 1), 0);
	CHECK_EQ(rp->mem_window_limit - rp->mem_window_base + 1, 8ULL << 20);
	CHECK_EQ(da->bars[0].base, rp->mem_window_base);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Bridges with garbage bus numbers: 00:05.0 unconfigured with read-only
 * bus registers (writes do not stick), 00:06.0 and 00:07.0 both claiming
 * bus 4 (each with a device behind, the model routes bus 4 to the first),
 * and 00:08.0 numbered beyond the MCFG's last bus.  Expect each reported
 * and not entered, every function in the table once, at boot and after a
 * rescan, and the walk's configuration accesses bounded.  (00:05.0 is
 * offered 01-03: bus 04 belongs to 00:06.0, so the run of free numbers
 * from 01 ends at 03.)
 */
HTEST(pci_bridge_bus_numbers_hostile)
{
	int ro, a, b, c, since;

	pm_reset(0, 0x1f);
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 6, 0);
	ro = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 6, 4);
	pm_reg(&pm.f[ro], 0x18, 3, 0);
	pm_add(ro, 0, 0, 0x1af4, 0x1000, 0, 2, 0);
	a = pm_add(-1, 6, 0, 0x1b36, 0x000c, 1, 6, 4);
	pm_buses(a, 0, 4, 4);
	pm_add(a, 0, 0, 0x1af4, 0x1001, 0, 2, 0);
	b = pm_add(-1, 7, 0, 0x1b36, 0x000c, 1, 6, 4);
	pm_buses(b, 0, 4, 4);
	pm_add(b, 0, 0, 0x1af4, 0x1002, 0, 2, 0);
	c = pm_add(-1, 8, 0, 0x1b36, 0x000c, 1, 6, 4);
	pm_buses(c, 0, 0x40, 0x40);
	since = host_log_count;
	CHECK_EQ(init_quiet(), 0);
	CHECK(host_log_seen("00:05.0: bridge does not keep its bus numbers (wrote 01-03, reads 00-00)", since));
	CHECK(host_log_seen("00:07.0: secondary bus 04 was already scanned", since));
	CHECK(host_log_seen("00:08.0: secondary bus 40 is beyond the MCFG's buses 00-1f", since));
	CHECK_EQ(pci_device_count(), 6);
	CHECK(table_consistent());
	CHECK(bdf(4, 0, 0) && bdf(4, 0, 0)->bridge == bdf(0, 6, 0));
	CHECK_EQ(rescan_quiet(), 0);
	CHECK_EQ(pci_device_count(), 6);
	CHECK(table_consistent());
	CHECK(pm.reads + pm.writes < 100000);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Two unconfigured bridges on the root bus: 00:03.0 (0/0/0) is numbered
 * first and gets bus 1; 00:0e.0 has secondary 0 but a garbage subordinate
 * 5, so until it is numbered it forwards cycles for buses 1-5 too, down to
 * a bridge with read-only numbers 01-5e and a NIC at its 1f.0.  Without
 * quieting 00:0e.0 first, the walk of bus 1 met that NIC as "01:1f.0"
 * through the wrong bridge, and lost it once 00:0e.0 got bus 2 (writes to
 * a function nobody answers for).  Expect bus 1 to hold only 00:03.0's
 * device, 00:0e.0 numbered 2, the read-only bridge reported (its claimed
 * buses kept out of the numbering), no stray write.
 */
HTEST(pci_unconfigured_bridge_with_garbage_subordinate_is_quieted)
{
	int a, b, c, since;

	pm_reset(0, 0x1f);
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 6, 0);
	b = pm_add(-1, 0xe, 0, 0x1b36, 0x000c, 1, 6, 4);	/* first in the model's routing */
	pm_buses(b, 0, 0, 5);
	a = pm_add(-1, 3, 0, 0x1b36, 0x000c, 1, 6, 4);
	pm_add(a, 0, 0, 0x1af4, 0x1000, 0, 2, 0);
	c = pm_add(b, 0x1f, 0, 0x1b36, 0x000c, 1, 6, 4);
	pm_buses(c, 0, 1, 0x5e);
	pm_reg(&pm.f[c], 0x18, 3, 0);
	pm_add(c, 0x1f, 0, 0x1af4, 0x1001, 0, 2, 0);
	since = host_log_count;
	CHECK_EQ(init_quiet(), 0);
	CHECK(bdf(1, 0, 0) && bdf(1, 0, 0)->device == 0x1000);
	CHECK(bdf(1, 0x1f, 0) == NULL);
	CHECK(bdf(0, 0xe, 0) && bdf(0, 0xe, 0)->secondary_bus == 2);
	CHECK(host_log_seen("02:1f.0: bridge does not clear its bus numbers (reads 01-5e)", since));
	CHECK(table_consistent());
	CHECK_EQ(rescan_quiet(), 0);
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A 16-byte BAR hot-added behind a port whose 64 GiB prefetchable window
 * already holds a 32 GiB BAR at its start: the search for a free spot must
 * jump past that BAR, not step through it 16 bytes at a time (2^31 steps:
 * minutes here, this test hangs without the fix, and far longer in the
 * kernel under TCG).  Expect the new BAR right after the big one.
 */
HTEST(pci_hotplug_small_bar_after_a_big_one_is_placed_at_once)
{
	const u64 win = 1ULL << 35;
	int big, small;
	struct pci_dev *d;

	q35();
	pm_pref_window(q_rp2, win, win + (64ULL << 30) - 1);
	big = pm_add(q_rp2, 0, 0, 0x1af4, 0x1000, 0, 2, 0);
	pm_bar(big, 0, 32ULL << 30, 0xc, win);
	CHECK_EQ(init_quiet(), 0);
	small = pm_add(q_rp2, 4, 0, 0x1af4, 0x1001, 0, 2, 0);
	pm_bar(small, 0, 16, 0xc, 0);
	CHECK_EQ(rescan_quiet(), 1);
	d = bdf(2, 4, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->bars[0].base, win + (32ULL << 30));
	CHECK(bars_disjoint());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A function hot-added behind 01 (q35's first port) with addresses already
 * in its BARs: BAR0 on the NIC's BAR1 (fe800000), BAR1 at 0x1000 (outside
 * every window).  Neither can be trusted: expect each reported and placed
 * anew inside the port's memory window, and no two BARs overlapping.
 */
HTEST(pci_hotplug_bars_with_stale_addresses_are_placed_anew)
{
	int hot, since;
	struct pci_dev *d;

	q35();
	CHECK_EQ(init_quiet(), 0);
	hot = pm_add(q_rp1, 4, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 4096, 0, 0xfe800000);
	pm_bar(hot, 1, 4096, 0, 0x1000);
	since = host_log_count;
	CHECK_EQ(rescan_quiet(), 1);
	d = bdf(1, 4, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(host_log_seen("01:04.0: BAR0 fe800000-fe800fff meets another BAR; placed anew", since));
	CHECK(host_log_seen("01:04.0: BAR1 1000-1fff is outside the windows of the bridge above; placed anew", since));
	CHECK(inside(d->bars[0].base, 4096, 0xfe800000, 0xfe9fffff));
	CHECK(inside(d->bars[1].base, 4096, 0xfe800000, 0xfe9fffff));
	CHECK(d->bars[0].base != 0xfe800000);
	CHECK(bars_disjoint());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A slot that answers with vendor id 0x0000 (some broken boards do for an
 * empty slot; no vendor has that id) holds no function: expect it left out
 * of the table at boot and at a rescan, as 0xffff is, and the rest of the
 * machine enumerated as usual.
 */
HTEST(pci_vendor_0000_is_no_function)
{
	int before;

	q35();
	CHECK_EQ(init_quiet(), 0);
	before = pci_device_count();
	q35();
	pm_add(-1, 9, 0, 0x0000, 0x1234, 0, 0x02, 0x00);
	CHECK_EQ(init_quiet(), 0);
	CHECK(bdf(0, 9, 0) == NULL);
	CHECK_EQ(pci_device_count(), before);
	pm_add(q_rp2, 0, 0, 0x0000, 0x0000, 1, 0x06, 0x04);
	CHECK_EQ(rescan_quiet(), 0);
	CHECK(bdf(2, 0, 0) == NULL);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A bridge behind a bridge: root port 00:05.0 (buses 4-5, memory window
 * fe600000-fe7fffff) with a switch port 04:00.0 below it (bus 5, no
 * window); a function hot-added behind the switch port needs one.
 * The window opened for it must lie inside the root port's window, or
 * nothing reaches it.  Then the same with a root port that has no memory
 * window: refused, with the reason.
 */
HTEST(pci_hotplug_window_nested_inside_the_bridge_above)
{
	int rp, sw, hot, since;
	struct pci_dev *s, *d;

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 5);
	pm_mem_window(rp, 0xfe600000, 0xfe7fffff);
	sw = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(sw, 4, 5, 5);
	CHECK_EQ(init_quiet(), 0);
	s = bdf(4, 0, 0);
	CHECK(s != NULL);
	if (!s)
		return;
	hot = pm_add(sw, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 16384, 0, 0);
	CHECK_EQ(rescan_quiet(), 1);
	d = bdf(s->secondary_bus, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(inside(s->mem_window_base, s->mem_window_limit - s->mem_window_base + 1,
		     0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[0].base, 16384, s->mem_window_base, s->mem_window_limit));
	CHECK(bars_disjoint());

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 5);
	sw = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(sw, 4, 5, 5);
	CHECK_EQ(init_quiet(), 0);
	hot = pm_add(sw, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 16384, 0, 0);
	since = host_log_count;
	CHECK_EQ(rescan_quiet(), 1);
	CHECK(host_log_seen("04:00.0: the bridge above (00:05.0) has no 32-bit memory window", since));
	s = bdf(4, 0, 0);
	CHECK(s && !pci_window_open(s->mem_window_base, s->mem_window_limit));
	CHECK_EQ(pm.stray_writes, 0);
}

/* id_count() - how many entries of the table are 1af4:`device`. */
static unsigned id_count(u16 device)
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
static bool has_device(u16 device, unsigned bus, const struct pci_dev *bridge)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

		if (d->cfg && d->vendor == 0x1af4 && d->device == device)
			return id_count(device) == 1 && d->bus == bus && bridge &&
			       d->bridge == bridge;
	}
	return false;
}

/*
 * Unconfigured bridges below a configured one.  Root port 00:05.0 was
 * numbered by the firmware, buses 04-08; on its bus 04 two switch ports
 * were left unconfigured (bus numbers 0), each with a device behind:
 *
 *   00:05.0 [04-08] -+- 04:00.0 [unconfigured] --- device 1af4:1000
 *                    +- 04:01.0 [unconfigured] --- device 1af4:1001
 *
 * Configuration cycles for a bus outside 04-08 never reach 00:05.0, so the
 * switch ports must be numbered inside it.  Expect 04:00.0 -> 05-05 and
 * 04:01.0 -> 06-06 (the lowest free numbers, each subordinate cut back to
 * what is below it), both devices found once behind their port, 00:05.0
 * still 04-08, the registers as the table says, and the same after a
 * rescan.
 */
HTEST(pci_unconfigured_bridges_below_a_configured_one_get_buses_inside_it)
{
	int rp, a, b;
	struct pci_dev *pa, *pb;

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 8);
	a = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_add(a, 0, 0, 0x1af4, 0x1000, 0, 0x02, 0x00);
	b = pm_add(rp, 1, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_add(b, 0, 0, 0x1af4, 0x1001, 0, 0x02, 0x00);
	CHECK_EQ(init_quiet(), 0);
	pa = bdf(4, 0, 0);
	pb = bdf(4, 1, 0);
	CHECK(pa && pb);
	if (!pa || !pb)
		return;
	CHECK_EQ(pa->secondary_bus, 5);
	CHECK_EQ(pa->subordinate_bus, 5);
	CHECK_EQ(pb->secondary_bus, 6);
	CHECK_EQ(pb->subordinate_bus, 6);
	CHECK_EQ(pm_get(&pm.f[a], 0x18, 3), 0x050504);
	CHECK_EQ(pm_get(&pm.f[b], 0x18, 3), 0x060604);
	CHECK_EQ(pm_get(&pm.f[rp], 0x18, 3), 0x080400);
	CHECK(has_device(0x1000, 5, pa));
	CHECK(has_device(0x1001, 6, pb));
	CHECK(table_consistent());
	CHECK_EQ(rescan_quiet(), 0);
	CHECK(has_device(0x1000, 5, pa));
	CHECK(has_device(0x1001, 6, pb));
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * No room: root port 00:05.0 numbered 04-04 by the firmware, and an
 * unconfigured switch port on its bus 04 with a device behind it.  No
 * number inside 04-04 is free.  Expect the switch port left unnumbered
 * (registers 0) with the reason logged, its device not in the table, the
 * table consistent, and the same after a rescan.  Then 00:05.0 numbered
 * 04-05 with a configured switch port 04:01.0 owning 05-05 beside the
 * unconfigured one: full too, and the configured port's device is found.
 */
HTEST(pci_unconfigured_bridge_below_a_full_bus_range_stays_unnumbered)
{
	int rp, a, c, since;
	struct pci_dev *pa;

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 4);
	a = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_add(a, 0, 0, 0x1af4, 0x1000, 0, 0x02, 0x00);
	since = host_log_count;
	CHECK_EQ(init_quiet(), 0);
	CHECK(host_log_seen("04:00.0: bus range 04-04 of the bridge above (00:05.0) is full", since));
	pa = bdf(4, 0, 0);
	CHECK(pa && pa->secondary_bus == 0 && pa->subordinate_bus == 0);
	CHECK_EQ(pm_get(&pm.f[a], 0x18, 3), 0);
	CHECK_EQ(id_count(0x1000), 0);
	CHECK(table_consistent());
	since = host_log_count;
	CHECK_EQ(rescan_quiet(), 0);
	CHECK(host_log_seen("04:00.0: bus range 04-04 of the bridge above (00:05.0) is full", since));
	CHECK_EQ(pm_get(&pm.f[a], 0x18, 3), 0);
	CHECK_EQ(id_count(0x1000), 0);
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 5);
	a = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_add(a, 0, 0, 0x1af4, 0x1000, 0, 0x02, 0x00);
	c = pm_add(rp, 1, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(c, 4, 5, 5);
	pm_add(c, 0, 0, 0x1af4, 0x1001, 0, 0x02, 0x00);
	since = host_log_count;
	CHECK_EQ(init_quiet(), 0);
	CHECK(host_log_seen("04:00.0: bus range 04-05 of the bridge above (00:05.0) is full", since));
	CHECK_EQ(pm_get(&pm.f[a], 0x18, 3), 0);
	CHECK_EQ(id_count(0x1000), 0);
	CHECK(has_device(0x1001, 5, bdf(4, 1, 0)));
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A configured sibling bounds what a newly numbered bridge may forward
 * while the walk is below it.  Root port 00:05.0 [04-08]; on bus 04:
 *
 *   04:00.0 [unconfigured] --- 05:00.0 [unconfigured] --- device 1af4:1000
 *   04:01.0 [06-06, configured] --- device 1af4:1001
 *
 * 04:00.0 gets bus 05, and the free run from 05 ends where 04:01.0's
 * buses begin: while the walk is below 04:00.0 its subordinate must not
 * reach 06, or two bridges would answer for bus 06 and the bridge behind
 * it could be handed 06.  So 05:00.0 finds 04:00.0's range 05-05 full.
 * Expect that reason logged, 05:00.0 unnumbered, 04:01.0's device found
 * once at 06:00.0 behind 04:01.0.
 */
HTEST(pci_configured_sibling_bounds_a_newly_numbered_bridge)
{
	int rp, a, a2, c, since;

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 8);
	a = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	a2 = pm_add(a, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_add(a2, 0, 0, 0x1af4, 0x1000, 0, 0x02, 0x00);
	c = pm_add(rp, 1, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(c, 4, 6, 6);
	pm_add(c, 0, 0, 0x1af4, 0x1001, 0, 0x02, 0x00);
	since = host_log_count;
	CHECK_EQ(init_quiet(), 0);
	CHECK(host_log_seen("05:00.0: bus range 05-05 of the bridge above (04:00.0) is full", since));
	CHECK_EQ(pm_get(&pm.f[a], 0x18, 3), 0x050504);
	CHECK_EQ(pm_get(&pm.f[a2], 0x18, 3), 0);
	CHECK_EQ(id_count(0x1000), 0);
	CHECK(has_device(0x1001, 6, bdf(4, 1, 0)));
	CHECK(bdf(6, 0, 0) && bdf(6, 0, 0)->device == 0x1001);
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A configured bridge whose bus range does not lie inside the range of the
 * bridge above: root port 00:05.0 [04-05], switch port 04:00.0 claiming
 * 07-07 (wholly outside: cycles for bus 07 never reach 00:05.0), and root
 * port 00:06.0 [08-0a] with switch port 08:00.0 claiming 0a-0c (partly
 * outside), each with a device behind.  memlab treats such numbers as
 * garbage: reported, cleared, and the bridge numbered inside the range
 * above like an unconfigured one.  Expect the reasons logged, 04:00.0 ->
 * 05-05 and 08:00.0 -> 09-09, both devices found behind them, the table
 * consistent, and nothing changed by a rescan.
 */
HTEST(pci_configured_bridge_outside_the_range_above_is_renumbered)
{
	int rp, c, rp2, c2, since;

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 5);
	c = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(c, 4, 7, 7);
	pm_add(c, 0, 0, 0x1af4, 0x1000, 0, 0x02, 0x00);
	rp2 = pm_add(-1, 6, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp2, 0, 8, 0xa);
	c2 = pm_add(rp2, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(c2, 8, 0xa, 0xc);
	pm_add(c2, 0, 0, 0x1af4, 0x1001, 0, 0x02, 0x00);
	since = host_log_count;
	CHECK_EQ(init_quiet(), 0);
	CHECK(host_log_seen("04:00.0: bus numbers 07-07 are not inside 04-05, the range of the bridge above (00:05.0); renumbered", since));
	CHECK(host_log_seen("08:00.0: bus numbers 0a-0c are not inside 08-0a, the range of the bridge above (00:06.0); renumbered", since));
	CHECK_EQ(pm_get(&pm.f[c], 0x18, 3), 0x050504);
	CHECK_EQ(pm_get(&pm.f[c2], 0x18, 3), 0x090908);
	CHECK(has_device(0x1000, 5, bdf(4, 0, 0)));
	CHECK(has_device(0x1001, 9, bdf(8, 0, 0)));
	CHECK(table_consistent());
	CHECK_EQ(rescan_quiet(), 0);
	CHECK_EQ(pm_get(&pm.f[c], 0x18, 3), 0x050504);
	CHECK_EQ(pm_get(&pm.f[c2], 0x18, 3), 0x090908);
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Hot-add of a switch: root port 00:05.0 [04-05] with memory window
 * fe600000-fe7fffff and nothing behind it at boot; then an unconfigured
 * switch port appears on bus 04 with a device behind it (16 KiB BAR, no
 * address).  Expect the rescan to find both, the port numbered 05-05 inside
 * 00:05.0's range, the device at 05:00.0 behind it, a window opened for
 * the port inside 00:05.0's window, the BAR inside that, decoding on.
 */
HTEST(pci_hotplug_switch_below_a_configured_port_is_numbered_and_its_device_placed)
{
	int rp, sw, hot;
	struct pci_dev *s, *d;

	q35();
	rp = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 4, 5);
	pm_mem_window(rp, 0xfe600000, 0xfe7fffff);
	CHECK_EQ(init_quiet(), 0);
	sw = pm_add(rp, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	hot = pm_add(sw, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 16384, 0, 0);
	CHECK_EQ(rescan_quiet(), 2);
	s = bdf(4, 0, 0);
	d = bdf(5, 0, 0);
	CHECK(s && d);
	if (!s || !d)
		return;
	CHECK_EQ(pm_get(&pm.f[sw], 0x18, 3), 0x050504);
	CHECK(d->bridge == s && d->hotplugged);
	CHECK(inside(s->mem_window_base, s->mem_window_limit - s->mem_window_base + 1,
		     0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[0].base, 16384, s->mem_window_base, s->mem_window_limit));
	CHECK_EQ(pm_get(&pm.f[hot], 0x10, 4), (u32)d->bars[0].base);
	CHECK(pm_get(&pm.f[hot], 0x04, 2) & CMD_MEMORY);
	CHECK(bars_disjoint());
	CHECK(table_consistent());
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * setpci: a good line writes the register and prints the dword holding
 * it; "=0000000ff" is a byte (leading zeros are not digits of the value).
 */
HTEST(pci_setpci_writes_and_prints_the_dword)
{
	char want[64];

	q35();
	CHECK_EQ(init_quiet(), 0);
	CHECK_EQ(shell("setpci 00:01.0 3c.B=0b"), 0);
	CHECK_EQ(pm_get(&pm.f[q_vga], 0x3c, 1), 0x0b);
	snprintf(want, sizeof(want), "00:01.0 [03c] = %08x\n", pm_get(&pm.f[q_vga], 0x3c, 4));
	CHECK_STREQ(text, want);
	CHECK_EQ(shell("setpci 00:01.0 3c.b=0000000ff"), 0);
	CHECK_EQ(pm_get(&pm.f[q_vga], 0x3c, 1), 0xff);
	CHECK_EQ(shell("setpci 00:01.0 04.W=0007"), 0);
	CHECK_EQ(pm_get(&pm.f[q_vga], 0x04, 2), 0x0007 & 0x0547);
	CHECK_EQ(shell("setpci 00:01.0 ffc.L=ffffffff"), 0);	/* the last dword */
	CHECK_EQ(shell("setpci 05:00.0 3c.B=1"), -ENODEV);
	CHECK(strstr(text, "setpci: no device 05:00.0") != NULL);
}

/*
 * A value wider than its width used to be written truncated (3c.B=1ff
 * wrote ff, =12abc wrote bc).  Now it is refused, the message
 * names the value and the width's limit, and nothing is written; 9 or
 * more hex digits get their own message, not the usage line.
 */
HTEST(pci_setpci_value_wider_than_its_width_is_refused)
{
	static const struct { const char *line, *msg; } bad[] = {
		{ "setpci 00:01.0 3c.B=1ff",
		  "setpci: value 1ff does not fit in a byte (B: at most ff)\n" },
		{ "setpci 00:01.0 3c.B=12abc",
		  "setpci: value 12abc does not fit in a byte (B: at most ff)\n" },
		{ "setpci 00:01.0 04.W=10000",
		  "setpci: value 10000 does not fit in a word (W: at most ffff)\n" },
		{ "setpci 00:01.0 3c.L=123456789",
		  "setpci: value 123456789 has more than 8 hex digits: no register is that wide (L, a dword: at most ffffffff)\n" },
		{ "setpci 00:01.0 3c.B=fffffffffffffffffffff",
		  "setpci: value fffffffffffffffffffff has more than 8 hex digits: no register is that wide (B, a byte: at most ff)\n" },
	};
	u64 writes;

	q35();
	CHECK_EQ(init_quiet(), 0);
	pm_put(&pm.f[q_vga], 0x3c, 1, 0x0a);
	writes = pm.writes;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(shell(bad[i].line), -ERANGE);
		CHECK_STREQ(text, bad[i].msg);
	}
	CHECK_EQ(pm.writes, writes);
	CHECK_EQ(pm_get(&pm.f[q_vga], 0x3c, 1), 0x0a);
}

/*
 * Offsets: past fff (also with 9+ digits), not aligned to the width (a
 * word at 3d used to go to 3c), or running past the end are refused with
 * their reason; malformed lines still get the usage line.  Nothing is
 * written by any of them.
 */
HTEST(pci_setpci_offsets_out_of_range_are_refused)
{
	static const struct { const char *line; int err; const char *msg; } bad[] = {
		{ "setpci 00:01.0 1000.L=1", -ERANGE,
		  "setpci: offset 1000 is past the 4 KiB of configuration space (000-fff)\n" },
		{ "setpci 00:01.0 123456789.B=1", -ERANGE,
		  "setpci: offset 123456789 is past the 4 KiB of configuration space (000-fff)\n" },
		{ "setpci 00:01.0 3d.W=1", -EINVAL,
		  "setpci: offset 03d is not aligned to a word (W: a multiple of 2)\n" },
		{ "setpci 00:01.0 3e.L=1", -EINVAL,
		  "setpci: offset 03e is not aligned to a dword (L: a multiple of 4)\n" },
	};
	static const char *const usage[] = {
		"setpci 00:01.0", "setpci 00:01.0 20.Q=1", "setpci 00:01.0 zz.L=1",
		"setpci 00:01.0 3c.B=", "setpci 00:01.0 3c.B=xyz", "setpci 00:01.0 .B=1",
		"setpci 00:20.0 3c.B=1",
	};
	u64 writes;

	q35();
	CHECK_EQ(init_quiet(), 0);
	writes = pm.writes;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		CHECK_EQ(shell(bad[i].line), bad[i].err);
		CHECK_STREQ(text, bad[i].msg);
	}
	for (unsigned i = 0; i < sizeof(usage) / sizeof(usage[0]); i++) {
		CHECK_EQ(shell(usage[i]), -EINVAL);
		CHECK(strncmp(text, "usage: setpci", 13) == 0);
	}
	CHECK_EQ(pm.writes, writes);
}

/* iomem_text() - /proc/iomem as it is now (the tree only holds PCI here). */
static const char *iomem_text(void)
{
	static char out[4096];
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	resource_print_tree(&iomem_resource, 8, &bp.p);
	return out;
}

/*
 * /proc/iomem follows the device table (drivers/pci/iomem.c): MMCONFIG,
 * the root bus window, each bridge's windows with the BARs behind it nested
 * inside, as Linux's; a hot-added device's BAR appears inside the window
 * opened for it, and both vanish with it.
 */
HTEST(pci_iomem_tree_follows_hotplug)
{
	int hot;
	struct pci_dev *d;

	q35();
	CHECK_EQ(init_quiet(), 0);
	CHECK_STREQ(iomem_text(),
		"b0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n"
		"c0000000-febfffff : PCI Bus 0000:00\n"
		"  fc000000-fc1fffff : PCI Bus 0000:01\n"
		"    fc000000-fc003fff : 0000:01:00.0\n"
		"  fd000000-fdffffff : 0000:00:01.0\n"
		"  fe800000-fe9fffff : PCI Bus 0000:01\n"
		"    fe800000-fe800fff : 0000:01:00.0\n"
		"  febd0000-febd0fff : 0000:00:01.0\n");
	hot = pm_add(q_rp2, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(hot, 0, 16384, 0, 0);
	CHECK_EQ(rescan_quiet(), 1);
	CHECK(strstr(iomem_text(), "  fe600000-fe7fffff : PCI Bus 0000:02\n"
				   "    fe600000-fe603fff : 0000:02:00.0\n"));
	d = bdf(2, 0, 0);
	CHECK(d != NULL);
	if (d)
		CHECK_EQ(pci_request_bar(d, 0, "virtio-pci-modern"), 0);
	CHECK(strstr(iomem_text(), "    fe600000-fe603fff : 0000:02:00.0\n"
				   "      fe600000-fe603fff : virtio-pci-modern\n"));
	if (d)
		pci_remove_device(d);
	CHECK(!strstr(iomem_text(), "0000:02:00.0"));
	CHECK(!strstr(iomem_text(), "virtio-pci-modern"));
}
