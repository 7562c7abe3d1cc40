/*
 * cma.c - the CMA area's virtual files, as Linux shows them (cma_debug.c
 * and cma_sysfs.c in Linux's mm/; Linux names the cma= area "reserved"):
 *
 *   /sys/kernel/debug/cma/cma0/alloc          write N: cma_alloc N pages, remembered
 *   /sys/kernel/debug/cma/cma0/free           write N: release N pages, newest first
 *   /sys/kernel/debug/cma/cma0/count          pages in the area
 *   /sys/kernel/debug/cma/cma0/used           pages handed out (bitmap)
 *   /sys/kernel/debug/cma/cma0/maxchunk       largest free run, pages
 *   /sys/kernel/debug/cma/cma0/base_pfn       first pfn
 *   /sys/kernel/debug/cma/cma0/order_per_bit  pages per bitmap bit, log2
 *   /sys/kernel/debug/cma/cma0/bitmap         the bitmap as 32-bit words, decimal
 *   /sys/kernel/mm/cma/cma0/{alloc_pages_success,alloc_pages_fail,
 *                            release_pages_success,total_pages,available_pages}
 *
 * cma0 exists when the kernel was booted with cma=SIZE; without an area
 * reading them fails with "No such device".  The commands `cma` and
 * `contig` are shell/cmd_contig.c.  Context: (main).
 */
#include <lib/errno.h>
#include <lib/kstrtox.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <views/vfs.h>
#include <mm/cma.h>

/* ---- the CMA files ------------------------------------------------------------ */

enum cma_attr {
	CMA_COUNT, CMA_USED, CMA_MAXCHUNK, CMA_BASE_PFN, CMA_ORDER_PER_BIT,
	CMA_SUCCESS, CMA_FAIL, CMA_RELEASED, CMA_TOTAL, CMA_AVAILABLE,
};

struct cma_attr_file {
	struct cma *cma;	/* the area */
	enum cma_attr attr;	/* which number */
};

static int cma_attr_show(struct printer *p, void *data)
{
	const struct cma_attr_file *f = data;
	const struct cma *cma = f->cma;
	u64 v = 0;

	if (!cma->active)
		return -ENODEV;
	switch (f->attr) {
	case CMA_COUNT:		v = cma->count; break;
	case CMA_USED:		v = cma_used_pages(cma); break;
	case CMA_MAXCHUNK:	v = cma_maxchunk_pages(cma); break;
	case CMA_BASE_PFN:	v = cma->base_pfn; break;
	case CMA_ORDER_PER_BIT:	v = cma->order_per_bit; break;
	case CMA_SUCCESS:	v = cma->alloc_pages_success; break;
	case CMA_FAIL:		v = cma->alloc_pages_fail; break;
	case CMA_RELEASED:	v = cma->release_pages_success; break;
	case CMA_TOTAL:		v = cma->count; break;
	case CMA_AVAILABLE:	v = cma->count - cma_used_pages(cma); break;
	}
	pr_printf(p, "%llu\n", (unsigned long long)v);
	return 0;
}

/* debugfs_create_u32_array's format: words separated by spaces, then a newline. */
static int cma_bitmap_show(struct printer *p, void *data)
{
	const struct cma *cma = data;
	u64 words = (cma->nr_bits + 31) / 32;

	if (!cma->active)
		return -ENODEV;
	for (u64 i = 0; i < words; i++) {
		u32 w = (u32)(cma->bitmap[i / 2] >> (32 * (i % 2)));

		pr_printf(p, "%u%c", w, i + 1 == words ? '\n' : ' ');
	}
	return 0;
}

/*
 * "N\n" as the shell's echo writes it, read by arg_u64() (parse_u64()'s
 * rules: decimal or 0x-hex digits, an optional K/M/G/T multiplier; one
 * trailing newline allowed) as the page count of file `file`, 1 to the
 * area's size.  A bad count is logged naming the file, the argument and
 * its range ("cma: cma0: alloc: count 99999999999999999999 is out of
 * range: 1-16384 (the area's pages)"), and the write fails with
 * -EINVAL or -ERANGE.
 */
