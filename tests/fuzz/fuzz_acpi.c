/*
 * fuzz_acpi.c - libFuzzer target for the ACPI table code: drivers/acpi/
 * tables.c (RSDP, RSDT/XSDT, headers, the DSDT from the FADT), srat.c (SRAT
 * and SLIT into struct mm_boot_params, the pxm <-> node maps), madt.c,
 * decode.c (the `acpi fadt|srat|slit|mcfg` views), events.c (GPE0 from the
 * FADT), memhp.c (the memory hotplug registers found in the DSDT) and
 * nfit.c (the NVDIMM ranges, maps, control regions and flush hints).
 *
 * The input stands for the firmware's tables as memlab sees them.
 * ioremap() serves a heap buffer of
 * exactly the image's size as "physical memory" at IMG_PHYS and refuses any
 * range not wholly inside it, so ASan reports every read past a table.
 * Each input is used three times:
 *  1. raw: byte 0 chooses the multiboot2 tag (14 or 15) and how many bytes
 *     of RSDP the boot loader copied; the rest is the memory image, with the
 *     RSDP at its start.  Every pointer, length and checksum is the fuzzer's.
 *  2. built: bytes 0-2 choose an ACPI 1.0 (RSDT) or 2.0 (XSDT, and maybe an
 *     RSDT too) RSDP and how to spoil it (extended checksum, length field,
 *     no XSDT, 20 bytes copied), stray bytes after the root's entries, and
 *     hostile root entries (null, past the image, straddling its end, the
 *     root itself, the RSDP); then chunks [kind, flags, u16 length, body]
 *     become tables of the kind's signature with correct checksums, unless
 *     a flag asks for a bad checksum, a lying length (shorter than the
 *     header, past the body, 0xffffffff), no root entry, or two.  The FADT
 *     can be pointed at the first DSDT, at any table, or nowhere.  So every
 *     table parser sees arbitrary bodies without the fuzzer first having to
 *     find the checksums.
 *  3. records: 12-byte records become the subtables of an SRAT (every
 *     affinity structure type, memory mostly: proximity domains small or
 *     huge, ranges in MiB that may overlap, wrap past 2^64 or lie above the
 *     physical address space, enabled / hot-pluggable / non-volatile), a
 *     MADT (local APIC, I/O APIC, overrides, address override, others) or
 *     an MCFG, with lengths that may lie; an 8-byte header adds a SLIT
 *     whose locality count may not match and whose entries may break the
 *     rules, and a FADT (GPE0 block anywhere up to port 0xffff) with a DSDT
 *     naming the memory hotplug device (slot count, register port, in any
 *     AML integer encoding).
 * Then, over whatever tables were accepted: apic_init() (arch/x86_64/
 * apic.c) with a local APIC and I/O APICs modelled at whatever addresses
 * the MADT gives (an I/O APIC's pin count, or a dead one that reads all
 * ones, chosen by bits of its address), every ISA IRQ routed as
 * irq_register() does; and machine_poweroff() / machine_reboot()
 * (arch/x86_64/power.c) run until the CPU would stop (a longjmp).
 * After each: every table acpi_find_table() returns is inside the image,
 * at least as long as its type's fixed part, with a good checksum; the MADT
 * counts are within their arrays, and a MADT is used only if every entry
 * is sound; the GPE0 block and the hotplug registers in use are the
 * tables' own, whole, within the 16-bit port space; every SRAT range in
 * mm_boot_params is non-empty, does not wrap, ends within MAX_PHYSMEM_BITS,
 * comes from an enabled memory entry of the SRAT, has a node id below
 * MAX_NUMNODES, and ranges of different nodes do not overlap; the CPU
 * table that MADT and SRAT processor entries make is sound (check_cpus);
 * node ids are
 * dense, every node has a range, pxm -> node and node -> pxm agree; a
 * rejected SRAT leaves no node and no distance; SLIT distances are all or
 * nothing, 10 on the diagonal and more elsewhere; an NFIT is kept whole
 * or not at all, its SPA ranges sound, apart, off RAM, and every memory
 * device map names what is there (check_nfit); every view (acpi_dump,
 * madt_dump, acpi_decode_*, the events and hotplug views, the `acpi`
 * command with each argument) writes a bounded amount of text and leaves
 * the node maps as they were; every ISA IRQ maps to a GSI below memlab's
 * 32 lines that an I/O APIC which answers serves (what idt.c's BUG_ON
 * relies on), or has no line because an override sends another IRQ to its
 * GSI, no two ISA IRQs map to one GSI, and apic.c writes only the
 * registers the I/O APICs have;
 * power off writes SLP_TYP|SLP_EN to the FADT's PM1 blocks only if both
 * fit below port 0xffff, else only to the QEMU/Bochs ports; reset writes
 * the FADT's reset register only if it is a whole I/O port of a FADT long
 * enough to hold it, else only 0xcf9 and the keyboard controller.
 * A violation is a __builtin_trap().
 *
 * Global state: acpi_tables_init(), srat_parse(), madt_parse(),
 * acpi_events_init(), acpi_memhp_init() and apic_init() start over on every
 * call.  The harness links the real drivers (FUZZ_SRCS_fuzz_acpi in the
 * Makefile) and checks them through their public API, their views, and
 * drivers/acpi/internal.h's list of every table seen.  This file builds
 * the images and is the entry point; the platform model and the checks
 * are in tests/fuzz/acpi_harness.c (also listed in FUZZ_SRCS_fuzz_acpi).
 * Not covered: a DIMM's registers (the port model answers "no DIMM", so
 * add_memory() is never reached) and the SCI handler.
 *
 * Build and run (from the repository root; `make test-fuzz` does the same
 * with all HOST_SRCS):
 *   make build/fuzz/fuzz_acpi && mkdir -p build/fuzz/corpus-fuzz_acpi
 *   build/fuzz/fuzz_acpi -max_total_time=30 build/fuzz/corpus-fuzz_acpi
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <drivers/acpi.h>
#include "../../drivers/acpi/internal.h"
#include <arch/bootinfo.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/paging.h>
#include <arch/power.h>
#include <arch/traps.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <mm/mm_init.h>
#include <mm/page.h>
#include <mm/numa_cpu.h>
#include <shell/shell.h>
#include "platform_stub.h"
#include <setjmp.h>
#include "acpi_harness.h"

/* ---- building images ------------------------------------------------------- */

