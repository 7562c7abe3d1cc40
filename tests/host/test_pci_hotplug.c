/*
 * test_pci_hotplug.c - drivers/pci/hotplug.c and hotplug_native.c driven
 * the way QEMU 7.2 drives them on q35, against the configuration-space
 * model of tests/host/pci_model.h (host suite `pci`):
 *
 *   - ACPI PCI hotplug: the bus selector map from DSDT bytes (`_ADR` then
 *     `Name (BSEL, n)`), and from QEMU's order when there is no DSDT; GPE 1
 *     with UP (the new function in the table, its BARs inside its root
 *     port's windows, its driver probed), with DOWN (driver remove while
 *     the function still answers, the function out of the table, the slot
 *     ejected so QEMU drops it), both in one event, DOWN for an empty slot,
 *     a selector that selects nothing, a bridge without a bus number, a
 *     bridge removed with what is behind it, a bridge that does not keep
 *     the memory window written to it;
 *   - hostile DSDTs: BSEL numbers of 256 and more, a BSEL twice, an `_ADR`
 *     that is not a number, tables cut inside a name or a number;
 *   - the native PCIe fallback (a DSDT without BSEL): presence detect
 *     changed and attention button as QEMU sets them on device_add and
 *     device_del, slot power on and off, a slot without a power controller,
 *     a surprise removal, a power fault;
 *   - the `pcihp` view in each mode, and when PCI hotplug is off.
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>

/* ---- a driver that records what happens to it ---------------------------------- */

static struct {
	unsigned probes, removes;
	u8 probed_bus, probed_dev;	/* the last probed function */
	u8 removed_bus, removed_dev;	/* the last removed one */
	u16 vendor_at_remove;		/* what its vendor id read in remove() */
} fx;

static int fake_probe(struct pci_dev *d)
{
	fx.probes++;
	fx.probed_bus = d->bus;
	fx.probed_dev = d->dev;
	return 0;
}

static void fake_remove(struct pci_dev *d)
{
	fx.removes++;
	fx.removed_bus = d->bus;
	fx.removed_dev = d->dev;
	fx.vendor_at_remove = pci_read16(d, CFG_VENDOR);
}

static const struct pci_driver fake_drv = {
	.name = "fake-vmem", .vendor = 0x1af4, .device = 0x1058,
	.probe = fake_probe, .remove = fake_remove,
};

/* ---- DSDT bytes ------------------------------------------------------------------ */

struct aml {
	u8 b[256];
	size_t n;
};

static void aml_put(struct aml *a, const void *p, size_t len)
{
	if (a->n + len > sizeof(a->b))
		abort();
	memcpy(a->b + a->n, p, len);
	a->n += len;
}

/* aml_integer() - an integer as QEMU's aml_integer() encodes it: Zero, One, or
 * the shortest of BytePrefix, WordPrefix, DWordPrefix. */
static void aml_integer(struct aml *a, u32 v)
{
	u8 t[5];

	if (v <= 1) {
		t[0] = (u8)v;
		aml_put(a, t, 1);
		return;
	}
	t[0] = v < 0x100 ? 0x0a : v < 0x10000 ? 0x0b : 0x0c;
	memcpy(t + 1, &v, 4);
	aml_put(a, t, t[0] == 0x0a ? 2 : t[0] == 0x0b ? 3 : 5);
}

/* aml_name() - NameOp and a 4-character name; the value follows. */
static void aml_name(struct aml *a, const char *name)
{
	u8 op = 0x08;

	aml_put(a, &op, 1);
	aml_put(a, name, 4);
}

/* aml_device() - DeviceOp, a package length and the device's name (the
 * scanner ignores them; they make the bytes look like QEMU's). */
static void aml_device(struct aml *a, const char *name)
{
	u8 t[4] = { 0x5b, 0x82, 0x20 };

	aml_put(a, t, 3);
	aml_put(a, name, 4);
}

/* aml_bridge() - Device (name) { Name (_ADR, dev << 16); Name (BSEL, n) } */
static void aml_bridge(struct aml *a, const char *name, unsigned dev, u32 bsel)
{
	aml_device(a, name);
	aml_name(a, "_ADR");
	aml_integer(a, dev << 16);
	aml_name(a, "BSEL");
	aml_integer(a, bsel);
}

/* aml_pci0() - Device (PCI0) { Name (_HID, EisaId ("PNP0A08")); Name (_ADR, Zero) } */
static void aml_pci0(struct aml *a)
{
	static const u8 hid[] = { 0x0c, 0x41, 0xd0, 0x0a, 0x08 };

	aml_device(a, "PCI0");
	aml_name(a, "_HID");
	aml_put(a, hid, sizeof(hid));
	aml_name(a, "_ADR");
	aml_integer(a, 0);
}

