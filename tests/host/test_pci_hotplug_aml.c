/*
 * test_pci_hotplug_aml.c - ACPI PCI hotplug through the AML (drivers/pci/
 * hotplug_acpi.c): QEMU's real DSDT (tests/host/fixtures/acpi/bridges/
 * dsdt.dat, captured from QEMU 7.2 q35 with two pcie-root-ports and a
 * pcie-pci-bridge behind the second) runs in the interpreter against the
 * model's register block at 0xcc0 (tests/host/pci_model.c, which knows
 * QEMU's layout because it emulates QEMU).  Device add, device_del and
 * eject, then hostile AML (build/aml/pcihp_hostile.aml): an _EJ0 that
 * never returns, an eject request for a slot without _EJ0, a Notify on a
 * device that is not a slot; and the root bus's windows from a _CRS that
 * is a Method (build/aml/pcihp_crs_method.aml).
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include "pcihp_machine.h"
#include <drivers/aml.h>
#include <stdio.h>

/* ---- the AML's platform: the model's ports and config space ---------------- */

static u64 fake_now;

static int p_io_read(void *ctx, u32 port, unsigned width, u64 *val)
{
	(void)ctx;
	*val = host_port_in((u16)port, width);
	return 0;
}

static int p_io_write(void *ctx, u32 port, unsigned width, u64 val)
{
	(void)ctx;
	host_port_out((u16)port, width, (u32)val);
	return 0;
}

static int p_pci_read(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 *val)
{
	u32 v;

	(void)ctx;
	if (seg || pci_config_read(bus, dev, fn, off, width, &v))
		v = width == 4 ? ~0u : (1u << (8 * width)) - 1;
	*val = v;
	return 0;
}

static int p_pci_write(void *ctx, u16 seg, u8 bus, u8 dev, u8 fn, u16 off, unsigned width, u64 val)
{
	(void)ctx;
	(void)seg; (void)bus; (void)dev; (void)fn; (void)off; (void)width; (void)val;
	return 0;	/* the LPC's PIRQ routing: nothing of the model's */
}

static u64 p_time(void *ctx)
{
	(void)ctx;
	return fake_now += 1000;
}

static void p_notify(void *ctx, struct aml_node *node, u64 value)
{
	(void)ctx;
	if (pm.aml_notify)
		pm.aml_notify(node, value);
}

static const struct aml_platform model_platform = {
	.io_read = p_io_read, .io_write = p_io_write,
	.pci_read = p_pci_read, .pci_write = p_pci_write,
	.time_ns = p_time, .notify = p_notify,
};

static void *arena;
static u8 table[1 << 20];

/* load_ns() - a namespace with the table at path, devices initialised, as
 * acpi_aml() gives it; NULL (and a failed check) if it cannot be read. */
static struct aml_ns *load_ns(const char *path, const struct aml_limits *lim)
{
	FILE *fp = fopen(path, "rb");
	size_t len;
	struct aml_ns *ns;

	CHECK(fp != NULL);
	if (!fp)
		return NULL;
	len = fread(table, 1, sizeof(table), fp);
	fclose(fp);
	if (!arena)
		arena = malloc(4 << 20);
	ns = aml_create(arena, 4 << 20, &model_platform, lim);
	CHECK(ns != NULL);
	CHECK_EQ(aml_load_table(ns, table, len), 0);
	printk_set_level(LOG_WARNING);
	aml_init_devices(ns, NULL);
	printk_set_level(LOG_INFO);
	return ns;
}

static void done(struct aml_ns *ns)
{
	pm.aml = NULL;
	CHECK_EQ(aml_destroy(ns), 0);
}

/* ---- QEMU's bridges machine ----------------------------------------------------- */

static int b_port1, b_port2, b_ppb;

/*
 * bridges() - the machine the fixture was captured on: root ports at
 * 00:01.0 (bus 1, QEMU's bsel 2) and 00:02.0 (buses 2-3, bsel 0), a
 * pcie-pci-bridge at 02:00.0 (bus 3, bsel 1), booted, with the fixture's
 * namespace as acpi_aml() and ACPI PCI hotplug switched to the AML.
 */
static struct aml_ns *bridges(void)
{
	struct aml_ns *ns;

	pm_reset(0, 0xff);
	memset(&fx, 0, sizeof(fx));
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
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
	CHECK_EQ(boot(), 0);
	ns = load_ns("tests/host/fixtures/acpi/bridges/dsdt.dat", NULL);
	pm.aml = ns;
	printk_set_level(LOG_WARNING);
	pci_hotplug_use_aml();
	printk_set_level(LOG_INFO);
	CHECK(pcihp_aml_mode);
	CHECK_EQ(pm.gpe, 1);
	gpe1();		/* the look pci_hotplug_use_aml() scheduled */
	return ns;
}

static struct pci_dev *find(u8 bus, u8 dev)
{
	for (unsigned i = 0; i < pci_device_count(); i++) {
		struct pci_dev *d = pci_device(i);

		if (d && d->bus == bus && d->dev == dev && d->fn == 0)
			return d;
	}
	return NULL;
}

HTEST(pcihp_aml_qemu_dsdt_slots_and_view)
{
	struct aml_ns *ns = bridges();
	const char *out = pcihp();

	CHECK(strstr(out, "ACPI PCI hotplug through the AML: \\_GPE._E01 (GPE 1)") != NULL);
	CHECK(strstr(out, "slot \\_SB_.PCI0.S08_.S00_ 01:00 _SUN 0 _EJ0") != NULL);
	CHECK(strstr(out, "slot \\_SB_.PCI0.S10_.S00_.S18_ 03:03 _SUN 3 _EJ0") != NULL);
	CHECK(strstr(out, "events: up 0 down 0 ejected 0") != NULL);
	done(ns);
}

