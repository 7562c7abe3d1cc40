/*
 * test_pci_numa.c - drivers/pci/acpi.c and views/sysfs_pci.c on the PCI model (host
 * suite `pci`): root buses from the namespace's _BBN walked (an expander
 * like QEMU's pxb-pcie, whose bus no bridge leads to), each function's
 * node from the _PXM of its companion or the nearest one above
 * (tests/host/aml/pci_numa.asl), -1 when there is none, and
 * /sys/bus/pci/devices/ in Linux's formats, hot-added and removed
 * functions included; and each root bus's windows from its root bridge's
 * _CRS (tests/host/aml/pci_roots.asl): shown in /proc/iomem, used for the
 * window a root port gets for a hot-added function, refused (overlapping,
 * beyond the physical address width, empty) with the fixed hole as the
 * fallback.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include "pcihp_machine.h"
#include <views/vfs.h>
#include <views/pci_views.h>
#include <drivers/aml.h>
#include <kernel/resource.h>

#define NUMA_DSDT	"build/aml/pci_numa.aml"

static int n_port, n_exp, n_xport, n_xleaf, n_bad;

/*
 * numa_machine() - 00:00.0 host bridge; 00:01.0 root port (bus 1) with
 * 01:00.0 behind it; 00:02.0 a function at S10's _ADR (pxm 7: no node);
 * 00:03.0 an expander (1b36:000b) for root bus 80-8f: 80:00.0 root port
 * (bus 81) with 81:00.0 behind it; 00:04.0 an expander for root bus a0
 * with a0:00.0 on it.  Proximity domain 1 is node 1, 2 is node 0.
 */
