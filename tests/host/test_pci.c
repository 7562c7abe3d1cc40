/*
 * test_pci.c - drivers/pci/ and the PCI commands (shell/cmd_pci.c) against a
 * model of PCI configuration space (tests/host/pci_model.h): a q35-like machine
 * enumerates to the expected bus numbers, BARs and bridge windows; hostile
 * firmware and devices (MCFGs that are short or empty or do not fit,
 * capability lists that loop, BARs of absurd sizes, bridges with garbage
 * bus numbers, a device on every function, vendor ids 0xffff and 0x0000,
 * which both mean "no function") each end with a logged reason, bounded
 * work and a consistent table; bridges left unconfigured get bus numbers
 * inside the range above them; `setpci` writes what it prints and refuses
 * what does not fit.
 *
 * The q35 machine and the table checks are pci_machine.h's.  Where the BARs
 * and windows of hot-added functions go is test_pci_placement.c's subject.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include <kernel/resource.h>
#include "pci_machine.h"

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