/* ---- the machine -------------------------------------------------------------------- */

/* Indices of the machine's functions in the model. */
static int m_host, m_porta, m_vmem, m_portb;

/*
 * machine() - a q35 with two root ports, as SeaBIOS leaves it:
 *   00:00.0 host bridge
 *   00:02.0 root port A: buses 1-1, memory fe800000-fe9fffff, prefetchable
 *           fc000000-fc1fffff; slot powered on (it has a device)
 *     01:00.0 1af4:1058 (the fake driver's): BAR0 4 KiB at fe800000, BAR4
 *             64-bit prefetchable 16 KiB at fc000000
 *   00:03.0 root port B: buses 2-2, memory fe600000-fe7fffff, prefetchable
 *           800000000-8001fffff; empty slot, powered off
 * QEMU numbers the hotplug buses newest bridge first: B is bsel 0, A bsel 1.
 * The register block at 0xcc0 answers.  No DSDT yet.
 */
static void machine(void)
{
	pm_reset(0, 0xff);
	memset(&fx, 0, sizeof(fx));
	m_host = pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	m_porta = pm_add(-1, 2, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(m_porta, 0, 1, 1);
	pm_mem_window(m_porta, 0xfe800000, 0xfe9fffff);
	pm_pref_window(m_porta, 0xfc000000, 0xfc1fffff);
	pm_pcie_slot(m_porta, 0x40, 0, true);
	pm_slot_populated(m_porta);
	m_vmem = pm_add(m_porta, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(m_vmem, 0, 4096, 0, 0xfe800000);
	pm_bar(m_vmem, 4, 16384, 4 | 8, 0xfc000000);
	m_portb = pm_add(-1, 3, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(m_portb, 0, 2, 2);
	pm_mem_window(m_portb, 0xfe600000, 0xfe7fffff);
	pm_pref_window(m_portb, 0x800000000ULL, 0x8001fffffULL);
	pm_pcie_slot(m_portb, 0x40, 0, true);
	pm_pcihp();
	pm_pcihp_bsel(0, m_portb);
	pm_pcihp_bsel(1, m_porta);
}

/* dsdt_qemu() - the DSDT's bytes that matter: PCI0, then port A's device
 * with BSEL 1 and port B's with BSEL 0. */
static void dsdt_qemu(void)
{
	struct aml a = { .n = 0 };

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	pm_set_dsdt(a.b, a.n);
}

/* dsdt_without_bsel() - the same with ACPI PCI hotplug switched off. */
static void dsdt_without_bsel(void)
{
	struct aml a = { .n = 0 };

	aml_pci0(&a);
	aml_device(&a, "S10_");
	aml_name(&a, "_ADR");
	aml_integer(&a, 0x00020000);
	aml_device(&a, "S18_");
	aml_name(&a, "_ADR");
	aml_integer(&a, 0x00030000);
	pm_set_dsdt(a.b, a.n);
}

/* hot_function() - a 1af4:1058 behind `parent` at dev, not plugged in yet,
 * with an unassigned 4 KiB BAR0 and 64-bit prefetchable 16 KiB BAR4. */
static int hot_function(int parent, u8 dev)
{
	int x = pm_add(parent, dev, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);

	pm_bar(x, 0, 4096, 0, 0);
	pm_bar(x, 4, 16384, 4 | 8, 0);
	pm.f[x].absent = true;
	return x;
}

/* boot() - pci_init() with only warnings on stdout, then the fake driver
 * registered (it binds what is there). */
static int boot(void)
{
	int err;

	printk_set_level(LOG_WARNING);
	err = pm_init();
	pci_register_driver(&fake_drv);
	printk_set_level(LOG_INFO);
	return err;
}

/* gpe1() - GPE 1 fires and its work runs, log quiet. */
static bool gpe1(void)
{
	bool ran;

	printk_set_level(LOG_WARNING);
	ran = pm_gpe(1);
	printk_set_level(LOG_INFO);
	return ran;
}

/* poll() - the native hotplug poller runs once, log quiet. */
static bool poll(void)
{
	bool ran;

	printk_set_level(LOG_WARNING);
	ran = pm_poll();
	printk_set_level(LOG_INFO);
	return ran;
}

static char text[4096];
static struct buf_printer tp;

/* pcihp() - the `pcihp` command's output. */
static const char *pcihp(void)
{
	char *argv[] = { "pcihp", NULL };

	buf_printer_init(&tp, text, sizeof(text));
	CHECK_EQ(shell_find("pcihp")->fn(&tp.p, 1, argv), 0);
	return text;
}

/* inside() - [base, base+size) lies in [lo, hi]. */
static bool inside(u64 base, u64 size, u64 lo, u64 hi)
{
	return base >= lo && size && base + size - 1 <= hi && base + size > base;
}

/* table_count() - functions in the table. */
static unsigned table_count(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pci_device_count(); i++)
		n += pci_device(i) != NULL;
	return n;
}

/* ---- ACPI PCI hotplug ------------------------------------------------------------ */

/*
 * QEMU's DSDT: BSEL 1 after port A's _ADR, BSEL 0 after port B's.  Expect
 * GPE 1 asked for once, the work scheduled once at init (a device added
 * before anyone listened) and harmless when it runs with nothing pending,
 * and `pcihp` to show each selector's bridge and bus.
 */
HTEST(pcihp_bsel_map_from_the_dsdt)
{
	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.gpe_registered, 1);
	CHECK_EQ(pm.gpe, 1);
	CHECK(pm.gpe_work != NULL);
	CHECK_EQ(pm.work_scheduled, 1);
	CHECK_EQ(pm.pollers, 0);
	CHECK(pm.work == pm.gpe_work && pm_run_work());
	CHECK_EQ(table_count(), 4);
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			     "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * No DSDT: QEMU's order is guessed, the last root port first (B is bsel
 * 0).  A device_add behind B then arrives through bsel 0.
 */
HTEST(pcihp_bsel_map_guessed_without_a_dsdt)
{
	int hot;

	machine();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	CHECK(strstr(pcihp(), "bsel map from guess\n"
			      "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			      "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n") != NULL);
	pm_acpi_plug(hot);
	CHECK(gpe1());
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
}

/*
 * device_add behind port B: UP of bsel 0 reads 1, GPE 1.  Expect the
 * function in the table, marked hot-plugged, its BARs inside port B's
 * windows of their kind and programmed, memory decoding and bus mastering
 * on, the driver probed with it; UP cleared by the read; the log naming
 * bus and selector.  A second GPE with nothing pending changes nothing.
 */
HTEST(pcihp_up_adds_the_function_and_probes_it)
{
	int hot, since;
	struct pci_dev *d;

	machine();
	dsdt_qemu();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	CHECK_EQ(fx.probes, 1);			/* 01:00.0 at boot */
	pm_acpi_plug(hot);
	CHECK_EQ(pm.up[0], 1);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: device added on bus 02 (bsel 0, slots 1)", since));
	CHECK(host_log_seen("pci-hotplug: rescan found 1 new function(s)", since));
	CHECK_EQ(pm.up[0], 0);
	d = pci_get_bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(d->hotplugged);
	CHECK(d->bridge == pci_get_bdf(0, 3, 0));
	CHECK(inside(d->bars[0].base, 4096, 0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[4].base, 16384, 0x800000000ULL, 0x8001fffffULL));
	CHECK_EQ(pm_get(&pm.f[hot], 0x10, 4), (u32)d->bars[0].base);
	CHECK_EQ(pm_get(&pm.f[hot], 0x20, 4), (u32)d->bars[4].base | 0xc);
	CHECK_EQ(pm_get(&pm.f[hot], 0x24, 4), (u32)(d->bars[4].base >> 32));
	CHECK_EQ(pm_get(&pm.f[hot], 0x04, 2) & (CMD_MEMORY | CMD_MASTER), CMD_MEMORY | CMD_MASTER);
	CHECK(d->driver == &fake_drv);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(fx.probed_bus, 2);
	CHECK_EQ(fx.probed_dev, 0);
	CHECK(strstr(pcihp(), "events: up 1 down 0 ejected 0\n") != NULL);

	CHECK(gpe1());
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(table_count(), 5);
	CHECK_EQ(pm.eject_writes, 0);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * device_del of 01:00.0: DOWN of bsel 1 reads 1.  Expect the driver's
 * remove called while the function still answers (vendor 1af4), decoding
 * turned off, the function out of the table, then slot 0 of bsel 1
 * ejected (QEMU drops the device and clears DOWN).  `pcihp` counts it.
 * Then device_add into the same slot: found and probed again.
 */
HTEST(pcihp_down_removes_then_ejects)
{
	int since;

	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(1, 0, 0) && pci_get_bdf(1, 0, 0)->driver == &fake_drv);
	pm_acpi_unplug_request(m_vmem);
	CHECK(strstr(pcihp(), "bsel 1: bridge 00:02.0 bus 01 down 1 rmv ffffffff\n") != NULL);
	since = host_log_count;
	CHECK(gpe1());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 1);
	CHECK_EQ(fx.removed_dev, 0);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK_EQ(pm_get(&pm.f[m_vmem], 0x04, 2) & (CMD_MEMORY | CMD_IO | CMD_MASTER), 0);
	CHECK(pm.f[m_vmem].absent);
	CHECK_EQ(pm.ejected[1], 1);
	CHECK_EQ(pm.ejected[0], 0);
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(pm.down[1], 0);
	CHECK(host_log_seen("pci-hotplug: remove request for 01:00 (bsel 1): 1 function(s) released", since));
	CHECK(host_log_seen("pci-hotplug: bsel 1 slot 0 ejected", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			     "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 1 ejected 1\n");

	pm_acpi_plug(m_vmem);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * UP and DOWN in one event.  Same slot (device_add, then device_del before
 * the guest looked): expect nothing probed, nothing in the table, the slot
 * ejected and both bits clear.  Different selectors (01:00.0 going, a new
 * function behind B coming): expect both done in the one event.
 */
HTEST(pcihp_up_and_down_in_one_event)
{
	int hot;

	machine();
	dsdt_qemu();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_acpi_plug(hot);
	pm_acpi_unplug_request(hot);
	CHECK(gpe1());
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(pm.ejected[0], 1);
	CHECK_EQ(pm.up[0], 0);
	CHECK_EQ(pm.down[0], 0);
	CHECK_EQ(fx.probes, 1);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(table_count(), 4);

	machine();
	dsdt_qemu();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_acpi_plug(hot);
	pm_acpi_unplug_request(m_vmem);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(pm.ejected[1], 1);
	CHECK_EQ(pm.ejected[0], 0);
	CHECK(strstr(pcihp(), "events: up 1 down 1 ejected 1\n") != NULL);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * DOWN for slot 5 behind B, where nothing is: nothing leaves the table,
 * no driver hears of it, the slot is still ejected (QEMU completes its
 * request) and the log says no function was released.
 */
HTEST(pcihp_down_for_an_empty_slot)
{
	int since;

	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	pm.down[0] = 1u << 5;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: remove request for 02:05 (bsel 0): 0 function(s) released", since));
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(pm.ejected[0], 1u << 5);
	CHECK_EQ(pm.down[0], 0);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * DOWN for 01:00.0 where RMV says slot 0 of bsel 1 is not removable (QEMU
 * refuses device_del there; a lying register block might not): the
 * request is refused with the reason, the function stays with its driver,
 * nothing is ejected.  With the RMV bit set the same request goes through.
 */
HTEST(pcihp_down_for_a_slot_that_is_not_removable)
{
	int since;

	machine();
	dsdt_qemu();
	CHECK_EQ(boot(), 0);
	pm.rmv[1] = ~1u;
	pm.down[1] = 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: remove request for bsel 1 slot 0 refused: the slot is not removable (RMV fffffffe)",
			    since));
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.eject_writes, 0);
	CHECK_EQ(pm.stray_writes, 0);

	pm.rmv[1] = ~0u;
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(pm.ejected[1], 1);
}

/*
 * A DSDT whose BSEL 2 follows the _ADR of 00:09.0, where there is no
 * bridge: `pcihp` shows bus ff; an UP on it rescans and finds nothing
 * new; a DOWN on it is reported with the reason and ejected anyway
 * (QEMU's eject of a selector without a bus does nothing, so DOWN stays).
 */
HTEST(pcihp_bus_selector_that_selects_nothing)
{
	struct aml a = { .n = 0 };
	int since;

	machine();
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S48_", 9, 2);
	pm_set_dsdt(a.b, a.n);
	CHECK_EQ(boot(), 0);
	CHECK(strstr(pcihp(), "bsel 2: bridge 00:09.0 bus ff down 0 rmv ffffffff\n") != NULL);
	pm.up[2] = 1;
	pm.down[2] = 1u << 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: device added on bus ff (bsel 2, slots 1)", since));
	CHECK(host_log_seen("pci-hotplug: rescan found 0 new function(s)", since));
	CHECK(host_log_seen("pci-hotplug: remove request for bsel 2 slot 1: bus unknown; ejecting anyway", since));
	CHECK_EQ(pm.eject_writes, 1);
	CHECK_EQ(table_count(), 4);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm.stray_writes, 0);
}

/* ---- native PCIe hotplug ----------------------------------------------------------- */

/* native_machine() - machine() with a DSDT without BSEL (ACPI PCI hotplug
 * off: QEMU signals through the slots) and slot power that gates config
 * access, as in QEMU. */
static void native_machine(void)
{
	machine();
	dsdt_without_bsel();
	pm.slot_power_gates = true;
}

/*
 * Without BSEL the ports' slots are polled.  device_add behind port B (slot
 * powered off): presence detect state, presence detect changed and
 * attention button.  Expect the poll to clear both events, power the slot
 * on with its indicator on, then find the function with BARs inside B's
 * windows and probe it.  device_del: attention button.  Expect remove while
 * the function answers, the function out of the table, the slot powered
 * off with the indicator off (QEMU's cue: it drops the device, clears
 * presence and sets presence detect changed), and the next poll to do
 * nothing more.  Then the same slot used again.
 */
HTEST(pcihp_native_slot_add_and_remove)
{
	int hot, since;
	struct pci_dev *d;
	u64 writes;

	native_machine();
	hot = hot_function(m_portb, 0);
	since = host_log_count;
	CHECK_EQ(boot(), 0);
	CHECK(host_log_seen("pci-hotplug: native PCIe hotplug on 2 slot(s), polled every 100 ms", since));
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_EQ(pm.pollers, 1);
	CHECK_EQ(table_count(), 4);
	CHECK_STREQ(pcihp(), "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 0 down 0 ejected 0\n");
	writes = pm.writes;
	CHECK(poll());
	CHECK_EQ(pm.writes, writes);		/* no event, no write */

	pm_slot_plug(m_portb, hot);
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK(poll());
	CHECK_EQ(pm_slot_reg(m_portb, 0x18, 2) & (PM_SLTCTL_PCC | PM_SLTCTL_PIC), PM_SLTCTL_PIC_ON);
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & (PM_SLTSTA_PDC | PM_SLTSTA_ABP | PM_SLTSTA_PDS),
		 PM_SLTSTA_PDS);
	d = pci_get_bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK(d->hotplugged);
	CHECK(inside(d->bars[0].base, 4096, 0xfe600000, 0xfe7fffff));
	CHECK(inside(d->bars[4].base, 16384, 0x800000000ULL, 0x8001fffffULL));
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(fx.probed_bus, 2);
	CHECK(poll());
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(table_count(), 5);

	pm_slot_unplug_request(m_portb);
	CHECK(poll());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 2);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK_EQ(pm_slot_reg(m_portb, 0x18, 2) & (PM_SLTCTL_PCC | PM_SLTCTL_PIC),
		 PM_SLTCTL_PCC | PM_SLTCTL_PIC);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & (PM_SLTSTA_PDS | PM_SLTSTA_PDC), PM_SLTSTA_PDC);
	CHECK(poll());
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & PM_SLTSTA_PDC, 0);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.probes, 2);
	CHECK_STREQ(pcihp(), "native PCIe hotplug (slot registers polled every 100 ms)\n"
			     "events: up 1 down 1 ejected 1\n");

	pm_slot_plug(m_portb, hot);
	CHECK(poll());
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 3);
	CHECK_EQ(table_count(), 5);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * device_del of the device that was there at boot (port A, slot powered
 * on by the firmware): the same removal path.
 */
