/*
 * pci.c - PCI Express configuration space (ECAM), enumeration, BARs, drivers.
 *
 * The MCFG table tells where the memory-mapped configuration space (ECAM)
 * of segment 0 lives and which buses it decodes.  Only those buses are
 * mapped, uncached: 1 MiB per bus, 4 KiB per function.
 *
 * Enumeration is a depth-first walk with an explicit stack (no recursion):
 * a stack frame is "bus B, next device/function to look at".  A bridge
 * (header type 1) found on the way pushes a frame for its secondary bus.
 * Bridges the firmware configured keep their bus numbers, as long as they
 * lie inside the bus range of the bridge above (configuration cycles for a
 * bus outside it never reach them).  A bridge left unconfigured (secondary
 * bus 0), or with numbers that are garbage, is numbered by the walk: the
 * lowest bus number inside the range of the bridge above (the MCFG's buses
 * on the root bus) that no other bridge forwards, and, while the walk is
 * below it, the subordinate that ends that run of free numbers, so that
 * cycles reach every bus it may hand out and no bus of another bridge;
 * when its frame is popped the subordinate is cut down to the highest bus
 * in use below it.  A firmware-numbered bridge whose range does not lie
 * inside the range above is reported, cleared and numbered the same way
 * (Linux keeps such numbers and reports the devices behind as unusable;
 * memlab has the numbers to do better).  When the range above has no free
 * number the bridge stays unnumbered and the log says so.
 *
 * BARs are sized the classic way (decoding off, write all-ones, read back,
 * restore) and what the firmware assigned is kept.  Functions found later by
 * pci_rescan() (hot-added behind a root port) usually have no address: their
 * BARs are placed inside the windows of the bridge above them, and when that
 * bridge has no usable window one is opened in a free part of the 32-bit PCI
 * hole and programmed into the bridge.
 *
 * Context: pci_init (boot); everything else (main).
 */
#include <drivers/pci.h>
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <shell/shell.h>
#include <arch/paging.h>
#include <arch/io.h>

/* Configuration space registers used here (PCI Local Bus 3.0, PCIe 4.0). */
#define CFG_VENDOR		0x00
#define CFG_DEVICE		0x02
#define CFG_COMMAND		0x04
#define CFG_STATUS		0x06
#define CFG_REVISION		0x08
#define CFG_HEADER_TYPE		0x0e
#define CFG_BAR0		0x10
#define CFG_PRIMARY_BUS		0x18
#define CFG_SECONDARY_BUS	0x19
#define CFG_SUBORDINATE_BUS	0x1a
#define CFG_MEM_BASE		0x20
#define CFG_MEM_LIMIT		0x22
#define CFG_PREF_BASE		0x24
#define CFG_PREF_LIMIT		0x26
#define CFG_PREF_BASE_HI	0x28
#define CFG_PREF_LIMIT_HI	0x2c
#define CFG_CAP_PTR		0x34
#define CFG_IRQ_LINE		0x3c
#define CFG_IRQ_PIN		0x3d

#define CMD_IO			0x0001
#define CMD_MEMORY		0x0002
#define CMD_MASTER		0x0004
#define STATUS_CAP_LIST		0x0010
#define HEADER_MULTIFUNCTION	0x80
#define HEADER_TYPE_MASK	0x7f

#define BAR_IO			0x1
#define BAR_MEM_TYPE_MASK	0x6
#define BAR_MEM_64		0x4
#define BAR_MEM_PREFETCH	0x8

/* The q35 32-bit PCI hole: above the ECAM/low RAM, below the IOAPIC. */
#define PCI_HOLE32_LOW		0xc0000000ULL
#define PCI_HOLE32_HIGH		0xfec00000ULL
#define BRIDGE_WINDOW_ALIGN	0x100000ULL	/* bridge windows: 1 MiB units */
#define HOTPLUG_WINDOW_SIZE	0x200000ULL	/* what we open for an empty port */

#define MAX_DRIVERS		16
#define CAP_WALK_LIMIT		48	/* (256 - 64) / 4 capabilities at most */

static struct pci_ecam ecam;			/* segment 0, from the MCFG */
static volatile u8 *ecam_virt;			/* its mapping */
/* The table: an entry with cfg == NULL is free (its function was removed);
 * entries never move, so drivers may keep their struct pci_dev pointers. */
static struct pci_dev devices[PCI_MAX_DEVICES];
static unsigned nr_devices;			/* entries below this were used */
static const struct pci_driver *drivers[MAX_DRIVERS];
static unsigned nr_drivers;
static bool pci_ready;

/*
 * pci_mcfg_parse() - find segment 0 in an MCFG table of `len` bytes.  The
 * table is trusted for nothing: its own length field must fit in len, the
 * entries must fit in the table, the bus range must be ordered, the base
 * must be 1 MiB aligned and the mapping must not wrap.  Returns 0 with *out
 * filled, -ENOENT if no entry is for segment 0, -EINVAL if the table is
 * malformed; on an error, why (size bytes) says what is wrong, with the
 * values.  Pure: no I/O, usable by host tests.  Context: (any).
 */
int pci_mcfg_parse(const void *table, size_t len, struct pci_ecam *out, char *why, size_t size)
{
	const u8 *t = table;
	u32 tlen;
	size_t off;

	if (!t || len < PCI_MCFG_HEADER_LEN || memcmp(t, "MCFG", 4) != 0) {
		ksnprintf(why, size, "not an MCFG of at least %u bytes", PCI_MCFG_HEADER_LEN);
		return -EINVAL;
	}
	memcpy(&tlen, t + 4, 4);
	if (tlen < PCI_MCFG_HEADER_LEN || tlen > len) {
		ksnprintf(why, size, "length %u outside [%u, %zu]", tlen, PCI_MCFG_HEADER_LEN, len);
		return -EINVAL;
	}
	for (off = PCI_MCFG_HEADER_LEN; off + PCI_MCFG_ENTRY_LEN <= tlen;
	     off += PCI_MCFG_ENTRY_LEN) {
		u64 base;
		u16 seg;
		u8 start = t[off + 10], end = t[off + 11];

		memcpy(&base, t + off, 8);
		memcpy(&seg, t + off + 8, 2);
		if (seg != 0)
			continue;
		if (end < start || (base & 0xfffff) || base == 0) {
			ksnprintf(why, size, "segment 0: base %#llx (must be nonzero, 1 MiB aligned), "
				  "buses %u-%u", (unsigned long long)base, start, end);
			return -EINVAL;
		}
		/* ECAM addresses are relative to bus 0, even for start > 0 */
		if (base + (((u64)end + 1) << 20) < base) {
			ksnprintf(why, size, "segment 0: base %#llx + %u buses wraps past 2^64",
				  (unsigned long long)base, end + 1);
			return -EINVAL;
		}
		out->base = base;
		out->start_bus = start;
		out->end_bus = end;
		return 0;
	}
	ksnprintf(why, size, "no entry for segment 0 in %u entries",
		  (unsigned)((tlen - PCI_MCFG_HEADER_LEN) / PCI_MCFG_ENTRY_LEN));
	return -ENOENT;
}

