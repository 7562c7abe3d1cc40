/*
 * drivers/pci/resource.c - BARs and bridge windows: sizing and placing.
 *
 * BARs are sized the classic way (decoding off, write all-ones, read back,
 * restore) and what the firmware assigned is kept.  Functions found later by
 * pci_rescan() (hot-added behind a root port) usually have no address: their
 * BARs are placed inside the windows of the bridge above them, and when that
 * bridge has no usable window one is opened (inside the bridge above, or
 * for a root port inside its root bus's 32-bit _CRS windows, or without
 * those in the 32-bit PCI hole) and programmed into the bridge.  An address a rescanned function
 * brings along is kept only when it fits (pci_distrust_bars()).
 *
 * Context: pci_size_bars, pci_read_windows (boot, main); the rest (main).
 */
#include "internal.h"
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <arch/paging.h>

#define HOTPLUG_WINDOW_SIZE	0x200000ULL	/* what we open for an empty port */

/*
 * pci_size_bars() - fill d->bars from the hardware: type, size, and the address
 * the firmware assigned (0 if none).  Decoding is turned off while all-ones
 * are in a BAR, so the device never answers at a bogus address, and every
 * BAR is restored.  Context: (boot, main).
 */
void pci_size_bars(struct pci_dev *d)
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
			continue;	/* the function has no BAR here */
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

/* pci_read_windows() - the bridge's windows; a closed window reads as limit < base.
 * A bridge without an I/O window has both I/O registers hardwired to 0. */
void pci_read_windows(struct pci_dev *d)
{
	u16 mb = pci_read16(d, CFG_MEM_BASE), ml = pci_read16(d, CFG_MEM_LIMIT);
	u16 pb = pci_read16(d, CFG_PREF_BASE), pl = pci_read16(d, CFG_PREF_LIMIT);
	u8 iob = pci_read8(d, CFG_IO_BASE), iol = pci_read8(d, CFG_IO_LIMIT);

	d->mem_window_base = (u64)(mb & 0xfff0) << 16;
	d->mem_window_limit = ((u64)(ml & 0xfff0) << 16) | 0xfffff;
	d->pref_window_base = (u64)(pb & 0xfff0) << 16;
	d->pref_window_limit = ((u64)(pl & 0xfff0) << 16) | 0xfffff;
	if ((pb & 0xf) == 1) {	/* 64-bit prefetchable window */
		d->pref_window_base |= (u64)pci_read32(d, CFG_PREF_BASE_HI) << 32;
		d->pref_window_limit |= (u64)pci_read32(d, CFG_PREF_LIMIT_HI) << 32;
	}
	if (iob == 0 && iol == 0) {
		d->io_window_base = 1;	/* no I/O window at all: closed */
		d->io_window_limit = 0;
	} else {
		d->io_window_base = (u64)(iob & 0xf0) << 8;
		d->io_window_limit = ((u64)(iol & 0xf0) << 8) | 0xfff;
		if ((iob & 0xf) == 1) {	/* 32-bit I/O addressing */
			d->io_window_base |= (u64)pci_read16(d, CFG_IO_BASE_HI) << 16;
			d->io_window_limit |= (u64)pci_read16(d, CFG_IO_LIMIT_HI) << 16;
		}
	}
	d->secondary_bus = pci_read8(d, CFG_SECONDARY_BUS);
	d->subordinate_bus = pci_read8(d, CFG_SUBORDINATE_BUS);
}

bool pci_window_open(u64 base, u64 limit)
{
	return limit > base;
}

static bool overlaps(u64 a, u64 asize, u64 b, u64 bsize)
{
	return a < b + bsize && b < a + asize;
}

/*
 * pci_bar_overlapping() - the first assigned memory BAR in the table that meets
 * [base, base+size), `except` left out, or NULL.  Context: (main).
 */
static const struct pci_bar *pci_bar_overlapping(u64 base, u64 size, const struct pci_bar *except)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		if (!pci_devices[i].cfg)
			continue;
		for (unsigned j = 0; j < 6; j++) {
			const struct pci_bar *b = &pci_devices[i].bars[j];

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
	return pci_window_open(lo, hi) && overlaps(base, size, lo, hi - lo + 1);
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
	u64 ecam_lo = pci_ecam.base + ((u64)pci_ecam.start_bus << 20);
	u64 ecam_size = ((u64)pci_ecam.end_bus - pci_ecam.start_bus + 1) << 20;
	const struct pci_bar *b;

	if (overlaps(base, size, ecam_lo, ecam_size))
		return ecam_lo + ecam_size;
	b = pci_bar_overlapping(base, size, NULL);
	if (b)
		return b->base + b->size;
	if (!windows)
		return 0;
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

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

	return pci_window_open(base, limit) && pci_bar_overlapping(base, limit - base + 1, NULL);
}