HTEST(pcihp_native_removal_of_a_boot_device)
{
	native_machine();
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	pm_slot_unplug_request(m_porta);
	CHECK(poll());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 1);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(pm.f[m_vmem].absent);
	CHECK_EQ(pm.stray_writes, 0);
}

/* ---- bugs and hostile input ------------------------------------------------------------ */

/*
 * A root port whose bus-number registers are read-only (the walk could not
 * number it: its secondary bus reads 0) has BSEL 2.  A DOWN for slot 0 of
 * it must not be taken for slot 0 of bus 0: the host bridge 00:00.0 stays
 * in the table, and the selector shows no bus.
 */
HTEST(pcihp_bridge_without_a_bus_number_is_not_bus_0)
{
	struct aml a = { .n = 0 };
	int ro, since;

	machine();
	ro = pm_add(-1, 5, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_reg(&pm.f[ro], 0x18, 3, 0);
	pm_pcihp_bsel(2, ro);
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S28_", 5, 2);
	pm_set_dsdt(a.b, a.n);
	CHECK_EQ(boot(), 0);
	CHECK(pci_get_bdf(0, 5, 0) && pci_get_bdf(0, 5, 0)->secondary_bus == 0);
	CHECK(strstr(pcihp(), "bsel 2: bridge 00:05.0 bus ff down 0 rmv ffffffff\n") != NULL);
	pm.down[2] = 1;
	since = host_log_count;
	CHECK(gpe1());
	CHECK(pci_get_bdf(0, 0, 0) != NULL);
	CHECK_EQ(table_count(), 5);
	CHECK(host_log_seen("pci-hotplug: remove request for bsel 2 slot 0: bus unknown; ejecting anyway", since));
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * A switch (bridge 1b36:000e with 1af4:1058 behind it) in the slot of a
 * root port the firmware left unconfigured (00:04.0, BSEL 2): the walk
 * numbers port and switch at boot.  device_del of the switch: the function
 * behind it must go first (its driver's remove called), then the switch;
 * none of them may stay in the table.
 */
HTEST(pcihp_removing_a_bridge_removes_what_is_behind_it)
{
	struct aml a = { .n = 0 };
	int port, sw, leaf;
	struct pci_dev *d;

	machine();
	port = pm_add(-1, 4, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	sw = pm_add(port, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	leaf = pm_add(sw, 0, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);
	pm_bar(leaf, 0, 4096, 0, 0);
	pm_pcihp_bsel(2, port);
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S20_", 4, 2);
	pm_set_dsdt(a.b, a.n);
	CHECK_EQ(boot(), 0);
	d = pci_get_bdf(0, 4, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->secondary_bus, 3);
	CHECK(pci_get_bdf(3, 0, 0) != NULL);
	CHECK(pci_get_bdf(4, 0, 0) && pci_get_bdf(4, 0, 0)->driver == &fake_drv);
	CHECK_EQ(fx.probes, 2);
	pm_acpi_unplug_request(sw);
	CHECK_EQ(pm.down[2], 1);
	CHECK(gpe1());
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(fx.removed_bus, 4);
	CHECK_EQ(fx.vendor_at_remove, 0x1af4);
	CHECK(pci_get_bdf(3, 0, 0) == NULL);
	CHECK(pci_get_bdf(4, 0, 0) == NULL);
	CHECK_EQ(table_count(), 5);
	CHECK(pm.f[sw].absent && pm.f[leaf].absent);
	CHECK_EQ(pm.ejected[2], 1);
	CHECK_EQ(pm.stray_writes, 0);
}

/* boot_dsdt() - machine() with these DSDT bytes, booted; the log line
 * count before the boot in *since. */
static void boot_dsdt(const struct aml *a, int *since)
{
	machine();
	pm_set_dsdt(a->b, a->n);
	*since = host_log_count;
	CHECK_EQ(boot(), 0);
}

/*
 * BSEL numbers QEMU never uses (256, 300, Ones) beside a good one: each
 * is reported with the bridge it belongs to and skipped, the good one
 * works.  With only such numbers the reason is printed too, and the
 * slots are polled instead.
 */
HTEST(pcihp_dsdt_bsel_out_of_range_is_reported)
{
	struct aml a = { .n = 0 };
	int since;
	static const u8 ones[] = { 0x08, 'B', 'S', 'E', 'L', 0xff };

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 256);
	aml_bridge(&a, "S18_", 3, 0);
	aml_bridge(&a, "S20_", 4, 300);
	aml_put(&a, ones, sizeof(ones));
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 256 (bridge 00:02.0) out of range (0-255); ignored", since));
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 300 (bridge 00:04.0) out of range (0-255); ignored", since));
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 18446744073709551615 (bridge 00:04.0) out of range (0-255); ignored", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");

	a.n = 0;
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 256);
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 256 (bridge 00:02.0) out of range (0-255); ignored", since));
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_EQ(pm.pollers, 1);
}

/*
 * QEMU numbers up to 256 hotplug buses; a selector high in that range
 * (port B on 255) is taken like any other: listed by `pcihp`, and a
 * device_add behind port B arrives through it.
 */
HTEST(pcihp_dsdt_bsel_255_is_a_bus_like_any)
{
	struct aml a = { .n = 0 };
	int since, hot;

	machine();
	pm_pcihp_bsel(0, PM_BSEL_NONE);
	pm_pcihp_bsel(255, m_portb);
	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 255);
	pm_set_dsdt(a.b, a.n);
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	CHECK(strstr(pcihp(), "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			      "bsel 255: bridge 00:03.0 bus 02 down 0 rmv ffffffff\n") != NULL);
	pm_acpi_plug(hot);
	CHECK_EQ(pm.up[255], 1);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(host_log_seen("pci-hotplug: device added on bus 02 (bsel 255, slots 1)", since));
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(pm.up[255], 0);
}

/*
 * One BSEL number twice (after 00:02.0 and after 00:03.0): the second is
 * reported and ignored, the first kept.
 */
HTEST(pcihp_dsdt_bsel_twice_keeps_the_first)
{
	struct aml a = { .n = 0 };
	int since;

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 0);
	aml_bridge(&a, "S18_", 3, 0);
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 0 appears again (bridge 00:03.0, first 00:02.0); ignored", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 0: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");
}

/*
 * An `_ADR` whose value is not an integer (a method, 0x14) before a BSEL:
 * the BSEL must not be paired with the `_ADR` before that one (00:02.0);
 * it is reported and ignored.
 */
HTEST(pcihp_dsdt_adr_not_a_number)
{
	struct aml a = { .n = 0 };
	static const u8 method[] = { 0x14, 0x05, 'X', 'X', 'X', 'X', 0x00 };
	int since;

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_device(&a, "S18_");
	aml_name(&a, "_ADR");
	aml_put(&a, method, sizeof(method));
	aml_name(&a, "BSEL");
	aml_integer(&a, 0);
	boot_dsdt(&a, &since);
	CHECK(host_log_seen("pci-hotplug: DSDT: BSEL 0 follows an _ADR that is not a number; ignored", since));
	CHECK_STREQ(pcihp(), "ACPI PCI hotplug at cc0 (GPE 1), bsel map from DSDT\n"
			     "bsel 1: bridge 00:02.0 bus 01 down 0 rmv ffffffff\n"
			     "events: up 0 down 0 ejected 0\n");
}

/*
 * DSDTs cut short: in the middle of "BSEL", after it with no value, inside
 * a DWord value, and a DSDT that is only its header.  The scanner must not
 * read past the table (ASan watches the exact heap copy) and finds no BSEL:
 * the slots are polled instead.  A BSEL whose value is the table's last
 * byte still counts.
 */
HTEST(pcihp_dsdt_truncated)
{
	static const u8 cuts[][12] = {
		{ 0x08, 'B', 'S' },
		{ 0x08, 'B', 'S', 'E', 'L' },
		{ 0x08, 'B', 'S', 'E', 'L', 0x0c, 0x01, 0x00 },
		{ 0x08, 'B', 'S', 'E', 'L', 0x0a },
	};
	static const size_t lens[] = { 3, 5, 8, 6 };
	int since;

	for (unsigned i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		struct aml a = { .n = 0 };

		aml_pci0(&a);
		aml_device(&a, "S10_");
		aml_name(&a, "_ADR");
		aml_integer(&a, 0x00020000);
		aml_put(&a, cuts[i], lens[i]);
		boot_dsdt(&a, &since);
		CHECK_EQ(pm.gpe_registered, 0);
		CHECK_EQ(pm.pollers, 1);
		CHECK_STREQ(pcihp(), "native PCIe hotplug (slot registers polled every 100 ms)\n"
				     "events: up 0 down 0 ejected 0\n");
	}
	machine();
	pm_set_dsdt("", 0);
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.pollers, 1);

	{
		struct aml a = { .n = 0 };
		static const u8 last[] = { 0x08, 'B', 'S', 'E', 'L', 0x01 };

		aml_pci0(&a);
		aml_device(&a, "S10_");
		aml_name(&a, "_ADR");
		aml_integer(&a, 0x00020000);
		aml_put(&a, last, sizeof(last));
		boot_dsdt(&a, &since);
		CHECK_EQ(pm.gpe_registered, 1);
		CHECK(strstr(pcihp(), "bsel 1: bridge 00:02.0 bus 01") != NULL);
	}
}

