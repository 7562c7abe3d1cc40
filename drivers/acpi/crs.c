/*
 * crs.c - the root PCI bus's windows, read from the host bridge's _CRS.
 *
 * The address ranges a host bridge passes down to PCI (its "windows") are
 * listed in the _CRS object of its ACPI device: a resource template, the
 * byte format of ACPI 6.5 section 6.4.  On q35 QEMU declares, for bus 0:
 *
 *   WordBusNumber   0x00-0xff          the buses below this bridge
 *   IO              0xcf8, 8 ports     the bridge's own config ports
 *   WordIO          0x0000-0x0cf7      I/O windows around them
 *   WordIO          0x0d00-0xffff
 *   DWordMemory     0x000a0000-0x000bffff  the legacy VGA window
 *   DWordMemory     the 32-bit PCI hole, split around MMCONFIG
 *   QWordMemory     the 64-bit hole above the hotplug memory area
 *
 * and Linux prints each window as "PCI Bus 0000:00" in /proc/iomem and
 * /proc/ioports.  Once the AML namespace exists (acpi_aml()), the root
 * bridge's (PNP0A08, else PNP0A03) _CRS is evaluated by the interpreter, so
 * a _CRS that is a Method (which real servers often use, to fill in the
 * hole from chipset registers) works as well as a Name.  Before that (PCI
 * is enumerated before the namespace is built), or when the evaluation
 * fails, only a plain Name(_CRS, Buffer) is read: the DSDT and the SSDTs
 * are scanned for NameOp "_CRS" BufferOp, each template decoded, and the
 * first whose bus-number range starts at bus 0 taken.  Without either the
 * PCI code falls back to the hole it places BARs in.
 *
 * Every length is checked against the table before a byte is read, and a
 * template that runs past its buffer, has a descriptor shorter than its
 * type needs, or a window that wraps is skipped as a whole, with the reason
 * in the log.  Context: boot or main loop; reads the tables only.
 */
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

#define AML_NAME_OP	0x08
#define AML_BUFFER_OP	0x11
#define AML_BYTE_PREFIX	0x0a
#define AML_WORD_PREFIX	0x0b
#define AML_DWORD_PREFIX 0x0c
#define AML_ZERO_OP	0x00
#define AML_ONE_OP	0x01

/* Resource descriptor names (ACPI 6.5 table 6.27 and 6.41). */
#define RES_SMALL_END_TAG	0x0f
#define RES_LARGE_DWORD_ADDR	0x07
#define RES_LARGE_WORD_ADDR	0x08
#define RES_LARGE_QWORD_ADDR	0x0a

/* Address space descriptor resource types. */
#define ADDR_SPACE_MEM	0
#define ADDR_SPACE_IO	1
#define ADDR_SPACE_BUS	2

/* Little-endian field of n bytes (n <= 8) at p. */
static u64 le(const u8 *p, unsigned n)
{
	u64 v = 0;

	while (n--)
		v = (v << 8) | p[n];
	return v;
}

/*
 * Decode AML's PkgLength at aml[0, len): its value in *pkg and its own
 * size in *size.  -EINVAL if it does not fit in len.
 */
static int pkg_length(const u8 *aml, size_t len, u32 *pkg, unsigned *size)
{
	unsigned extra;

	if (len < 1)
		return -EINVAL;
	extra = aml[0] >> 6;
	if (len < 1u + extra)
		return -EINVAL;
	if (extra == 0) {
		*pkg = aml[0] & 0x3f;
	} else {
		*pkg = aml[0] & 0x0f;
		for (unsigned i = 0; i < extra; i++)
			*pkg |= (u32)aml[1 + i] << (4 + 8 * i);
	}
	*size = 1 + extra;
	return 0;
}

/* An AML integer constant at aml[0, len): value and size, or -EINVAL. */
static int aml_integer(const u8 *aml, size_t len, u64 *value, unsigned *size)
{
	unsigned n;

	if (len < 1)
		return -EINVAL;
	switch (aml[0]) {
	case AML_ZERO_OP: *value = 0; *size = 1; return 0;
	case AML_ONE_OP: *value = 1; *size = 1; return 0;
	case AML_BYTE_PREFIX: n = 1; break;
	case AML_WORD_PREFIX: n = 2; break;
	case AML_DWORD_PREFIX: n = 4; break;
	default: return -EINVAL;
	}
	if (len < 1u + n)
		return -EINVAL;
	*value = le(aml + 1, n);
	*size = 1 + n;
	return 0;
}

/* What decoding one template found. */
struct crs_result {
	struct acpi_window win[ACPI_ROOT_WINDOWS_MAX];
	unsigned nr;		/* windows kept */
	unsigned dropped;	/* windows past ACPI_ROOT_WINDOWS_MAX */
	bool bus0;		/* a bus-number range starting at bus 0 */
	int bus_min, bus_max;	/* the first bus-number range; -1: none */
	const char *why;	/* set when the template is malformed */
};

