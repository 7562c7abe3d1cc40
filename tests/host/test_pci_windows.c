/*
 * test_pci_windows.c - the root bus's windows from the host bridge's _CRS
 * (drivers/acpi/crs.c) and the bridge I/O windows, as /proc/iomem and
 * /proc/ioports show them (drivers/pci/iomem.c), on the PCI model.
 *
 * The DSDTs here are built byte by byte from the resource descriptor
 * formats of the ACPI specification (section 6.4): a Name(_CRS, Buffer)
 * with QEMU q35's set of windows, then the same spoiled in each way a
 * firmware could spoil it.  A spoiled template is skipped with a log line
 * and the PCI code falls back to the 32-bit hole it places BARs in.
 */
#include "htest.h"
#include "pci_model.h"
#include <drivers/acpi.h>
#include <kernel/resource.h>
#include <lib/printk.h>

/* A resource template, then the AML around it, built up in place. */
struct tmpl {
	unsigned char b[1024];
	size_t n;
};

static void put(struct tmpl *t, unsigned long long v, unsigned bytes)
{
	for (unsigned i = 0; i < bytes; i++)
		t->b[t->n++] = (unsigned char)(v >> (8 * i));
}

/*
 * An address space descriptor: fw = 2 (Word, 0x88), 4 (DWord, 0x87) or
 * 8 (QWord, 0x8a); its length field says `len_field`, normally 3 + 5 * fw.
 */
static void addr_desc(struct tmpl *t, unsigned fw, unsigned len_field, unsigned type,
		      unsigned tflags, unsigned long long min, unsigned long long max,
		      unsigned long long tra, unsigned long long len)
{
	put(t, fw == 2 ? 0x88 : fw == 4 ? 0x87 : 0x8a, 1);
	put(t, len_field, 2);
	put(t, type, 1);
	put(t, 0x0c, 1);		/* producer, min and max fixed */
	put(t, tflags, 1);
	put(t, 0, fw);			/* granularity */
	put(t, min, fw);
	put(t, max, fw);
	put(t, tra, fw);
	put(t, len, fw);
}

static void word(struct tmpl *t, unsigned type, unsigned long long min, unsigned long long max)
{
	addr_desc(t, 2, 13, type, 0, min, max, 0, max - min + 1);
}

static void dword_mem(struct tmpl *t, unsigned tflags, unsigned long long min,
		      unsigned long long max)
{
	addr_desc(t, 4, 23, 0, tflags, min, max, 0, max - min + 1);
}

static void qword_mem(struct tmpl *t, unsigned tflags, unsigned long long min,
		      unsigned long long max)
{
	addr_desc(t, 8, 43, 0, tflags, min, max, 0, max - min + 1);
}

static void end_tag(struct tmpl *t)
{
	put(t, 0x79, 1);
	put(t, 0, 1);
}

/* QEMU q35's host bridge template for a 2 GiB guest (tflags 7: prefetchable). */
static void q35_template(struct tmpl *t)
{
	word(t, 2, 0x00, 0xff);				/* WordBusNumber */
	put(t, 0x47, 1);				/* IO 0xcf8, 8 ports: not a window */
	put(t, 0x01, 1); put(t, 0xcf8, 2); put(t, 0xcf8, 2); put(t, 1, 1); put(t, 8, 1);
	word(t, 1, 0x0000, 0x0cf7);			/* WordIO */
	word(t, 1, 0x0d00, 0xffff);
	dword_mem(t, 0x03, 0x000a0000, 0x000bffff);	/* the VGA window */
	dword_mem(t, 0x01, 0x80000000, 0xafffffff);
	dword_mem(t, 0x01, 0xc0000000, 0xfebfffff);
	qword_mem(t, 0x07, 0x1000000000ULL, 0x17ffffffffULL);
}

/*
 * Append Name(_CRS, Buffer(size) { body }) to aml: NameOp, the name,
 * BufferOp, a PkgLength (1 or 2 bytes) covering itself, the size and the
 * body, the size as a WordConst.  size_adjust is added to the declared
 * buffer size (a lie, when not 0).
 */
static void name_crs(struct tmpl *aml, const struct tmpl *body, int size_adjust)
{
	size_t pkg = 2 + 3 + body->n;		/* two-byte PkgLength, WordConst */

	put(aml, 0x08, 1);
	memcpy(aml->b + aml->n, "_CRS", 4);
	aml->n += 4;
	put(aml, 0x11, 1);
	put(aml, 0x40 | (pkg & 0x0f), 1);
	put(aml, pkg >> 4, 1);
	put(aml, 0x0b, 1);
	put(aml, (unsigned long long)((long long)body->n + size_adjust), 2);
	memcpy(aml->b + aml->n, body->b, body->n);
	aml->n += body->n;
}