/*
 * A root port whose slot has no power controller (slot control's power
 * bit reads 0 and does not change): device_add sets presence, presence
 * changed and attention button as always.  That is an arrival, not a
 * removal request: expect the function found and probed, and no write that
 * makes QEMU unplug it again.
 */
HTEST(pcihp_native_slot_without_power_controller)
{
	int hot;

	native_machine();
	pm_slot_no_power_controller(m_portb);
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_slot_plug(m_portb, hot);
	CHECK(poll());
	CHECK(!pm.f[hot].absent);
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.probes, 2);
	CHECK_EQ(fx.removes, 0);
	CHECK_EQ(pm_slot_reg(m_portb, 0x18, 2) & PM_SLTCTL_PIC, PM_SLTCTL_PIC_ON);

	/* and device_del still works: attention button, power (indicator) off */
	pm_slot_unplug_request(m_portb);
	CHECK(poll());
	CHECK(pci_get_bdf(2, 0, 0) == NULL);
	CHECK(pm.f[hot].absent);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(pm.stray_writes, 0);
}

/*
 * Surprise removal: the device behind port A is gone (presence detect
 * state clear, presence detect changed set) without an attention button.
 * Expect its driver's remove and the function out of the table.
 */
HTEST(pcihp_native_surprise_removal)
{
	int since;

	native_machine();
	CHECK_EQ(boot(), 0);
	pm_slot_unplug(m_porta);
	since = host_log_count;
	CHECK(poll());
	CHECK_EQ(fx.removes, 1);
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK(host_log_seen("pci-hotplug: native: device behind 00:02.0 is gone; 1 function(s) released", since));
	CHECK_EQ(pm_slot_reg(m_porta, 0x1a, 2) & PM_SLTSTA_PDC, 0);
	/* pci_remove_device() turns decoding off in a function that is gone:
	 * one write nobody answers, harmless, and the only one */
	CHECK_EQ(pm.stray_writes, 1);
}

