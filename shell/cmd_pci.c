/*
 * shell/cmd_pci.c - the PCI commands: `lspci` (the device table and one
 * function's registers), `setpci` (write one configuration register) and
 * `pcihp` (the PCI hotplug mechanism's state).
 *
 * The commands parse and check their arguments and call drivers/pci's
 * views (pci_dump(), pci_dump_device(), pci_hotplug_dump()) and its
 * configuration access by address (pci_config_read/write()).  A malformed
 * argument gets the usage line; a well-formed number out of range gets a
 * message that names the argument, its value and the range (`setpci
 * 00:01.0 3c.B=1ff` used to write ff; now it is refused).
 *
 * Context: (main).
 */
#include <drivers/pci.h>
#include <shell/shell.h>
#include <lib/printer.h>
#include <lib/string.h>
#include <lib/errno.h>

/* parse_bdf() - "BB:DD.F" (hex) into its parts; 0 or -EINVAL. */
static int parse_bdf(const char *s, unsigned *bus, unsigned *dev, unsigned *fn)
{
	unsigned v[3] = { 0, 0, 0 }, k = 0, digits = 0;

	for (; *s; s++) {
		char c = *s;
		int x;

		if ((c == ':' && k == 0) || (c == '.' && k == 1)) {
			if (!digits)
				return -EINVAL;
			k++;
			digits = 0;
			continue;
		}
		if (c >= '0' && c <= '9')
			x = c - '0';
		else if (c >= 'a' && c <= 'f')
			x = c - 'a' + 10;
		else if (c >= 'A' && c <= 'F')
			x = c - 'A' + 10;
		else
			return -EINVAL;
		if (++digits > 2)
			return -EINVAL;
		v[k] = v[k] * 16 + (unsigned)x;
	}
	if (k != 2 || !digits || v[1] > 31 || v[2] > 7)
		return -EINVAL;
	*bus = v[0];
	*dev = v[1];
	*fn = v[2];
	return 0;
}

/*
 * parse_hex() - all of [s, end) as hex digits into *v.  0; -EINVAL when it
 * is empty or holds a character that is not a hex digit; -ERANGE when the
 * value needs more than 8 hex digits (leading zeros do not count), *v
 * then undefined.
 */
static int parse_hex(const char *s, const char *end, u32 *v)
{
	unsigned n = 0;

	*v = 0;
	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		char c = *s;
		u32 x;

		if (c >= '0' && c <= '9')
			x = (u32)(c - '0');
		else if (c >= 'a' && c <= 'f')
			x = (u32)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			x = (u32)(c - 'A' + 10);
		else
			return -EINVAL;
		if (*v || x)
			n++;
		*v = (*v << 4) | x;
	}
	return n <= 8 ? 0 : -ERANGE;
}

/* A register width as setpci spells it. */
struct setpci_width {
	char letter;
	unsigned bytes;
	const char *name;
};

static const struct setpci_width setpci_widths[] = {
	{ 'B', 1, "byte" }, { 'W', 2, "word" }, { 'L', 4, "dword" },
};

static const struct setpci_width *setpci_width_of(char c)
{
	if (c >= 'a' && c <= 'z')
		c = (char)(c - 'a' + 'A');
	for (unsigned i = 0; i < sizeof(setpci_widths) / sizeof(setpci_widths[0]); i++)
		if (setpci_widths[i].letter == c)
			return &setpci_widths[i];
	return NULL;
}

/*
 * cmd_setpci() - "setpci BB:DD.F OFF.W=VAL": write one config register
 * (B byte, W word, L dword; hex offset and value), then print the dword
 * that holds it; drivers/pci refreshes what the table knows of a bridge
 * (windows and bus numbers).  Malformed arguments print the usage line.
 * An offset past the 4 KiB or not aligned to the width, and a value
 * wider than the width (or than 8 hex digits) are
 * refused with a message naming the argument and its range; nothing is
 * written then.
 */