static char out[4096];

/* The `lspci` view. */
static const char *lspci_text(void)
{
	static char text[4096];
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	pci_dump(&bp.p);
	return text;
}

static const char *tree(struct resource *root, int width)
{
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	resource_print_tree(root, width, &bp.p);
	return out;
}

/* The machine: one root port (buses 1-1, I/O window c000-cfff) with a
 * device that has an I/O BAR and a memory BAR. */
static int rp, dev;
static bool rp_io = true;		/* the port has I/O window registers */

static void machine(const struct tmpl *aml)
{
	pm_reset(0, 0xff);
	pm_add(-1, 0, 0, 0x8086, 0x29c0, 0, 0x06, 0x00);
	rp = pm_add(-1, 1, 0, 0x1b36, 0x000c, 1, 0x06, 0x04);
	pm_buses(rp, 0, 1, 1);
	pm_mem_window(rp, 0xfe800000, 0xfe9fffff);
	if (rp_io) {
		pm_put(&pm.f[rp], 0x1c, 1, 0xc0);	/* I/O base c000 (16-bit I/O) */
		pm_put(&pm.f[rp], 0x1d, 1, 0xc0);	/* I/O limit cfff */
	}
	dev = pm_add(rp, 0, 0, 0x8086, 0x10d3, 0, 0x02, 0x00);
	pm_bar(dev, 0, 4096, 0, 0xfe800000);
	pm_bar(dev, 2, 32, 1, 0xc000);
	if (aml)
		pm_set_dsdt(aml->b, aml->n);
	printk_set_level(LOG_ERR);
	CHECK_EQ(pm_init(), 0);
	printk_set_level(LOG_INFO);
}

/* Only the fallback root window, and the bridge windows under it. */
static void check_fallback(void)
{
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];

	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), -ENOENT);
	CHECK_STREQ(tree(&iomem_resource, 8),
		"b0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n"
		"c0000000-febfffff : PCI Bus 0000:00\n"
		"  fe800000-fe9fffff : PCI Bus 0000:01\n"
		"    fe800000-fe800fff : 0000:01:00.0\n");
	CHECK_STREQ(tree(&ioport_resource, 4),
		"c000-cfff : PCI Bus 0000:01\n"
		"  c000-c01f : 0000:01:00.0\n");
}

/*
 * QEMU's layout: a device's own _CRS (no bus range) comes first and is
 * passed over; the host bridge's gives six windows, in its order, with the
 * prefetchable bit; /proc/iomem and /proc/ioports nest the bridge's
 * windows and the BARs inside them, as Linux's do.
 */
HTEST(pci_root_windows_from_crs)
{
	struct tmpl kbd = { .n = 0 }, root = { .n = 0 }, aml = { .n = 0 };
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];

	put(&kbd, 0x47, 1);			/* IO 0x60 */
	put(&kbd, 0x01, 1); put(&kbd, 0x60, 2); put(&kbd, 0x60, 2); put(&kbd, 1, 1); put(&kbd, 1, 1);
	end_tag(&kbd);
	q35_template(&root);
	end_tag(&root);
	put(&aml, 0x5b, 1);			/* a stray ExtOpPrefix byte first */
	name_crs(&aml, &kbd, 0);
	name_crs(&aml, &root, 0);
	machine(&aml);

	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), 6);
	CHECK(w[0].io && w[0].start == 0 && w[0].end == 0xcf7);
	CHECK(w[1].io && w[1].start == 0xd00 && w[1].end == 0xffff);
	CHECK(!w[2].io && w[2].start == 0xa0000 && w[2].end == 0xbffff && w[2].prefetchable == false);
	CHECK(w[3].start == 0x80000000 && w[3].end == 0xafffffff);
	CHECK(w[5].start == 0x1000000000ULL && w[5].end == 0x17ffffffffULL && w[5].prefetchable);
	CHECK_EQ(acpi_root_windows(w, 2), 2);	/* a short array gets the first */

	CHECK_STREQ(tree(&iomem_resource, 8),
		"000a0000-000bffff : PCI Bus 0000:00\n"
		"80000000-afffffff : PCI Bus 0000:00\n"
		"b0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n"
		"c0000000-febfffff : PCI Bus 0000:00\n"
		"  fe800000-fe9fffff : PCI Bus 0000:01\n"
		"    fe800000-fe800fff : 0000:01:00.0\n"
		"1000000000-17ffffffff : PCI Bus 0000:00\n");
	CHECK_STREQ(tree(&ioport_resource, 4),
		"0000-0cf7 : PCI Bus 0000:00\n"
		"0d00-ffff : PCI Bus 0000:00\n"
		"  c000-cfff : PCI Bus 0000:01\n"
		"    c000-c01f : 0000:01:00.0\n");
	CHECK(strstr(lspci_text(), "io c000-cfff") != NULL);
	pm_reset(0, 0xff);
	pci_resources_sync();			/* empty table: nothing claimed */
}