/*
 * A power fault on port A's slot: reported once and cleared, nothing
 * removed.  With a device_add on port B in the same poll, B's device
 * still arrives.
 */
HTEST(pcihp_native_power_fault)
{
	int hot, since;

	native_machine();
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_slot_event(m_porta, PM_SLTSTA_PFD);
	pm_slot_plug(m_portb, hot);
	pm_slot_event(m_portb, PM_SLTSTA_PFD);
	since = host_log_count;
	CHECK(poll());
	CHECK(host_log_seen("pci-hotplug: native: power fault on the slot of 00:02.0", since));
	CHECK(host_log_seen("pci-hotplug: native: power fault on the slot of 00:03.0", since));
	CHECK_EQ(pm_slot_reg(m_porta, 0x1a, 2) & PM_SLTSTA_PFD, 0);
	CHECK_EQ(pm_slot_reg(m_portb, 0x1a, 2) & PM_SLTSTA_PFD, 0);
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK(pci_get_bdf(2, 0, 0) != NULL);
	CHECK_EQ(fx.removes, 0);
	since = host_log_count;
	CHECK(poll());
	CHECK(!host_log_seen("power fault", since));
}

/*
 * When PCI hotplug is not on, `pcihp` says so and why, rather than
 * describe a register block nobody listens to: no DSDT and no root port;
 * BSELs but no register block; BSELs but GPE 1 refused.
 */
