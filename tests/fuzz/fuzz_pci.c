/*
 * fuzz_pci.c - libFuzzer target for drivers/pci/ and shell/cmd_pci.c: PCI
 * enumeration, BAR sizing and placement, bridge numbering and windows,
 * rescan, lspci and setpci, against the configuration-space model of
 * tests/host/pci_model.h, with topologies and register contents from the
 * input.
 *
 * Input: a 4-byte header, then 12-byte records, one function each (at
 * most 48).
 *   header[0] MCFG: bits 0-1 0-2 one good entry, 3 a hostile table (bits
 *             2-3: shorter than the header, no entry, segment 1 only, end
 *             bus below start); header[1] start bus (bits 0-2), header[2]
 *             end bus (start + header[2] & 0x3f, capped at 255);
 *   header[3] bits 0-3: how many setpci lines to run (their register from
 *             the records' bytes), bit 4: a second rescan.
 *   record[0]  parent: 0 the root bus, n the (n-1)-th function if it is a
 *              bridge (else the root bus);
 *   record[1]  devfn on that bus;
 *   record[2]  bit 0 bridge, bit 7 multi-function, bit 6 hot (appears
 *              after pci_init(), before the rescan), bit 5 raw BAR0,
 *              bit 4 read-only bus numbers;
 *   record[3]  vendor: 0 -> 0x0000, 1 -> 0xffff, else 0x1af4 (device = it);
 *   record[4]  device: BAR slot (bits 0-2, 6-7 -> 5), type bits 3-5
 *              (I/O, 64-bit, prefetchable); bridge: secondary bus;
 *   record[5]  device: log2 of the size (mod 40); bridge: subordinate bus;
 *   record[6]  device: address (0 unassigned; else in the hole or, 64-bit,
 *              above 4 GiB); bridge: memory window base (0 closed), 4 MiB
 *              units from 0xc0000000;
 *   record[7]  device: a second BAR like record[4] with record[8] size;
 *              bridge: window size - 1 in MiB (bits 0-3) and a 64-bit
 *              prefetchable window at 2^35 + record[8] GiB when bit 4;
 *   record[9]  capability list head (0: none), record[10] its next, record[11]
 *              its id; a second capability at record[10] points back at head;
 *   raw BAR0: record[6..9] its value, record[10..11] the top of its mask.
 * Hotplug mode (header[3] bit 5): the record count is the byte after the
 * header (at most 48 and what the input holds), then the records, then
 * the hotplug part read by hp_run() (see "Hotplug events" in
 * tests/fuzz/pci_hotplug_events.c): two setup bytes (the firmware: QEMU's
 * DSDT whole, cut, patched or none; the register block; GPE 1), then
 * 4-byte events; setpci is not run.  Record[2] bit 1 then gives a
 * root-bus bridge without capabilities a hotplug-capable PCIe slot.
 * Invariants, after pci_init(), after the rescan(s), and after setpci:
 * every function in the table is inside the MCFG's bus range, appears
 * once, and links to a bridge whose secondary bus is its bus; each BAR the
 * kernel gave an address lies inside its bridge's window and overlaps no
 * other assigned BAR (until setpci, which may move windows and bus
 * numbers); nothing was written to a byte that is not a
 * register or to an absent function (before setpci, which may write
 * anywhere); nothing touched outside the ECAM mapping; the configuration
 * accesses are bounded; lspci (all, and -v of each) fits a bounded buffer.
 */
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include "pci_model.h"
#include "platform_stub.h"
#include <shell/shell.h>
#include "pci_fuzz.h"

#define MAX_RECORDS	48
#define MAX_ACCESSES	4000000ULL

bool verbose;
static bool hp_mode;		/* this input has a hotplug part */
u64 stray_budget;	/* stray writes check() accepts */
bool hot[PM_MAX_FUNCS];
static bool fw_base[PCI_MAX_DEVICES][6];	/* the address was there before the kernel */
u8 bars_before[PM_MAX_FUNCS][24];	/* the model's BAR registers as built */

/* fail() - an invariant broke: say which (FUZZ_VERBOSE=1) and trap. */
void fail(const char *what)
{
	if (verbose) {
		fflush(stdout);
		fprintf(stderr, "fuzz_pci: %s\n", what);
	}
	__builtin_trap();
}