/*
 * pci_cap_find_raw() - capability walk over a config space image (`cfg`,
 * at least 256 bytes).  Returns the offset of the first capability with
 * id cap_id after `start` (0: from the head), or 0.  The walk stops at a
 * pointer below 0x40, after CAP_WALK_LIMIT steps (a loop), and sets
 * *broken when it had to cut the list (broken may be NULL).  Reads cfg
 * only, through the mmio accessors.  Context: (any).
 */
u8 pci_cap_find_raw(const volatile u8 *cfg, u8 cap_id, u8 start, bool *broken)
{
	unsigned steps = 0;
	u8 pos;

	if (broken)
		*broken = false;
	if (!(mmio_read8(cfg + CFG_STATUS) & STATUS_CAP_LIST))
		return 0;
	if (start && (start < 0x40 || start > 0xfc))
		return 0;
	pos = start ? mmio_read8(cfg + start + 1) : mmio_read8(cfg + CFG_CAP_PTR);
	pos &= 0xfc;
	while (pos) {
		if (pos < 0x40 || ++steps > CAP_WALK_LIMIT) {
			if (broken)
				*broken = true;
			return 0;
		}
		if (cap_id == 0xff || mmio_read8(cfg + pos) == cap_id)
			return pos;
		pos = mmio_read8(cfg + pos + 1) & 0xfc;
	}
	return 0;
}

/* --- configuration space access -------------------------------------------- */

/* cfg_of() - the mapped 4 KiB of (bus, dev, fn), or NULL outside the MCFG range. */
static volatile u8 *cfg_of(unsigned bus, unsigned dev, unsigned fn)
{
	if (!ecam_virt || bus < ecam.start_bus || bus > ecam.end_bus || dev > 31 || fn > 7)
		return NULL;
	return ecam_virt + (((u64)(bus - ecam.start_bus) << 20) | (dev << 15) | (fn << 12));
}

/*
 * pci_read8() .. pci_write32() - one access to a register of d's
 * configuration space through ECAM (arch/io.h's mmio accessors, which the
 * host tests send to a model); offsets past the 4 KiB read as all ones and
 * are not written.  Context: (any).
 */
u8 pci_read8(const struct pci_dev *d, u16 off)
{
	return off < 4096 ? mmio_read8(d->cfg + off) : 0xff;
}

u16 pci_read16(const struct pci_dev *d, u16 off)
{
	return off < 4095 ? mmio_read16((const volatile u16 *)(d->cfg + (off & ~1u))) : 0xffff;
}

u32 pci_read32(const struct pci_dev *d, u16 off)
{
	return off < 4093 ? mmio_read32((const volatile u32 *)(d->cfg + (off & ~3u))) : 0xffffffff;
}

void pci_write8(struct pci_dev *d, u16 off, u8 v)
{
	if (off < 4096)
		mmio_write8(d->cfg + off, v);
}

void pci_write16(struct pci_dev *d, u16 off, u16 v)
{
	if (off < 4095)
		mmio_write16((volatile u16 *)(d->cfg + (off & ~1u)), v);
}

void pci_write32(struct pci_dev *d, u16 off, u32 v)
{
	if (off < 4093)
		mmio_write32((volatile u32 *)(d->cfg + (off & ~3u)), v);
}

u8 pci_find_capability(const struct pci_dev *d, u8 cap_id, u8 start)
{
	bool broken;
	u8 pos = pci_cap_find_raw(d->cfg, cap_id, start, &broken);

	if (broken)
		pr_warn("pci %02x:%02x.%x: capability list loops or points below 0x40; cut",
			d->bus, d->dev, d->fn);
	return pos;
}

/* --- BARs and windows -------------------------------------------------------- */

/*
 * size_bars() - fill d->bars from the hardware: type, size, and the address
 * the firmware assigned (0 if none).  Decoding is turned off while all-ones
 * are in a BAR, so the device never answers at a bogus address, and every
 * BAR is restored.  Context: (boot, main).
 */
static void size_bars(struct pci_dev *d)
{
	unsigned nbars = d->header_type == 1 ? 2 : 6;
	u16 cmd = pci_read16(d, CFG_COMMAND);
	unsigned i;

	pci_write16(d, CFG_COMMAND, cmd & ~(CMD_IO | CMD_MEMORY));
	for (i = 0; i < nbars; i++) {
		u16 off = (u16)(CFG_BAR0 + 4 * i);
		u32 orig = pci_read32(d, off), probe;
		struct pci_bar *b = &d->bars[i];

		memset(b, 0, sizeof(*b));
		pci_write32(d, off, 0xffffffff);
		probe = pci_read32(d, off);
		pci_write32(d, off, orig);
		if (probe == 0 || probe == 0xffffffff)
			continue;	/* not implemented */
		if (orig & BAR_IO) {
			u32 mask = probe & ~3u & 0xffff;

			b->is_io = true;
			b->size = mask ? (u64)(~mask & 0xffff) + 1 : 0;
			b->base = orig & ~3u;
			continue;
		}
		b->prefetchable = orig & BAR_MEM_PREFETCH;
		if ((orig & BAR_MEM_TYPE_MASK) == BAR_MEM_64 && i + 1 < nbars) {
			u16 hoff = (u16)(off + 4);
			u32 horig = pci_read32(d, hoff), hprobe;
			u64 mask;

			pci_write32(d, hoff, 0xffffffff);
			hprobe = pci_read32(d, hoff);
			pci_write32(d, hoff, horig);
			mask = ((u64)hprobe << 32) | (probe & ~0xfu);
			b->is_64 = true;
			b->size = ~mask + 1;
			b->base = ((u64)horig << 32) | (orig & ~0xfu);
			i++;	/* the upper half is not a BAR of its own */
			memset(&d->bars[i], 0, sizeof(d->bars[i]));
		} else {
			u32 mask = probe & ~0xfu;

			b->size = (u64)(~mask) + 1;
			b->base = orig & ~0xfu;
		}
	}
	pci_write16(d, CFG_COMMAND, cmd);
}

/* read_windows() - the bridge's memory windows; a closed window reads as limit < base. */
static void read_windows(struct pci_dev *d)
{
	u16 mb = pci_read16(d, CFG_MEM_BASE), ml = pci_read16(d, CFG_MEM_LIMIT);
	u16 pb = pci_read16(d, CFG_PREF_BASE), pl = pci_read16(d, CFG_PREF_LIMIT);

	d->mem_window_base = (u64)(mb & 0xfff0) << 16;
	d->mem_window_limit = ((u64)(ml & 0xfff0) << 16) | 0xfffff;
	d->pref_window_base = (u64)(pb & 0xfff0) << 16;
	d->pref_window_limit = ((u64)(pl & 0xfff0) << 16) | 0xfffff;
	if ((pb & 0xf) == 1) {	/* 64-bit prefetchable window */
		d->pref_window_base |= (u64)pci_read32(d, CFG_PREF_BASE_HI) << 32;
		d->pref_window_limit |= (u64)pci_read32(d, CFG_PREF_LIMIT_HI) << 32;
	}
	d->secondary_bus = pci_read8(d, CFG_SECONDARY_BUS);
	d->subordinate_bus = pci_read8(d, CFG_SUBORDINATE_BUS);
}