static void set_checksum(u8 *t, size_t len, size_t at)
{
	u8 sum = 0;

	t[at] = 0;
	for (size_t i = 0; i < len; i++)
		sum += t[i];
	t[at] = (u8)-sum;
}

static void put_header(u8 *t, const char *sig, u32 length, u8 revision)
{
	memcpy(t, sig, 4);
	memcpy(t + 4, &length, 4);
	t[8] = revision;
	memcpy(t + 10, "MEMLAB", 6);
	memcpy(t + 16, "FUZZACPI", 8);
}

/* A finished table at t: checksum over what its header claims, if it fits. */
static void seal(u8 *t, size_t room, bool bad)
{
	u32 length;

	memcpy(&length, t + 4, 4);
	set_checksum(t, MIN((size_t)length, room), 9);
	if (bad)
		t[9] ^= 0x5a;
}

#define RSDP_AT		0
#define ROOT_AT		48
#define MAX_CHUNKS	80

static const char *const kinds[] = {
	"FACP", "APIC", "SRAT", "SLIT", "MCFG", "DSDT", "SSDT", "HPET", "XSDT", "RSDT",
	"FACS", "\001\177AB",	/* a signature that is not printable */
	"NFIT",
};

struct chunk {
	size_t at;		/* offset in img */
	const char *sig;
	bool listed, twice, bad;
};