void add_bar(int x, u8 spec, u8 lg, u8 where)
{
	unsigned slot = spec & 7;
	u32 flags = 0;
	u64 size, addr = 0;

	if (slot > 5)
		slot = 5;
	if (spec & 0x08)
		flags |= 1;
	else {
		if (spec & 0x10)
			flags |= 4;
		if (spec & 0x20)
			flags |= 8;
	}
	lg %= 40;
	if (flags & 1)
		lg = lg % 9;
	else if (!(flags & 4) && lg > 31)
		lg = 31;
	if (lg < 4)
		lg = 4;
	if ((flags & 4) && slot == 5)
		slot = 4;
	size = 1ULL << lg;
	if (where) {
		if (flags & 1)
			addr = 0xc000 + ((u64)where << 8);
		else if (flags & 4 && where & 0x80)
			addr = (0x800000000ULL + ((u64)where << 30)) & ~(size - 1);
		else
			addr = (0xc0000000ULL + ((u64)where << 22)) & ~(size - 1) & 0xffffffffULL;
	}
	pm_bar(x, slot, size, flags, addr);
}

static void build(const u8 *r, unsigned n)
{
	for (unsigned i = 0; i < n; i++, r += 12) {
		int parent = r[0] ? (int)((r[0] - 1) % (i ? i : 1)) : -1;
		u8 header = (r[2] & 1) | (r[2] & 0x80);
		u16 vendor = r[3] == 0 ? 0x0000 : r[3] == 1 ? 0xffff : 0x1af4;
		int x;

		if (parent >= 0 && (i == 0 || (pm.f[parent].cfg[0x0e] & 0x7f) != 1))
			parent = -1;
		x = pm_add(parent, (r[1] >> 3) & 31, r[1] & 7, vendor, r[3], header,
			   (r[2] & 1) ? 6 : 2, (r[2] & 1) ? 4 : 0);
		hot[x] = r[2] & 0x40;
		if (r[2] & 1) {
			pm_buses(x, 0, r[4], r[5]);
			if (r[2] & 0x10)
				pm_reg(&pm.f[x], 0x18, 3, 0);
			if (r[6])
				pm_mem_window(x, 0xc0000000u + ((u32)r[6] << 22),
					      0xc0000000u + ((u32)r[6] << 22) + (((u32)(r[7] & 15) + 1) << 20) - 1);
			if (r[7] & 0x10)
				pm_pref_window(x, (1ULL << 35) + ((u64)r[8] << 30),
					       (1ULL << 35) + ((u64)r[8] << 30) + (1ULL << 30) - 1);
		} else if (r[2] & 0x20) {
			u32 v, m;

			memcpy(&v, r + 6, 4);
			m = ((u32)r[10] << 24) | ((u32)r[11] << 16);
			pm_bar_raw(x, 0x10, v, m);
		} else {
			add_bar(x, r[4], r[5], r[6]);
			if (r[7])
				add_bar(x, r[7], r[8], 0);
		}
		if (hp_mode && (r[2] & 3) == 3 && parent < 0 && r[9] < 0x40)
			pm_pcie_slot(x, 0xa0, 0, true);
		if (r[9] >= 0x40 && !(r[2] & 0x20)) {
			pm_cap(x, r[9] & 0xfc, r[11], r[10], true, 4);
			if ((r[10] & 0xfc) >= 0x40)
				pm_cap(x, r[10] & 0xfc, r[11] ^ 1, r[9], false, 4);
		}
	}
}

/* window_of() - whether [b, b+size) is inside a window of bridge br. */
static bool in_windows(const struct pci_dev *br, u64 b, u64 size)
{
	if (b + size < b)
		return false;
	if (br->mem_window_limit > br->mem_window_base && b >= br->mem_window_base &&
	    b + size - 1 <= br->mem_window_limit)
		return true;
	return br->pref_window_limit > br->pref_window_base && b >= br->pref_window_base &&
	       b + size - 1 <= br->pref_window_limit;
}

/* came_with_address() - BAR a of hot-added d had an address in the model
 * before the kernel saw it (the kernel keeps such addresses). */
