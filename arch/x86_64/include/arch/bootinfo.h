/*
 * bootinfo.h - what the boot loader told us, in boot-protocol-neutral form.
 *
 * arch/x86_64/multiboot2.c fills struct boot_info from the multiboot2
 * information structure before anything else runs; from then on nobody looks
 * at multiboot2 tags again.  Strings are copied and NUL-terminated (cut at
 * the buffer size, with `cmdline_truncated` set).
 */
#ifndef ARCH_BOOTINFO_H
#define ARCH_BOOTINFO_H

#include <lib/types.h>
#include <lib/fw_memmap.h>

#define BOOT_CMDLINE_MAX	1024	/* bytes, NUL included */
#define BOOT_LOADER_MAX		80	/* bytes, NUL included */
#define BOOT_RSDP_MAX		64	/* bytes of RSDP copied */
#define BOOT_NOTES		8	/* notes about the tag walk kept; later ones counted */

/* What the framebuffer tag (8) described, once multiboot2.c has checked it. */
enum boot_fb_type {
	BOOT_FB_NONE = 0,	/* no usable framebuffer (none given, or refused) */
	BOOT_FB_RGB,		/* linear framebuffer, direct colour (multiboot2 type 1) */
	BOOT_FB_EGA_TEXT,	/* EGA text mode: 16-bit cells, char + attribute (type 2) */
};

struct boot_framebuffer {
	enum boot_fb_type type;
	phys_addr_t addr;	/* physical address of the first pixel or cell */
	u32 pitch;		/* bytes from one row (of pixels, or of cells) to the next */
	u32 width, height;	/* pixels; characters for EGA text */
	u8 bpp;			/* bits per pixel: 16, 24 or 32 (16 for EGA text) */
	u8 red_pos, red_size;	/* RGB only: bit position and width of each colour */
	u8 green_pos, green_size;
	u8 blue_pos, blue_size;
};

/* Limits the framebuffer check applies (see multiboot2.c, check_framebuffer). */
#define BOOT_FB_MAX_DIM		16384		/* pixels, each way */
#define BOOT_FB_MAX_BYTES	(256ULL << 20)	/* pitch * height */
#define BOOT_FB_TEXT_MAX_DIM	255		/* characters, each way (EGA text) */

struct boot_info {
	char cmdline[BOOT_CMDLINE_MAX];		/* kernel command line */
	bool cmdline_truncated;			/* cmdline was cut */
	char loader_name[BOOT_LOADER_MAX];	/* "GRUB 2.06-13+deb12u1" */
	u8 rsdp[BOOT_RSDP_MAX];			/* copy of the ACPI RSDP */
	u32 rsdp_len;				/* bytes valid in rsdp[], 0 if none */
	u32 rsdp_tag;				/* 14 (ACPI 1.0) or 15 (ACPI 2.0+), 0 if none */
	phys_addr_t mbi_start, mbi_end;		/* the multiboot2 info block [start, end) */
	struct fw_memmap memmap;		/* firmware memory map */
	u32 memmap_tag;				/* 6 (e820-style), 17 (EFI), 4 (basic meminfo), 0 */
	u32 nr_efi_descs;			/* EFI memory descriptors read (tag 17) */
	u64 efi_systab;				/* EFI system table, physical; 0 if none */
	u32 efi_systab_tag;			/* 11 (32-bit EFI) or 12 (64-bit EFI), 0 if none */
	bool efi_boot_services;			/* tag 18: boot services were not exited */
	struct boot_framebuffer fb;		/* the screen; fb.type BOOT_FB_NONE if none */
	u32 nr_tags;				/* tags seen */
	u32 nr_unknown_tags;			/* tags skipped as unknown */
	char notes[BOOT_NOTES][FW_NOTE_LEN];	/* what was odd in the block, in words */
	u32 nr_notes;				/* notes made, may exceed BOOT_NOTES */
};

/* The boot information; filled once by the boot code, read-only afterwards. */
extern struct boot_info boot_info;

/*
 * multiboot2_parse() - fill bi from the multiboot2 information block at mbi
 * (a virtual address) of at most max_len bytes (its own total_size is also
 * checked).  Tolerates unknown tags, bad sizes (stops at the first tag that
 * would run past the end) and a missing memory map (falling back to the
 * basic meminfo tag); what was odd is recorded in bi->notes.  An EFI
 * memory map (tag 17) replaces the e820-style one (tag 6), its types named
 * as the e820 kinds Linux gives them.  A framebuffer tag (8) is checked
 * (pitch, size, depth, colour fields, address) and kept in bi->fb only when
 * it can be drawn on safely; otherwise a note says why it was refused.  The memory map
 * is recorded raw and then sanitized (fw_memmap_sanitize), so bi->memmap.map
 * is ready to use.  mbi_phys is the block's physical address, kept in
 * bi->mbi_start/mbi_end so the block can be reserved.  Touches nothing but
 * *bi and reads nothing outside mbi[0, max_len).
 * Returns 0, or -EINVAL if the block header itself is unusable.
 * Context: early boot, before any allocator; portable (host tests, fuzzer).
 */
int multiboot2_parse(struct boot_info *bi, const void *mbi, size_t max_len,
		     phys_addr_t mbi_phys);

/* cmdline_get() - value of "key=value" in the command line into buf; 0 or -ENOENT.
 * A bare "key" gives "".  The last occurrence wins, as in Linux.
 * Double quotes group spaces into a value and are removed (c="x y" gives
 * "x y"); '-' and '_' match each other in keys; a bare "--" ends the kernel's
 * parameters, as in Linux.  A value cut to fit buf returns -EOVERFLOW (buf
 * still holds the cut value, NUL-terminated); size 0 only tests presence;
 * an empty key gives -EINVAL.  Context: any; reads cmdline only. */
int cmdline_get(const char *cmdline, const char *key, char *buf, size_t size);

#endif