static void numa_machine(void)
{
	int leaf, bad_exp;

	pm_reset(0, 0xff);
	memset(&fx, 0, sizeof(fx));
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	n_port = pm_add(-1, 1, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(n_port, 0, 1, 1);
	leaf = pm_add(n_port, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(leaf, 0, 4096, 0, 0);
	pm_add(-1, 2, 0, 0x8086, 0x10d3, 0, 0x02, 0x00);
	n_exp = pm_add(-1, 3, 0, 0x1b36, 0x000b, 0, 0x06, 0x00);
	pm_expander(n_exp, 0x80, 0x8f);
	n_xport = pm_add(n_exp, 0, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(n_xport, 0x80, 0x81, 0x81);
	n_xleaf = pm_add(n_xport, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(n_xleaf, 0, 4096, 0, 0);
	bad_exp = pm_add(-1, 4, 0, 0x1b36, 0x000b, 0, 0x06, 0x00);
	pm_expander(bad_exp, 0xa0, 0xa0);
	n_bad = pm_add(bad_exp, 0, 0, 0x8086, 0x10d3, 0, 0x02, 0x00);
	pm.pxm_node[1] = 1 + 1;
	pm.pxm_node[2] = 0 + 1;
}

static int node_of(unsigned bus, unsigned dev)
{
	struct pci_dev *d = pci_get_bdf(bus, dev, 0);

	CHECK(d != NULL);
	return d ? pci_numa_node(d) : -99;
}

/*
 * Without the namespace the walk sees bus 0 and 1 only, and every node is
 * -1.  With it the expanders' root buses are walked (80, 81, a0), 81:00.0
 * sits behind 80:00.0 and is bound to the driver; the nodes: 00:00.0 none
 * (PCI0 has no _PXM), 00:01.0 and 01:00.0 node 0 (S08's _PXM 2), 00:02.0
 * none (pxm 7 has no node), 80:00.0 and 81:00.0 node 1 (PC80's _PXM 1),
 * a0:00.0 none (its _PXM fails: logged).
 */
HTEST(pci_root_buses_and_nodes_from_the_namespace)
{
	struct aml_ns *ns;
	int since;

	numa_machine();
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(0x80, 0, 0) == NULL);
	CHECK_EQ(node_of(1, 0), -1);

	numa_machine();
	since = host_log_count;
	ns = boot_aml(NUMA_DSDT, NULL);
	CHECK(host_log_seen("pci: 2 more root bus(es) from _BBN: 3 function(s)", since));
	CHECK(pci_get_bdf(0x81, 0, 0) && pci_get_bdf(0x81, 0, 0)->bridge == pci_get_bdf(0x80, 0, 0));
	CHECK(pci_get_bdf(0x81, 0, 0) && pci_get_bdf(0x81, 0, 0)->driver == &fake_drv);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(node_of(0, 0), -1);
	CHECK_EQ(node_of(0, 1), 0);
	CHECK_EQ(node_of(1, 0), 0);
	CHECK_EQ(node_of(0, 2), -1);
	CHECK_EQ(node_of(0x80, 0), 1);
	CHECK_EQ(node_of(0x81, 0), 1);
	since = host_log_count;
	CHECK_EQ(node_of(0xa0, 0), -1);
	CHECK(host_log_seen("pci: \\_SB_.PCA0._PXM gives no proximity domain", since));
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

static char text[4096];

/* read_file() - the file's text, or NULL when vfs_read() fails. */
static const char *read_file(const char *path)
{
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	return vfs_read(path, &bp.p) ? NULL : text;
}

static char listing[4096];

static void list_one(const char *name, bool is_dir, void *ctx)
{
	(void)ctx;
	(void)is_dir;
	size_t n = strlen(listing);

	ksnprintf(listing + n, sizeof(listing) - n, "%s ", name);
}

/*
 * /sys/bus/pci/devices/: every function in address order; vendor, device,
 * class and numa_node as Linux prints them; a function added by a rescan
 * appears, one removed leaves (its files read -ENOENT, the name is not
 * listed).
 */
HTEST(pci_sysfs_devices)
{
	struct aml_ns *ns;
	int hot;

	vfs_init();
	numa_machine();
	hot = hot_function(n_port, 5);
	ns = boot_aml(NUMA_DSDT, NULL);
	pci_sysfs_init();
	listing[0] = 0;
	CHECK_EQ(vfs_list("/sys/bus/pci/devices", list_one, NULL), 0);
	CHECK_STREQ(listing, "0000:00:00.0 0000:00:01.0 0000:00:02.0 0000:00:03.0 0000:00:04.0 "
			     "0000:01:00.0 0000:80:00.0 0000:81:00.0 0000:a0:00.0 ");
	CHECK(read_file("/sys/bus/pci/devices/0000:81:00.0/vendor") &&
	      !strcmp(text, "0x1af4\n"));
	CHECK(read_file("/sys/bus/pci/devices/0000:81:00.0/device") &&
	      !strcmp(text, "0x1058\n"));
	CHECK(read_file("/sys/bus/pci/devices/0000:81:00.0/class") &&
	      !strcmp(text, "0x050000\n"));
	CHECK(read_file("/sys/bus/pci/devices/0000:81:00.0/numa_node") && !strcmp(text, "1\n"));
	CHECK(read_file("/sys/bus/pci/devices/0000:00:00.0/numa_node") && !strcmp(text, "-1\n"));
	CHECK(read_file("/sys/bus/pci/devices/0000:01:05.0/vendor") == NULL);

	pm.f[hot].absent = false;
	printk_set_level(LOG_WARNING);
	CHECK_EQ(pci_rescan(), 1);
	printk_set_level(LOG_INFO);
	CHECK(read_file("/sys/bus/pci/devices/0000:01:05.0/numa_node") && !strcmp(text, "0\n"));

	printk_set_level(LOG_WARNING);
	pci_remove_device(pci_get_bdf(0x81, 0, 0));
	printk_set_level(LOG_INFO);
	CHECK(read_file("/sys/bus/pci/devices/0000:81:00.0/vendor") == NULL);
	listing[0] = 0;
	CHECK_EQ(vfs_list("/sys/bus/pci/devices", list_one, NULL), 0);
	CHECK(strstr(listing, "0000:81:00.0") == NULL);
	CHECK(strstr(listing, "0000:01:05.0 ") != NULL);
	done(ns);
	vfs_init();
}

/* ---- each root bus's windows from its _CRS (tests/host/aml/pci_roots.asl) ---- */

#define ROOTS_DSDT	"build/aml/pci_roots.aml"

static int r_port, r_exp, r_xport, r_hot0, r_hot80;

/*
 * roots_machine() - 00:00.0 host bridge; 00:01.0 a root port (bus 1) with
 * its windows closed; 00:03.0 an expander for root bus 80-8f with
 * 80:00.0, a root port (bus 81) with its windows closed too; behind each
 * port a function not plugged in yet (a 4 KiB BAR0, a 64-bit
 * prefetchable 16 KiB BAR4).
 */
static void roots_machine(void)
{
	pm_reset(0, 0xff);
	memset(&fx, 0, sizeof(fx));
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	r_port = pm_add(-1, 1, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(r_port, 0, 1, 1);
	r_exp = pm_add(-1, 3, 0, 0x1b36, 0x000b, 0, 0x06, 0x00);
	pm_expander(r_exp, 0x80, 0x8f);
	r_xport = pm_add(r_exp, 0, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(r_xport, 0x80, 0x81, 0x81);
	r_hot0 = hot_function(r_port, 0);
	r_hot80 = hot_function(r_xport, 0);
}

/*
 * Every root bridge's _CRS is read: PCI0's two windows (a Name), PC80's
 * e0000000-e0ffffff (a Method) as "PCI Bus 0000:80"; PCA0 (meets PCI0's
 * window), PCB0 (beyond 40 bits) and PCC0 (no window) are refused, each
 * with its reason, and show nothing.  A function hot-added behind the
 * expander's port gets a window opened inside PC80's window (its highest
 * 2 MiB, e0e00000; the fixed hole would have given febfffff's block), one
 * behind bus 0's port inside PCI0's (fea00000), and /proc/iomem nests
 * each port window and BAR under its root's window.
 */
HTEST(pci_root_windows_of_every_root_bridge)
{
	struct aml_ns *ns;
	struct pci_dev *d;
	int since = host_log_count;

	roots_machine();
	printk_set_level(LOG_INFO);
	ns = boot_aml(ROOTS_DSDT, NULL);
	CHECK(host_log_seen("pci: root bus a0: \\_SB_.PCA0._CRS is refused: memory window d0000000-d01fffff meets c0000000-dfffffff of root bus 00", since));
	CHECK(host_log_seen("pci: root bus b0: \\_SB_.PCB0._CRS is refused: window 20000000000-200001fffff lies outside the 40-bit physical address space", since));
	CHECK(host_log_seen("pci: root bus c0: \\_SB_.PCC0._CRS is refused: it lists no memory or I/O window", since));
	CHECK(pci_root_windows_of(0x80) != NULL);
	CHECK(pci_root_windows_of(0xa0) == NULL);
	CHECK(pci_root_windows_of(0xb0) == NULL);
	CHECK(pci_root_windows_of(0xc0) == NULL);
	if (pci_root_windows_of(0x80)) {
		CHECK_EQ(pci_root_windows_of(0x80)->nr, 1);
		CHECK_EQ(pci_root_windows_of(0x80)->bus_end, 0x8f);
		CHECK_EQ(pci_root_windows_of(0x80)->win[0].start, 0xe0000000);
		CHECK_EQ(pci_root_windows_of(0x80)->win[0].end, 0xe0ffffff);
	}
	CHECK(strstr(pm_iomem(), "c0000000-dfffffff : PCI Bus 0000:00\n"
				    "e0000000-e0ffffff : PCI Bus 0000:80\n"
				    "e1000000-febfffff : PCI Bus 0000:00\n") != NULL);
	CHECK(strstr(pm_iomem(), "d0000000") == NULL);

	pm.f[r_hot80].absent = false;
	pm.f[r_hot0].absent = false;
	printk_set_level(LOG_WARNING);
	CHECK_EQ(pci_rescan(), 2);
	printk_set_level(LOG_INFO);
	d = pci_get_bdf(0x80, 0, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK_EQ(d->mem_window_base, 0xe0e00000);
		CHECK_EQ(d->mem_window_limit, 0xe0ffffff);
	}
	d = pci_get_bdf(0x81, 0, 0);
	CHECK(d != NULL);
	if (d) {
		CHECK(d->bars[0].base >= 0xe0e00000 && d->bars[0].base + 4096 - 1 <= 0xe0ffffff);
		CHECK(d->bars[4].base >= 0xe0e00000 && d->bars[4].base + 16384 - 1 <= 0xe0ffffff);
	}
	d = pci_get_bdf(0, 1, 0);
	CHECK(d != NULL);
	if (d)
		CHECK_EQ(d->mem_window_base, 0xfea00000);
	CHECK(strstr(pm_iomem(), "e0000000-e0ffffff : PCI Bus 0000:80\n"
				    "  e0e00000-e0ffffff : PCI Bus 0000:81\n"
				    "    e0e00000-e0e03fff : 0000:81:00.0\n"
				    "    e0e04000-e0e04fff : 0000:81:00.0\n") != NULL);
	CHECK(strstr(pm_iomem(), "e1000000-febfffff : PCI Bus 0000:00\n"
				    "  fea00000-febfffff : PCI Bus 0000:01\n") != NULL);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * Without the namespace only the tables' bytes are read (a Name in the
 * DSDT: PCI0's), and a port on the expander's root bus, which the walk
 * does not reach then, is not placed; with a root whose _CRS was refused
 * the fixed 32-bit hole is the fallback, said once.
 */
HTEST(pci_root_refused_falls_back_to_the_hole)
{
	int since;
	struct aml_ns *ns;
	struct pci_dev *d;

	roots_machine();
	/* the expander's root bus is a0 now: PCA0's _CRS was refused */
	pm_expander(r_exp, 0xa0, 0xa1);
	pm_buses(r_xport, 0xa0, 0xa1, 0xa1);
	ns = boot_aml(ROOTS_DSDT, NULL);
	pm.f[r_hot80].absent = false;
	since = host_log_count;
	printk_set_level(LOG_INFO);
	CHECK_EQ(pci_rescan(), 1);
	CHECK(host_log_seen("pci: root bus a0 has no _CRS windows memlab uses; hot-added windows go in the 32-bit PCI hole c0000000-febfffff", since));
	d = pci_get_bdf(0xa0, 0, 0);
	CHECK(d != NULL);
	if (d)
		CHECK_EQ(d->mem_window_base, 0xfea00000);
	CHECK_EQ(pm.stray_writes, 0);
	done(ns);
}

/*
 * A root bridge whose _CRS bus range (80-8f) does not start at its _BBN
 * (90): the _CRS's is its bus, with a warning; the expander's root bus 80
 * is walked and its windows are bus 80's.
 */
HTEST(pci_root_bus_from_the_crs_bus_range)
{
	struct aml_ns *ns;
	int since = host_log_count;

	roots_machine();
	ns = boot_aml("build/aml/pci_roots_bbn.aml", NULL);
	CHECK(host_log_seen("pci: \\_SB_.PC90: _CRS's bus range starts at 80, _BBN says 90; the _CRS's is used", since));
	CHECK(pci_get_bdf(0x80, 0, 0) != NULL);
	CHECK(pci_root_windows_of(0x80) != NULL);
	CHECK(pci_root_windows_of(0x90) == NULL);
	if (pci_root_windows_of(0x80))
		CHECK_EQ(pci_root_windows_of(0x80)->win[0].start, 0xe0000000);
	CHECK(strstr(pm_iomem(), "e0000000-e0ffffff : PCI Bus 0000:80\n") != NULL);
	done(ns);
}