static bool came_with_address(const struct pci_dev *d, unsigned a)
{
	unsigned reg;
	const struct pm_func *f = pm_decode(d->cfg, 4, &reg);
	u32 lo, hi = 0;

	if (!d->hotplugged || !f)
		return false;
	memcpy(&lo, bars_before[f - pm.f] + 4 * a, 4);
	if (d->bars[a].is_64 && a < 5)
		memcpy(&hi, bars_before[f - pm.f] + 4 * a + 4, 4);
	return (lo & ~0xfu) || hi;
}

void check(bool after_setpci)
{
	if (pm.oob)
		fail("access outside the ECAM mapping");
	if (!after_setpci && pm.stray_writes > stray_budget) {
		if (verbose)
			fprintf(stderr, "fuzz_pci: %llu stray writes (accepted %llu), last at %x\n",
				(unsigned long long)pm.stray_writes,
				(unsigned long long)stray_budget, pm.last_stray);
		fail("write to a register the model does not have, or to an absent function");
	}
	if (pm.reads + pm.writes > MAX_ACCESSES)
		fail("unbounded configuration accesses");
	if (!pci_ready)
		return;
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		const struct pci_dev *d = &pci_devices[i];

		if (!d->cfg)
			continue;
		if (d->bus < pci_ecam.start_bus || d->bus > pci_ecam.end_bus)
			fail("function outside the MCFG's buses");
		if (d->bridge && (!d->bridge->cfg || d->bridge->header_type != 1))
			fail("bridge link to a non-bridge");
		for (unsigned j = i + 1; j < pci_nr_devices; j++)
			if (pci_devices[j].cfg && pci_devices[j].bus == d->bus && pci_devices[j].dev == d->dev &&
			    pci_devices[j].fn == d->fn)
				fail("a function twice in the table");
		for (unsigned a = 0; a < 6; a++) {
			const struct pci_bar *b = &d->bars[a];

			if (!b->size || b->is_io || !b->base || fw_base[i][a])
				continue;
			/*
			 * The kernel placed this one.  Once setpci has run, the
			 * placement rules are off: it may have moved a bridge's
			 * windows, or its bus numbers, so that a function the
			 * table knows reappears under another address with the
			 * BAR it already had (raw register writes break any
			 * kernel's picture, Linux's too).  Memory safety,
			 * bounded work and the table's own consistency are
			 * still checked.
			 */
			if (after_setpci)
				continue;
			if (!d->bridge || !in_windows(d->bridge, b->base, b->size)) {
				if (verbose)
					fprintf(stderr, "fuzz_pci: %02x:%02x.%x BAR%u %llx+%llx, bridge %s\n",
						d->bus, d->dev, d->fn, a, (unsigned long long)b->base,
						(unsigned long long)b->size, d->bridge ? "there" : "none");
				fail("assigned BAR outside its bridge's windows");
			}
			for (unsigned j = 0; j < pci_nr_devices; j++)
				for (unsigned c = 0; c < 6; c++) {
					const struct pci_bar *o = &pci_devices[j].bars[c];

					if ((j == i && c == a) || !pci_devices[j].cfg || !o->size ||
					    o->is_io || !o->base)
						continue;
					if (b->base < o->base + o->size && o->base < b->base + b->size) {
						if (getenv("FUZZ_VERBOSE"))
							fprintf(stderr, "%02x:%02x.%x BAR%u %llx+%llx overlaps %02x:%02x.%x BAR%u %llx+%llx\n",
								d->bus, d->dev, d->fn, a, (unsigned long long)b->base, (unsigned long long)b->size,
								pci_devices[j].bus, pci_devices[j].dev, pci_devices[j].fn, c,
								(unsigned long long)o->base, (unsigned long long)o->size);
						fail("assigned BAR overlaps another BAR");
					}
				}
		}
	}
}

/* remember_bases() - for entries not looked at yet, which BARs have an
 * address the kernel did not give: at boot, every address; for a hot-added
 * function, the ones its registers held before (while the routing that
 * found it still holds). */
bool noted[PCI_MAX_DEVICES];
static const volatile u8 *noted_cfg[PCI_MAX_DEVICES];	/* the entry noted was this function */

void remember_bases(void)
{
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		if (!pci_devices[i].cfg || (noted[i] && noted_cfg[i] == pci_devices[i].cfg))
			continue;
		noted[i] = true;
		noted_cfg[i] = pci_devices[i].cfg;
		for (unsigned a = 0; a < 6; a++)
			fw_base[i][a] = pci_devices[i].hotplugged ? came_with_address(&pci_devices[i], a) :
				pci_devices[i].bars[a].base != 0;
	}
}

