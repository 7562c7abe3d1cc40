/*
 * resource.h - the kernel's resource tree: who claimed which range of the
 * physical address space (iomem) and of the I/O port space (ioports).
 *
 * A resource is a closed range [start, end] with a name and flags.  The
 * resources of one space form a tree under its root (iomem_resource,
 * ioport_resource): each node's children lie inside it, are sorted by
 * address and never overlap one another.  Whoever owns a range asks for it
 * (request), and gives it back when it stops owning it (release), so the
 * tree is always what the kernel knows, and /proc/iomem and /proc/ioports
 * print it as it is, two spaces of indentation per level.
 *
 * The ways in:
 *   request_resource(parent, r)  r becomes a child of parent, or -EBUSY if
 *                                it meets one of parent's children;
 *   insert_resource(parent, r)   r goes as deep as it fits and adopts the
 *                                children it covers whole (a PCI MMCONFIG
 *                                range put around an e820 Reserved one); a
 *                                child it cuts across is a conflict;
 *   request_region(root, ...)    like Linux's request_mem_region: a range
 *                                from the module's pool, going down into any
 *                                non-busy resource that contains it, BUSY;
 *   release_resource(r)          r leaves the tree; its children move up to
 *                                its parent, in its place.
 * Linux keeps the same rules (kernel/resource.c); the names are its names.
 *
 * Context: (boot, main); the tree has no lock (one CPU, no preemption).
 */
#ifndef KERNEL_RESOURCE_H
#define KERNEL_RESOURCE_H

#include <lib/types.h>

struct printer;

/* Flags (the subset of Linux's IORESOURCE_* memlab uses, same values). */
#define IORESOURCE_IO		0x00000100u	/* I/O port space */
#define IORESOURCE_MEM		0x00000200u	/* memory space */
#define IORESOURCE_PREFETCH	0x00002000u	/* prefetchable memory */
#define IORESOURCE_BUSY		0x80000000u	/* a driver owns it: nothing goes inside */
#define IORESOURCE_SYSRAM	0x01000000u	/* System RAM */
#define IORESOURCE_SYSTEM_RAM	(IORESOURCE_MEM | IORESOURCE_SYSRAM)

#define RESOURCE_NAME_LEN	40

struct resource {
	u64 start, end;			/* closed: [start, end] */
	const char *name;		/* printed after " : " */
	u32 flags;			/* IORESOURCE_* */
	struct resource *parent, *sibling, *child;
};

extern struct resource iomem_resource;	/* [0, 2^52 - 1] physical addresses */
extern struct resource ioport_resource;	/* [0, 0xffff] I/O ports */

/* resource_size() - bytes (ports) in r. */
static inline u64 resource_size(const struct resource *r)
{
	return r->end - r->start + 1;
}

/* request_resource() - make r a child of parent: 0, -EINVAL (r empty, not
 * inside parent, or already in a tree) or -EBUSY (it meets a child of
 * parent).  Context: (boot, main). */
int request_resource(struct resource *parent, struct resource *r);

/* insert_resource() - put r as deep under parent as it fits whole, adopting
 * the resources at that level r covers whole.  0, -EINVAL or -EBUSY (r
 * cuts across a resource).
 * Context: (boot, main). */
int insert_resource(struct resource *parent, struct resource *r);

/* release_resource() - take r out of its tree; its children take its place
 * under its parent.  0, or -EINVAL if r is in no tree.  Context: (boot, main). */
int release_resource(struct resource *r);

/*
 * request_region() - claim [start, start + n) named `name` (copied) with
 * `flags` | IORESOURCE_BUSY, as Linux's __request_region: it goes down into
 * a non-busy resource that contains it whole.  The resource comes from a
 * fixed pool.  Returns it, or NULL (n == 0, a wrap, a conflict, the pool
 * empty; the reason logged).  Context: (boot, main).
 */
struct resource *request_region(struct resource *root, u64 start, u64 n,
				const char *name, u32 flags);

/* resource_new() - a pool resource [start, end] named `name` (copied) with
 * `flags`, in no tree yet; NULL if the pool is empty (logged) or the range
 * is empty.  resource_free() takes it out of its tree and gives it back;
 * it ignores a resource that is not from the pool.  Context: (boot, main). */
struct resource *resource_new(u64 start, u64 end, const char *name, u32 flags);
void resource_free(struct resource *r);

/* request_mem_region() - request_region(&iomem_resource, ..., IORESOURCE_MEM). */
struct resource *request_mem_region(u64 start, u64 n, const char *name);

/*
 * release_region() - give back the pool resource with exactly range
 * [start, start + n) under root (found at any depth): 0, or -ENOENT.
 * Context: (boot, main).
 */
int release_region(struct resource *root, u64 start, u64 n);

/*
 * add_system_ram_resource() - hot-added memory [start, start + n) becomes
 * a BUSY "System RAM"-type resource named `name` (Linux: "System RAM" for
 * add_memory(), "System RAM (virtio_mem)" for virtio-mem's driver-managed
 * memory), inside a non-busy resource that contains it (a virtio-mem
 * device's region) or at the top level.  With `merge`, a neighbour of the
 * same name and flags that it touches grows instead (Linux's
 * MHP_MERGE_RESOURCE, which virtio-mem asks for), so the blocks of one
 * device show as one range; without, the range stays its own (a DIMM next
 * to boot RAM is a separate "System RAM", as in Linux).  0 or -EBUSY.
 * Context: (main).
 */
int add_system_ram_resource(u64 start, u64 n, const char *name, bool merge);

/*
 * release_mem_region_adjustable() - hot-removed memory [start, start + n)
 * leaves the System RAM resource that holds it: the resource shrinks, is
 * split in two (the hole in the middle), or goes.  0, -ENOENT (no System
 * RAM resource holds the range whole) or -ENOMEM (a split with the pool
 * empty).  Context: (main).
 */
int release_mem_region_adjustable(u64 start, u64 n);

/*
 * set_system_ram_resource() - make [start, start + n) System RAM named
 * `name` in iomem when `present`, and not when not: what a driver that
 * adds and removes memory block by block calls after each change of a
 * block (virtio-mem), without tracking what it entered.  Idempotent.
 * Context: (main).
 */
void set_system_ram_resource(u64 start, u64 n, bool present, const char *name);

/*
 * request_device_region() - a device's range of guest-physical memory
 * (virtio-mem's region, named "virtioN" as Linux names the device):
 * requested BUSY, then made not busy so the memory the driver adds goes
 * inside it, as Linux's virtio-mem does.  NULL on a conflict (logged).
 * Context: (main).
 */
struct resource *request_device_region(u64 start, u64 n, const char *name);

/* resource_lookup() - the deepest resource under root holding addr, or NULL. */
struct resource *resource_lookup(struct resource *root, u64 addr);

/*
 * resource_print_tree() - what /proc/iomem and /proc/ioports print: one
 * line per resource, depth first, "%0*llx-%0*llx : name" with two spaces
 * per level and the addresses zero-padded to `width` hex digits (8 for
 * iomem, 4 for ioports; wider numbers print whole, as Linux's).
 * Context: (main).
 */
void resource_print_tree(const struct resource *root, int width, struct printer *p);

struct fw_memmap;
/*
 * iomem_register_boot() - the sanitized firmware map (System RAM, Reserved,
 * ACPI Tables, ...), the System ROM and the kernel image's parts into
 * iomem_resource (kernel/resource_boot.c).  Context: boot, once.
 */
void iomem_register_boot(const struct fw_memmap *m);

/* resource_pool_used() - pool entries in use (tests check nothing leaks). */
unsigned resource_pool_used(void);

#endif