static int store_count(const struct cma *cma, const char *file, const char *buf, size_t len,
		       u64 *count)
{
	char word[512];		/* longer than any line the shell takes */
	char who[64], line[640];
	struct buf_printer bp;
	int err;

	if (len && buf[len - 1] == '\n')
		len--;
	ksnprintf(who, sizeof(who), "cma: %s: %s", cma->name, file);
	if (len >= sizeof(word)) {
		pr_warn("%s: count of %zu characters is too long", who, len);
		return -ERANGE;
	}
	for (size_t i = 0; i < len; i++) {
		if (!buf[i]) {
			pr_warn("%s: count has a NUL byte: not a number", who);
			return -EINVAL;
		}
		word[i] = buf[i];
	}
	word[len] = '\0';
	buf_printer_init(&bp, line, sizeof(line));
	err = arg_u64(&bp.p, who, "count", word, 1, cma->count ? cma->count : 1,
		      "the area's pages", count);
	if (err) {
		if (bp.len && line[bp.len - 1] == '\n')
			line[bp.len - 1] = '\0';
		pr_warn("%s", line);
	}
	return err;
}

static int cma_alloc_store(const char *buf, size_t len, void *data)
{
	struct cma *cma = data;
	char why[200];
	u64 count;
	int err = store_count(cma, "alloc", buf, len, &count);

	if (err)
		return err;
	if (!cma->active)
		return -ENODEV;
	err = cma_debug_alloc(cma, count, why, sizeof(why));
	if (err)
		pr_warn("cma: %s: alloc of %llu pages failed: %s", cma->name,
			(unsigned long long)count, why);
	return err;
}

static int cma_free_store(const char *buf, size_t len, void *data)
{
	struct cma *cma = data;
	char why[200];
	u64 count;
	int err = store_count(cma, "free", buf, len, &count);

	if (err)
		return err;
	err = cma_debug_free(cma, count, why, sizeof(why));
	if (err)
		pr_warn("cma: %s: free of %llu pages refused: %s", cma->name,
			(unsigned long long)count, why);
	return err;
}

static const struct vfs_file_ops cma_attr_ops = { .show = cma_attr_show };
static const struct vfs_file_ops cma_bitmap_ops = { .show = cma_bitmap_show };
static const struct vfs_file_ops cma_alloc_ops = { .store = cma_alloc_store };
static const struct vfs_file_ops cma_free_ops = { .store = cma_free_store };

static struct cma_attr_file cma0_files[] = {
	{ &cma_areas[0], CMA_COUNT }, { &cma_areas[0], CMA_USED }, { &cma_areas[0], CMA_MAXCHUNK },
	{ &cma_areas[0], CMA_BASE_PFN }, { &cma_areas[0], CMA_ORDER_PER_BIT },
	{ &cma_areas[0], CMA_SUCCESS }, { &cma_areas[0], CMA_FAIL }, { &cma_areas[0], CMA_RELEASED },
	{ &cma_areas[0], CMA_TOTAL }, { &cma_areas[0], CMA_AVAILABLE },
};

#define CMA_DEBUG "/sys/kernel/debug/cma/cma0/"
#define CMA_SYSFS "/sys/kernel/mm/cma/cma0/"
VFS_FILE(cma0_alloc, CMA_DEBUG "alloc", &cma_alloc_ops, &cma_areas[0]);
VFS_FILE(cma0_free, CMA_DEBUG "free", &cma_free_ops, &cma_areas[0]);
VFS_FILE(cma0_count, CMA_DEBUG "count", &cma_attr_ops, &cma0_files[0]);
VFS_FILE(cma0_used, CMA_DEBUG "used", &cma_attr_ops, &cma0_files[1]);
VFS_FILE(cma0_maxchunk, CMA_DEBUG "maxchunk", &cma_attr_ops, &cma0_files[2]);
VFS_FILE(cma0_base_pfn, CMA_DEBUG "base_pfn", &cma_attr_ops, &cma0_files[3]);
VFS_FILE(cma0_order_per_bit, CMA_DEBUG "order_per_bit", &cma_attr_ops, &cma0_files[4]);
VFS_FILE(cma0_bitmap, CMA_DEBUG "bitmap", &cma_bitmap_ops, &cma_areas[0]);
VFS_FILE(cma0_success, CMA_SYSFS "alloc_pages_success", &cma_attr_ops, &cma0_files[5]);
VFS_FILE(cma0_fail, CMA_SYSFS "alloc_pages_fail", &cma_attr_ops, &cma0_files[6]);
VFS_FILE(cma0_released, CMA_SYSFS "release_pages_success", &cma_attr_ops, &cma0_files[7]);
VFS_FILE(cma0_total, CMA_SYSFS "total_pages", &cma_attr_ops, &cma0_files[8]);
VFS_FILE(cma0_available, CMA_SYSFS "available_pages", &cma_attr_ops, &cma0_files[9]);