HTEST(pcihp_view_when_hotplug_is_off)
{
	pm_reset(0, 0xff);
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	pm_pcihp();
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: no hotplug buses\n");

	machine();
	dsdt_qemu();
	pm.pcihp_present = false;
	CHECK_EQ(boot(), 0);
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: no register block at cc0\n");

	machine();
	dsdt_qemu();
	pm.gpe_fails = true;
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: GPE 1 unavailable\n");

	machine();
	pm_set_dsdt("", 0);
	pm.f[m_porta].slot_pos = 0;
	pm.f[m_porta].cfg[0x34] = 0;
	pm.f[m_portb].cfg[0x34] = 0;
	CHECK_EQ(boot(), 0);
	CHECK_STREQ(pcihp(), "PCI hotplug off: no ACPI PCI hotplug and no hotplug-capable PCIe slots\n");
}

/*
 * A root port whose memory window registers ignore writes (hard-wired
 * closed: base fff0, limit 0000), with a device_add behind it that needs
 * a non-prefetchable window.  Opening one writes the registers, which
 * still read closed: that must be reported as the bridge not keeping the
 * window, not as a window opened (the log would name an address range the
 * bridge does not decode), and the function is left disabled with its
 * BAR unassigned.
 */
HTEST(pcihp_bridge_that_does_not_keep_its_window)
{
	int hot, since;
	struct pci_dev *d;

	machine();
	dsdt_qemu();
	pm_reg(&pm.f[m_portb], 0x20, 4, 0);
	pm_put(&pm.f[m_portb], 0x20, 4, 0x0000fff0);
	hot = hot_function(m_portb, 0);
	CHECK_EQ(boot(), 0);
	pm_acpi_plug(hot);
	since = host_log_count;
	CHECK(gpe1());
	CHECK(!host_log_seen("opened memory window", since));
	CHECK(host_log_seen("pci 00:03.0: bridge does not keep the memory window fe", since));
	d = pci_get_bdf(2, 0, 0);
	CHECK(d != NULL);
	if (!d)
		return;
	CHECK_EQ(d->bars[0].base, 0);
	CHECK_EQ(pm_get(&pm.f[hot], 0x04, 2) & CMD_MEMORY, 0);
	CHECK_EQ(fx.probes, 1);
}
