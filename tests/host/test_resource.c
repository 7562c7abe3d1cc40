/*
 * test_resource.c - the resource tree (kernel/resource.c): nesting,
 * conflicts, insert around, release, hot-added System RAM merged and
 * split, and /proc/iomem's text in Linux 6.1's format (r_show() in
 * kernel/resource.c prints "%*s%0*llx-%0*llx : %s\n": depth * 2 spaces,
 * width 8 for iomem, 4 when the root ends below 0x10000).
 */
#include "htest.h"
#include <kernel/resource.h>
#include <lib/printer.h>
#include <lib/errno.h>
#include <lib/string.h>

static char text[4096];

/* A private root, so the tests never see the kernel's trees. */
static struct resource root;

static void reset(void)
{
	root = (struct resource){ .start = 0, .end = (1ULL << 52) - 1, .name = "root",
				  .flags = IORESOURCE_MEM };
}

static const char *tree(const struct resource *r, int width)
{
	struct buf_printer bp;

	buf_printer_init(&bp, text, sizeof(text));
	resource_print_tree(r, width, &bp.p);
	return text;
}

/* free_all() - every pool resource below root back to the pool. */
static void free_all(void)
{
	while (root.child) {
		struct resource *r = root.child;

		while (r->child)
			r = r->child;
		if (release_resource(r))
			break;
		resource_free(r);
	}
}

HTEST(resource_nesting_and_conflicts)
{
	unsigned used = resource_pool_used();

	reset();
	struct resource *ram = request_region(&root, 0x100000, 0x7fee0000, "System RAM",
					      IORESOURCE_SYSTEM_RAM);
	struct resource *res = request_region(&root, 0xb0000000, 0x10000000, "Reserved", IORESOURCE_MEM);

	CHECK(ram && res);
	res->flags &= ~IORESOURCE_BUSY;
	/* inside a busy resource: refused; overlapping: refused */
	CHECK(!request_region(&root, 0x200000, 0x1000, "inside RAM", IORESOURCE_MEM));
	CHECK(!request_region(&root, 0xaffff000, 0x2000, "straddles", IORESOURCE_MEM));
	/* inside a non-busy one: goes down */
	struct resource *pnp = request_region(&root, 0xb0000000, 0x10000000, "pnp 00:05", IORESOURCE_MEM);

	CHECK(pnp && pnp->parent == res);
	/* insert around: MMCONFIG adopts the Reserved range of the same span */
	struct resource mcfg = { .start = 0xb0000000, .end = 0xbfffffff,
				 .name = "PCI MMCONFIG 0000 [bus 00-ff]", .flags = IORESOURCE_MEM };

	CHECK_EQ(insert_resource(&root, &mcfg), 0);
	CHECK_STREQ(tree(&root, 8),
		"00100000-7ffdffff : System RAM\n"
		"b0000000-bfffffff : PCI MMCONFIG 0000 [bus 00-ff]\n"
		"  b0000000-bfffffff : Reserved\n"
		"    b0000000-bfffffff : pnp 00:05\n");
	/* cutting across is a conflict */
	struct resource cut = { .start = 0x7ff00000, .end = 0x80000fff, .name = "cut" };

	CHECK_EQ(insert_resource(&root, &cut), -EBUSY);
	/* release: the children take its place */
	CHECK_EQ(release_resource(&mcfg), 0);
	CHECK_STREQ(tree(&root, 8),
		"00100000-7ffdffff : System RAM\n"
		"b0000000-bfffffff : Reserved\n"
		"  b0000000-bfffffff : pnp 00:05\n");
	CHECK_EQ(release_region(&root, 0xb0000000, 0x10000000), 0);	/* the first exact match: Reserved */
	CHECK_STREQ(tree(&root, 8),
		"00100000-7ffdffff : System RAM\n"
		"b0000000-bfffffff : pnp 00:05\n");
	CHECK_EQ(release_region(&root, 0x1000, 0x1000), -ENOENT);
	free_all();
	CHECK_EQ(resource_pool_used(), used);
}