static bool window_open(u64 base, u64 limit)
{
	return limit > base;
}

static bool overlaps(u64 a, u64 asize, u64 b, u64 bsize)
{
	return a < b + bsize && b < a + asize;
}

/*
 * bar_overlapping() - the first assigned memory BAR in the table that meets
 * [base, base+size), `except` left out, or NULL.  Context: (main).
 */
static const struct pci_bar *bar_overlapping(u64 base, u64 size, const struct pci_bar *except)
{
	for (unsigned i = 0; i < nr_devices; i++) {
		if (!devices[i].cfg)
			continue;
		for (unsigned j = 0; j < 6; j++) {
			const struct pci_bar *b = &devices[i].bars[j];

			if (b != except && b->size && !b->is_io && b->base &&
			    overlaps(base, size, b->base, b->size))
				return b;
		}
	}
	return NULL;
}

/* window_meets() - is [lo, hi] an open window that meets [base, base+size)? */
static bool window_meets(u64 base, u64 size, u64 lo, u64 hi)
{
	return window_open(lo, hi) && overlaps(base, size, lo, hi - lo + 1);
}

/* bridge_at_or_above() - is br, or a bridge above it, d? */
static bool bridge_at_or_above(const struct pci_dev *d, const struct pci_dev *br)
{
	for (unsigned n = 0; br && n < PCI_MAX_DEVICES; n++, br = br->bridge)
		if (d == br)
			return true;
	return false;
}

/*
 * busy_end() - 0 if [base, base+size) is free, else the end (exclusive) of
 * something it meets: an assigned memory BAR, (with `windows`) an open
 * bridge window known to the table, or the ECAM region.  The windows of
 * `skip` (the bridge getting a new one) and of the bridges above it (which
 * hold it) are not looked at; its BARs are, like everyone's: a device
 * being placed must not land on its own BARs placed before.
 * Context: (main).
 */
static u64 busy_end(u64 base, u64 size, const struct pci_dev *skip, bool windows)
{
	u64 ecam_lo = ecam.base + ((u64)ecam.start_bus << 20);
	u64 ecam_size = ((u64)ecam.end_bus - ecam.start_bus + 1) << 20;
	const struct pci_bar *b;

	if (overlaps(base, size, ecam_lo, ecam_size))
		return ecam_lo + ecam_size;
	b = bar_overlapping(base, size, NULL);
	if (b)
		return b->base + b->size;
	if (!windows)
		return 0;
	for (unsigned i = 0; i < nr_devices; i++) {
		const struct pci_dev *d = &devices[i];

		if (!d->cfg || d->header_type != 1 || bridge_at_or_above(d, skip))
			continue;
		if (window_meets(base, size, d->mem_window_base, d->mem_window_limit))
			return d->mem_window_limit + 1;
		if (window_meets(base, size, d->pref_window_base, d->pref_window_limit))
			return d->pref_window_limit + 1;
	}
	return 0;
}

/* range_busy() - does [base, base+size) meet anything?  (busy_end() != 0) */
static bool range_busy(u64 base, u64 size, const struct pci_dev *skip, bool windows)
{
	return busy_end(base, size, skip, windows) != 0;
}

/*
 * window_holds_bars() - does bridge br's memory window already hold an
 * assigned memory BAR (of a device behind it: windows of bridges side by
 * side do not overlap)?  Such a window cannot be moved: those BARs would
 * be left outside it, unreachable.  Context: (main).
 */
static bool window_holds_bars(const struct pci_dev *br)
{
	u64 base = br->mem_window_base, limit = br->mem_window_limit;

	return window_open(base, limit) && bar_overlapping(base, limit - base + 1, NULL);
}

/*
 * open_window() - give bridge `br` a non-prefetchable memory window of at
 * least `need` bytes, highest free spot first, aligned to its size (so a
 * BAR of that size fits in it), and program it.  The window must be
 * reachable: inside the memory window of the bridge above, when there is
 * one, else inside the 32-bit PCI hole.  Returns 0, -ENOSPC: a window
 * that size cannot be there, none is free, the bridge above has no
 * 32-bit memory window, or the bridge's window is already in use by BARs
 * behind it and moving it would strand them; or -EIO: the bridge's
 * registers do not read back the window written (a broken bridge; its
 * old values are written back).  The bridge is then left as it was.
 * Context: (main).
 */
static int open_window(struct pci_dev *br, u64 need)
{
	const struct pci_dev *up = br->bridge;
	u64 size = HOTPLUG_WINDOW_SIZE, base, lo = PCI_HOLE32_LOW, hi = PCI_HOLE32_HIGH;
	u16 old_base = pci_read16(br, CFG_MEM_BASE), old_limit = pci_read16(br, CFG_MEM_LIMIT);

	if (window_holds_bars(br)) {
		pr_warn("pci %02x:%02x.%x: memory window %llx-%llx is too small for a %llx-byte BAR and holds BARs of the devices behind it: not moved",
			br->bus, br->dev, br->fn, (unsigned long long)br->mem_window_base,
			(unsigned long long)br->mem_window_limit, (unsigned long long)need);
		return -ENOSPC;
	}
	if (up) {
		if (!window_open(up->mem_window_base, up->mem_window_limit) ||
		    up->mem_window_limit >= (1ULL << 32)) {
			pr_warn("pci %02x:%02x.%x: the bridge above (%02x:%02x.%x) has no 32-bit memory window to open one inside",
				br->bus, br->dev, br->fn, up->bus, up->dev, up->fn);
			return -ENOSPC;
		}
		lo = up->mem_window_base;
		hi = up->mem_window_limit + 1;
	}
	while (size < need && size <= hi - lo)
		size <<= 1;
	if (size > hi - lo) {
		pr_warn("pci %02x:%02x.%x: a %llx-byte window does not fit %s %llx-%llx",
			br->bus, br->dev, br->fn, (unsigned long long)need,
			up ? "the window of the bridge above" : "the 32-bit PCI hole",
			(unsigned long long)lo, (unsigned long long)hi - 1);
		return -ENOSPC;
	}
	for (base = (hi - size) & ~(size - 1); base >= lo && base + size <= hi; base -= size) {
		if (range_busy(base, size, br, true))
			continue;
		pci_write16(br, CFG_MEM_BASE, (u16)((base >> 16) & 0xfff0));
		pci_write16(br, CFG_MEM_LIMIT, (u16)(((base + size - 1) >> 16) & 0xfff0));
		read_windows(br);
		if (br->mem_window_base != base || br->mem_window_limit != base + size - 1) {
			pr_warn("pci %02x:%02x.%x: bridge does not keep the memory window %llx-%llx written to it (reads %llx-%llx); not used",
				br->bus, br->dev, br->fn, (unsigned long long)base,
				(unsigned long long)(base + size - 1),
				(unsigned long long)br->mem_window_base,
				(unsigned long long)br->mem_window_limit);
			pci_write16(br, CFG_MEM_BASE, old_base);
			pci_write16(br, CFG_MEM_LIMIT, old_limit);
			read_windows(br);
			return -EIO;
		}
		pci_write16(br, CFG_COMMAND, pci_read16(br, CFG_COMMAND) | CMD_MEMORY | CMD_MASTER);
		pr_info("pci %02x:%02x.%x: opened memory window %llx-%llx for hotplug",
			br->bus, br->dev, br->fn, (unsigned long long)br->mem_window_base,
			(unsigned long long)br->mem_window_limit);
		return 0;
	}
	return -ENOSPC;
}

