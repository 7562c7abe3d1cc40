/*
 * multiboot2.c - read the multiboot2 information block into struct boot_info.
 *
 * GRUB leaves a block in memory and its physical address in %ebx.  The block
 * is a header of two u32 (total_size, reserved) followed by tags, each
 * starting on an 8-byte boundary with a u32 type and a u32 size (the size
 * counts the 8-byte tag header but not the padding after the tag).  A tag of
 * type 0 ends the list.  The tags memlab reads:
 *
 *    1  command line, NUL-terminated string
 *    2  boot loader name, NUL-terminated string
 *    4  basic meminfo: u32 mem_lower (KiB from 0), u32 mem_upper (KiB from 1 MiB)
 *    6  memory map: u32 entry_size, u32 entry_version, then entries of
 *       u64 base, u64 length, u32 type, u32 reserved, entry_size bytes apart
 *    8  framebuffer: u64 addr, u32 pitch, u32 width, u32 height, u8 bpp,
 *       u8 type (0 indexed, 1 RGB, 2 EGA text), u16 reserved, then for RGB
 *       u8 red position, red size, green position, green size, blue ...
 *   11  EFI 32-bit system table pointer (u32)
 *   12  EFI 64-bit system table pointer (u64)
 *   14  ACPI 1.0 RSDP (20 bytes, RSDT only), as SeaBIOS gives it
 *   15  ACPI 2.0+ RSDP (36 bytes, with the XSDT); preferred when both are there
 *   17  EFI memory map: u32 descriptor_size, u32 descriptor_version, then
 *       EFI_MEMORY_DESCRIPTORs (u32 type, u32 pad, u64 physical start,
 *       u64 virtual start, u64 number of 4 KiB pages, u64 attribute),
 *       descriptor_size bytes apart; replaces tag 6 whichever comes first
 *   18  EFI boot services not terminated (noted: memlab never asks for it)
 *
 * Everything else the specification defines (types 3 to 21) is skipped;
 * types above 21 are counted in nr_unknown_tags.
 *
 * The parser trusts nothing: a block can be cut short, or be garbage (the
 * fuzzer in tests/fuzz feeds it arbitrary bytes).  It reads nothing outside
 * [mbi, mbi + min(max_len, total_size)), stops the walk at a tag whose size is
 * below 8 or runs past the end, and reads fields with memcpy, so neither the
 * block nor a tag needs to be aligned.  Whatever it had to step over is noted
 * in words in bi->notes.  No asm and no kernel-only calls, so the host tests
 * compile this file unchanged.
 */
#include <arch/bootinfo.h>
#include <lib/errno.h>
#include <lib/fw_memmap.h>
#include <lib/printer.h>
#include <lib/string.h>

#define MB2_TAG_END		0
#define MB2_TAG_CMDLINE		1
#define MB2_TAG_LOADER_NAME	2
#define MB2_TAG_BASIC_MEMINFO	4
#define MB2_TAG_MMAP		6
#define MB2_TAG_FRAMEBUFFER	8
#define MB2_TAG_EFI32		11
#define MB2_TAG_EFI64		12
#define MB2_TAG_ACPI_OLD	14
#define MB2_TAG_ACPI_NEW	15
#define MB2_TAG_EFI_MMAP	17
#define MB2_TAG_EFI_BS		18
#define MB2_TAG_LAST_KNOWN	21	/* load base address, the last defined type */

#define MB2_HEADER_SIZE		8	/* total_size, reserved */
#define MB2_TAG_HEADER_SIZE	8	/* type, size */
#define MB2_MMAP_HEADER_SIZE	16	/* tag header, entry_size, entry_version */
#define MB2_MMAP_ENTRY_MIN	24	/* base, length, type, reserved */
#define MB2_MEMINFO_SIZE	16	/* tag header, mem_lower, mem_upper */
#define MB2_EFI_MMAP_HEADER	16	/* tag header, descriptor size, version */
#define MB2_EFI_DESC_MIN	40	/* type, pad, phys, virt, pages, attribute */
#define MB2_FB_COMMON_SIZE	32	/* tag header .. reserved */
#define MB2_FB_RGB_SIZE		38	/* common part + six colour field bytes */