char out[16384];

void views(void)
{
	struct buf_printer bp;

	buf_printer_init(&bp, out, sizeof(out));
	pci_dump(&bp.p);
	for (unsigned i = 0; i < pci_nr_devices; i++) {
		char a[16], *argv[3] = { "lspci", "-v", a };

		if (!pci_devices[i].cfg)
			continue;
		ksnprintf(a, sizeof(a), "%02x:%02x.%x", pci_devices[i].bus, pci_devices[i].dev,
			  pci_devices[i].fn);
		buf_printer_init(&bp, out, sizeof(out));
		shell_find("lspci")->fn(&bp.p, 3, argv);
	}
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	verbose = getenv("FUZZ_VERBOSE") != NULL;
	host_log_verbose = verbose;
	printk_set_level(verbose ? LOG_DEBUG : LOG_CRIT);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned n, start, end, kind, nev = 0;
	const u8 *rec = data + 4, *ev = NULL;

	if (size < 4)
		return 0;
	hp_mode = data[3] & 0x20;
	if (hp_mode) {
		if (size < 5)
			return 0;
		n = data[4] % (MAX_RECORDS + 1);
		if (n > (size - 5) / 12)
			n = (unsigned)((size - 5) / 12);
		rec = data + 5;
	} else {
		n = (unsigned)((size - 4) / 12);
		if (n > MAX_RECORDS)
			n = MAX_RECORDS;
	}
	start = data[1] & 7;
	end = start + (data[2] & 0x3f);
	if (end > 255)
		end = 255;
	pm_reset((u8)start, (u8)end);
	memset(hot, 0, sizeof(hot));
	memset(fw_base, 0, sizeof(fw_base));
	memset(noted, 0, sizeof(noted));
	stray_budget = 0;
	nr_slot_ports = 0;
	unseen_removal = false;
	kind = data[0] & 3;
	if (kind == 3) {
		u8 t[60] = { 'M', 'C', 'F', 'G' };
		u32 len = 60;

		switch ((data[0] >> 2) & 3) {
		case 0: len = 40; break;
		case 1: len = 44; break;
		case 2: pm_mcfg_entry(t + 44, PM_ECAM_BASE, 1, 0, 255); break;
		case 3: pm_mcfg_entry(t + 44, PM_ECAM_BASE, 0, (u8)end, (u8)start - 1); break;
		}
		memcpy(t + 4, &len, 4);
		pm_set_mcfg(t, len);
	}
	build(rec, n);
	for (unsigned i = 0; i < pm.nr; i++) {
		pm.f[i].absent = hot[i];
		memcpy(bars_before[i], pm.f[i].cfg + 0x10, 24);
	}
	if (hp_mode)
		ev = hp_setup(rec + 12 * n, size - 5 - 12 * n, &nev);
	pci_init();
	remember_bases();
	check(false);
	for (unsigned i = 0; i < pm.nr; i++)
		pm.f[i].absent = false;
	pci_rescan();
	remember_bases();
	check(false);
	views();
	check(false);
	if (data[3] & 0x10) {
		pci_rescan();
		remember_bases();
		check(false);
	}
	if (hp_mode) {
		hp_boot();
		hp_run(ev, nev);
		return 0;
	}
	for (unsigned k = 0; k < (data[3] & 15u) && k < n; k++) {
		const u8 *r = data + 4 + 12 * k;
		char line[64], *argv[4] = { "setpci", line, line + 16, NULL };
		const struct pci_dev *d = pci_device(r[1] % (pci_nr_devices ? pci_nr_devices : 1));
		struct buf_printer bp;

		if (!d)
			continue;
		ksnprintf(line, 16, "%02x:%02x.%x", d->bus, d->dev, d->fn);
		ksnprintf(line + 16, 48, "%x.%c=%x", r[4] % 0x40, "bwl"[r[5] % 3],
			  r[6] | (u32)r[7] << 8 | (u32)r[8] << 16);
		buf_printer_init(&bp, out, sizeof(out));
		shell_find("setpci")->fn(&bp.p, 3, argv);
	}
	if (data[3] & 15) {
		pci_rescan();
		remember_bases();
		views();
		check(true);
	}
	return 0;
}