/*
 * One address space descriptor (Word, DWord or QWord: fields of fw bytes)
 * at d[0, dlen), the 3-byte large header included.
 */
static void crs_address(const u8 *d, u32 dlen, unsigned fw, struct crs_result *res)
{
	u32 need = 6 + 5 * fw;	/* header, type, flags, then 5 fields */
	u64 min, max, tra, len, start, end;
	u8 type, tflags;

	if (dlen < need) {
		res->why = "an address descriptor shorter than its fields";
		return;
	}
	type = d[3];
	tflags = d[5];
	min = le(d + 6 + fw, fw);
	max = le(d + 6 + 2 * fw, fw);
	tra = le(d + 6 + 3 * fw, fw);
	len = le(d + 6 + 4 * fw, fw);
	if (type == ADDR_SPACE_BUS) {
		if (min == 0)
			res->bus0 = true;
		if (res->bus_min < 0 && min <= max && max <= 0xff) {
			res->bus_min = (int)min;
			res->bus_max = (int)max;
		}
		return;
	}
	if (type != ADDR_SPACE_MEM && type != ADDR_SPACE_IO)
		return;		/* vendor-defined spaces: not windows */
	start = min + tra;
	end = len ? start + len - 1 : max + tra;
	if (start < min || end < start || (!len && max < min) ||
	    (type == ADDR_SPACE_IO && end > 0xffff)) {
		res->why = "a window that wraps or leaves its address space";
		return;
	}
	if (res->nr == ACPI_ROOT_WINDOWS_MAX) {
		res->dropped++;
		return;
	}
	res->win[res->nr++] = (struct acpi_window){
		.start = start, .end = end,
		.io = type == ADDR_SPACE_IO,
		/* memory: type-specific bits 2:1 = 3 is "prefetchable" */
		.prefetchable = type == ADDR_SPACE_MEM && ((tflags >> 1) & 3) == 3,
	};
}

/* Decode the template in buf[0, len) into res (res->why on an error). */
static void crs_decode(const u8 *buf, size_t len, struct crs_result *res)
{
	size_t i = 0;

	memset(res, 0, sizeof(*res));
	res->bus_min = res->bus_max = -1;
	while (i < len && !res->why) {
		u8 tag = buf[i];
		u32 dlen;

		if (!(tag & 0x80)) {			/* small descriptor */
			if (((tag >> 3) & 0x0f) == RES_SMALL_END_TAG)
				return;
			i += 1 + (tag & 7);
			continue;
		}
		if (len - i < 3) {
			res->why = "a large descriptor header past the buffer";
			return;
		}
		dlen = 3 + (u32)le(buf + i + 1, 2);
		if (dlen > len - i) {
			res->why = "a descriptor that runs past the buffer";
			return;
		}
		switch (tag & 0x7f) {
		case RES_LARGE_WORD_ADDR: crs_address(buf + i, dlen, 2, res); break;
		case RES_LARGE_DWORD_ADDR: crs_address(buf + i, dlen, 4, res); break;
		case RES_LARGE_QWORD_ADDR: crs_address(buf + i, dlen, 8, res); break;
		default: break;
		}
		i += dlen;
	}
	if (!res->why && i > len)
		res->why = "a small descriptor that runs past the buffer";
	else if (!res->why)
		res->why = "no end tag";
}

/*
 * Scan one table's AML for Name(_CRS, Buffer) and decode each; the first
 * template with bus 0 goes to *out.  Returns true when found.
 */
static bool crs_scan_table(const struct acpi_sdt_header *t, struct crs_result *out)
{
	const u8 *aml = (const u8 *)(t + 1);
	size_t len = t->length > sizeof(*t) ? t->length - sizeof(*t) : 0;

	for (size_t i = 1; i + 5 <= len; i++) {
		size_t p = i + 5, avail, body;
		u32 pkg;
		unsigned psize, isize;
		u64 bsize;

		if (aml[i - 1] != AML_NAME_OP || memcmp(aml + i, "_CRS", 4) ||
		    aml[i + 4] != AML_BUFFER_OP)
			continue;
		if (pkg_length(aml + p, len - p, &pkg, &psize) || pkg > len - p || pkg < psize)
			continue;		/* not a buffer after all */
		avail = pkg;			/* PkgLength counts itself */
		if (aml_integer(aml + p + psize, avail - psize, &bsize, &isize))
			continue;
		body = avail - psize - isize;
		if (bsize < body)
			body = (size_t)bsize;	/* the declared size, if smaller */
		crs_decode(aml + p + psize + isize, body, out);
		if (out->why) {
			static const u8 *last_warned;	/* said once, not at every rescan */

			if (last_warned != aml + i)
				pr_warn("acpi: %.4s _CRS at offset %#zx is malformed (%s); ignored",
					t->signature, sizeof(*t) + i, out->why);
			last_warned = aml + i;
			continue;
		}
		if (out->bus0)
			return true;
	}
	return false;
}

