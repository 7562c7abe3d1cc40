/*
 * test_pci_hotplug_dsdt.c - ACPI PCI hotplug through the AML with QEMU's
 * DSDT made hostile, on the PCI model (host suite `pci`): the table cut
 * short at many points (its length field saying so, or still claiming the
 * whole), and a bus selector QEMU could give (255) patched in.  The boot
 * must choose a mechanism and say why, GPEs and hotplug events afterwards
 * must leave the table consistent, and every namespace must give all its
 * memory back.
 *
 * The machine is pcihp_machine.h's bridges_machine().
 */
#include "htest.h"
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include <drivers/aml.h>
#include "pcihp_machine.h"

static u8 fixture[1 << 16];
static u8 image[1 << 16];

/* fix_checksum() - the table's bytes sum to 0 again (ACPI header byte 9). */
static void fix_checksum(u8 *t, size_t len)
{
	u8 sum = 0;

	t[9] = 0;
	for (size_t i = 0; i < len; i++)
		sum = (u8)(sum + t[i]);
	t[9] = (u8)-sum;
}

/* boot_image() - bridges_machine() booted with len bytes of image as the
 * DSDT's namespace (loaded however far it goes). */
static struct aml_ns *boot_image(size_t len)
{
	struct aml_ns *ns;

	bridges_machine();
	printk_set_level(LOG_ERR);
	CHECK_EQ(pm_init(), 0);
	pci_register_driver(&fake_drv);
	ns = pm_load_aml(image, len, NULL);
	CHECK(ns != NULL);
	pci_acpi_init();
	printk_set_level(LOG_INFO);
	return ns;
}

/*
 * QEMU's DSDT cut at 64 points (the last of them the whole table), once
 * with the header's length saying so and once still claiming the whole.  Each boot either follows the
 * AML (the cut left the GPE method and slots) or says why ACPI PCI hotplug
 * is off; then device_add and device_del behind root port 1 and three GPEs
 * must leave no function in the table that does not answer, call the
 * driver's remove only for what it probed, and the namespace must free
 * all it took (ASan watches the reads).
 */
HTEST(pcihp_dsdt_truncated)
{
	size_t len = pm_read_file(BRIDGES_DSDT, fixture, sizeof(fixture));
	unsigned aml_boots = 0, off_boots = 0;

	CHECK(len > 36);
	if (len <= 36)
		return;
	for (unsigned k = 0; k < 128; k++) {
		unsigned j = k % 64;	/* 56 cuts over the table, the last 8 in its _GPE scope */
		size_t cut = j < 56 ? 36 + (len - 36) * j / 56 : len - (63 - j) * 3;
		struct aml_ns *ns;
		const char *out;
		int hot;

		memcpy(image, fixture, cut);
		if (k < 64) {
			u32 l = (u32)cut;

			memcpy(image + 4, &l, 4);
			fix_checksum(image, cut);
		}
		ns = boot_image(cut);
		out = pcihp();
		if (pcihp_aml_mode) {
			aml_boots++;
			CHECK(strstr(out, "ACPI PCI hotplug through the AML: ") == out);
		} else {
			off_boots++;
			CHECK(strstr(out, "ACPI PCI hotplug off: ") == out);
		}
		hot = hot_function(b_port1, 0);
		printk_set_level(LOG_ERR);
		pm_run_work();
		pm_acpi_plug(hot);
		gpe1();
		pm_acpi_unplug_request(hot);
		gpe1();
		gpe1();
		printk_set_level(LOG_INFO);
		for (unsigned i = 0; i < pci_device_count(); i++) {
			struct pci_dev *d = pci_device(i);

			CHECK(!d || pci_read16(d, CFG_VENDOR) != 0xffff);
		}
		CHECK(fx.removes <= fx.probes);
		if (pcihp_aml_mode)
			CHECK(pm.f[hot].absent);
		done(ns);
	}
	CHECK(aml_boots > 0);
	CHECK(off_boots > 0);
}

/* patch() - the first n bytes of the image equal to from become to; false
 * when there are none. */
static bool patch(size_t len, const u8 *from, const u8 *to, size_t n)
{
	for (size_t i = 0; i + n <= len; i++)
		if (!memcmp(image + i, from, n)) {
			memcpy(image + i, to, n);
			return true;
		}
	return false;
}

/*
 * Root port 1's bus selector 2 patched to 255, the highest QEMU numbers:
 * its `Name (BSEL, 2)` (which _EJ0 passes to PCEJ) and the `Store (2,
 * BNUM)` QEMU writes into its PCNT; the model's selector moved with it.
 * device_add and device_del behind the port go through selector 255 like
 * any other.
 */
HTEST(pcihp_dsdt_bsel_255_is_a_bus_like_any)
{
	static const u8 name2[] = { 0x08, 'B', 'S', 'E', 'L', 0x0a, 0x02 };
	static const u8 name255[] = { 0x08, 'B', 'S', 'E', 'L', 0x0a, 0xff };
	static const u8 store2[] = { 0x70, 0x0a, 0x02, 'B', 'N', 'U', 'M' };
	static const u8 store255[] = { 0x70, 0x0a, 0xff, 'B', 'N', 'U', 'M' };
	size_t len = pm_read_file(BRIDGES_DSDT, image, sizeof(image));
	struct aml_ns *ns;
	int hot;

	CHECK(patch(len, name2, name255, sizeof(name2)));
	CHECK(patch(len, store2, store255, sizeof(store2)));
	fix_checksum(image, len);
	ns = boot_image(len);
	pm_pcihp_bsel(2, PM_BSEL_NONE);
	pm_pcihp_bsel(255, b_port1);
	CHECK(pcihp_aml_mode);
	hot = hot_function(b_port1, 0);
	pm_acpi_plug(hot);
	CHECK_EQ(pm.up[255], 1);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) != NULL);
	CHECK_EQ(pm.up[255], 0);
	pm_acpi_unplug_request(hot);
	CHECK(gpe1());
	CHECK(pci_get_bdf(1, 0, 0) == NULL);
	CHECK_EQ(pm.ejected[255], 1);
	CHECK_EQ(fx.removes, 1);
	done(ns);
}