/* spoil: 0 none, 1 extended checksum, 2 length 20, 3 length 200, 4 no XSDT */
static void put_rsdp(u8 *r, bool v2, u64 rsdt, u64 xsdt, unsigned spoil)
{
	u32 len = spoil == 2 ? 20 : spoil == 3 ? 200 : 36, rsdt32 = (u32)rsdt;

	if (spoil == 4)
		xsdt = 0;
	memcpy(r, "RSD PTR ", 8);
	memcpy(r + 9, "MEMLAB", 6);
	r[15] = v2 ? 2 : 0;
	memcpy(r + 16, &rsdt32, 4);
	memcpy(r + 20, &len, 4);
	memcpy(r + 24, &xsdt, 8);
	set_checksum(r, 20, 8);
	set_checksum(r, 36, 32);
	if (spoil == 1)
		r[32] ^= 1;
}

/* Write a root table (RSDT: 4-byte entries, XSDT: 8) at img+at, with
 * `stray` bytes after the last entry; its length. */
static size_t put_root(size_t at, bool xsdt, const struct chunk *c, unsigned n,
		       const u64 *extra, unsigned nr_extra, unsigned stray, bool reverse,
		       bool bad)
{
	size_t esz = xsdt ? 8 : 4, off = at + 36;

	for (unsigned k = 0; k < n; k++) {
		const struct chunk *ck = &c[reverse ? n - 1 - k : k];
		u64 phys = IMG_PHYS + ck->at;

		for (int rep = 0; ck->listed && rep < (ck->twice ? 2 : 1); rep++) {
			memcpy(img + off, &phys, esz);
			off += esz;
		}
	}
	for (unsigned k = 0; k < nr_extra; k++) {
		memcpy(img + off, &extra[k], esz);
		off += esz;
	}
	off += stray;
	put_header(img + at, xsdt ? "XSDT" : "RSDT", (u32)(off - at), 1);
	seal(img + at, off - at, bad);
	return off - at;
}

/*
 * Mode 2.  Bytes 0-2 are flags (below), then chunks.  The image: RSDP at 0,
 * XSDT (or RSDT) at 48, maybe an RSDT after it, then the tables, each
 * 8-byte aligned.  Sizes are worked out first, so img is exact.
 *   byte 0: bit 0 RSDP revision 2 (XSDT); bit 1 an RSDT too; bit 2 spoil the
 *           RSDP's 2.0 part (how: byte 2 bits 0-1); bit 3 point the FADT at
 *           the first DSDT; bit 5 GRUB copied 20 bytes only; bit 6 list the
 *           tables in reverse; bit 7 bad root checksum
 *   byte 1: hostile root entries (bits 0-5), bit 7 the FADT's X_DSDT too
 *   byte 2: bits 0-1 the RSDP spoiling (extended checksum, length 20,
 *           length 200, XSDT address 0); bits 2-3 1-3 stray bytes at the
 *           end of the root; bit 4 the FADT points at the first chunk,
 *           whatever it is; bit 5 the FADT's X_DSDT points nowhere
 */