/*
 * place_in() - the lowest free size-aligned spot for a BAR in [lo, hi], or
 * 0.  Each busy spot is jumped past to the end of what occupies it, not
 * one BAR size at a time: a 16-byte BAR in a large window full of BARs
 * would otherwise take billions of steps.  Context: (main).
 */
static u64 place_in(u64 lo, u64 hi, u64 size, const struct pci_dev *d)
{
	u64 a = (lo + size - 1) & ~(size - 1), end;

	if (!window_open(lo, hi))
		return 0;
	while (a >= lo && a + size - 1 >= a && a + size - 1 <= hi) {
		end = busy_end(a, size, d, false);
		if (!end)
			return a;
		if (end <= a)
			return 0;	/* cannot happen: what meets a ends above it */
		a = (end + size - 1) & ~(size - 1);
	}
	return 0;
}

/*
 * assign_bars() - give every memory BAR of d that has no address one inside
 * the windows of the bridge above it, biggest BAR first (alignment = size);
 * prefetchable BARs try the prefetchable window first.  If neither window
 * has room, a window is opened on the bridge.  I/O BARs are left alone.
 * Returns 0 or -ENOSPC.  Context: (main).
 */
static int assign_bars(struct pci_dev *d)
{
	struct pci_dev *br = d->bridge;

	if (!br)
		return -ENODEV;
	for (;;) {
		struct pci_bar *b = NULL;
		unsigned i, bi = 0;
		u64 addr = 0;

		for (i = 0; i < 6; i++) {
			struct pci_bar *c = &d->bars[i];

			if (c->size && !c->is_io && !c->base && (!b || c->size > b->size)) {
				b = c;
				bi = i;
			}
		}
		if (!b)
			return 0;
		if (b->size < 16 || (b->size & (b->size - 1)))
			return -EINVAL;
		if (b->prefetchable && (b->is_64 || br->pref_window_limit < (1ULL << 32)))
			addr = place_in(br->pref_window_base, br->pref_window_limit, b->size, d);
		if (!addr && br->mem_window_limit < (1ULL << 32))
			addr = place_in(br->mem_window_base, br->mem_window_limit, b->size, d);
		if (!addr) {
			int err = open_window(br, b->size);

			if (err)
				return err;
			addr = place_in(br->mem_window_base, br->mem_window_limit, b->size, d);
			if (!addr)
				return -ENOSPC;
		}
		pci_write32(d, (u16)(CFG_BAR0 + 4 * bi),
			    (u32)addr | (b->prefetchable ? BAR_MEM_PREFETCH : 0) |
			    (b->is_64 ? BAR_MEM_64 : 0));
		if (b->is_64)
			pci_write32(d, (u16)(CFG_BAR0 + 4 * bi + 4), (u32)(addr >> 32));
		b->base = addr;
		pr_info("pci %02x:%02x.%x: BAR%u assigned %llx-%llx (behind %02x:%02x.%x)",
			d->bus, d->dev, d->fn, bi, (unsigned long long)addr,
			(unsigned long long)(addr + b->size - 1), br->bus, br->dev, br->fn);
	}
}

void pci_enable_device(struct pci_dev *d)
{
	u16 cmd = pci_read16(d, CFG_COMMAND) | CMD_MEMORY | CMD_MASTER;
	unsigned i;

	for (i = 0; i < 6; i++)
		if (d->bars[i].is_io && d->bars[i].size && d->bars[i].base)
			cmd |= CMD_IO;
	pci_write16(d, CFG_COMMAND, cmd);
}

void *pci_map_bar(struct pci_dev *d, int bar)
{
	struct pci_bar *b;

	if (bar < 0 || bar > 5)
		return NULL;
	b = &d->bars[bar];
	if (!b->size || b->is_io || !b->base)
		return NULL;
	return ioremap(b->base, b->size, IOREMAP_UC);
}

/* --- the device table and enumeration --------------------------------------- */

unsigned pci_device_count(void)
{
	return nr_devices;
}

struct pci_dev *pci_device(unsigned i)
{
	return i < nr_devices && devices[i].cfg ? &devices[i] : NULL;
}

static struct pci_dev *find_bdf(unsigned bus, unsigned dev, unsigned fn)
{
	unsigned i;

	for (i = 0; i < nr_devices; i++)
		if (devices[i].cfg && devices[i].bus == bus && devices[i].dev == dev &&
		    devices[i].fn == fn)
			return &devices[i];
	return NULL;
}

/*
 * add_function() - record (bus, dev, fn) in the table, reading its ids,
 * class, BARs and (bridges) windows.  Returns the entry, or NULL if the
 * table is full.  Context: (boot, main).
 */
static struct pci_dev *add_function(volatile u8 *cfg, unsigned bus, unsigned dev,
				    unsigned fn, struct pci_dev *bridge, bool hot)
{
	struct pci_dev *d = NULL;
	unsigned i;

	for (i = 0; i < nr_devices && !d; i++)
		if (!devices[i].cfg)
			d = &devices[i];	/* reuse a removed function's entry */
	if (!d) {
		if (nr_devices >= PCI_MAX_DEVICES) {
			pr_warn("pci %02x:%02x.%x: device table full (%u); ignored",
				bus, dev, fn, PCI_MAX_DEVICES);
			return NULL;
		}
		d = &devices[nr_devices++];
	}
	memset(d, 0, sizeof(*d));
	d->cfg = cfg;
	d->bus = (u8)bus;
	d->dev = (u8)dev;
	d->fn = (u8)fn;
	d->vendor = pci_read16(d, CFG_VENDOR);
	d->device = pci_read16(d, CFG_DEVICE);
	d->revision = pci_read8(d, CFG_REVISION);
	d->prog_if = pci_read8(d, CFG_REVISION + 1);
	d->subclass = pci_read8(d, CFG_REVISION + 2);
	d->class_code = pci_read8(d, CFG_REVISION + 3);
	d->header_type = pci_read8(d, CFG_HEADER_TYPE) & HEADER_TYPE_MASK;
	d->irq_line = pci_read8(d, CFG_IRQ_LINE);
	d->irq_pin = pci_read8(d, CFG_IRQ_PIN);
	d->bridge = bridge;
	d->hotplugged = hot;
	if (d->header_type <= 1)
		size_bars(d);
	if (d->header_type == 1)
		read_windows(d);
	return d;
}