struct boot_info boot_info;

/* What the walk has seen so far, for the decisions taken after it. */
struct mb2_walk {
	bool have_mmap;		/* a usable memory map tag was read */
	bool have_efi_mmap;	/* ... and it was the EFI one (tag 17) */
	bool have_meminfo;	/* a basic meminfo tag was read */
	u32 mem_lower_kib;	/* from the basic meminfo tag */
	u32 mem_upper_kib;	/* from the basic meminfo tag */
};

static u32 get_u32(const u8 *p)
{
	u32 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static u64 get_u64(const u8 *p)
{
	u64 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/* Record a note about the block; past BOOT_NOTES notes are only counted. */
static void __printf(2, 3) boot_note(struct boot_info *bi, const char *fmt, ...)
{
	va_list ap;

	if (bi->nr_notes < BOOT_NOTES) {
		va_start(ap, fmt);
		kvsnprintf(bi->notes[bi->nr_notes], FW_NOTE_LEN, fmt, ap);
		va_end(ap);
	}
	bi->nr_notes++;
}

/*
 * Copy the string in src[0, len) into dst[0, size): up to the first NUL, or
 * all len bytes when the tag forgot its NUL.  Returns true when it was cut.
 */
static bool copy_tag_string(char *dst, size_t size, const u8 *src, size_t len)
{
	size_t n = 0;

	while (n < len && src[n] != '\0')
		n++;
	if (n >= size) {
		memcpy(dst, src, size - 1);
		dst[size - 1] = '\0';
		return true;
	}
	memcpy(dst, src, n);
	dst[n] = '\0';
	return false;
}

/*
 * Tag 6: add every whole entry to bi->memmap.raw.  Only the first tag with
 * at least one entry counts.  tag[0, size) is in bounds.
 */
static void parse_mmap(struct boot_info *bi, struct mb2_walk *w,
		       const u8 *tag, u32 size)
{
	u32 entry_size, entry_version, nr, rest;

	if (w->have_mmap) {
		boot_note(bi, "memory map tag: a second one was ignored");
		return;
	}
	if (size < MB2_MMAP_HEADER_SIZE) {
		boot_note(bi, "memory map tag: size %u is too small for its header; ignored",
			  size);
		return;
	}
	entry_size = get_u32(tag + 8);
	entry_version = get_u32(tag + 12);
	if (entry_size < MB2_MMAP_ENTRY_MIN) {
		boot_note(bi, "memory map tag: entry_size %u is below %d; ignored",
			  entry_size, MB2_MMAP_ENTRY_MIN);
		return;
	}
	if (entry_version != 0)
		boot_note(bi, "memory map tag: entry_version %u, read as version 0",
			  entry_version);

	nr = (size - MB2_MMAP_HEADER_SIZE) / entry_size;
	rest = (size - MB2_MMAP_HEADER_SIZE) % entry_size;
	if (rest)
		boot_note(bi, "memory map tag: %u bytes after the last whole entry ignored",
			  rest);
	if (nr == 0) {
		boot_note(bi, "memory map tag: no entries");
		return;
	}
	for (u32 i = 0; i < nr; i++) {
		const u8 *e = tag + MB2_MMAP_HEADER_SIZE + (size_t)i * entry_size;

		fw_memmap_add_raw(&bi->memmap, get_u64(e), get_u64(e + 8),
				  get_u32(e + 16));
	}
	bi->memmap_tag = MB2_TAG_MMAP;
	w->have_mmap = true;
}

/* Tags 14 and 15: keep a copy of the RSDP; 15 replaces 14, never the reverse. */
static void parse_rsdp(struct boot_info *bi, u32 type, const u8 *tag, u32 size)
{
	u32 len = size - MB2_TAG_HEADER_SIZE;

	if (type == MB2_TAG_ACPI_OLD && bi->rsdp_tag == MB2_TAG_ACPI_NEW)
		return;
	if (len < 20)
		boot_note(bi, "ACPI RSDP tag %u: %u bytes, shorter than an RSDP (20)",
			  type, len);
	if (len > BOOT_RSDP_MAX) {
		boot_note(bi, "ACPI RSDP tag %u: %u bytes, kept the first %d",
			  type, len, BOOT_RSDP_MAX);
		len = BOOT_RSDP_MAX;
	}
	memset(bi->rsdp, 0, sizeof(bi->rsdp));
	memcpy(bi->rsdp, tag + MB2_TAG_HEADER_SIZE, len);
	bi->rsdp_len = len;
	bi->rsdp_tag = type;
}

/*
 * Tag 17: the EFI memory map.  It replaces a tag 6 map read before it (GRUB
 * derives tag 6 from this one, losing the EFI types), and a tag 6 after it
 * is ignored.  Consecutive descriptors of one e820 kind that touch are
 * merged as they are added, so OVMF's map (over a hundred descriptors, most
 * of them boot services pieces) fits in fw_memmap's raw table.  A page count
 * whose byte length does not fit in 64 bits is passed on as a range that
 * wraps, which fw_memmap_sanitize() clips and notes.  tag[0, size) is in
 * bounds.
 */
static void parse_efi_mmap(struct boot_info *bi, struct mb2_walk *w,
			   const u8 *tag, u32 size)
{
	u32 desc_size, nr, rest;
	bool have_last = false;
	u64 last_start = 0, last_end = 0;
	u32 last_type = 0;

	if (w->have_efi_mmap) {
		boot_note(bi, "EFI memory map tag: a second one was ignored");
		return;
	}
	if (size < MB2_EFI_MMAP_HEADER) {
		boot_note(bi, "EFI memory map tag: size %u is too small for its header; ignored",
			  size);
		return;
	}
	desc_size = get_u32(tag + 8);
	if (desc_size < MB2_EFI_DESC_MIN) {
		boot_note(bi, "EFI memory map tag: descriptor size %u is below %d; ignored",
			  desc_size, MB2_EFI_DESC_MIN);
		return;
	}
	nr = (size - MB2_EFI_MMAP_HEADER) / desc_size;
	rest = (size - MB2_EFI_MMAP_HEADER) % desc_size;
	if (nr == 0) {
		boot_note(bi, "EFI memory map tag: no descriptors; ignored");
		return;
	}
	if (rest)
		boot_note(bi, "EFI memory map tag: %u bytes after the last whole descriptor ignored",
			  rest);
	if (w->have_mmap)
		fw_memmap_init(&bi->memmap);	/* tag 6 came first: EFI's is better */

	for (u32 i = 0; i < nr; i++) {
		const u8 *d = tag + MB2_EFI_MMAP_HEADER + (size_t)i * desc_size;
		u64 start = get_u64(d + 8), pages = get_u64(d + 24);
		u32 type = fw_mem_type_from_efi(get_u32(d), get_u64(d + 32));
		u64 len = pages > (~0ULL >> 12) ? ~0ULL : pages << 12;
		u64 end = start + len;

		if (have_last && type == last_type && start == last_end &&
		    end > start) {
			last_end = end;
			continue;
		}
		if (have_last)
			fw_memmap_add_raw(&bi->memmap, last_start,
					  last_end - last_start, last_type);
		last_start = start;
		last_end = end;
		last_type = type;
		have_last = true;
	}
	fw_memmap_add_raw(&bi->memmap, last_start, last_end - last_start, last_type);
	bi->nr_efi_descs = nr;
	bi->memmap_tag = MB2_TAG_EFI_MMAP;
	w->have_mmap = true;
	w->have_efi_mmap = true;
}

/* Tags 11 and 12: the EFI system table's physical address; 12 wins. */
static void parse_efi_systab(struct boot_info *bi, u32 type, const u8 *tag,
			     u32 size)
{
	u32 need = MB2_TAG_HEADER_SIZE + (type == MB2_TAG_EFI64 ? 8 : 4);

	if (size < need) {
		boot_note(bi, "EFI system table tag %u: size %u, below %u; ignored",
			  type, size, need);
		return;
	}
	if (type == MB2_TAG_EFI32 && bi->efi_systab_tag == MB2_TAG_EFI64)
		return;
	bi->efi_systab = type == MB2_TAG_EFI64 ? get_u64(tag + 8) : get_u32(tag + 8);
	bi->efi_systab_tag = type;
}

/* Refuse the framebuffer with a note saying why; fb stays BOOT_FB_NONE. */
#define fb_refuse(bi, fmt, ...) \
	boot_note(bi, "framebuffer tag refused, no screen console: " fmt, ##__VA_ARGS__)

/* Is a colour field of size bits at bit pos inside a bpp-bit pixel? */
static bool fb_field_ok(u8 pos, u8 size, u8 bpp)
{
	return size >= 1 && size <= 8 && (u32)pos + size <= bpp;
}

/*
 * Tag 8: check everything the screen console will trust before keeping it
 * (a tag of zeros, what GRUB gives when it found no video, is no screen and
 * no note):
 * a known type, a depth it can draw, sizes that fit the pitch and an area of
 * at most BOOT_FB_MAX_BYTES, an address range that neither is zero nor
 * wraps nor leaves the physical address space, and colour fields inside the
 * pixel.  tag[0, size) is in bounds.
 */
static void parse_framebuffer(struct boot_info *bi, const u8 *tag, u32 size)
{
	struct boot_framebuffer fb = { 0 };
	u8 mb2_type;
	u64 bytes;

	if (size < MB2_FB_COMMON_SIZE) {
		fb_refuse(bi, "size %u, below %d", size, MB2_FB_COMMON_SIZE);
		return;
	}
	fb.addr = get_u64(tag + 8);
	fb.pitch = get_u32(tag + 16);
	fb.width = get_u32(tag + 20);
	fb.height = get_u32(tag + 24);
	fb.bpp = tag[28];
	mb2_type = tag[29];

	/* GRUB under BIOS with no video adapter fills the tag with zeros: no screen. */
	if (fb.addr == 0 && fb.width == 0 && fb.height == 0)
		return;

	if (mb2_type == 1) {
		if (size < MB2_FB_RGB_SIZE) {
			fb_refuse(bi, "RGB tag of %u bytes, below %d", size, MB2_FB_RGB_SIZE);
			return;
		}
		fb.type = BOOT_FB_RGB;
		fb.red_pos = tag[32];
		fb.red_size = tag[33];
		fb.green_pos = tag[34];
		fb.green_size = tag[35];
		fb.blue_pos = tag[36];
		fb.blue_size = tag[37];
		if (fb.bpp != 16 && fb.bpp != 24 && fb.bpp != 32) {
			fb_refuse(bi, "%u bits per pixel (16, 24 or 32 drawn)", fb.bpp);
			return;
		}
		if (fb.width < 8 || fb.height < 16 || fb.width > BOOT_FB_MAX_DIM ||
		    fb.height > BOOT_FB_MAX_DIM) {
			fb_refuse(bi, "%ux%u pixels (8x16 to %dx%d drawn)", fb.width,
				  fb.height, BOOT_FB_MAX_DIM, BOOT_FB_MAX_DIM);
			return;
		}
		if (!fb_field_ok(fb.red_pos, fb.red_size, fb.bpp) ||
		    !fb_field_ok(fb.green_pos, fb.green_size, fb.bpp) ||
		    !fb_field_ok(fb.blue_pos, fb.blue_size, fb.bpp)) {
			fb_refuse(bi, "colour fields r %u:%u g %u:%u b %u:%u do not fit a %u-bit pixel",
				  fb.red_pos, fb.red_size, fb.green_pos, fb.green_size,
				  fb.blue_pos, fb.blue_size, fb.bpp);
			return;
		}
		if ((u64)fb.pitch < (u64)fb.width * (fb.bpp / 8)) {
			fb_refuse(bi, "pitch %u below %u pixels of %u bytes", fb.pitch,
				  fb.width, fb.bpp / 8);
			return;
		}
	} else if (mb2_type == 2) {
		fb.type = BOOT_FB_EGA_TEXT;
		if (fb.width < 1 || fb.height < 1 || fb.width > BOOT_FB_TEXT_MAX_DIM ||
		    fb.height > BOOT_FB_TEXT_MAX_DIM) {
			fb_refuse(bi, "EGA text %ux%u characters (1 to %d each way)",
				  fb.width, fb.height, BOOT_FB_TEXT_MAX_DIM);
			return;
		}
		if (fb.bpp != 16 || (u64)fb.pitch < (u64)fb.width * 2) {
			fb_refuse(bi, "EGA text with %u bits per cell, pitch %u for %u columns",
				  fb.bpp, fb.pitch, fb.width);
			return;
		}
	} else {
		fb_refuse(bi, "type %u (%s)", mb2_type,
			  mb2_type == 0 ? "indexed colour is not drawn" : "unknown");
		return;
	}
	bytes = (u64)fb.pitch * fb.height;
	if (bytes > BOOT_FB_MAX_BYTES) {
		fb_refuse(bi, "pitch %u x %u rows is %llu bytes, above %llu", fb.pitch,
			  fb.height, (unsigned long long)bytes,
			  (unsigned long long)BOOT_FB_MAX_BYTES);
		return;
	}
	if (fb.addr == 0 || fb.addr + bytes < fb.addr || fb.addr + bytes > FW_PHYS_LIMIT) {
		fb_refuse(bi, "address 0x%llx with %llu bytes is outside physical memory",
			  (unsigned long long)fb.addr, (unsigned long long)bytes);
		return;
	}
	bi->fb = fb;
}

/* One tag; tag[0, size) is in bounds and size >= 8. */
static void parse_tag(struct boot_info *bi, struct mb2_walk *w,
		      const u8 *tag, u32 type, u32 size)
{
	const u8 *payload = tag + MB2_TAG_HEADER_SIZE;
	u32 len = size - MB2_TAG_HEADER_SIZE;

	switch (type) {
	case MB2_TAG_CMDLINE:
		bi->cmdline_truncated = copy_tag_string(bi->cmdline,
							sizeof(bi->cmdline),
							payload, len);
		if (bi->cmdline_truncated)
			boot_note(bi, "command line cut to %d bytes",
				  BOOT_CMDLINE_MAX - 1);
		break;
	case MB2_TAG_LOADER_NAME:
		copy_tag_string(bi->loader_name, sizeof(bi->loader_name),
				payload, len);
		break;
	case MB2_TAG_BASIC_MEMINFO:
		if (size < MB2_MEMINFO_SIZE) {
			boot_note(bi, "basic meminfo tag: size %u is too small; ignored",
				  size);
			break;
		}
		w->mem_lower_kib = get_u32(tag + 8);
		w->mem_upper_kib = get_u32(tag + 12);
		w->have_meminfo = true;
		break;
	case MB2_TAG_MMAP:
		if (w->have_efi_mmap) {
			boot_note(bi, "memory map tag 6 after the EFI memory map: ignored");
			break;
		}
		parse_mmap(bi, w, tag, size);
		break;
	case MB2_TAG_EFI_MMAP:
		parse_efi_mmap(bi, w, tag, size);
		break;
	case MB2_TAG_FRAMEBUFFER:
		parse_framebuffer(bi, tag, size);
		break;
	case MB2_TAG_EFI32:
	case MB2_TAG_EFI64:
		parse_efi_systab(bi, type, tag, size);
		break;
	case MB2_TAG_EFI_BS:
		bi->efi_boot_services = true;
		boot_note(bi, "EFI boot services were not exited (tag 18); memlab does not use them");
		break;
	case MB2_TAG_ACPI_OLD:
	case MB2_TAG_ACPI_NEW:
		parse_rsdp(bi, type, tag, size);
		break;
	default:
		if (type > MB2_TAG_LAST_KNOWN)
			bi->nr_unknown_tags++;
		break;
	}
}

/*
 * multiboot2_parse() - see bootinfo.h.  bi->nr_tags counts every tag walked,
 * the end tag included.  The basic meminfo fallback gives two RAM ranges,
 * [0, mem_lower KiB) and [1 MiB, 1 MiB + mem_upper KiB), when the block has no
 * usable memory map tag.
 */
int multiboot2_parse(struct boot_info *bi, const void *mbi, size_t max_len,
		     phys_addr_t mbi_phys)
{
	const u8 *base = mbi;
	struct mb2_walk w = { 0 };
	bool ended = false;
	size_t len, off;
	u32 total;

	memset(bi, 0, sizeof(*bi));
	fw_memmap_init(&bi->memmap);
	if (!mbi || max_len < MB2_HEADER_SIZE)
		return -EINVAL;
	total = get_u32(base);
	if (total < MB2_HEADER_SIZE)
		return -EINVAL;
	len = total;
	if (len > max_len) {
		boot_note(bi, "total_size %u is more than the %zu bytes available; read %zu",
			  total, max_len, max_len);
		len = max_len;
	}
	bi->mbi_start = mbi_phys;
	bi->mbi_end = mbi_phys + len;

	/* Invariant: off <= len and off is 8-byte aligned. */
	for (off = MB2_HEADER_SIZE; len - off >= MB2_TAG_HEADER_SIZE;) {
		u32 type = get_u32(base + off);
		u32 size = get_u32(base + off + 4);

		if (type == MB2_TAG_END) {	/* its size (8) does not matter */
			bi->nr_tags++;
			ended = true;
			break;
		}
		if (size < MB2_TAG_HEADER_SIZE) {
			boot_note(bi, "tag type %u at offset %zu has size %u, below 8: walk stopped",
				  type, off, size);
			ended = true;
			break;
		}
		if (size > len - off) {
			boot_note(bi, "tag type %u at offset %zu has size %u, past the end at %zu: walk stopped",
				  type, off, size, len);
			ended = true;
			break;
		}
		bi->nr_tags++;
		parse_tag(bi, &w, base + off, type, size);
		off += ALIGN_UP((size_t)size, 8);
		if (off > len)
			off = len;
	}
	if (!ended)
		boot_note(bi, "no end tag before the end of the block at %zu", len);

	if (!w.have_mmap && w.have_meminfo) {
		boot_note(bi, "no memory map tag: using basic meminfo (lower %u KiB, upper %u KiB)",
			  w.mem_lower_kib, w.mem_upper_kib);
		fw_memmap_add_raw(&bi->memmap, 0, (u64)w.mem_lower_kib << 10,
				  FW_MEM_RAM);
		fw_memmap_add_raw(&bi->memmap, SZ_1M,
				  (u64)w.mem_upper_kib << 10, FW_MEM_RAM);
		bi->memmap_tag = MB2_TAG_BASIC_MEMINFO;
	} else if (!w.have_mmap) {
		boot_note(bi, "no memory map tag and no basic meminfo tag: no RAM known");
	}
	fw_memmap_sanitize(&bi->memmap);
	/*
	 * What Linux's x86 setup does to the e820 map (trim_bios_range()): the
	 * first page is the BIOS's (interrupt vectors, BIOS data area), and
	 * 640 KiB - 1 MiB (VGA memory, option and system ROMs) is never RAM.
	 */
	fw_memmap_retype(&bi->memmap, 0, SZ_4K, FW_MEM_RAM, FW_MEM_RESERVED,
			 "the first page belongs to the BIOS (as Linux on x86)");
	fw_memmap_retype(&bi->memmap, 0xa0000, SZ_1M, FW_MEM_RAM, 0,
			 "640 KiB - 1 MiB is VGA memory and ROMs, not RAM (as Linux on x86)");
	return 0;
}
