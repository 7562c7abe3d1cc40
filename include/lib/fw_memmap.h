/*
 * fw_memmap.h - the firmware memory map, as given and as cleaned up.
 *
 * The boot code (multiboot2 today) records each firmware entry as it came
 * (fw_memmap_add_raw), then fw_memmap_sanitize() produces the map the rest
 * of memlab trusts: sorted by address, no overlaps (the more restrictive
 * type wins each byte), no zero-length entries, nothing at or above 2^52,
 * RAM trimmed inward to whole 4 KiB pages (the cut-off bytes become holes),
 * adjacent entries of one type merged.  Every change it makes is recorded as
 * a note in words ("trimmed RAM [0x0-0x9fc00) to [0x0-0x9f000): not page
 * aligned"), so the `memmap` shell command can show what was changed and why.
 *
 * Ranges are half-open: [start, end).  Types use the e820/multiboot2
 * numbering.  The structure is plain data, filled once at boot; nothing here
 * allocates, so it is safe before any allocator exists.
 */
#ifndef LIB_FW_MEMMAP_H
#define LIB_FW_MEMMAP_H

#include <lib/types.h>
#include <lib/printer.h>

#define FW_MEMMAP_MAX	128	/* entries kept, raw and sanitized each */
#define FW_MEMMAP_NOTES	32	/* notes kept; later ones are counted only */
#define FW_NOTE_LEN	160	/* bytes in one note, NUL included */

enum fw_mem_type {
	FW_MEM_RAM = 1,		/* usable RAM ("System RAM") */
	FW_MEM_RESERVED = 2,	/* reserved by firmware */
	FW_MEM_ACPI = 3,	/* ACPI tables, reclaimable after parsing */
	FW_MEM_NVS = 4,		/* ACPI non-volatile storage */
	FW_MEM_BAD = 5,		/* defective RAM */
	FW_MEM_PMEM = 7,	/* persistent memory ("Persistent Memory") */
	FW_MEM_PRAM = 12,	/* pre-ACPI persistent memory ("Persistent Memory (legacy)") */
	FW_MEM_SOFT_RESERVED = 0xefffffff, /* EFI specific-purpose memory ("Soft Reserved") */
};

/* x86_64 physical addresses have at most 52 bits; sanitize clips above. */
#define FW_PHYS_ADDR_BITS	52
#define FW_PHYS_LIMIT		(1ULL << FW_PHYS_ADDR_BITS)

struct fw_range {
	u64 start;		/* first byte */
	u64 end;		/* one past the last byte */
	u32 type;		/* enum fw_mem_type, or another firmware value */
};

struct fw_memmap {
	struct fw_range raw[FW_MEMMAP_MAX];	/* as the firmware gave them */
	u32 nr_raw;				/* entries in raw[] */
	u32 nr_raw_dropped;			/* entries that did not fit in raw[] */
	struct fw_range map[FW_MEMMAP_MAX];	/* sanitized, sorted */
	u32 nr;					/* entries in map[] */
	u32 nr_dropped;				/* sanitized ranges that did not fit in map[] */
	char notes[FW_MEMMAP_NOTES][FW_NOTE_LEN]; /* what sanitize changed */
	u32 nr_notes;				/* notes made, may exceed FW_MEMMAP_NOTES */
};

/* EFI memory descriptor attribute bits fw_mem_type_from_efi() looks at. */
#define FW_EFI_MEMORY_WB	(1ULL << 3)	/* write-back cacheable */
#define FW_EFI_MEMORY_SP	(1ULL << 18)	/* specific-purpose ("soft reserved") */

/*
 * fw_mem_type_from_efi() - the e820 kind of an EFI memory descriptor of
 * efi_type (EFI_MEMORY_TYPE: 0 reserved ... 14 persistent, 15 unaccepted)
 * with attribute attr, as Linux folds the EFI map into its e820 table:
 * loader and boot services code/data and conventional memory are System RAM
 * (boot services are gone once the loader exits them), specific-purpose
 * conventional memory is Soft Reserved, RAM that is not write-back
 * cacheable is Reserved, ACPI reclaim and NVS keep their ACPI kinds,
 * unusable is Unusable, persistent is Persistent Memory, and everything
 * else (runtime services, MMIO, PAL code, unknown) is Reserved.
 * Context: any; pure.
 */
u32 fw_mem_type_from_efi(u32 efi_type, u64 attr);

/* fw_memmap_init() - empty m. */
void fw_memmap_init(struct fw_memmap *m);

/*
 * fw_memmap_add_raw() - record one firmware entry of len bytes at start.
 * Any values are accepted (zero length, wrap-around, unknown types): they are
 * dealt with, and noted, by fw_memmap_sanitize().
 */
void fw_memmap_add_raw(struct fw_memmap *m, u64 start, u64 len, u32 type);

/*
 * fw_memmap_sanitize() - rebuild m->map (and nr_dropped, notes) from m->raw;
 * see the top comment and lib/fw_memmap.c for the overlap rule.  Starts
 * from scratch, so calling it again is harmless.
 * Context: any; no locks, no allocation, 2 KiB of stack.
 */
void fw_memmap_sanitize(struct fw_memmap *m);

/*
 * fw_memmap_retype() - in the sanitized map, the bytes of [start, end) that
 * are of type `from` become type `to`, or a hole when to == 0; a note says
 * so with `why`.  The architecture uses it for what its kernel does to the
 * firmware's map (x86: page 0 is the BIOS's, 640 KiB-1 MiB is never RAM).
 */
void fw_memmap_retype(struct fw_memmap *m, u64 start, u64 end, u32 from, u32 to,
		      const char *why);

/* fw_mem_type_name() - "System RAM", "Reserved", "ACPI Tables", ... as /proc/iomem. */
const char *fw_mem_type_name(u32 type);

/* fw_memmap_ram_bytes() - total bytes of FW_MEM_RAM in m->map. */
u64 fw_memmap_ram_bytes(const struct fw_memmap *m);

/* fw_memmap_dump() - raw entries, sanitized map and notes, for `memmap`.
 * Context: any; reads m only. */
void fw_memmap_dump(const struct fw_memmap *m, struct printer *p);

/* A range printed nested under the map entry that contains it in /proc/iomem. */
struct fw_iomem_child {
	u64 start;		/* first byte */
	u64 end;		/* one past the last byte; start == end: not printed */
	const char *name;	/* "Kernel code" */
};

/*
 * fw_memmap_print_iomem() - m->map in the format of Linux's /proc/iomem:
 * "%08llx-%08llx : %s" (lowercase hex, at least 8 digits, end inclusive),
 * one line per sanitized range, each followed by the children[] that lie
 * wholly inside it, indented by two spaces, in array order.  Children that
 * fit in no range are not printed.  Portable: views/iomem.c passes the
 * kernel image sections, the host tests pass fixtures.
 */
void fw_memmap_print_iomem(const struct fw_memmap *m,
			   const struct fw_iomem_child *children,
			   size_t nr_children, struct printer *p);

#endif