/*
 * bus_function() - one step of a walk over the functions of bus: the
 * configuration space of the function at devfn, or NULL when nothing is
 * there (no mapping, or a vendor id of 0xffff: no device answered, or
 * 0x0000: what some broken boards return for an empty slot; no vendor has
 * that id).  *next gets the devfn to look at after it: the next function,
 * or the next device's function 0 when function 0 is missing or its device
 * is single-function.  Context: (boot, main).
 */
static volatile u8 *bus_function(unsigned bus, unsigned devfn, unsigned *next)
{
	volatile u8 *cfg = cfg_of(bus, devfn >> 3, devfn & 7);
	bool fn0 = !(devfn & 7);
	u16 vendor = cfg ? mmio_read16((const volatile u16 *)cfg) : 0xffff;

	*next = devfn + 1;
	if (vendor == 0xffff || vendor == 0x0000) {
		if (fn0)
			*next = (devfn | 7) + 1;
		return NULL;
	}
	if (fn0 && !(mmio_read8(cfg + CFG_HEADER_TYPE) & HEADER_MULTIFUNCTION))
		*next = (devfn | 7) + 1;
	return cfg;
}

struct scan_frame {
	u8 bus;			/* the bus being scanned */
	u8 limit;		/* highest bus the bridge above forwards (root bus: 0xff) */
	u8 max_bus;		/* highest bus number in use at or below this bus so far */
	u16 next;		/* next devfn to look at; 256 = bus done */
	struct pci_dev *bridge;	/* the bridge leading to it, or NULL */
	bool assigned;		/* we numbered that bridge; fix its subordinate on pop */
};

/*
 * bus_numbers_valid() - are secondary `sec` and subordinate `sub` a
 * configuration memlab keeps for a bridge on `bus`, whose own bus range
 * ends at `limit` (0xff on the root bus)?  The secondary bus must be above
 * the bridge's bus, the range must be ordered, and it must lie inside the
 * range of the bridge above: configuration cycles for a bus outside it
 * never reach this bridge.  Pure.  Context: (any).
 */
static bool bus_numbers_valid(unsigned bus, unsigned sec, unsigned sub, unsigned limit)
{
	return sec > bus && sub >= sec && sub <= limit;
}

/* bus_marked() / mark_bus() - bus b in a bitmap of 256 buses (u8[32]). */
static bool bus_marked(const u8 *map, unsigned b)
{
	return map[b / 8] & (1u << (b % 8));
}

static void mark_bus(u8 *map, unsigned b)
{
	map[b / 8] |= (u8)(1u << (b % 8));
}

/* claim() - mark buses [sec, sub] in the bitmap `map` (256 bits); a bridge
 * with subordinate 0, or sec above sub, forwards nothing.  Context: (any). */
static void claim(u8 *map, unsigned sec, unsigned sub)
{
	for (unsigned b = sec; sub && b <= sub && b < 256; b++)
		mark_bus(map, b);
}

/*
 * free_bus_run() - bus numbers for bridge d, found unconfigured on the bus
 * of frame stack[depth - 1]: the lowest number above that bus, at most the
 * frame's limit and the MCFG's last bus, that no other bridge forwards,
 * and in *last the end of the run of free numbers it starts (the highest
 * subordinate d may have while the walk is below it).  "Other bridge"
 * means: every bridge in the table, and every bridge on d's bus read
 * straight from its registers (siblings the walk has not reached yet),
 * except d itself and the bridges above it (the stack), whose ranges hold
 * the frame's range; buses the walk has entered (`seen`) are taken too.
 * Returns false when there is no free number.  Reads configuration space
 * of d's bus only.  Context: (boot, main).
 */
static bool free_bus_run(const struct pci_dev *d, const struct scan_frame *stack,
			 unsigned depth, const u8 *seen, unsigned *first, unsigned *last)
{
	const struct scan_frame *f = &stack[depth - 1];
	unsigned lo = f->bus + 1u, hi = f->limit < ecam.end_bus ? f->limit : ecam.end_bus, n;
	u8 taken[32];

	memcpy(taken, seen, sizeof(taken));
	for (unsigned i = 0; i < nr_devices; i++) {
		const struct pci_dev *b = &devices[i];
		bool above = false;

		if (!b->cfg || b->header_type != 1 || b == d)
			continue;
		for (unsigned k = 0; k < depth; k++)
			above |= stack[k].bridge == b;
		if (!above)
			claim(taken, b->secondary_bus, b->subordinate_bus);
	}
	for (unsigned devfn = 0, next; devfn < 256; devfn = next) {
		volatile u8 *cfg = bus_function(f->bus, devfn, &next);

		if (cfg && cfg != d->cfg && (mmio_read8(cfg + CFG_HEADER_TYPE) & HEADER_TYPE_MASK) == 1)
			claim(taken, mmio_read8(cfg + CFG_SECONDARY_BUS),
			      mmio_read8(cfg + CFG_SUBORDINATE_BUS));
	}
	for (n = lo; n <= hi && bus_marked(taken, n); n++)
		;
	if (n > hi)
		return false;
	*first = n;
	while (n + 1 <= hi && !bus_marked(taken, n + 1))
		n++;
	*last = n;
	return true;
}

/*
 * push_bridge() - continue the walk below bridge d, which sits on the bus
 * of the top frame.  A bridge whose numbers are valid (bus_numbers_valid():
 * inside the range of the bridge above) keeps them.  Any other bridge
 * (quiet_bridges() cleared it) gets the lowest free bus number inside the
 * range of the bridge above (free_bus_run()), and, while the walk is below
 * it, the subordinate that ends the run of free numbers from there: it
 * then forwards no bus another bridge owns, and everything numbered below
 * it stays inside its run; when its frame is popped the subordinate is cut
 * down to the highest bus in use below it.  With no free number the bridge
 * is left unnumbered and the log says that the range above is full.  A bus
 * is entered once per walk (`seen`, a bitmap of 256 buses): bridges whose
 * ranges overlap, a bus outside the MCFG's range, and a bridge that does
 * not keep the numbers written to it are reported and not entered, so the
 * walk stays bounded and never records one function under two addresses.
 * Returns false if the bridge cannot be entered.  Context: (boot, main).
 */
static bool push_bridge(struct scan_frame *stack, unsigned *depth, unsigned max,
			struct pci_dev *d, u8 *seen)
{
	const struct scan_frame *f = &stack[*depth - 1];
	unsigned sec, sub;