static void run_built(const u8 *data, size_t size)
{
	static struct chunk c[MAX_CHUNKS];
	u8 f0, f1, f2;
	unsigned n = 0, nr_extra = 0, stray;
	size_t pos = 3, at, root_room, rsdt_at;
	bool v2, both;
	u64 extra[6];

	if (size < 3)
		return;
	f0 = data[0];
	f1 = data[1];
	f2 = data[2];
	v2 = f0 & 1;
	both = f0 & 2;
	stray = (f2 >> 2) & 3;

	/* first pass: where each chunk goes */
	root_room = 36 + 16 * MAX_CHUNKS + 8 * 6 + 8;
	at = ROOT_AT + 2 * root_room;
	while (pos + 4 <= size && n < MAX_CHUNKS) {
		u16 len;

		memcpy(&len, data + pos + 2, 2);
		len = (u16)MIN((size_t)len, size - pos - 4);
		c[n].at = at;
		at += ALIGN_UP(36 + (size_t)len, 8);
		pos += 4 + len;
		n++;
	}
	img_len = at;
	img = calloc(1, img_len);
	CHECK(img != NULL);

	/* second pass: the tables */
	pos = 3;
	for (unsigned k = 0; k < n; k++) {
		u8 kind = data[pos], fl = data[pos + 1];
		u16 len;
		u32 length;
		u8 *t = img + c[k].at;

		memcpy(&len, data + pos + 2, 2);
		len = (u16)MIN((size_t)len, size - pos - 4);
		c[k].sig = kinds[kind % ARRAY_SIZE(kinds)];
		c[k].listed = !(fl & 8);
		c[k].twice = fl & 16;
		c[k].bad = fl & 1;
		memcpy(t + 36, data + pos + 4, len);
		switch ((fl >> 1) & 3) {
		case 0: length = 36 + len; break;
		case 1: length = len % 37; break;			/* shorter than a header */
		case 2: length = 36 + len + 1 + kind % 64; break;	/* past the body */
		default: length = kind & 1 ? 0xffffffffu : 36 + len / 2; break;
		}
		put_header(t, c[k].sig, length, fl >> 5);
		pos += 4 + len;
	}
	/* the FADT points at the first DSDT, or the first chunk */
	if (f0 & 8) {
		int fk = -1, dk = (f2 & 16) ? 0 : -1;

		for (unsigned k = 0; k < n; k++) {
			if (fk < 0 && !strcmp(c[k].sig, "FACP"))
				fk = (int)k;
			if (dk < 0 && !strcmp(c[k].sig, "DSDT"))
				dk = (int)k;
		}
		if (fk >= 0 && dk >= 0) {
			u8 *ft = img + c[fk].at;
			size_t room = img_len - c[fk].at;
			u32 d32 = (u32)(IMG_PHYS + c[dk].at);
			u64 d64 = f2 & 32 ? 0xfffffffffffff000ULL : IMG_PHYS + c[dk].at;

			if (room >= 44)
				memcpy(ft + 40, &d32, 4);
			if (room >= 148 && (f1 & 0x80))
				memcpy(ft + 140, &d64, 8);
		}
	}
	for (unsigned k = 0; k < n; k++)
		seal(img + c[k].at, img_len - c[k].at, c[k].bad);

	/* hostile root entries */
	if (f1 & 1)
		extra[nr_extra++] = 0;
	if (f1 & 2)
		extra[nr_extra++] = IMG_PHYS + img_len - 4;		/* header straddles the end */
	if (f1 & 4)
		extra[nr_extra++] = IMG_PHYS + ROOT_AT;			/* the XSDT (or RSDT) itself */
	if (f1 & 8)
		extra[nr_extra++] = IMG_PHYS + RSDP_AT;			/* the RSDP: no header */
	if (f1 & 16)
		extra[nr_extra++] = v2 ? 0xfffffffffffffff0ULL : 0xfffffff0u;	/* nowhere */
	if (f1 & 32)
		extra[nr_extra++] = IMG_PHYS - 8;			/* just before the image */

	rsdt_at = ROOT_AT + root_room;
	if (v2)
		put_root(ROOT_AT, true, c, n, extra, nr_extra, stray, f0 & 64, f0 & 128);
	if (!v2 || both)
		put_root(v2 ? rsdt_at : ROOT_AT, false, c, n, extra, nr_extra, v2 ? 0 : stray,
			 f0 & 64, !v2 && (f0 & 128));
	put_rsdp(img + RSDP_AT, v2, !v2 ? IMG_PHYS + ROOT_AT : both ? IMG_PHYS + rsdt_at : 0,
		 v2 ? IMG_PHYS + ROOT_AT : 0, f0 & 4 ? 1 + (f2 & 3) : 0);
	run(f0 & 32 ? 20 : 36, v2 ? 15 : 14);
	free(img);
	img = NULL;
}

/* An AML integer (ZeroOp, OneOp, BytePrefix, WordPrefix, DWordPrefix) at p;
 * enc chooses which; returns the bytes written. */
static size_t put_aml_int(u8 *p, u32 v, unsigned enc)
{
	switch (enc & 3) {
	case 0:	if (v <= 1) { p[0] = (u8)v; return 1; }
		/* fall through */
	case 1:	if (v <= 0xff) { p[0] = 0x0a; p[1] = (u8)v; return 2; }
		/* fall through */
	case 2:	if (v <= 0xffff) { p[0] = 0x0b; memcpy(p + 1, &v, 2); return 3; }
		/* fall through */
	default: p[0] = 0x0c; memcpy(p + 1, &v, 4); return 5;
	}
}

