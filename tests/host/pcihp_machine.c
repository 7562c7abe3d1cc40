/*
 * pcihp_machine.c - the recording driver, the machines and the boot with
 * a namespace of the PCI hotplug tests (pcihp_machine.h).
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pcihp_machine.h"
#include <drivers/aml.h>

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
 * The register block at 0xcc0 answers (for AML that uses it).  No
 * namespace: booted as it is, ACPI PCI hotplug is off and the slots polled.
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

/* boot() - pci_init() with only warnings on stdout, the fake driver
 * registered (it binds what is there), then PCI hotplug chosen with the
 * namespace there is (pm.aml), as the kernel's boot does. */
int boot(void)
{
	int err;

	printk_set_level(LOG_WARNING);
	err = pm_init();
	pci_register_driver(&fake_drv);
	pci_acpi_init();
	printk_set_level(LOG_INFO);
	return err;
}

static u8 table[1 << 20];

/* boot_aml() - boot() with the namespace of the table in the file at path
 * (loaded after pci_init(), as acpi_aml_init() is).  The namespace, or
 * NULL (and a failed check) when the file cannot be read. */
struct aml_ns *boot_aml(const char *path, const struct aml_limits *lim)
{
	size_t len = pm_read_file(path, table, sizeof(table));
	struct aml_ns *ns;

	CHECK(len > 0);
	if (!len)
		return NULL;
	printk_set_level(LOG_WARNING);
	CHECK_EQ(pm_init(), 0);
	pci_register_driver(&fake_drv);
	ns = pm_load_aml(table, len, lim);
	CHECK(ns != NULL);
	pci_acpi_init();
	printk_set_level(LOG_INFO);
	return ns;
}

/* done() - the namespace destroyed, all its memory back. */
void done(struct aml_ns *ns)
{
	pm.aml = NULL;
	CHECK_EQ(aml_destroy(ns), 0);
}

/* ---- QEMU's bridges machine ----------------------------------------------------- */

int b_host, b_port1, b_port2, b_ppb;

/*
 * bridges_machine() - the machine tests/host/fixtures/acpi/bridges was
 * captured on, as SeaBIOS leaves it, not booted:
 *   00:01.0 root port 1: bus 1, memory fe800000-fe9fffff, prefetchable
 *           fc000000-fc1fffff; QEMU's bsel 2
 *   00:02.0 root port 2: buses 2-3, memory fe400000-fe7fffff, prefetchable
 *           800000000-8003fffff; bsel 0
 *     02:00.0 pcie-pci-bridge: bus 3, memory fe400000-fe5fffff,
 *             prefetchable 800000000-8001fffff; bsel 1
 * The register block at 0xcc0 answers (the DSDT's PCNT/PCEJ use it).
 */
void bridges_machine(void)
{
	pm_reset(0, 0xff);
	memset(&fx, 0, sizeof(fx));
	b_host = pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	b_port1 = pm_add(-1, 1, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(b_port1, 0, 1, 1);
	pm_mem_window(b_port1, 0xfe800000, 0xfe9fffff);
	pm_pref_window(b_port1, 0xfc000000, 0xfc1fffff);
	b_port2 = pm_add(-1, 2, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(b_port2, 0, 2, 3);
	pm_mem_window(b_port2, 0xfe400000, 0xfe7fffff);
	pm_pref_window(b_port2, 0x800000000ULL, 0x8003fffffULL);
	b_ppb = pm_add(b_port2, 0, 0, 0x1b36, 0x000e, 1, 0x06, 0x04);
	pm_buses(b_ppb, 2, 3, 3);
	pm_mem_window(b_ppb, 0xfe400000, 0xfe5fffff);
	pm_pref_window(b_ppb, 0x800000000ULL, 0x8001fffffULL);
	pm_pcihp();
	pm_pcihp_bsel(2, b_port1);
	pm_pcihp_bsel(0, b_port2);
	pm_pcihp_bsel(1, b_ppb);
}

/* bridges_boot() - boot_aml() with the fixture's DSDT; ACPI PCI hotplug
 * must follow the AML (GPE 1 taken), and the look it scheduled (a device
 * added before anyone listened) is run. */
struct aml_ns *bridges_boot(void)
{
	struct aml_ns *ns = boot_aml(BRIDGES_DSDT, NULL);

	CHECK(pcihp_aml_mode);
	CHECK_EQ(pm.gpe, 1);
	CHECK(pm.work == pm.gpe_work);
	printk_set_level(LOG_WARNING);
	pm_run_work();
	printk_set_level(LOG_INFO);
	return ns;
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