	if (*depth >= max) {
		pr_warn("pci %02x:%02x.%x: bridges nested too deep; not scanned",
			d->bus, d->dev, d->fn);
		return false;
	}
	if (bus_numbers_valid(d->bus, d->secondary_bus, d->subordinate_bus, f->limit)) {
		sec = d->secondary_bus;
		if (sec > ecam.end_bus) {
			pr_warn("pci %02x:%02x.%x: secondary bus %02x is beyond the MCFG's buses %02x-%02x; not scanned",
				d->bus, d->dev, d->fn, sec, ecam.start_bus, ecam.end_bus);
			return false;
		}
		if (bus_marked(seen, sec)) {
			pr_warn("pci %02x:%02x.%x: secondary bus %02x was already scanned (bridges overlap); not scanned again",
				d->bus, d->dev, d->fn, sec);
			return false;
		}
		mark_bus(seen, sec);
		stack[(*depth)++] = (struct scan_frame){ .bus = (u8)sec,
			.limit = d->subordinate_bus, .max_bus = (u8)sec, .bridge = d };
		return true;
	}
	if (!free_bus_run(d, stack, *depth, seen, &sec, &sub)) {
		unsigned hi = f->limit < ecam.end_bus ? f->limit : ecam.end_bus;

		if (f->bridge)
			pr_warn("pci %02x:%02x.%x: bus range %02x-%02x of the bridge above (%02x:%02x.%x) is full: no free bus number for this bridge; left unnumbered, not scanned",
				d->bus, d->dev, d->fn, f->bus, hi, f->bridge->bus,
				f->bridge->dev, f->bridge->fn);
		else
			pr_warn("pci %02x:%02x.%x: no free bus number left in the MCFG's buses %02x-%02x; bridge left unnumbered, not scanned",
				d->bus, d->dev, d->fn, ecam.start_bus, hi);
		return false;
	}
	pci_write8(d, CFG_PRIMARY_BUS, d->bus);
	pci_write8(d, CFG_SECONDARY_BUS, (u8)sec);
	pci_write8(d, CFG_SUBORDINATE_BUS, (u8)sub);
	read_windows(d);
	if (d->secondary_bus != sec || d->subordinate_bus != sub) {
		pr_warn("pci %02x:%02x.%x: bridge does not keep its bus numbers (wrote %02x-%02x, reads %02x-%02x); not scanned",
			d->bus, d->dev, d->fn, sec, sub, d->secondary_bus, d->subordinate_bus);
		return false;
	}
	pr_info("pci %02x:%02x.%x: bridge was unconfigured; secondary bus %02x (free up to %02x)",
		d->bus, d->dev, d->fn, sec, sub);
	mark_bus(seen, sec);
	stack[(*depth)++] = (struct scan_frame){ .bus = (u8)sec, .limit = (u8)sub,
						 .max_bus = (u8)sec, .bridge = d,
						 .assigned = true };
	return true;
}

/*
 * quiet_bridges() - before the walk hands out bus numbers below `bus`
 * (whose bridge forwards buses up to `limit`; 0xff for the root bus):
 * every bridge on it whose numbers are not a configuration memlab keeps
 * (bus_numbers_valid(), the ones push_bridge() will number) gets them
 * cleared first.  Otherwise garbage left in such a bridge's subordinate
 * register (say secondary 0, subordinate 5) makes it forward configuration
 * cycles for buses that the walk hands to a bridge found before it, and two
 * bridges answer for one bus (Linux likewise reconfigures such bridges only
 * after a first pass).  A bridge the firmware numbered outside the range of
 * the bridge above is reported: cycles for its buses never reach it, so
 * memlab renumbers it (Linux keeps such numbers and says the devices behind
 * are unusable).  A bridge whose registers do not clear is reported; the
 * range it still claims is kept out of the numbers handed out (it reads
 * back, and free_bus_run() sees it).  A cleared bridge already in the table
 * (a rescan) has its entry refreshed.  Context: (boot, main).
 */
static void quiet_bridges(unsigned bus, unsigned limit, const struct pci_dev *above)
{
	for (unsigned devfn = 0, next; devfn < 256; devfn = next) {
		unsigned dev = devfn >> 3, fn = devfn & 7;
		volatile u8 *cfg = bus_function(bus, devfn, &next);
		struct pci_dev *known;
		u8 sec, sub;

		if (!cfg || (mmio_read8(cfg + CFG_HEADER_TYPE) & HEADER_TYPE_MASK) != 1)
			continue;
		sec = mmio_read8(cfg + CFG_SECONDARY_BUS);
		sub = mmio_read8(cfg + CFG_SUBORDINATE_BUS);
		if (bus_numbers_valid(bus, sec, sub, limit) || (!sec && !sub))
			continue;				/* configured, or quiet */
		if (above && bus_numbers_valid(bus, sec, sub, 0xff))
			pr_warn("pci %02x:%02x.%x: bus numbers %02x-%02x are not inside %02x-%02x, the range of the bridge above (%02x:%02x.%x); renumbered",
				bus, dev, fn, sec, sub, bus, limit, above->bus, above->dev,
				above->fn);
		mmio_write8(cfg + CFG_SUBORDINATE_BUS, 0);
		mmio_write8(cfg + CFG_SECONDARY_BUS, 0);
		known = find_bdf(bus, dev, fn);
		if (known && known->cfg == cfg)
			read_windows(known);
		sec = mmio_read8(cfg + CFG_SECONDARY_BUS);
		sub = mmio_read8(cfg + CFG_SUBORDINATE_BUS);
		if (!sub)
			continue;
		pr_warn("pci %02x:%02x.%x: bridge does not clear its bus numbers (reads %02x-%02x); buses %02x-%02x are not handed out",
			bus, dev, fn, sec, sub, sec, sub);
	}
}

/*
 * scan_all() - walk every bus reachable from the first MCFG bus, depth first
 * with an explicit stack, adding functions that are not in the table yet
 * (marked hotplugged when `hot`), and lists them in added_list (room for
 * PCI_MAX_DEVICES; may be NULL).  Returns how many were added.
 * Context: (boot, main).
 */
static int scan_all(bool hot, struct pci_dev **added_list)
{
	struct scan_frame stack[32];
	unsigned depth = 0, added = 0;
	u8 seen[32];

	memset(seen, 0, sizeof(seen));
	mark_bus(seen, ecam.start_bus);
	stack[depth++] = (struct scan_frame){ .bus = ecam.start_bus, .limit = 0xff,
					      .max_bus = ecam.start_bus };
	while (depth) {
		struct scan_frame *f = &stack[depth - 1];
		unsigned dev, fn, next;
		volatile u8 *cfg;
		struct pci_dev *d;

		if (f->next == 0)
			quiet_bridges(f->bus, f->limit, f->bridge);
		if (f->next >= 256) {
			if (f->assigned && f->bridge) {
				pci_write8(f->bridge, CFG_SUBORDINATE_BUS, f->max_bus);
				read_windows(f->bridge);
			}
			if (f->bridge && depth >= 2 && f->bridge->subordinate_bus > stack[depth - 2].max_bus)
				stack[depth - 2].max_bus = f->bridge->subordinate_bus;
			depth--;
			continue;
		}
		dev = f->next >> 3;
		fn = f->next & 7;
		cfg = bus_function(f->bus, f->next, &next);
		f->next = (u16)next;
		if (!cfg)
			continue;
		d = find_bdf(f->bus, dev, fn);
		if (!d) {
			d = add_function(cfg, f->bus, dev, fn, f->bridge, hot);
			if (!d)
				continue;
			if (added_list)
				added_list[added] = d;
			added++;
			if (hot)
				pr_info("pci %02x:%02x.%x: found %04x:%04x class %02x%02x",
					d->bus, d->dev, d->fn, d->vendor, d->device,
					d->class_code, d->subclass);
		}
		if (d->header_type == 1)
			push_bridge(stack, &depth, sizeof(stack) / sizeof(stack[0]), d, seen);
	}
	return (int)added;
}

