/*
 * pcihp_machine.c - the recording driver, the DSDT bytes and the two-port
 * q35 of the PCI hotplug tests (pcihp_machine.h).
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pcihp_machine.h"

/* ---- a driver that records what happens to it ---------------------------------- */

struct fake_calls fx;

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

const struct pci_driver fake_drv = {
	.name = "fake-vmem", .vendor = 0x1af4, .device = 0x1058,
	.probe = fake_probe, .remove = fake_remove,
};

void aml_emit(struct aml *a, const void *p, size_t len)
{
	if (a->n + len > sizeof(a->b))
		abort();
	memcpy(a->b + a->n, p, len);
	a->n += len;
}

/* aml_integer() - an integer as QEMU's aml_integer() encodes it: Zero, One, or
 * the shortest of BytePrefix, WordPrefix, DWordPrefix. */
void aml_integer(struct aml *a, u32 v)
{
	u8 t[5];

	if (v <= 1) {
		t[0] = (u8)v;
		aml_emit(a, t, 1);
		return;
	}
	t[0] = v < 0x100 ? 0x0a : v < 0x10000 ? 0x0b : 0x0c;
	memcpy(t + 1, &v, 4);
	aml_emit(a, t, t[0] == 0x0a ? 2 : t[0] == 0x0b ? 3 : 5);
}

/* aml_name() - NameOp and a 4-character name; the value follows. */
void aml_name(struct aml *a, const char *name)
{
	u8 op = 0x08;

	aml_emit(a, &op, 1);
	aml_emit(a, name, 4);
}

/* aml_device() - DeviceOp, a package length and the device's name (the
 * scanner ignores them; they make the bytes look like QEMU's). */
void aml_device(struct aml *a, const char *name)
{
	u8 t[4] = { 0x5b, 0x82, 0x20 };

	aml_emit(a, t, 3);
	aml_emit(a, name, 4);
}

/* aml_bridge() - Device (name) { Name (_ADR, dev << 16); Name (BSEL, n) } */
void aml_bridge(struct aml *a, const char *name, unsigned dev, u32 bsel)
{
	aml_device(a, name);
	aml_name(a, "_ADR");
	aml_integer(a, dev << 16);
	aml_name(a, "BSEL");
	aml_integer(a, bsel);
}

/* aml_pci0() - Device (PCI0) { Name (_HID, EisaId ("PNP0A08")); Name (_ADR, Zero) } */
void aml_pci0(struct aml *a)
{
	static const u8 hid[] = { 0x0c, 0x41, 0xd0, 0x0a, 0x08 };

	aml_device(a, "PCI0");
	aml_name(a, "_HID");
	aml_emit(a, hid, sizeof(hid));
	aml_name(a, "_ADR");
	aml_integer(a, 0);
}

/* ---- the machine -------------------------------------------------------------------- */

/* Indices of the machine's functions in the model. */
int m_host, m_porta, m_vmem, m_portb;

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
void machine(void)
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
void dsdt_qemu(void)
{
	struct aml a = { .n = 0 };

	aml_pci0(&a);
	aml_bridge(&a, "S10_", 2, 1);
	aml_bridge(&a, "S18_", 3, 0);
	pm_set_dsdt(a.b, a.n);
}

/* dsdt_without_bsel() - the same with ACPI PCI hotplug switched off. */
void dsdt_without_bsel(void)
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
int hot_function(int parent, u8 dev)
{
	int x = pm_add(parent, dev, 0, 0x1af4, 0x1058, 0, 0x05, 0x00);

	pm_bar(x, 0, 4096, 0, 0);
	pm_bar(x, 4, 16384, 4 | 8, 0);
	pm.f[x].absent = true;
	return x;
}

/* boot() - pci_init() with only warnings on stdout, then the fake driver
 * registered (it binds what is there). */
int boot(void)
{
	int err;

	printk_set_level(LOG_WARNING);
	err = pm_init();
	pci_register_driver(&fake_drv);
	printk_set_level(LOG_INFO);
	return err;
}

/* gpe1() - GPE 1 fires and its work runs, log quiet. */
bool gpe1(void)
{
	bool ran;

	printk_set_level(LOG_WARNING);
	ran = pm_gpe(1);
	printk_set_level(LOG_INFO);
	return ran;
}

static char text[4096];
static struct buf_printer tp;

/* pcihp() - the `pcihp` command's output. */
const char *pcihp(void)
{
	char *argv[] = { "pcihp", NULL };

	buf_printer_init(&tp, text, sizeof(text));
	CHECK_EQ(shell_find("pcihp")->fn(&tp.p, 1, argv), 0);
	return text;
}

/* table_count() - functions in the table. */
unsigned table_count(void)
{
	unsigned n = 0;

	for (unsigned i = 0; i < pci_device_count(); i++)
		n += pci_device(i) != NULL;
	return n;
}
