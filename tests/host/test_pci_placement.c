/*
 * test_pci_placement.c - where drivers/pci/ puts what is hot-added, on the
 * PCI model (tests/host/pci_model.h): a function hot-added behind a root
 * port gets its BARs inside the port's windows, or a window opened for
 * it; a BAR larger than the hole, a window in use (never moved), a small
 * BAR after a big one, stale addresses, windows nested inside the bridge
 * above, a switch below a configured port; and /proc/iomem following the
 * device table as functions come and go.
 *
 * The q35 machine and the table checks are pci_machine.h's; enumeration
 * and hostile input are in test_pci.c.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include <kernel/resource.h>
#include "pci_machine.h"

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
	CHECK_STREQ(pm_iomem(),
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
	CHECK(strstr(pm_iomem(), "  fe600000-fe7fffff : PCI Bus 0000:02\n"
				   "    fe600000-fe603fff : 0000:02:00.0\n"));
	d = bdf(2, 0, 0);
	CHECK(d != NULL);
	if (d)
		CHECK_EQ(pci_request_bar(d, 0, "virtio-pci-modern"), 0);
	CHECK(strstr(pm_iomem(), "    fe600000-fe603fff : 0000:02:00.0\n"
				   "      fe600000-fe603fff : virtio-pci-modern\n"));
	if (d)
		pci_remove_device(d);
	CHECK(!strstr(pm_iomem(), "0000:02:00.0"));
	CHECK(!strstr(pm_iomem(), "virtio-pci-modern"));
}