/*
 * open_in() - the highest free size-aligned block of at least `need` bytes
 * (HOTPLUG_WINDOW_SIZE at least, a power of two) inside [lo, hi),
 * programmed into br's non-prefetchable base/limit.  0, -ENOSPC (no such
 * block: nothing logged, the caller says where it looked) or -EIO (the
 * bridge does not keep what is written: logged, its old values written
 * back).  Context: (main).
 */
static int open_in(struct pci_dev *br, u64 need, u64 lo, u64 hi)
{
	u64 size = HOTPLUG_WINDOW_SIZE, base;
	u16 old_base = pci_read16(br, CFG_MEM_BASE), old_limit = pci_read16(br, CFG_MEM_LIMIT);

	if (hi <= lo)
		return -ENOSPC;
	while (size < need && size <= hi - lo)
		size <<= 1;
	if (size > hi - lo)
		return -ENOSPC;
	for (base = (hi - size) & ~(size - 1); base >= lo && base + size <= hi; base -= size) {
		if (range_busy(base, size, br, true))
			continue;
		pci_write16(br, CFG_MEM_BASE, (u16)((base >> 16) & 0xfff0));
		pci_write16(br, CFG_MEM_LIMIT, (u16)(((base + size - 1) >> 16) & 0xfff0));
		pci_read_windows(br);
		if (br->mem_window_base != base || br->mem_window_limit != base + size - 1) {
			pr_warn("pci %02x:%02x.%x: bridge does not keep the memory window %llx-%llx written to it (reads %llx-%llx); not used",
				br->bus, br->dev, br->fn, (unsigned long long)base,
				(unsigned long long)(base + size - 1),
				(unsigned long long)br->mem_window_base,
				(unsigned long long)br->mem_window_limit);
			pci_write16(br, CFG_MEM_BASE, old_base);
			pci_write16(br, CFG_MEM_LIMIT, old_limit);
			pci_read_windows(br);
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
 * open_in_root() - open_in() over the 32-bit memory windows of the root
 * bus's _CRS, the highest window first (q35's are the 32-bit hole cut
 * around MMCONFIG and the expanders' windows; the VGA window is too small
 * for any).  -ENOSPC when none has room (logged).  Context: (main).
 */
static int open_in_root(struct pci_dev *br, u64 need, const struct pci_root_windows *rw)
{
	bool tried[ACPI_ROOT_WINDOWS_MAX] = { false };

	for (;;) {
		const struct acpi_window *w = NULL;
		unsigned wi = 0;
		int err;

		for (unsigned i = 0; i < rw->nr; i++) {
			const struct acpi_window *c = &rw->win[i];

			if (!tried[i] && !c->io && c->end < (1ULL << 32) && (!w || c->start > w->start)) {
				w = c;
				wi = i;
			}
		}
		if (!w)
			break;
		tried[wi] = true;
		err = open_in(br, need, w->start, w->end + 1);
		if (err != -ENOSPC)
			return err;
	}
	pr_warn("pci %02x:%02x.%x: no free %llx-byte window in the 32-bit memory windows of root bus %02x (%s)",
		br->bus, br->dev, br->fn, (unsigned long long)need, rw->bus, rw->source);
	return -ENOSPC;
}

/*
 * open_window() - give bridge `br` a non-prefetchable memory window of at
 * least `need` bytes, highest free spot first, aligned to its size (so a
 * BAR of that size fits in it), and program it.  The window must be
 * reachable: inside the memory window of the bridge above, when there is
 * one, else inside the 32-bit memory windows of its root bus's _CRS
 * (pci_root_windows_of()), else (no _CRS read for that root, or it was
 * refused: said once) inside the 32-bit PCI hole.  Returns 0, -ENOSPC: a
 * window that size cannot be there, none is free, the bridge above has no
 * 32-bit memory window, or the bridge's window is already in use by BARs
 * behind it and moving it would strand them; or -EIO: the bridge's
 * registers do not read back the window written (a broken bridge; its
 * old values are written back).  The bridge is then left as it was.
 * Context: (main).
 */
static int open_window(struct pci_dev *br, u64 need)
{
	static int fallback_said = -1;	/* root bus last told about (main loop) */
	const struct pci_dev *up = br->bridge;
	const struct pci_root_windows *rw;
	u64 lo = PCI_HOLE32_LOW, hi = PCI_HOLE32_HIGH;
	int err;

	if (window_holds_bars(br)) {
		pr_warn("pci %02x:%02x.%x: memory window %llx-%llx is too small for a %llx-byte BAR and holds BARs of the devices behind it: not moved",
			br->bus, br->dev, br->fn, (unsigned long long)br->mem_window_base,
			(unsigned long long)br->mem_window_limit, (unsigned long long)need);
		return -ENOSPC;
	}
	if (up) {
		if (!pci_window_open(up->mem_window_base, up->mem_window_limit) ||
		    up->mem_window_limit >= (1ULL << 32)) {
			pr_warn("pci %02x:%02x.%x: the bridge above (%02x:%02x.%x) has no 32-bit memory window to open one inside",
				br->bus, br->dev, br->fn, up->bus, up->dev, up->fn);
			return -ENOSPC;
		}
		lo = up->mem_window_base;
		hi = up->mem_window_limit + 1;
	} else if ((rw = pci_root_windows_of(br->bus)) != NULL) {
		return open_in_root(br, need, rw);
	} else if (fallback_said != (int)br->bus) {
		fallback_said = (int)br->bus;
		pr_info("pci: root bus %02x has no _CRS windows memlab uses; hot-added windows go in the 32-bit PCI hole %llx-%llx",
			br->bus, (unsigned long long)PCI_HOLE32_LOW,
			(unsigned long long)PCI_HOLE32_HIGH - 1);
	}
	err = open_in(br, need, lo, hi);
	if (err == -ENOSPC)
		pr_warn("pci %02x:%02x.%x: a %llx-byte window does not fit %s %llx-%llx",
			br->bus, br->dev, br->fn, (unsigned long long)need,
			up ? "the window of the bridge above" : "the 32-bit PCI hole",
			(unsigned long long)lo, (unsigned long long)hi - 1);
	return err;
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

	if (!pci_window_open(lo, hi))
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
 * pci_assign_bars() - give every memory BAR of d that has no address one inside
 * the windows of the bridge above it, biggest BAR first (alignment = size);
 * prefetchable BARs try the prefetchable window first.  If neither window
 * has room, a window is opened on the bridge.  I/O BARs are left alone.
 * Returns 0 or -ENOSPC.  Context: (main).
 */
int pci_assign_bars(struct pci_dev *d)
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

/*
 * pci_enable_device() - memory decoding and bus mastering on, and I/O
 * decoding when an I/O BAR has an address.  Context: (boot, main).
 */
void pci_enable_device(struct pci_dev *d)
{
	u16 cmd = pci_read16(d, CFG_COMMAND) | CMD_MEMORY | CMD_MASTER;
	unsigned i;

	for (i = 0; i < 6; i++)
		if (d->bars[i].is_io && d->bars[i].size && d->bars[i].base)
			cmd |= CMD_IO;
	pci_write16(d, CFG_COMMAND, cmd);
}

/*
 * pci_map_bar() - memory BAR `bar` of d mapped uncached, or NULL (no such
 * BAR, an I/O BAR, no address, or no mapping).  Context: (boot, main).
 */
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

/* in_window() - is [base, base+size) inside [lo, hi] (an open window)? */
static bool in_window(u64 base, u64 size, u64 lo, u64 hi)
{
	return pci_window_open(lo, hi) && base >= lo && base + size - 1 >= base &&
	       base + size - 1 <= hi;
}

/*
 * pci_distrust_bars() - a function found by a rescan may come with addresses
 * in its memory BARs: left from an earlier life, or garbage.  One is kept
 * only if it lies inside a window of the bridge above (when there is a
 * bridge) and meets no other BAR the table knows; otherwise the kernel
 * says why and forgets it, and pci_assign_bars() gives the BAR a proper place
 * (or refuses the function).  Context: (main).
 */
void pci_distrust_bars(struct pci_dev *d)
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
		else if (pci_bar_overlapping(b->base, b->size, b))
			why = "meets another BAR";
		else
			continue;
		pr_warn("pci %02x:%02x.%x: BAR%u %llx-%llx %s; placed anew",
			d->bus, d->dev, d->fn, j, (unsigned long long)b->base,
			(unsigned long long)(b->base + b->size - 1), why);
		b->base = 0;
	}
}