/* The root bridge device: the first PNP0A08 (PCIe) or PNP0A03 (PCI). */
static int first_root(struct aml_ns *ns, struct aml_node *dev, void *arg)
{
	(void)ns;
	*(struct aml_node **)arg = dev;
	return 1;
}

/*
 * eval_crs() - dev's _CRS evaluated by the interpreter (a Name or a Method
 * alike) and decoded into *res (res->why set when the template is
 * malformed).  0, or, with *why saying why nothing was decoded, the
 * evaluation's error (negative) or 1 (the result is not a Buffer).
 * Context: boot or main loop, after acpi_aml_init().
 */
static int eval_crs(struct aml_ns *ns, struct aml_node *dev, struct crs_result *res,
		    const char **why)
{
	struct aml_obj *crs = NULL;
	int err = aml_eval_at(ns, dev, "_CRS", NULL, 0, &crs);

	if (err || !crs || crs->type != AML_BUFFER) {
		*why = err ? aml_last_error(ns)->reason : "_CRS is not a Buffer";
		aml_put(ns, crs);
		return err ? err : 1;
	}
	crs_decode(crs->buf.data, crs->buf.len, res);
	aml_put(ns, crs);
	return 0;
}

/*
 * crs_from_aml() - the root bridge's _CRS evaluated by the interpreter (a
 * Name or a Method alike), decoded into *out.  False when there is no
 * namespace, no root bridge or no _CRS, the evaluation fails or the result
 * is not a template of bus 0 (logged once per reason).  Context: boot or
 * main loop, after acpi_aml_init().
 */
static bool crs_from_aml(struct crs_result *out)
{
	static int last_err;	/* said once, not at every sync */
	struct aml_ns *ns = acpi_aml();
	struct aml_node *root = NULL;
	const char *why;
	int err;
	bool ok;

	if (!ns)
		return false;
	if (!aml_walk_hid(ns, "PNP0A08", first_root, &root))
		aml_walk_hid(ns, "PNP0A03", first_root, &root);
	if (!root || !aml_child(root, "_CRS"))
		return false;
	err = eval_crs(ns, root, out, &why);
	if (err) {
		if (last_err != err)
			pr_warn("acpi: the root bridge's _CRS %s; the tables' bytes are read instead",
				err > 0 ? "is not a Buffer" : why);
		last_err = err;
		return false;
	}
	ok = !out->why && out->bus0;
	if (!ok && last_err != 2)
		pr_warn("acpi: the root bridge's _CRS (evaluated) is %s; the tables' bytes are read instead",
			out->why ? out->why : "not for bus 0");
	last_err = ok ? 0 : 2;
	return ok;
}

/*
 * acpi_bridge_crs() - see acpi.h.  Any root bridge, the first one included;
 * the caller says what the windows are for and logs the reason.
 */
int acpi_bridge_crs(struct aml_node *dev, struct acpi_crs *out)
{
	struct aml_ns *ns = acpi_aml();
	struct crs_result res;

	memset(out, 0, sizeof(*out));
	out->bus_min = out->bus_max = -1;
	if (!ns || !dev || !aml_child(dev, "_CRS")) {
		out->why = "there is no _CRS";
		return -ENOENT;
	}
	if (eval_crs(ns, dev, &res, &out->why))
		return -EINVAL;
	if (res.why) {
		out->why = res.why;
		return -EINVAL;
	}
	memcpy(out->win, res.win, sizeof(out->win));
	out->nr = res.nr;
	out->dropped = res.dropped;
	out->bus_min = res.bus_min;
	out->bus_max = res.bus_max;
	return 0;
}

/*
 * acpi_root_windows() - the root bus's windows: the root bridge's _CRS as
 * the interpreter evaluates it once the namespace exists, else (before it,
 * or when that fails) the first Name(_CRS, Buffer) of bus 0 in the tables'
 * bytes.
 */
int acpi_root_windows(struct acpi_window *win, unsigned max)
{
	struct crs_result res;
	const struct acpi_sdt_header *t = NULL;
	bool found = crs_from_aml(&res);

	if (!found) {
		t = acpi_find_table("DSDT", 0);
		found = t && crs_scan_table(t, &res);
	}
	for (unsigned n = 0; !found && (t = acpi_find_table("SSDT", n)); n++)
		found = crs_scan_table(t, &res);
	if (!found)
		return -ENOENT;
	if (res.dropped)
		pr_warn("acpi: the root bridge's _CRS has %u windows; the first %u are used",
			res.nr + res.dropped, res.nr);
	for (unsigned i = 0; i < res.nr && i < max; i++)
		win[i] = res.win[i];
	return (int)MIN(res.nr, max);
}