/* A bridge whose I/O registers read 0 has no I/O window (not 0000-0fff). */
HTEST(pci_bridge_without_io_window)
{
	rp_io = false;
	machine(NULL);
	rp_io = true;
	CHECK(strstr(lspci_text(), "pref closed\n") != NULL);	/* no " io" window after pref */
	CHECK_STREQ(tree(&ioport_resource, 4), "c000-c01f : 0000:01:00.0\n");
	pm_reset(0, 0xff);
	pci_resources_sync();
}

/* Each spoiled template alone: skipped, and the fallback window used. */
HTEST(pci_root_windows_hostile_crs)
{
	for (int k = 0; k < 10; k++) {
		struct tmpl t = { .n = 0 }, aml = { .n = 0 };
		int adjust = 0;

		word(&t, 2, 0x00, 0xff);
		switch (k) {
		case 0:		/* a descriptor longer than the buffer */
			addr_desc(&t, 4, 200, 0, 0, 0x80000000, 0xafffffff, 0, 0x30000000);
			break;
		case 1:		/* an I/O window translated past port 0xffff */
			addr_desc(&t, 2, 13, 1, 0, 0xd00, 0xffff, 0x1000, 0xf300);
			end_tag(&t);
			break;
		case 2:		/* min above max, no length */
			addr_desc(&t, 4, 23, 0, 0, 0xb0000000, 0xa0000000, 0, 0);
			end_tag(&t);
			break;
		case 3:		/* a window that wraps past 2^64 */
			addr_desc(&t, 8, 43, 0, 0, 0xfffffffff0000000ULL, ~0ULL, 0, 0x20000000);
			end_tag(&t);
			break;
		case 4:		/* no end tag */
			word(&t, 1, 0xd00, 0xffff);
			break;
		case 5:		/* the declared size cuts the template short */
			word(&t, 1, 0xd00, 0xffff);
			end_tag(&t);
			adjust = -8;
			break;
		case 6:		/* a QWord descriptor shorter than its fields */
			addr_desc(&t, 8, 10, 0, 0, 0x1000000000ULL, 0x17ffffffffULL, 0, 0);
			t.n -= 43 - 10;
			end_tag(&t);
			break;
		case 7:		/* a large header cut off at the end */
			t.b[t.n++] = 0x87;
			t.b[t.n++] = 0x17;
			break;
		case 8:		/* a small descriptor that runs past the end */
			t.b[t.n++] = 0x47;
			t.b[t.n++] = 0x01;
			break;
		case 9:		/* not bus 0's: a second root bridge only */
			t.n = 0;
			word(&t, 2, 0x80, 0xff);
			word(&t, 1, 0xd00, 0xffff);
			end_tag(&t);
			break;
		}
		name_crs(&aml, &t, adjust);
		machine(&aml);
		check_fallback();
		if (k == 0) {			/* and a PkgLength past the table */
			aml.n -= 4;
			machine(&aml);
			check_fallback();
		}
	}
	pm_reset(0, 0xff);
	pci_resources_sync();
}

/* A spoiled template before the good one does not hide it; more windows
 * than the table holds are cut at ACPI_ROOT_WINDOWS_MAX, with a warning. */
HTEST(pci_root_windows_skip_and_cap)
{
	struct tmpl bad = { .n = 0 }, many = { .n = 0 }, aml = { .n = 0 };
	struct acpi_window w[ACPI_ROOT_WINDOWS_MAX];

	word(&bad, 2, 0x00, 0xff);
	addr_desc(&bad, 4, 200, 0, 0, 0x80000000, 0xafffffff, 0, 0x30000000);
	word(&many, 2, 0x00, 0xff);
	for (int i = 0; i < ACPI_ROOT_WINDOWS_MAX + 3; i++)
		word(&many, 1, 0x1000 + 0x100 * i, 0x10ff + 0x100 * i);
	end_tag(&many);
	name_crs(&aml, &bad, 0);
	name_crs(&aml, &many, 0);
	machine(&aml);
	CHECK_EQ(acpi_root_windows(w, ACPI_ROOT_WINDOWS_MAX), ACPI_ROOT_WINDOWS_MAX);
	CHECK(w[0].io && w[0].start == 0x1000 && w[0].end == 0x10ff);
	CHECK(w[ACPI_ROOT_WINDOWS_MAX - 1].start == 0x1000 + 0x100 * (ACPI_ROOT_WINDOWS_MAX - 1));
	pm_reset(0, 0xff);
	pci_resources_sync();
}