/* probe_one() - offer d to the registered drivers until one binds. */
static void probe_one(struct pci_dev *d)
{
	unsigned i;

	if (d->driver)
		return;
	for (i = 0; i < nr_drivers; i++) {
		const struct pci_driver *drv = drivers[i];
		int err;

		if (drv->vendor != d->vendor || drv->device != d->device)
			continue;
		d->driver = drv;
		err = drv->probe(d);
		if (!err) {
			pr_info("pci %02x:%02x.%x: bound to %s", d->bus, d->dev, d->fn, drv->name);
			return;
		}
		d->driver = NULL;
		pr_warn("pci %02x:%02x.%x: %s probe failed (%d)", d->bus, d->dev, d->fn,
			drv->name, err);
	}
}

void pci_register_driver(const struct pci_driver *drv)
{
	unsigned i;

	if (nr_drivers >= MAX_DRIVERS) {
		pr_err("pci: driver table full; %s not registered", drv->name);
		return;
	}
	drivers[nr_drivers++] = drv;
	for (i = 0; i < nr_devices; i++)
		if (devices[i].cfg)
			probe_one(&devices[i]);
}

/*
 * pci_remove_device() - the function is going away: the driver's remove,
 * decoding off, and its entry freed (entries never move).  Functions that
 * had it as their bridge lose that link.  Context: (main).
 */
void pci_remove_device(struct pci_dev *d)
{
	unsigned idx = (unsigned)(d - devices), i;

	if (idx >= nr_devices || !d->cfg)
		return;
	if (d->driver && d->driver->remove)
		d->driver->remove(d);
	d->driver = NULL;
	pci_write16(d, CFG_COMMAND, pci_read16(d, CFG_COMMAND) & ~(CMD_IO | CMD_MEMORY | CMD_MASTER));
	pr_info("pci %02x:%02x.%x: %04x:%04x removed", d->bus, d->dev, d->fn, d->vendor, d->device);
	for (i = 0; i < nr_devices; i++)
		if (devices[i].bridge == d)
			devices[i].bridge = NULL;
	memset(d, 0, sizeof(*d));
}

/* in_window() - is [base, base+size) inside [lo, hi] (an open window)? */
static bool in_window(u64 base, u64 size, u64 lo, u64 hi)
{
	return window_open(lo, hi) && base >= lo && base + size - 1 >= base &&
	       base + size - 1 <= hi;
}

/*
 * distrust_bars() - a function found by a rescan may come with addresses
 * in its memory BARs: left from an earlier life, or garbage.  One is kept
 * only if it lies inside a window of the bridge above (when there is a
 * bridge) and meets no other BAR the table knows; otherwise the kernel
 * says why and forgets it, and assign_bars() gives the BAR a proper place
 * (or refuses the function).  Context: (main).
 */
static void distrust_bars(struct pci_dev *d)
{
	const struct pci_dev *br = d->bridge;

	for (unsigned j = 0; j < 6; j++) {
		struct pci_bar *b = &d->bars[j];
		const char *why;

		if (!b->size || b->is_io || !b->base)
			continue;
		if (br && !in_window(b->base, b->size, br->mem_window_base, br->mem_window_limit) &&
		    !in_window(b->base, b->size, br->pref_window_base, br->pref_window_limit))
			why = "is outside the windows of the bridge above";
		else if (bar_overlapping(b->base, b->size, b))
			why = "meets another BAR";
		else
			continue;
		pr_warn("pci %02x:%02x.%x: BAR%u %llx-%llx %s; placed anew",
			d->bus, d->dev, d->fn, j, (unsigned long long)b->base,
			(unsigned long long)(b->base + b->size - 1), why);
		b->base = 0;
	}
}

/*
 * pci_rescan() - find functions that appeared since the last scan, give
 * their BARs addresses inside the window of the bridge above them, enable
 * and probe them.  Returns how many are new, or -ENODEV before pci_init.
 */
int pci_rescan(void)
{
	struct pci_dev *added[PCI_MAX_DEVICES];
	int n, i;

	if (!pci_ready)
		return -ENODEV;
	n = scan_all(true, added);
	for (i = 0; i < n; i++) {
		struct pci_dev *d = added[i];
		int err;

		if (d->header_type != 0)
			continue;
		distrust_bars(d);
		err = assign_bars(d);
		if (err) {
			pr_warn("pci %02x:%02x.%x: cannot assign BARs (%d); left disabled",
				d->bus, d->dev, d->fn, err);
			continue;
		}
		pci_enable_device(d);
		probe_one(d);
	}
	return n;
}

int pci_init(void)
{
	const struct acpi_sdt_header *mcfg = acpi_find_table("MCFG", 0);
	char why[96];
	u64 span;
	int err, n;
	unsigned i;

	if (!mcfg) {
		pr_warn("pci: no MCFG table; no PCI (needs -machine q35)");
		return -ENODEV;
	}
	err = pci_mcfg_parse(mcfg, mcfg->length, &ecam, why, sizeof(why));
	if (err) {
		pr_err("pci: MCFG unusable: %s; no PCI", why);
		return err;
	}
	span = ((u64)ecam.end_bus - ecam.start_bus + 1) << 20;
	ecam_virt = ioremap(ecam.base + ((u64)ecam.start_bus << 20), span, IOREMAP_UC);
	if (!ecam_virt) {
		pr_err("pci: cannot map ECAM %llx (+%llx)", (unsigned long long)ecam.base,
		       (unsigned long long)span);
		return -ENOMEM;
	}
	pr_info("pci: ECAM at %llx, buses %02x-%02x",
		(unsigned long long)ecam.base, ecam.start_bus, ecam.end_bus);
	n = scan_all(false, NULL);
	pci_ready = true;
	for (i = 0; i < nr_devices; i++)
		probe_one(&devices[i]);
	pr_info("pci: %d functions", n);
	pci_hotplug_init();
	return 0;
}

/* --- lspci ------------------------------------------------------------------ */

static const struct { u16 vendor, device; const char *name; } known_ids[] = {
	{ 0x8086, 0x29c0, "q35-host" },
	{ 0x8086, 0x2918, "ich9-lpc" },
	{ 0x8086, 0x2922, "ich9-ahci" },
	{ 0x8086, 0x2930, "ich9-smbus" },
	{ 0x1b36, 0x000c, "pcie-root-port" },
	{ 0x1b36, 0x000e, "pcie-pci-bridge" },
	{ 0x1b36, 0x0001, "pci-bridge" },
	{ 0x1af4, 0x1041, "virtio-net" },
	{ 0x1af4, 0x1042, "virtio-blk" },
	{ 0x1af4, 0x1044, "virtio-rng" },
	{ 0x1af4, 0x1045, "virtio-balloon" },
	{ 0x1af4, 0x1058, "virtio-mem" },
	{ 0x1234, 0x1111, "vga" },
};

static const char *id_name(const struct pci_dev *d)
{
	unsigned i;

	for (i = 0; i < sizeof(known_ids) / sizeof(known_ids[0]); i++)
		if (known_ids[i].vendor == d->vendor && known_ids[i].device == d->device)
			return known_ids[i].name;
	return "?";
}