/*
 * Mode 3: an RSDT with tables made of 12-byte records, for the parsers
 * that walk subtables: the SRAT, the MADT, the MCFG; and a SLIT, and a
 * FADT with a DSDT that names the memory hotplug device.
 *   header byte 0: bit 0 SRAT revision 1 (8-bit domains); bit 1 a SLIT;
 *          bit 2 a FADT and a DSDT; bits 3-4 how the DSDT encodes its
 *          integers; bit 5 a bad SRAT checksum; bit 6 no SRAT at all
 *   byte 1: the SLIT's locality count (bit 7: a huge count)
 *   bytes 2-3: which SLIT entry to spoil, and its value (if byte 2 != 0)
 *   byte 4: the GPE0 block: bits 0-6 its length, bit 7 near port 0xffff
 *          (and then the PM1a block and the reset register near it too)
 *   byte 3 also: bits 0-3 the \_S5 SLP_TYP in the DSDT
 *   byte 5: a Name MDNR in the DSDT; bytes 6-7: an OperationRegion HPMR
 *          (QEMU's names: memory hotplug must stay off all the same)
 *   record r[0] bits 0-3: 0-3, 14, 15 SRAT memory (40 bytes), 4 processor
 *         (16), 5 x2APIC (24), 6 GICC (18 here: short), 7 generic
 *         initiator (32), 8 MADT local APIC (8), 9 I/O APIC (12),
 *         10 interrupt override (10), 11 local APIC address (12), 12 MADT
 *         type r[1] (16 bytes), 13 MCFG entry (16);
 *         bit 7: length r[1] instead; bit 6: base near 2^64; bit 5: size
 *         in 4 GiB units; bit 4: SRAT type r[1] (unknown types)
 *   SRAT: r[2] proximity domain; r[3] bits 0-2 flags (enabled,
 *         hot-pluggable, non-volatile), bits 3-7 more pxm bits (huge
 *         domains); r[4] base in MiB (u32), r[8] size in MiB (u32);
 *         a processor entry's APIC id is r[4], an x2APIC entry's r[8]
 *         (u32)
 *   MADT, MCFG: r[2..11] are the entry's bytes after type and length
 */
enum { T_SRAT, T_MADT, T_MCFG, T_NONE };

static int rec_table(const u8 *r)
{
	unsigned k = r[0] & 15;

	if (k <= 7 || k >= 14)
		return T_SRAT;
	return k == 13 ? T_MCFG : T_MADT;
}

static u8 rec_len(const u8 *r)
{
	static const u8 lens[16] = { 40, 40, 40, 40, 16, 24, 18, 32, 8, 12, 10, 12, 16, 16, 40, 40 };

	return r[0] & 0x80 ? r[1] : lens[r[0] & 15];
}

static void put_srat_rec(u8 *e, const u8 *r, u8 len)
{
	static const u8 types[8] = { 1, 1, 1, 1, 0, 2, 3, 5 };
	u32 pxm = r[2] | (u32)(r[3] >> 3) << 27, flags = r[3] & 7, mib, smib;
	u64 base, sz;
	unsigned k = r[0] & 15;

	memcpy(&mib, r + 4, 4);
	memcpy(&smib, r + 8, 4);
	base = r[0] & 0x40 ? ~0ULL - ((u64)mib << 12) : (u64)(mib & 0xfffff) << 20;
	sz = r[0] & 0x20 ? (u64)smib << 32 : (u64)(smib & 0xffff) << 20;
	if (len < 2) {		/* a lying length of 0 or 1: no room for more */
		if (len)
			e[0] = 1;
		return;
	}
	e[0] = r[0] & 0x10 ? r[1] : types[k < 8 ? k : 0];
	e[1] = len;
	if (e[0] == 1 && len >= 32) {
		memcpy(e + 2, &pxm, 4);
		memcpy(e + 8, &base, 8);
		memcpy(e + 16, &sz, 8);
		memcpy(e + 28, &flags, 4);
	} else if (e[0] == 2 && len >= 16) {	/* x2APIC affinity: pxm, id, flags */
		memcpy(e + 4, &pxm, 4);
		memcpy(e + 8, r + 8, 4);
		memcpy(e + 12, &flags, 4);
	} else if (len >= 12) {
		e[2] = (u8)pxm;
		e[3] = r[4];
		memcpy(e + 4, &flags, 4);
		memcpy(e + 8, r + 8, 4);
	}
}