HTEST(pcihp_aml_qemu_dsdt_add_and_eject_on_a_root_port)
{
	struct aml_ns *ns = bridges();
	int y = hot_function(b_port1, 0);

	pm_acpi_plug(y);
	CHECK(gpe1());
	CHECK(find(1, 0) != NULL);
	CHECK_EQ(fx.probes, 1);
	CHECK_EQ(pcihp_ups, 1);
	pm_acpi_unplug_request(y);
	CHECK(gpe1());
	CHECK(find(1, 0) == NULL);
	CHECK_EQ(fx.removes, 1);
	CHECK_EQ(pm.ejected[2], 1u);	/* _EJ0 -> PCEJ (BSEL 2, _SUN 0) */
	CHECK_EQ(pcihp_ejects, 1);
	CHECK(strstr(pcihp(), "notify \\_SB_.PCI0.S08_.S00_ 3: ejected") != NULL);
	done(ns);
}

HTEST(pcihp_aml_qemu_dsdt_add_and_eject_behind_the_pci_bridge)
{
	struct aml_ns *ns = bridges();
	int y = hot_function(b_ppb, 3);

	pm_acpi_plug(y);
	CHECK(gpe1());
	CHECK(find(3, 3) != NULL);
	pm_acpi_unplug_request(y);
	CHECK(gpe1());
	CHECK(find(3, 3) == NULL);
	CHECK_EQ(pm.ejected[1], 1u << 3);
	CHECK_EQ(pm.ejected[0], 0u);
	done(ns);
}

/* ---- hostile AML ---------------------------------------------------------------- */

HTEST(pcihp_aml_ej0_that_never_returns_and_a_notify_on_no_slot)
{
	static const struct aml_limits tight = {
		.max_loop_iters = 1000, .max_call_depth = 16, .max_nesting = 40,
		.max_ops = 100000, .max_time_ns = 1000000000ull, .max_sleep_ms = 10,
	};
	struct aml_ns *ns;
	int y;

	machine();		/* the table's S10 (00:02.0) is port A, its BNUM 0 */
	pm_pcihp_bsel(0, m_porta);
	pm_pcihp_bsel(1, m_portb);
	CHECK_EQ(boot(), 0);
	ns = load_ns("build/aml/pcihp_hostile.aml", &tight);
	pm.aml = ns;
	printk_set_level(LOG_ERR);
	pci_hotplug_use_aml();
	CHECK(pcihp_aml_mode);
	gpe1();
	y = m_vmem;
	pm_acpi_unplug_request(y);
	CHECK(gpe1());		/* the loop breaks the limit; the work returns */
	printk_set_level(LOG_INFO);
	CHECK_EQ(aml_last_error(ns)->code, AML_ELIMIT);
	CHECK_EQ(fx.removes, 1);	/* released before _EJ0 was asked */
	CHECK_EQ(pcihp_ejects, 0);
	const char *out = pcihp();
	CHECK(strstr(out, "notify \\_SB_.PCI0.S10_.S00_ 3: _EJ0 failed") != NULL);
	CHECK(strstr(out, "notify \\_SB_.PCI0.S18_.S00_ 3: refused: no _EJ0") != NULL);
	CHECK(strstr(out, "slot \\_SB_.PCI0.S18_.S00_ 02:00 _SUN 0 (not removable)") != NULL);
	CHECK(strstr(out, "notify \\_SB_.BTN_ 3: not a slot: ignored") != NULL);
	CHECK(strstr(out, "notify \\_SB_.BTN_ 1: not PCI: ignored") != NULL);
	/* the namespace still works: the next GPE runs */
	CHECK(gpe1());
	done(ns);
}

/* ---- root windows from _CRS through the interpreter ----------------------------- */

HTEST(pcihp_aml_root_windows_from_a_crs_method)
{
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];
	struct aml_ns *ns;

	machine();
	CHECK_EQ(boot(), 0);
	/* no namespace, no Name (_CRS) in the bytes: none */
	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), -ENOENT);
	ns = load_ns("build/aml/pcihp_crs_method.aml", NULL);
	pm.aml = ns;
	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), 1);
	CHECK_EQ(w[0].start, 0xc0000000ull);
	CHECK_EQ(w[0].end, 0xfebfffffull);
	CHECK(!w[0].io);
	done(ns);
}

HTEST(pcihp_aml_root_windows_from_qemus_dsdt)
{
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];
	struct aml_ns *ns = bridges();
	int n = acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX);
	bool hole32 = false;

	CHECK(n >= 4);
	for (int i = 0; i < n; i++)
		hole32 |= !w[i].io && w[i].end == 0xfebfffffull;
	CHECK(hole32);
	done(ns);
}

/* QEMU's DSDT with DIMM slots and no root ports: the memory devices have
 * _EJ0 but no _ADR, so there is no PCI slot and the AML is not taken. */
HTEST(pcihp_aml_not_taken_without_pci_slots)
{
	struct aml_ns *ns;

	machine();
	CHECK_EQ(boot(), 0);
	ns = load_ns("tests/host/fixtures/acpi/dimms/dsdt.dat", NULL);
	pm.aml = ns;
	pm.gpe_registered = 0;
	printk_set_level(LOG_WARNING);
	pci_hotplug_use_aml();
	printk_set_level(LOG_INFO);
	CHECK(!pcihp_aml_mode);
	CHECK_EQ(pm.gpe_registered, 0);
	CHECK(strstr(pcihp(), "through the AML") == NULL);
	done(ns);
}