static void dump_windows(struct printer *p, const struct pci_dev *d)
{
	pr_printf(p, " bus %02x-%02x", d->secondary_bus, d->subordinate_bus);
	if (window_open(d->mem_window_base, d->mem_window_limit))
		pr_printf(p, " mem %llx-%llx", (unsigned long long)d->mem_window_base,
			  (unsigned long long)d->mem_window_limit);
	else
		pr_puts(p, " mem closed");
	if (window_open(d->pref_window_base, d->pref_window_limit))
		pr_printf(p, " pref %llx-%llx", (unsigned long long)d->pref_window_base,
			  (unsigned long long)d->pref_window_limit);
	else
		pr_puts(p, " pref closed");
}

static void dump_one(struct printer *p, const struct pci_dev *d)
{
	unsigned i;

	pr_printf(p, "%02x:%02x.%x %02x%02x: %04x:%04x (%s)", d->bus, d->dev, d->fn,
		  d->class_code, d->subclass, d->vendor, d->device, id_name(d));
	if (d->header_type == 1)
		dump_windows(p, d);
	for (i = 0; i < 6; i++) {
		const struct pci_bar *b = &d->bars[i];

		if (!b->size)
			continue;
		pr_printf(p, " bar%u %s%s", i, b->is_io ? "io" : "mem",
			  b->is_io ? "" : b->is_64 ? "64" : "32");
		if (b->prefetchable)
			pr_puts(p, "p");
		if (b->base)
			pr_printf(p, " %llx+%llx", (unsigned long long)b->base,
				  (unsigned long long)b->size);
		else
			pr_printf(p, " unassigned+%llx", (unsigned long long)b->size);
	}
	if (d->driver)
		pr_printf(p, " driver %s", d->driver->name);
	if (d->hotplugged)
		pr_puts(p, " hotplugged");
	pr_puts(p, "\n");
}

void pci_dump(struct printer *p)
{
	unsigned i;

	if (!pci_ready) {
		pr_puts(p, "pci: not initialised (no MCFG?)\n");
		return;
	}
	for (i = 0; i < nr_devices; i++)
		if (devices[i].cfg)
			dump_one(p, &devices[i]);
}

static const char *cap_name(u8 id)
{
	switch (id) {
	case 0x01: return "power management";
	case 0x05: return "MSI";
	case 0x09: return "vendor specific";
	case 0x0d: return "bridge subsystem id";
	case 0x10: return "PCI Express";
	case 0x11: return "MSI-X";
	default: return "?";
	}
}

/* dump_caps() - lspci -v: the capability list, with the PCIe slot registers. */
static void dump_caps(struct printer *p, const struct pci_dev *d)
{
	u8 pos = 0;
	unsigned n = 0;

	pr_printf(p, "  command %04x status %04x irq line %u pin %u header %u\n",
		  pci_read16(d, CFG_COMMAND), pci_read16(d, CFG_STATUS),
		  d->irq_line, d->irq_pin, d->header_type);
	while ((pos = pci_find_capability(d, 0xff, pos)) && n++ < CAP_WALK_LIMIT) {
		u8 id = pci_read8(d, pos);

		pr_printf(p, "  cap %02x @%02x %s", id, pos, cap_name(id));
		if (id == PCI_CAP_ID_EXP) {
			u16 flags = pci_read16(d, (u16)(pos + 2));

			pr_printf(p, " type %u", (flags >> 4) & 0xf);
			if (flags & 0x100)	/* slot implemented */
				pr_printf(p, " slotcap %08x slotctl %04x slotsta %04x",
					  pci_read32(d, (u16)(pos + 0x14)),
					  pci_read16(d, (u16)(pos + 0x18)),
					  pci_read16(d, (u16)(pos + 0x1a)));
		} else if (id == PCI_CAP_ID_VNDR) {
			pr_printf(p, " len %u type %u bar %u off %x",
				  pci_read8(d, (u16)(pos + 2)), pci_read8(d, (u16)(pos + 3)),
				  pci_read8(d, (u16)(pos + 4)), pci_read32(d, (u16)(pos + 8)));
		}
		pr_puts(p, "\n");
	}
}

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

/* parse_hex() - all of s as hex digits (at most 8) into *v; 0 or -EINVAL. */
static int parse_hex(const char *s, const char *end, u32 *v)
{
	unsigned n = 0;

	*v = 0;
	for (; s < end; s++, n++) {
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
		*v = (*v << 4) | x;
	}
	return n && n <= 8 ? 0 : -EINVAL;
}

/*
 * cmd_setpci() - "setpci BB:DD.F OFF.W=VAL": write one config register
 * (B byte, W word, L dword; hex offset and value), then refresh what the
 * table knows about the function (bridge windows and bus numbers).
 */
static int cmd_setpci(struct printer *out, int argc, char **argv)
{
	unsigned bus, dev, fn;
	const char *dot, *eq;
	u32 off, val;
	struct pci_dev *d;

	if (argc != 3 || parse_bdf(argv[1], &bus, &dev, &fn))
		return shell_usage(out, shell_find("setpci"));
	dot = strchr(argv[2], '.');
	eq = strchr(argv[2], '=');
	if (!dot || !eq || eq != dot + 2 || parse_hex(argv[2], dot, &off) ||
	    parse_hex(eq + 1, eq + 1 + strlen(eq + 1), &val) || off > 0xfff)
		return shell_usage(out, shell_find("setpci"));
	d = find_bdf(bus, dev, fn);
	if (!d) {
		pr_printf(out, "setpci: no device %s\n", argv[1]);
		return -ENODEV;
	}
	switch (dot[1]) {
	case 'b': case 'B': pci_write8(d, (u16)off, (u8)val); break;
	case 'w': case 'W': pci_write16(d, (u16)off, (u16)val); break;
	case 'l': case 'L': pci_write32(d, (u16)off, val); break;
	default: return shell_usage(out, shell_find("setpci"));
	}
	if (d->header_type == 1)
		read_windows(d);
	pr_printf(out, "%02x:%02x.%x [%03x] = %08x\n", bus, dev, fn, off & ~3u,
		  pci_read32(d, (u16)(off & ~3u)));
	return 0;
}

SHELL_COMMAND(setpci, .name = "setpci", .usage = "setpci BB:DD.F OFF.{B|W|L}=VAL",
	      .summary = "write one PCI configuration register (hex)",
	      .help = "Writes VAL (hex) to the register at OFF (hex) of function BB:DD.F\n"
		      "as a byte, word or dword, and prints the dword that holds it.\n"
		      "For a bridge, the windows lspci shows are re-read, so e.g.\n"
		      "  setpci 00:01.0 20.L=0000fff0   closes the memory window\n"
		      "(base above limit) the way unprepared firmware would leave it.",
	      .fn = cmd_setpci);

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
	d = find_bdf(bus, dev, fn);
	if (!d) {
		pr_printf(out, "lspci: no device %s\n", argv[2]);
		return -ENODEV;
	}
	dump_one(out, d);
	dump_caps(out, d);
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