/* Linux's widths: 8 digits for iomem, wider numbers whole; 4 for ioports. */
HTEST(resource_print_widths)
{
	struct resource io = { .start = 0, .end = 0xffff, .name = "PCI IO", .flags = IORESOURCE_IO };

	reset();
	CHECK(request_region(&root, 0xfd00000000ULL, 0x300000000ULL, "Reserved", IORESOURCE_MEM));
	CHECK(request_region(&root, 0, 0x1000, "Reserved", IORESOURCE_MEM));
	CHECK_STREQ(tree(&root, 8),
		"00000000-00000fff : Reserved\n"
		"fd00000000-ffffffffff : Reserved\n");
	CHECK(request_region(&io, 0x3f8, 8, "serial", IORESOURCE_IO));
	CHECK(request_region(&io, 0x60, 1, "keyboard", IORESOURCE_IO));
	CHECK_STREQ(tree(&io, 4),
		"0060-0060 : keyboard\n"
		"03f8-03ff : serial\n");
	while (io.child)
		resource_free(io.child);
	free_all();
}

/*
 * virtio-mem's picture in Linux after plugging 4 GiB of an 8 GiB region:
 * the device region, one merged "System RAM (virtio_mem)" inside it; a
 * block removed from the middle splits it; the DIMM's System RAM at the
 * top level comes and goes whole.
 */
HTEST(resource_hotplug_system_ram)
{
	const u64 G = 1ULL << 30, B = 128ULL << 20;
	unsigned used = resource_pool_used();
	struct resource *saved = iomem_resource.child;

	/* These helpers work on iomem_resource: start it empty. */
	iomem_resource.child = NULL;
	CHECK(request_device_region(4 * G, 8 * G, "virtio0"));
	for (u64 a = 4 * G; a < 8 * G; a += B)
		set_system_ram_resource(a, B, true, "System RAM (virtio_mem)");
	set_system_ram_resource(4 * G, B, true, "System RAM (virtio_mem)");	/* idempotent */
	CHECK_EQ(add_system_ram_resource(12 * G, G, "System RAM", false), 0);
	/* a second DIMM right above it stays a range of its own */
	CHECK_EQ(add_system_ram_resource(13 * G, G, "System RAM", false), 0);
	CHECK_STREQ(tree(&iomem_resource, 8),
		"100000000-2ffffffff : virtio0\n"
		"  100000000-1ffffffff : System RAM (virtio_mem)\n"
		"300000000-33fffffff : System RAM\n"
		"340000000-37fffffff : System RAM\n");
	CHECK_EQ(release_mem_region_adjustable(13 * G, G), 0);
	set_system_ram_resource(5 * G, B, false, "System RAM (virtio_mem)");
	set_system_ram_resource(8 * G - B, B, false, "System RAM (virtio_mem)");
	CHECK_STREQ(tree(&iomem_resource, 8),
		"100000000-2ffffffff : virtio0\n"
		"  100000000-13fffffff : System RAM (virtio_mem)\n"
		"  148000000-1f7ffffff : System RAM (virtio_mem)\n"
		"300000000-33fffffff : System RAM\n");
	/* the block comes back: the two halves are one again */
	set_system_ram_resource(5 * G, B, true, "System RAM (virtio_mem)");
	CHECK(strstr(tree(&iomem_resource, 8), "  100000000-1f7ffffff : System RAM (virtio_mem)\n"));
	CHECK_EQ(release_mem_region_adjustable(12 * G, G), 0);
	CHECK_EQ(release_mem_region_adjustable(12 * G, G), -ENOENT);
	for (u64 a = 4 * G; a < 8 * G; a += B)
		set_system_ram_resource(a, B, false, "System RAM (virtio_mem)");
	CHECK_STREQ(tree(&iomem_resource, 8), "100000000-2ffffffff : virtio0\n");
	CHECK_EQ(release_region(&iomem_resource, 4 * G, 8 * G), 0);
	CHECK_STREQ(tree(&iomem_resource, 8), "");
	CHECK_EQ(resource_pool_used(), used);
	iomem_resource.child = saved;
}

/* Bad input never corrupts the tree. */
HTEST(resource_bad_input)
{
	struct resource r = { .start = 10, .end = 5, .name = "backwards" };

	reset();
	CHECK_EQ(request_resource(&root, &r), -EINVAL);
	CHECK_EQ(insert_resource(&root, &r), -EINVAL);
	CHECK_EQ(release_resource(&r), -EINVAL);
	CHECK(!request_region(&root, 0, 0, "empty", 0));
	CHECK(!request_region(&root, ~0ULL - 4, 16, "wraps", 0));
	CHECK_EQ(release_mem_region_adjustable(0, 0), -ENOENT);
	CHECK_STREQ(tree(&root, 8), "");
}