static int cmd_setpci(struct printer *out, int argc, char **argv)
{
	const struct setpci_width *w;
	unsigned bus, dev, fn;
	const char *dot, *eq, *val_s;
	u32 off, val, max, dword;
	int err, off_err, val_err;

	if (argc != 3 || parse_bdf(argv[1], &bus, &dev, &fn))
		return shell_usage(out, shell_find("setpci"));
	dot = strchr(argv[2], '.');
	eq = strchr(argv[2], '=');
	if (!dot || !eq || eq != dot + 2 || !(w = setpci_width_of(dot[1])))
		return shell_usage(out, shell_find("setpci"));
	val_s = eq + 1;
	off_err = parse_hex(argv[2], dot, &off);
	val_err = parse_hex(val_s, val_s + strlen(val_s), &val);
	if (off_err == -EINVAL || val_err == -EINVAL)
		return shell_usage(out, shell_find("setpci"));
	if (off_err || off > 0xfff) {
		pr_printf(out, "setpci: offset %.*s is past the 4 KiB of configuration space (000-fff)\n",
			  (int)(dot - argv[2]), argv[2]);
		return -ERANGE;
	}
	if (off % w->bytes) {
		pr_printf(out, "setpci: offset %03x is not aligned to a %s (%c: a multiple of %u)\n",
			  off, w->name, w->letter, w->bytes);
		return -EINVAL;
	}
	/* aligned and at most fff: it ends inside the 4 KiB */
	max = w->bytes == 4 ? 0xffffffffu : (1u << (8 * w->bytes)) - 1;
	if (val_err) {
		pr_printf(out, "setpci: value %s has more than 8 hex digits: no register is that wide (%c, a %s: at most %x)\n",
			  val_s, w->letter, w->name, max);
		return -ERANGE;
	}
	if (val > max) {
		pr_printf(out, "setpci: value %s does not fit in a %s (%c: at most %x)\n",
			  val_s, w->name, w->letter, max);
		return -ERANGE;
	}
	err = pci_config_write(bus, dev, fn, (u16)off, w->bytes, val);
	if (err == -ENODEV) {
		pr_printf(out, "setpci: no device %s\n", argv[1]);
		return err;
	}
	if (!err)
		err = pci_config_read(bus, dev, fn, (u16)(off & ~3u), 4, &dword);
	if (err) {
		pr_printf(out, "setpci: %s [%03x]: error %d\n", argv[1], off, err);
		return err;
	}
	pr_printf(out, "%02x:%02x.%x [%03x] = %08x\n", bus, dev, fn, off & ~3u, dword);
	return 0;
}

SHELL_COMMAND(setpci, .name = "setpci", .usage = "setpci BB:DD.F OFF.{B|W|L}=VAL",
	      .summary = "write one PCI configuration register (hex)",
	      .help = "Writes VAL (hex) to the register at OFF (hex) of function BB:DD.F\n"
		      "as a byte, word or dword, and prints the dword that holds it.\n"
		      "OFF must be aligned to the width and inside 000-fff; VAL must fit\n"
		      "the width (B: ff, W: ffff, L: ffffffff), or nothing is written.\n"
		      "For a bridge, the windows lspci shows are re-read, so e.g.\n"
		      "  setpci 00:01.0 20.L=0000fff0   closes the memory window\n"
		      "(base above limit) the way unprepared firmware would leave it.",
	      .fn = cmd_setpci);

/* cmd_lspci() - "lspci": the table; "lspci -v BB:DD.F": one function in full. */
static int cmd_lspci(struct printer *out, int argc, char **argv)
{
	unsigned bus, dev, fn;
	struct pci_dev *d;

	if (argc == 1) {
		pci_dump(out);
		return 0;
	}
	if (argc != 3 || strcmp(argv[1], "-v") != 0 || parse_bdf(argv[2], &bus, &dev, &fn))
		return shell_usage(out, shell_find("lspci"));
	d = pci_get_bdf(bus, dev, fn);
	if (!d) {
		pr_printf(out, "lspci: no device %s\n", argv[2]);
		return -ENODEV;
	}
	pci_dump_device(out, d);
	return 0;
}

SHELL_COMMAND(lspci, .name = "lspci", .usage = "lspci [-v BB:DD.F]",
	      .summary = "PCI functions: ids, BARs, bridge windows, drivers",
	      .help = "One line per function: address, class, vendor:device, a name\n"
		      "for ids memlab knows, then for bridges the bus range and the\n"
		      "memory windows (mem = non-prefetchable, pref = prefetchable),\n"
		      "and each BAR as barN mem32|mem64|io[p] base+size (p: prefetchable).\n"
		      "'hotplugged' marks functions found by a rescan after boot.\n"
		      "-v adds the command/status registers and the capability list\n"
		      "(PCIe capability with slot registers, virtio vendor capabilities).",
	      .fn = cmd_lspci);

/* cmd_pcihp() - the `pcihp` view. */
static int cmd_pcihp(struct printer *out, int argc, char **argv)
{
	pci_hotplug_dump(out);
	return 0;
}

SHELL_COMMAND(pcihp, .name = "pcihp", .usage = "pcihp",
	      .summary = "PCI hotplug: the mechanism, its slots, counts, last events",
	      .help = "ACPI PCI hotplug as the firmware's AML describes it: GPE 1's\n"
		      "method (\\_GPE._E01 or _L01), one line per slot device of the\n"
		      "namespace (path, bus:slot of the bridge it sits on or 'bus ?',\n"
		      "_SUN, _EJ0 or 'not removable'), the events handled and the last\n"
		      "Notify()s with what memlab did.  Without that method, why ACPI\n"
		      "PCI hotplug is off, then the native PCIe slots' state (polled).",
	      .fn = cmd_pcihp);