static void put_madt_rec(u8 *e, const u8 *r, u8 len)
{
	static const u8 types[5] = { 0, 1, 2, 5, 0 };
	unsigned k = (r[0] & 15) - 8;

	if (len < 2) {
		if (len)
			e[0] = 1;
		return;
	}
	e[0] = k == 4 ? r[1] : types[k];
	e[1] = len;
	memcpy(e + 2, r + 2, MIN((size_t)len, 12u) - MIN((size_t)len, 2u));
}

static void run_records(const u8 *data, size_t size)
{
	size_t nrec, len_of[T_NONE] = { 48, 44, 44 }, slit_len = 0, slit_n = 0;
	size_t at_of[T_NONE], fill[T_NONE], fadt_at = 0, dsdt_at = 0, dsdt_len = 0, slit_at = 0;
	u32 entries[6];
	unsigned nr_entries = 0;
	u64 count;
	u8 f0;

	if (size < 8)
		return;
	f0 = data[0];
	nrec = MIN((size - 8) / 12, 200u);
	for (size_t i = 0; i < nrec; i++) {
		const u8 *r = data + 8 + 12 * i;

		len_of[rec_table(r)] += rec_len(r);
	}
	count = data[1] & 0x80 ? (u64)data[1] << 33 : data[1] & 0x1f;
	if (f0 & 2) {
		slit_n = (size_t)MIN(count, 16u);
		slit_len = 44 + slit_n * slit_n;
	}
	img_len = 48 + 36 + 4 * 6;
	for (int k = 0; k < T_NONE; k++) {
		at_of[k] = fill[k] = img_len;
		fill[k] += k == T_SRAT ? 48 : 44;
		img_len += ALIGN_UP(len_of[k], 8);
	}
	slit_at = img_len;
	img_len += ALIGN_UP(slit_len, 8);
	if (f0 & 4) {
		fadt_at = img_len;
		img_len += 244;		/* a revision 3 FADT, as q35's */
		dsdt_at = img_len;
		dsdt_len = 36 + 7 + 5 + 7 + 5 + 5 + 8 + 5;
		img_len += dsdt_len;
	}
	img = calloc(1, img_len);
	CHECK(img != NULL);

	for (size_t i = 0; i < nrec; i++) {
		const u8 *r = data + 8 + 12 * i;
		int k = rec_table(r);
		u8 len = rec_len(r);

		if (k == T_SRAT)
			put_srat_rec(img + fill[k], r, len);
		else if (k == T_MADT)
			put_madt_rec(img + fill[k], r, len);
		else
			memcpy(img + fill[k], r + 2, MIN((size_t)len, 10u));
		fill[k] += len;
	}
	if (!(f0 & 64)) {
		put_header(img + at_of[T_SRAT], "SRAT", (u32)len_of[T_SRAT], f0 & 1 ? 1 : 3);
		seal(img + at_of[T_SRAT], len_of[T_SRAT], f0 & 32);
		entries[nr_entries++] = (u32)(IMG_PHYS + at_of[T_SRAT]);
	}
	if (len_of[T_MADT] > 44) {
		u32 lapic = 0xfee00000, pcat = 1;

		put_header(img + at_of[T_MADT], "APIC", (u32)len_of[T_MADT], 3);
		memcpy(img + at_of[T_MADT] + 36, &lapic, 4);
		memcpy(img + at_of[T_MADT] + 40, &pcat, 4);
		seal(img + at_of[T_MADT], len_of[T_MADT], false);
		entries[nr_entries++] = (u32)(IMG_PHYS + at_of[T_MADT]);
	}
	if (len_of[T_MCFG] > 44) {
		put_header(img + at_of[T_MCFG], "MCFG", (u32)len_of[T_MCFG], 1);
		seal(img + at_of[T_MCFG], len_of[T_MCFG], false);
		entries[nr_entries++] = (u32)(IMG_PHYS + at_of[T_MCFG]);
	}
	if (slit_len) {
		u8 *s = img + slit_at;

		put_header(s, "SLIT", (u32)slit_len, 1);
		memcpy(s + 36, &count, 8);
		for (size_t a = 0; a < slit_n; a++)
			for (size_t b = 0; b < slit_n; b++)
				s[44 + a * slit_n + b] = a == b ? 10 : (u8)(20 + a + b);
		if (data[2] && slit_n)
			s[44 + data[2] % (slit_n * slit_n)] = data[3];
		seal(s, slit_len, false);
		entries[nr_entries++] = (u32)(IMG_PHYS + slit_at);
	}
	if (f0 & 4) {
		u8 *ft = img + fadt_at, *d = img + dsdt_at, *aml = d + 36;
		u32 dsdt = (u32)(IMG_PHYS + dsdt_at), gpe0 = data[4] & 0x80 ? 0xffc0u : 0x620;
		u16 sci = 9, port;
		unsigned enc = (f0 >> 3) & 3;

		put_header(ft, "FACP", 244, 3);
		memcpy(ft + 40, &dsdt, 4);
		memcpy(ft + 46, &sci, 2);
		memcpy(ft + 80, &gpe0, 4);
		{	/* PM1a_CNT and the reset register (I/O, RESET_REG_SUP) */
			u32 pm1a = data[4] & 0x80 ? 0xfffc + (data[6] & 7) : 0x604;
			u32 flags = 1u << 10;
			u64 reset = data[4] & 0x80 ? 0xfffe + (data[7] & 3) : 0xcf9;

			memcpy(ft + 64, &pm1a, 4);
			memcpy(ft + 112, &flags, 4);
			ft[116] = 1;
			ft[117] = 8;
			memcpy(ft + 120, &reset, 8);
			ft[128] = 0x0f;
		}
		ft[92] = data[4] & 0x7f;
		seal(ft, 244, false);
		entries[nr_entries++] = (u32)(IMG_PHYS + fadt_at);

		memcpy(&port, data + 6, 2);
		aml[0] = 0x08;				/* Name (MDNR, slots) */
		memcpy(aml + 1, "MDNR", 4);
		aml += 5 + put_aml_int(aml + 5, data[5], enc);
		aml[0] = 0x5b;				/* OperationRegion (HPMR, */
		aml[1] = 0x80;
		memcpy(aml + 2, "HPMR", 4);
		aml[6] = 0x01;				/*   SystemIO, port, 0x18) */
		aml += 7;
		aml += put_aml_int(aml, port, enc + 1);
		aml += put_aml_int(aml, 0x18, enc);
		memcpy(aml, "\x08_S5_\x12\x06\x04", 8);	/* Name (_S5, Package (4) { */
		aml += 8;
		aml += put_aml_int(aml, data[3] & 15, enc);	/*   SLP_TYP, ... }) */
		put_header(d, "DSDT", (u32)(aml - d), 1);
		seal(d, (size_t)(aml - d), false);
	}
	put_header(img + 48, "RSDT", 36 + 4 * nr_entries, 1);
	memcpy(img + 48 + 36, entries, 4 * nr_entries);
	seal(img + 48, 36 + 4 * nr_entries, false);
	put_rsdp(img, false, IMG_PHYS + 48, 0, 0);
	run(20, 14);
	free(img);
	img = NULL;
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	printk_set_level(-1);	/* the messages are formatted, not printed */
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > IMG_MAX)
		return 0;

	/* 1. raw */
	img_len = size - 1;
	img = malloc(img_len ? img_len : 1);
	CHECK(img != NULL);
	memcpy(img, data + 1, img_len);
	run(data[0] & 2 ? data[0] >> 2 : 36, data[0] & 1 ? 15 : 14);
	free(img);
	img = NULL;

	/* 2. built */
	run_built(data, size);

	/* 3. records */
	run_records(data, size);
	return 0;
}
