/*
 * virtio_mem.c - the virtio-mem driver (virtio device 24) in Sub Block Mode,
 * the way Linux's drivers/virtio/virtio_mem.c does it, polled.
 *
 * The device offers a region [addr, addr + region_size) of guest-physical
 * memory cut into device blocks of block_size (2 MiB on x86 hosts).  The
 * host sets requested_size; the driver plugs (PLUG) or unplugs (UNPLUG)
 * device blocks until plugged_size equals it.
 *
 * The kernel manages memory in 128 MiB memory blocks (memory_hotplug.h), so
 * the driver works on two levels:
 *   - a memory block of the region is added to the kernel (add_memory, its
 *     own dynamic memory group, MHP_NO_AUTO_ONLINE) when its first
 *     sub-block is plugged, onlined right away, and offlined and removed
 *     when its last sub-block is unplugged;
 *   - a sub-block (one device block, at least a pageblock) is plugged or
 *     not; this driver's online_page_callback gives only plugged
 *     sub-blocks to the buddy and keeps the others PageOffline (refcount 0,
 *     not managed, never touched: UNPLUGGED_INACCESSIBLE).  Plugging a
 *     sub-block of an online block later "fake-onlines" it
 *     (generic_online_page); unplugging one takes its pages with
 *     alloc_contig_frozen_range() (movable pages migrate away) and marks
 *     them PageOffline before the UNPLUG request.
 *
 * Each memory block is onlined before the next one is added: the next
 * block's memmap then comes from memory already plugged, so a 2 GiB guest
 * can grow by far more than it could describe with boot memory alone.
 *
 * Memory block states (one byte per block of the region, vmem_mb_set_state()
 * is the only writer and keeps a counter per state):
 *
 *   UNUSED --plug first sub-blocks + add--> OFFLINE(_PARTIAL) --online--> KERNEL/MOVABLE(_PARTIAL)
 *     ^                                                                         |
 *     +------------ last sub-block unplugged: offline + remove -----------------+
 *
 * Requests are synchronous (virtio_vq_request); ACK goes on, NACK (plug
 * beyond requested_size) stops the round and re-reads the config, BUSY
 * retries a second later, ERROR stops until the host asks for a new size.
 * No usable answer (none within 2 s, a malformed one) marks the device
 * broken for good, and what that request did is taken as the worse case:
 * memory the device may have taken back is never used again.
 * A resize round that cannot reach requested_size (unmovable pages in the
 * last plugged sub-blocks) says why and is retried every 5 seconds.
 *
 * Context: probe from pci_init/pci_rescan; everything else from the poller
 * and the shell, (main).
 */
#include <drivers/virtio.h>
#include <drivers/virtio_mem.h>
#include <drivers/pci.h>
#include <drivers/acpi.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/printer.h>
#include <shell/shell.h>
#include <lib/string.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <mm/buddy.h>
#include <mm/contig_alloc.h>
#include <mm/gfp.h>
#include <mm/memory_hotplug.h>
#include <mm/mmzone.h>
#include <mm/page.h>

#define VIRTIO_ID_MEM_PCI		0x1058	/* 0x1040 + device id 24 */
#define VIRTIO_PCI_VENDOR		0x1af4

#define VIRTIO_MEM_F_ACPI_PXM		0
#define VIRTIO_MEM_F_UNPLUGGED_INACCESSIBLE 1

#define VIRTIO_MEM_REQ_PLUG		0
#define VIRTIO_MEM_REQ_UNPLUG		1
#define VIRTIO_MEM_REQ_UNPLUG_ALL	2
#define VIRTIO_MEM_REQ_STATE		3

#define VIRTIO_MEM_RESP_ACK		0
#define VIRTIO_MEM_RESP_NACK		1
#define VIRTIO_MEM_RESP_BUSY		2
#define VIRTIO_MEM_RESP_ERROR		3

#define VIRTIO_MEM_STATE_PLUGGED	0
#define VIRTIO_MEM_STATE_UNPLUGGED	1
#define VIRTIO_MEM_STATE_MIXED		2

/* device configuration (offsets in the device window) */
#define VMEM_CFG_BLOCK_SIZE		0x00	/* le64 */
#define VMEM_CFG_NODE_ID		0x08	/* le16 */
#define VMEM_CFG_ADDR			0x10	/* le64 */
#define VMEM_CFG_REGION_SIZE		0x18	/* le64 */
#define VMEM_CFG_USABLE_SIZE		0x20	/* le64 */
#define VMEM_CFG_PLUGGED_SIZE		0x28	/* le64 */
#define VMEM_CFG_REQUESTED_SIZE		0x30	/* le64 */
#define VMEM_CFG_LEN			0x38

struct virtio_mem_req {
	u16 type;			/* VIRTIO_MEM_REQ_* */
	u16 padding[3];
	u64 addr;			/* PLUG/UNPLUG/STATE: first byte */
	u16 nb_blocks;			/* PLUG/UNPLUG/STATE: device blocks */
	u16 padding2[3];
} __packed;

struct virtio_mem_resp {
	u16 type;			/* VIRTIO_MEM_RESP_* */
	u16 padding[3];
	u16 state;			/* STATE: VIRTIO_MEM_STATE_* */
} __packed;

_Static_assert(sizeof(struct virtio_mem_req) == 24, "virtio-mem request is 24 bytes");
_Static_assert(sizeof(struct virtio_mem_resp) == 10, "virtio-mem response is 10 bytes");

#define VMEM_MAX_DEVICES	4
#define VMEM_MAX_MBS		8192	/* memory blocks per device (1 TiB) */
#define VMEM_MAX_SB_PER_MB	64	/* 128 MiB / 2 MiB: one u64 bitmap per block */
#define VMEM_RETRY_BUSY		(1 * HZ)
#define VMEM_RETRY_SHORT	(5 * HZ)

/* The state of one memory block of the device's region. */
enum vmem_mb_state {
	VMEM_MB_UNUSED,			/* not added to the kernel; no sub-block plugged */
	VMEM_MB_OFFLINE,		/* added, offline, every sub-block plugged */
	VMEM_MB_OFFLINE_PARTIAL,	/* added, offline, some sub-blocks plugged */
	VMEM_MB_KERNEL,			/* online in a kernel zone, every sub-block plugged */
	VMEM_MB_KERNEL_PARTIAL,		/* online in a kernel zone, unplugged ones PageOffline */
	VMEM_MB_MOVABLE,		/* online in ZONE_MOVABLE, every sub-block plugged */
	VMEM_MB_MOVABLE_PARTIAL,	/* online in ZONE_MOVABLE, unplugged ones PageOffline */
	VMEM_MB_NR_STATES
};

static const char *const vmem_mb_state_names[VMEM_MB_NR_STATES] = {
	"unused", "offline", "offline-partial", "kernel", "kernel-partial", "movable",
	"movable-partial",
};

struct vmem_dev {
	struct virtio_device vd;	/* transport */
	bool in_use;			/* slot taken */
	char name[24];			/* "virtio-mem 01:00.0" */
	int nid;			/* node of the memory */
	int mgid;			/* dynamic memory group */
	u64 block_size;			/* device block size, bytes */
	u64 sb_size;			/* sub-block = max(block_size, pageblock) */
	unsigned sb_per_mb;		/* sub-blocks in a memory block */
	u64 addr, region_size;		/* the region, fixed */
	u64 usable_region_size;		/* last read */
	u64 dev_plugged_size;		/* plugged_size last read from the device */
	u64 requested_size;		/* last read */
	u64 first_mb_id;		/* first memory block wholly inside the region */
	unsigned nr_mbs;		/* memory blocks wholly inside the region (capped) */
	u8 *mb_state;			/* enum vmem_mb_state per memory block */
	u64 *mb_plugged;		/* plugged sub-block bitmap per memory block */
	struct page *meta_pages;	/* the pages of both arrays */
	unsigned meta_order;		/* their order */
	unsigned long mb_count[VMEM_MB_NR_STATES]; /* blocks per state */
	u64 plugged_sbs;		/* plugged sub-blocks (driver's view) */
	bool halted;			/* ERROR or a broken device: wait for a new request size */
	u64 halted_request;		/* requested_size when halted */
	u64 retry_at;			/* jiffies of the next retry, 0: none pending */
	char why[200];			/* why the last round stopped short, "" if converged */
	u64 plug_reqs, unplug_reqs, nacks, busys, errors; /* request counters */
	u64 last_round_ns;		/* duration of the last resize round */
	bool last_busy;			/* the last round ended on a BUSY reply */
	bool stop_logged;		/* the last round stopped short and said so */
};

static struct vmem_dev vmem_devs[VMEM_MAX_DEVICES];
static bool vmem_callback_set;	/* vmem_online_page is the online_page_callback */
static bool vmem_poller_registered;

static u64 mb_addr(const struct vmem_dev *vm, unsigned i)
{
	return (vm->first_mb_id + i) * MEMORY_BLOCK_SIZE;
}

static u64 sb_addr(const struct vmem_dev *vm, unsigned i, unsigned sb)
{
	return mb_addr(vm, i) + (u64)sb * vm->sb_size;
}

/* vmem_mb_set_state() - the only writer of mb_state[]; keeps mb_count[]. */
static void vmem_mb_set_state(struct vmem_dev *vm, unsigned i, enum vmem_mb_state st)
{
	vm->mb_count[vm->mb_state[i]]--;
	vm->mb_state[i] = (u8)st;
	vm->mb_count[st]++;
}

static unsigned mb_nr_plugged(const struct vmem_dev *vm, unsigned i)
{
	return (unsigned)__builtin_popcountll(vm->mb_plugged[i]);
}

static bool sb_plugged(const struct vmem_dev *vm, unsigned i, unsigned sb)
{
	return (vm->mb_plugged[i] >> sb) & 1;
}

static void sb_set_plugged(struct vmem_dev *vm, unsigned i, unsigned sb, unsigned n, bool on)
{
	for (unsigned k = sb; k < sb + n; k++) {
		u64 bit = 1ULL << k;

		if (on && !(vm->mb_plugged[i] & bit)) {
			vm->mb_plugged[i] |= bit;
			vm->plugged_sbs++;
		} else if (!on && (vm->mb_plugged[i] & bit)) {
			vm->mb_plugged[i] &= ~bit;
			vm->plugged_sbs--;
		}
	}
}

/*
 * vmem_mb_refresh_state() - derive the state of an added block from the
 * kernel's memory block (online? which zone?) and its bitmap.
 */
static void vmem_mb_refresh_state(struct vmem_dev *vm, unsigned i)
{
	struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);
	bool full = mb_nr_plugged(vm, i) == vm->sb_per_mb;
	enum vmem_mb_state st;

	if (!mem)
		st = VMEM_MB_UNUSED;
	else if (mem->state != MEM_ONLINE || !mem->zone)
		st = full ? VMEM_MB_OFFLINE : VMEM_MB_OFFLINE_PARTIAL;
	else if (mem->zone->idx == ZONE_MOVABLE)
		st = full ? VMEM_MB_MOVABLE : VMEM_MB_MOVABLE_PARTIAL;
	else
		st = full ? VMEM_MB_KERNEL : VMEM_MB_KERNEL_PARTIAL;
	vmem_mb_set_state(vm, i, st);
}

/* Blocks may have been onlined or offlined through sysfs meanwhile. */
static void vmem_refresh_all(struct vmem_dev *vm)
{
	for (unsigned i = 0; i < vm->nr_mbs; i++)
		if (vm->mb_state[i] != VMEM_MB_UNUSED)
			vmem_mb_refresh_state(vm, i);
}

static bool mb_online(const struct vmem_dev *vm, unsigned i)
{
	return vm->mb_state[i] >= VMEM_MB_KERNEL;
}

/* ---- config and requests ------------------------------------------------- */

/*
 * cfg64() - a 64-bit config field into *v; -EIO (logged) when the device's
 * config generation never held still for a whole read, as a device that
 * rewrites its config all the time would make it.  A failed read is never
 * taken as 0: a "requested size 0" read that way would unplug everything.
 */
static int cfg64(struct vmem_dev *vm, u32 off, u64 *v)
{
	int err = virtio_cfg_read(&vm->vd, off, v, sizeof(*v));

	if (err)
		pr_err("%s: config field at %#x: no stable read (%s); value not used\n", vm->name,
		       off, err_text(err));
	return err;
}

/*
 * vmem_read_config() - usable, plugged and requested size from the device;
 * all or nothing: on a failed read the previous values stay and -EIO is
 * returned.
 */
static int vmem_read_config(struct vmem_dev *vm)
{
	u64 usable, plugged, requested;

	if (cfg64(vm, VMEM_CFG_USABLE_SIZE, &usable) ||
	    cfg64(vm, VMEM_CFG_PLUGGED_SIZE, &plugged) ||
	    cfg64(vm, VMEM_CFG_REQUESTED_SIZE, &requested))
		return -EIO;
	vm->usable_region_size = MIN(usable, vm->region_size);
	vm->dev_plugged_size = plugged;
	vm->requested_size = requested;
	return 0;
}

static const char *resp_name(u16 t)
{
	switch (t) {
	case VIRTIO_MEM_RESP_ACK: return "ACK";
	case VIRTIO_MEM_RESP_NACK: return "NACK";
	case VIRTIO_MEM_RESP_BUSY: return "BUSY";
	case VIRTIO_MEM_RESP_ERROR: return "ERROR";
	default: return "invalid";
	}
}

/*
 * vmem_request() - one request; returns the response type (>= 0) or a
 * transport -errno.  *state gets the STATE answer.  A response type
 * outside the enum or a reply too short to hold one says nothing about
 * what the device did: the device is marked broken (as the transport does
 * for a missing or malformed used entry) and -EIO returned.
 */
/*
 * Fault injection (`virtio-mem inject`): the next inject_count PLUG, UNPLUG
 * or UNPLUG_ALL requests are not sent; the driver behaves as if the device
 * had answered inject_resp.  QEMU never NACKs, BUSYs or ERRORs a well-formed
 * request of a correct driver, so this is how the driver's handling of those
 * replies (its message, its retry, its accounting) is exercised.
 */
static u16 inject_resp;
static u32 inject_count;

static int vmem_request(struct vmem_dev *vm, u16 type, u64 addr, u64 nb_blocks, u16 *state)
{
	struct virtio_mem_req req = { .type = type, .addr = addr, .nb_blocks = (u16)nb_blocks };
	struct virtio_mem_resp resp = { 0 };
	u32 written = 0;
	int err;

	if (nb_blocks > 0xffff)
		return -EINVAL;
	if (inject_count && type != VIRTIO_MEM_REQ_STATE) {
		inject_count--;
		pr_info("%s: injected %s reply to a request of type %u at %#llx (not sent)",
			vm->name, resp_name(inject_resp), type, (unsigned long long)addr);
		return inject_resp;
	}
	err = virtio_vq_request(&vm->vd, &req, sizeof(req), &resp, sizeof(resp), &written,
				VIRTIO_REQ_TIMEOUT_MS);
	if (err)
		return err;
	if (written < sizeof(resp.type) || resp.type > VIRTIO_MEM_RESP_ERROR) {
		pr_err("%s: malformed response to a request of type %u at %#llx: type %u, %u bytes; device marked broken\n",
		       vm->name, type, (unsigned long long)addr, written < sizeof(resp.type) ? 0 : resp.type,
		       written);
		vm->vd.broken = true;
		return -EIO;
	}
	if (state)
		*state = resp.state;
	return resp.type;
}

/*
 * vmem_plug_unplug() - PLUG or UNPLUG n sub-blocks from address pa.
 * Returns 0 on ACK, -EAGAIN on NACK (re-read the config), -EBUSY on BUSY,
 * -EIO on ERROR (the device refused: nothing changed), and -ENODEV when no
 * usable answer came (no reply, a malformed one, a broken device): the
 * device may or may not have done it, so callers assume the worse for the
 * guest (a sub-block is used only if the device surely plugged it).  The
 * counters and vm->why say which.
 */
static int vmem_plug_unplug(struct vmem_dev *vm, bool plug, u64 pa, unsigned n)
{
	u64 nb = (u64)n * (vm->sb_size / vm->block_size);
	int r = vmem_request(vm, plug ? VIRTIO_MEM_REQ_PLUG : VIRTIO_MEM_REQ_UNPLUG, pa, nb, NULL);

	if (plug)
		vm->plug_reqs++;
	else
		vm->unplug_reqs++;
	switch (r) {
	case VIRTIO_MEM_RESP_ACK:
		return 0;
	case VIRTIO_MEM_RESP_NACK:
		vm->nacks++;
		ksnprintf(vm->why, sizeof(vm->why), "%s of [%#llx, +%llu MiB): NACK (beyond requested size)",
			  plug ? "PLUG" : "UNPLUG", (unsigned long long)pa,
			  (unsigned long long)((u64)n * vm->sb_size >> 20));
		return -EAGAIN;
	case VIRTIO_MEM_RESP_BUSY:
		vm->busys++;
		vm->last_busy = true;
		ksnprintf(vm->why, sizeof(vm->why), "%s of [%#llx, +%llu MiB): device BUSY, retrying",
			  plug ? "PLUG" : "UNPLUG", (unsigned long long)pa,
			  (unsigned long long)((u64)n * vm->sb_size >> 20));
		return -EBUSY;
	default:
		vm->errors++;
		ksnprintf(vm->why, sizeof(vm->why), "%s of [%#llx, +%llu MiB): %s",
			  plug ? "PLUG" : "UNPLUG", (unsigned long long)pa,
			  (unsigned long long)((u64)n * vm->sb_size >> 20),
			  r < 0 ? err_text(r) : "ERROR reply");
		if (vm->vd.broken) {
			pr_err("%s: %s; the device is broken: no more requests, and the sub-blocks are not used\n",
			       vm->name, vm->why);
			return -ENODEV;
		}
		pr_err("%s: %s; stopping until the requested size changes\n", vm->name, vm->why);
		vm->halted = true;
		vm->halted_request = vm->requested_size;
		return -EIO;
	}
}

/* ---- the online_page_callback -------------------------------------------- */

static struct vmem_dev *vmem_dev_of_pfn(u64 pfn)
{
	u64 pa = PFN_PHYS(pfn);

	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (vm->in_use && pa >= mb_addr(vm, 0) && pa < mb_addr(vm, vm->nr_mbs))
			return vm;
	}
	return NULL;
}

/* Give [pfn, end_pfn) to the buddy in naturally aligned chunks. */
static void vmem_online_range(u64 pfn, u64 end_pfn)
{
	while (pfn < end_pfn) {
		unsigned order = max_aligned_order(pfn, end_pfn);

		generic_online_page(pfn_to_page(pfn), order);
		pfn += 1ULL << order;
	}
}

/* Keep [pfn, end_pfn) out of the buddy: PageOffline, refcount 0, not managed. */
static void vmem_fake_offline_range(u64 pfn, u64 end_pfn)
{
	for (; pfn < end_pfn; pfn++) {
		struct page *page = pfn_to_page(pfn);

		page_set_type(page, PGTY_OFFLINE);
		page->refcount = 0;
	}
}

/*
 * vmem_online_page() - the online_page_callback: pages of a virtio-mem
 * memory block go to the buddy only where their sub-block is plugged.
 */
static void vmem_online_page(struct page *page, unsigned order)
{
	u64 pfn = page_to_pfn(page), end = pfn + (1ULL << order);
	struct vmem_dev *vm = vmem_dev_of_pfn(pfn);

	if (!vm) {
		generic_online_page(page, order);
		return;
	}
	u64 sb_pages = vm->sb_size >> PAGE_SHIFT;

	while (pfn < end) {
		u64 off = PFN_PHYS(pfn) - mb_addr(vm, 0);
		unsigned i = (unsigned)(off / MEMORY_BLOCK_SIZE);
		unsigned sb = (unsigned)((off % MEMORY_BLOCK_SIZE) / vm->sb_size);
		u64 next = MIN(end, (pfn / sb_pages + 1) * sb_pages);

		if (sb_plugged(vm, i, sb))
			vmem_online_range(pfn, next);
		else
			vmem_fake_offline_range(pfn, next);
		pfn = next;
	}
}

/* ---- plugging ------------------------------------------------------------ */

/* Sub-blocks of block i that lie inside the usable region. */
static unsigned mb_usable_sbs(const struct vmem_dev *vm, unsigned i)
{
	u64 start = mb_addr(vm, i), end = vm->addr + vm->usable_region_size;

	if (end <= start)
		return 0;
	return (unsigned)MIN((u64)vm->sb_per_mb, (end - start) / vm->sb_size);
}

/*
 * Plug up to *want unplugged sub-blocks of an added block i (runs of
 * unplugged sub-blocks, lowest first); online blocks get them in the buddy,
 * and then the watermarks and pcp sizes follow the new managed pages, as
 * memory_block_online() does.
 */
static int vmem_plug_in_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	unsigned usable = mb_usable_sbs(vm, i);
	bool onlined = false;
	int err = 0;

	for (unsigned sb = 0; sb < usable && *want;) {
		if (sb_plugged(vm, i, sb)) {
			sb++;
			continue;
		}
		unsigned n = 0;

		while (sb + n < usable && !sb_plugged(vm, i, sb + n) && n < *want)
			n++;
		err = vmem_plug_unplug(vm, true, sb_addr(vm, i, sb), n);
		if (err)
			break;
		sb_set_plugged(vm, i, sb, n, true);
		if (mb_online(vm, i)) {
			vmem_online_range(PHYS_PFN(sb_addr(vm, i, sb)), PHYS_PFN(sb_addr(vm, i, sb + n)));
			onlined = true;
		}
		*want -= n;
		sb += n;
	}
	if (onlined)
		setup_per_zone_wmarks();
	vmem_mb_refresh_state(vm, i);
	return err;
}

static enum mmop vmem_online_type(void)
{
	return memhp_default_online_type == MMOP_OFFLINE ? MMOP_ONLINE : memhp_default_online_type;
}

/* Plug the first sub-blocks of unused block i, add it, online it. */
static int vmem_plug_new_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	unsigned n = (unsigned)MIN((u64)mb_usable_sbs(vm, i), *want);
	u64 pa = mb_addr(vm, i);
	int err;

	if (!n)
		return -ENOSPC;
	err = vmem_plug_unplug(vm, true, pa, n);
	if (err)
		return err;
	sb_set_plugged(vm, i, 0, n, true);
	err = add_memory(vm->nid, pa, MEMORY_BLOCK_SIZE, vm->mgid, MHP_NO_AUTO_ONLINE);
	if (err) {
		ksnprintf(vm->why, sizeof(vm->why), "add_memory of memory%llu failed (%s)",
			  (unsigned long long)(vm->first_mb_id + i), err_text(err));
		pr_err("%s: %s; unplugging its sub-blocks again\n", vm->name, vm->why);
		int r = vmem_plug_unplug(vm, false, pa, n);

		/* never added, so never used: unknown (-ENODEV) counts as unplugged */
		if (r == 0 || r == -ENODEV)
			sb_set_plugged(vm, i, 0, n, false);
		else
			pr_err("%s: the device keeps %u sub-blocks of memory%llu plugged; the next unplug round retries\n",
			       vm->name, n, (unsigned long long)(vm->first_mb_id + i));
		return err;
	}
	*want -= n;
	vmem_mb_refresh_state(vm, i);
	struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);

	err = mem ? memory_block_online(mem, vmem_online_type()) : -ENOENT;
	if (err) {
		ksnprintf(vm->why, sizeof(vm->why), "onlining memory%llu failed (%s): it stays offline",
			  (unsigned long long)(vm->first_mb_id + i), err_text(err));
		pr_err("%s: %s\n", vm->name, vm->why);
	}
	vmem_mb_refresh_state(vm, i);
	return err;
}

static int vmem_plug(struct vmem_dev *vm, u64 want)
{
	static const u8 order[] = { VMEM_MB_KERNEL_PARTIAL, VMEM_MB_MOVABLE_PARTIAL,
				    VMEM_MB_OFFLINE_PARTIAL };
	int err = 0;

	for (unsigned o = 0; o < ARRAY_SIZE(order) && want; o++)
		for (unsigned i = 0; i < vm->nr_mbs && want; i++)
			if (vm->mb_state[i] == order[o] && (err = vmem_plug_in_mb(vm, i, &want)))
				return err;
	for (unsigned i = 0; i < vm->nr_mbs && want; i++) {
		/* a block not added but with plugged sub-blocks (its add failed
		 * and the device refused them back) waits for vmem_unplug() */
		if (vm->mb_state[i] != VMEM_MB_UNUSED || mb_nr_plugged(vm, i))
			continue;
		if (!mb_usable_sbs(vm, i))
			break;
		err = vmem_plug_new_mb(vm, i, &want);
		if (err)
			return err;
	}
	if (want && !err)
		ksnprintf(vm->why, sizeof(vm->why), "%llu MiB more requested than the usable region holds",
			  (unsigned long long)(want * vm->sb_size >> 20));
	return want ? -ENOSPC : 0;
}

/* ---- unplugging ---------------------------------------------------------- */

/* Remove block i once nothing of it is plugged. */
static int vmem_remove_empty_mb(struct vmem_dev *vm, unsigned i)
{
	u64 pa = mb_addr(vm, i);
	int err;

	if (mb_nr_plugged(vm, i) || vm->mb_state[i] == VMEM_MB_UNUSED)
		return 0;
	err = mb_online(vm, i) ? offline_and_remove_memory(pa, MEMORY_BLOCK_SIZE) :
				 remove_memory(pa, MEMORY_BLOCK_SIZE);
	if (err) {
		ksnprintf(vm->why, sizeof(vm->why), "memory%llu is unplugged but cannot be removed (%s)",
			  (unsigned long long)(vm->first_mb_id + i), err_text(err));
		pr_err("%s: %s\n", vm->name, vm->why);
	}
	vmem_mb_refresh_state(vm, i);
	return err;
}

/*
 * Unplug plugged sub-blocks of offline (or not added) block i from the top
 * (no pages in use).  With no usable answer the sub-block counts as
 * unplugged: onlining the block later must not give it to the buddy.
 */
static int vmem_unplug_offline_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	for (int sb = (int)vm->sb_per_mb - 1; sb >= 0 && *want; sb--) {
		if (!sb_plugged(vm, i, (unsigned)sb))
			continue;
		int err = vmem_plug_unplug(vm, false, sb_addr(vm, i, (unsigned)sb), 1);

		if (err == -ENODEV)
			sb_set_plugged(vm, i, (unsigned)sb, 1, false);
		if (err) {
			vmem_mb_refresh_state(vm, i);
			return err;
		}
		sb_set_plugged(vm, i, (unsigned)sb, 1, false);
		(*want)--;
	}
	vmem_mb_refresh_state(vm, i);
	vmem_remove_empty_mb(vm, i);	/* a failure is in vm->why; the bits are right */
	return 0;
}

/*
 * A fully plugged online block that goes away whole: offline and remove
 * it first (movable pages migrate), then UNPLUG it in one request.  If the
 * UNPLUG fails the block is added and onlined again.  Returns 0, or 1
 * (offline refused: fall back to sub-blocks), or the request's error.
 */
static int vmem_unplug_whole_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	u64 pa = mb_addr(vm, i);
	int err = offline_and_remove_memory(pa, MEMORY_BLOCK_SIZE);

	if (err) {
		vmem_mb_refresh_state(vm, i);
		return 1;
	}
	vmem_mb_refresh_state(vm, i);	/* UNUSED, bits still set */
	err = vmem_plug_unplug(vm, false, pa, vm->sb_per_mb);
	if (err == -ENODEV) {
		/* maybe unplugged: it must not come back */
		sb_set_plugged(vm, i, 0, vm->sb_per_mb, false);
		pr_err("%s: memory%llu stays removed: its UNPLUG got no usable answer\n", vm->name,
		       (unsigned long long)(vm->first_mb_id + i));
		return err;
	}
	if (err) {
		if (add_memory(vm->nid, pa, MEMORY_BLOCK_SIZE, vm->mgid, MHP_NO_AUTO_ONLINE) == 0) {
			struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);

			if (mem)
				memory_block_online(mem, vmem_online_type());
		} else {
			pr_err("%s: memory%llu is removed but still plugged\n", vm->name,
			       (unsigned long long)(vm->first_mb_id + i));
		}
		vmem_mb_refresh_state(vm, i);
		return err;
	}
	sb_set_plugged(vm, i, 0, vm->sb_per_mb, false);
	*want -= vm->sb_per_mb;
	return 0;
}

/*
 * Unplug sub-blocks of online block i from the top: each one's pages are
 * taken with alloc_contig_frozen_range (movable ones migrated away), kept
 * PageOffline and unmanaged, then UNPLUGged.  A sub-block holding
 * unmovable pages is skipped and vm->why says which page.
 */
static int vmem_unplug_online_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	u64 sb_pages = vm->sb_size >> PAGE_SHIFT;
	bool managed_changed = false;
	int err = 0;

	if (mb_nr_plugged(vm, i) == vm->sb_per_mb && *want >= vm->sb_per_mb) {
		err = vmem_unplug_whole_mb(vm, i, want);
		if (err <= 0)
			return err;
	}

	for (int sb = (int)vm->sb_per_mb - 1; sb >= 0 && *want; sb--) {
		if (!sb_plugged(vm, i, (unsigned)sb))
			continue;
		u64 pfn = PHYS_PFN(sb_addr(vm, i, (unsigned)sb));
		struct contig_alloc_report rep;

		err = alloc_contig_range_explain(pfn, pfn + sb_pages, MIGRATE_MOVABLE, __GFP_NOWARN,
						 true, &rep);

		if (err) {
			ksnprintf(vm->why, sizeof(vm->why),
				  "sub-block [%#llx, +%llu MiB) of memory%llu is in use: %s (%s at pfn %#llx: %s)",
				  (unsigned long long)PFN_PHYS(pfn),
				  (unsigned long long)(vm->sb_size >> 20),
				  (unsigned long long)(vm->first_mb_id + i), err_text(err), rep.step,
				  (unsigned long long)rep.pfn, rep.why);
			err = 0;
			continue;
		}
		struct zone *zone = page_zone(pfn_to_page(pfn));

		vmem_fake_offline_range(pfn, pfn + sb_pages);
		zone_managed_pages_sub(zone, sb_pages);
		err = vmem_plug_unplug(vm, false, PFN_PHYS(pfn), 1);
		if (err == -ENODEV) {
			/* maybe unplugged: the pages stay PageOffline for good */
			sb_set_plugged(vm, i, (unsigned)sb, 1, false);
			managed_changed = true;
			break;
		}
		if (err) {
			vmem_online_range(pfn, pfn + sb_pages);	/* back to the buddy */
			break;
		}
		managed_changed = true;
		sb_set_plugged(vm, i, (unsigned)sb, 1, false);
		(*want)--;
	}
	/* pages left the buddy for good: watermarks and pcp sizes follow, as
	 * memory_block_offline() does after zone_managed_pages_sub() */
	if (managed_changed)
		setup_per_zone_wmarks();
	vmem_mb_refresh_state(vm, i);
	if (err)
		return err;
	vmem_remove_empty_mb(vm, i);
	return 0;
}

static int vmem_unplug(struct vmem_dev *vm, u64 want)
{
	/* unused blocks first: only those whose add failed hold plugged sub-blocks */
	static const u8 order[] = { VMEM_MB_UNUSED, VMEM_MB_OFFLINE_PARTIAL, VMEM_MB_OFFLINE,
				    VMEM_MB_MOVABLE_PARTIAL, VMEM_MB_KERNEL_PARTIAL,
				    VMEM_MB_MOVABLE, VMEM_MB_KERNEL };
	int err;

	vm->why[0] = 0;
	for (unsigned o = 0; o < ARRAY_SIZE(order) && want; o++) {
		for (int i = (int)vm->nr_mbs - 1; i >= 0 && want; i--) {
			if (vm->mb_state[i] != order[o] || !mb_nr_plugged(vm, (unsigned)i))
				continue;
			err = order[o] <= VMEM_MB_OFFLINE_PARTIAL ?
				      vmem_unplug_offline_mb(vm, (unsigned)i, &want) :
				      vmem_unplug_online_mb(vm, (unsigned)i, &want);
			if (err)
				return err;
		}
	}
	/* blocks that lost their last sub-block earlier but could not be removed then */
	for (unsigned i = 0; i < vm->nr_mbs; i++)
		if (vm->mb_state[i] != VMEM_MB_UNUSED && !mb_nr_plugged(vm, i))
			vmem_remove_empty_mb(vm, i);
	return want ? -EBUSY : 0;
}

/* ---- the resize round ---------------------------------------------------- */

/*
 * vmem_resize() - bring plugged memory to requested_size (rounded down to
 * sub-blocks).  Sets retry_at when it stopped short for a reason that may
 * go away (BUSY, memory in use).
 */
static void vmem_resize(struct vmem_dev *vm)
{
	u64 t0 = ktime_ns(), plugged, target;
	int err = 0;

	if (vm->vd.broken) {
		ksnprintf(vm->why, sizeof(vm->why),
			  "the device is broken (a reply was missing or malformed): no more requests");
		return;
	}
	if (vmem_read_config(vm)) {
		ksnprintf(vm->why, sizeof(vm->why),
			  "the device config does not hold still for a read: retrying later");
		vm->retry_at = jiffies() + VMEM_RETRY_SHORT;
		return;
	}
	vmem_refresh_all(vm);
	if (vm->halted) {
		if (vm->requested_size == vm->halted_request)
			return;
		vm->halted = false;
	}
	if (vm->requested_size % vm->sb_size) {
		pr_warn("%s: requested size %#llx is not a multiple of the sub-block size %#llx: using %#llx\n",
			vm->name, (unsigned long long)vm->requested_size,
			(unsigned long long)vm->sb_size,
			(unsigned long long)(vm->requested_size / vm->sb_size * vm->sb_size));
	}
	vm->last_busy = false;
	if (!vm->plugged_sbs && vm->dev_plugged_size) {
		/* left over from before (probe's UNPLUG_ALL was refused): retry it */
		int r = vmem_request(vm, VIRTIO_MEM_REQ_UNPLUG_ALL, 0, 0, NULL);

		vmem_read_config(vm);
		if (vm->dev_plugged_size) {
			ksnprintf(vm->why, sizeof(vm->why), "UNPLUG_ALL: %s, device still has %llu MiB plugged",
				  r < 0 ? err_text(r) : resp_name((u16)r),
				  (unsigned long long)(vm->dev_plugged_size >> 20));
			vm->last_busy = r == VIRTIO_MEM_RESP_BUSY;
			vm->retry_at = jiffies() + (vm->last_busy ? VMEM_RETRY_BUSY : VMEM_RETRY_SHORT);
			return;
		}
	}
	target = vm->requested_size / vm->sb_size;
	plugged = vm->plugged_sbs;
	vm->retry_at = 0;
	vm->why[0] = 0;
	if (target == plugged) {
		vm->stop_logged = false;
		return;
	}
	if (target > plugged)
		err = vmem_plug(vm, target - plugged);
	else
		err = vmem_unplug(vm, plugged - target);
	vm->last_round_ns = ktime_ns() - t0;
	vmem_read_config(vm);
	if (vm->dev_plugged_size != vm->plugged_sbs * vm->sb_size)
		pr_err("%s: device says %llu MiB plugged, driver %llu MiB\n", vm->name,
		       (unsigned long long)(vm->dev_plugged_size >> 20),
		       (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20));
	/* a retry that changed nothing is not logged again (every 5 s otherwise) */
	if (err && plugged == vm->plugged_sbs && vm->stop_logged)
		goto out;
	vm->stop_logged = err != 0;
	pr_info("%s: %s %llu -> %llu MiB (requested %llu MiB) in %llu ms%s%s\n", vm->name,
		target > plugged ? "plugged" : "unplugged",
		(unsigned long long)((plugged * vm->sb_size) >> 20),
		(unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20),
		(unsigned long long)(vm->requested_size >> 20),
		(unsigned long long)(vm->last_round_ns / 1000000), err ? ": stopped: " : "",
		err ? vm->why : "");
out:
	if (err && !vm->halted)
		vm->retry_at = jiffies() + (vm->last_busy ? VMEM_RETRY_BUSY : VMEM_RETRY_SHORT);
}

static u64 vmem_seen_request[VMEM_MAX_DEVICES];

/*
 * vmem_poll() - every 100 ms: a resize round when requested_size changed
 * (QEMU bumps the config generation and sets ISR bit 1 on qom-set; reading
 * the value itself is as cheap and cannot miss a change), when a retry is
 * due, or when the sizes differ and nothing stopped the last round.
 */
static void vmem_poll(void)
{
	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (!vm->in_use || vm->vd.broken)
			continue;
		virtio_isr_read(&vm->vd);	/* clears the config-change bit */
		u64 req;

		if (cfg64(vm, VMEM_CFG_REQUESTED_SIZE, &req))
			continue;	/* logged; the next poll reads again */
		bool changed = req != vmem_seen_request[d];
		bool due = vm->retry_at && jiffies() >= vm->retry_at;
		bool differ = req / vm->sb_size != vm->plugged_sbs;

		if (!changed && !due && !(differ && !vm->retry_at && !vm->halted))
			continue;
		vmem_seen_request[d] = req;
		vmem_resize(vm);
	}
}

static struct poller vmem_poller = { .fn = vmem_poll, .name = "virtio-mem", .period = 10 };

/* ---- probe --------------------------------------------------------------- */

/*
 * vmem_region_overlaps() - -EEXIST if vm's region touches a memory block
 * the kernel already has (boot RAM, a DIMM) or another device's region,
 * with the reason logged; 0 otherwise.  Linux's driver fails the same way
 * when it cannot reserve the region's resource.
 */
static int vmem_region_overlaps(const struct vmem_dev *vm)
{
	u64 end = vm->addr + vm->region_size;
	unsigned long id = (unsigned long)(vm->addr / MEMORY_BLOCK_SIZE);
	struct memory_block *mem = vm->region_size ? memory_block_next(&id) : NULL;

	if (mem && (u64)id * MEMORY_BLOCK_SIZE < end) {
		pr_err("%s: region [%#llx, +%#llx) overlaps memory%lu, which the kernel already has\n",
		       vm->name, (unsigned long long)vm->addr, (unsigned long long)vm->region_size, id);
		return -EEXIST;
	}
	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		const struct vmem_dev *o = &vmem_devs[d];

		if (o == vm || !o->in_use || !vm->region_size || !o->region_size ||
		    end <= o->addr || o->addr + o->region_size <= vm->addr)
			continue;
		pr_err("%s: region [%#llx, +%#llx) overlaps the region of %s\n", vm->name,
		       (unsigned long long)vm->addr, (unsigned long long)vm->region_size, o->name);
		return -EEXIST;
	}
	return 0;
}

static int vmem_probe(struct pci_dev *pci)
{
	struct vmem_dev *vm = NULL;
	int err;

	for (int d = 0; d < VMEM_MAX_DEVICES && !vm; d++)
		if (!vmem_devs[d].in_use)
			vm = &vmem_devs[d];
	if (!vm) {
		pr_err("virtio-mem: more than %d devices: %02x:%02x.%u ignored\n", VMEM_MAX_DEVICES,
		       pci->bus, pci->dev, pci->fn);
		return -ENOSPC;
	}
	memset(vm, 0, sizeof(*vm));
	ksnprintf(vm->name, sizeof(vm->name), "virtio-mem %02x:%02x.%u", pci->bus, pci->dev, pci->fn);

	err = virtio_pci_setup(&vm->vd, pci,
			       (1ULL << VIRTIO_MEM_F_ACPI_PXM) |
				       (1ULL << VIRTIO_MEM_F_UNPLUGGED_INACCESSIBLE), 0);
	if (err)
		return err;
	if (vm->vd.device_len < VMEM_CFG_LEN) {
		pr_err("%s: device config is %u bytes, needs %u\n", vm->name, vm->vd.device_len,
		       VMEM_CFG_LEN);
		virtio_reset(&vm->vd);
		return -EIO;
	}
	if (cfg64(vm, VMEM_CFG_BLOCK_SIZE, &vm->block_size) ||
	    cfg64(vm, VMEM_CFG_ADDR, &vm->addr) ||
	    cfg64(vm, VMEM_CFG_REGION_SIZE, &vm->region_size)) {
		virtio_reset(&vm->vd);
		return -EIO;
	}
	if (vm->block_size < (2ULL << 20) || vm->block_size > MEMORY_BLOCK_SIZE ||
	    (vm->block_size & (vm->block_size - 1))) {
		pr_err("%s: block size %#llx unsupported: must be a power of two in [2 MiB, 128 MiB]\n",
		       vm->name, (unsigned long long)vm->block_size);
		virtio_reset(&vm->vd);
		return -EINVAL;
	}
	if ((vm->addr | vm->region_size) & (vm->block_size - 1)) {
		pr_err("%s: region [%#llx, +%#llx) is not block aligned\n", vm->name,
		       (unsigned long long)vm->addr, (unsigned long long)vm->region_size);
		virtio_reset(&vm->vd);
		return -EINVAL;
	}
	if (vm->addr + vm->region_size < vm->addr ||
	    vm->addr + vm->region_size > (1ULL << MAX_PHYSMEM_BITS)) {
		pr_err("%s: region [%#llx, +%#llx) ends beyond the %d-bit physical address space\n",
		       vm->name, (unsigned long long)vm->addr, (unsigned long long)vm->region_size,
		       MAX_PHYSMEM_BITS);
		virtio_reset(&vm->vd);
		return -EINVAL;
	}
	err = vmem_region_overlaps(vm);
	if (err) {
		virtio_reset(&vm->vd);
		return err;
	}
	vm->sb_size = vm->block_size;	/* >= 2 MiB = one pageblock */
	vm->sb_per_mb = (unsigned)(MEMORY_BLOCK_SIZE / vm->sb_size);

	u64 first = (vm->addr + MEMORY_BLOCK_SIZE - 1) / MEMORY_BLOCK_SIZE;
	u64 end = (vm->addr + vm->region_size) / MEMORY_BLOCK_SIZE;

	if (vm->addr % MEMORY_BLOCK_SIZE || (vm->addr + vm->region_size) % MEMORY_BLOCK_SIZE)
		pr_warn("%s: region [%#llx, +%#llx) is not 128 MiB aligned: the partial memory blocks are not used\n",
			vm->name, (unsigned long long)vm->addr, (unsigned long long)vm->region_size);
	vm->first_mb_id = first;
	vm->nr_mbs = end > first ? (unsigned)MIN(end - first, (u64)VMEM_MAX_MBS) : 0;
	if (end > first && end - first > VMEM_MAX_MBS)
		pr_warn("%s: region has %llu memory blocks, only the first %u are used\n", vm->name,
			(unsigned long long)(end - first), VMEM_MAX_MBS);

	/* node */
	vm->nid = 0;
	if (virtio_has_feature(&vm->vd, VIRTIO_MEM_F_ACPI_PXM)) {
		u16 pxm = 0;
		int nid;

		if (virtio_cfg_read(&vm->vd, VMEM_CFG_NODE_ID, &pxm, sizeof(pxm))) {
			pr_warn("%s: node id: no stable read: using node 0\n", vm->name);
			nid = 0;
		} else {
			nid = acpi_pxm_to_node(pxm);
		}
		if (nid < 0)
			pr_warn("%s: proximity domain %u has no node: using node 0\n", vm->name, pxm);
		else
			vm->nid = nid;
	}

	/* per-block arrays: a state byte and a u64 bitmap per block */
	u64 meta = (u64)vm->nr_mbs * 9 + 8;
	unsigned order = 0;

	while ((PAGE_SIZE << order) < meta)
		order++;
	vm->meta_pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, order);
	if (!vm->meta_pages) {
		pr_err("%s: no memory for %u memory blocks of state\n", vm->name, vm->nr_mbs);
		virtio_reset(&vm->vd);
		return -ENOMEM;
	}
	vm->meta_order = order;
	vm->mb_plugged = mm_phys_to_virt(page_to_phys(vm->meta_pages));
	vm->mb_state = (u8 *)(vm->mb_plugged + vm->nr_mbs);
	vm->mb_count[VMEM_MB_UNUSED] = vm->nr_mbs;

	err = virtio_find_vq(&vm->vd, 0);
	if (!err)
		err = virtio_driver_ok(&vm->vd);
	if (err)
		goto fail_meta;

	vmem_read_config(vm);
	if (vm->dev_plugged_size) {
		u16 st = 0;
		int r = vmem_request(vm, VIRTIO_MEM_REQ_UNPLUG_ALL, 0, 0, &st);

		pr_info("%s: %llu MiB plugged at probe: UNPLUG_ALL -> %s\n", vm->name,
			(unsigned long long)(vm->dev_plugged_size >> 20),
			r < 0 ? err_text(r) : resp_name((u16)r));
		if (r != VIRTIO_MEM_RESP_ACK)
			vm->retry_at = jiffies() + VMEM_RETRY_BUSY;
		vmem_read_config(vm);
	}

	vm->mgid = memory_group_register_dynamic(vm->nid, PAGES_PER_MEMORY_BLOCK, vm->name);
	if (vm->mgid < 0) {
		pr_err("%s: no memory group (%s)\n", vm->name, err_text(vm->mgid));
		err = vm->mgid;
		goto fail_meta;
	}
	if (!vmem_callback_set) {
		err = set_online_page_callback(vmem_online_page);
		if (err) {
			pr_err("%s: another online_page_callback is set\n", vm->name);
			memory_group_unregister(vm->mgid);
			goto fail_meta;
		}
		vmem_callback_set = true;
	}
	if (!vmem_poller_registered) {
		register_poller(&vmem_poller);	/* for good: it skips unused slots */
		vmem_poller_registered = true;
	}
	vm->in_use = true;
	pci->driver_data = vm;
	pr_info("%s: region [%#llx-%#llx) %llu MiB, block size %llu KiB, node %d, %u memory blocks, features %#llx\n",
		vm->name, (unsigned long long)vm->addr,
		(unsigned long long)(vm->addr + vm->region_size),
		(unsigned long long)(vm->region_size >> 20), (unsigned long long)(vm->block_size >> 10),
		vm->nid, vm->nr_mbs, (unsigned long long)vm->vd.features);
	return 0;

fail_meta:
	free_pages(vm->meta_pages, vm->meta_order);
	vm->meta_pages = NULL;
	virtio_reset(&vm->vd);
	virtio_del_vq(&vm->vd);
	return err;
}

/*
 * vmem_remove() - the device goes away (pci_remove_device; QEMU 7.2 refuses
 * device_del of virtio-mem, so today only the tests get here).  Every
 * memory block the driver added is offlined and removed, whatever the
 * device says: passes over the blocks until one makes no progress, since
 * a block's memmap may live in another block added before it.  Then the
 * device is asked to UNPLUG_ALL (best effort), reset, and the driver's
 * state and queue are freed.  A block that cannot be offlined (unmovable
 * pages) keeps the device's slot, marked broken, so the online_page
 * callback still knows its unplugged sub-blocks; the log says which.
 */
static void vmem_remove(struct pci_dev *pci)
{
	struct vmem_dev *vm = pci->driver_data;
	unsigned left;
	bool progress = true;

	if (!vm)
		return;
	while (progress) {
		progress = false;
		left = 0;
		for (int i = (int)vm->nr_mbs - 1; i >= 0; i--) {
			if (vm->mb_state[i] == VMEM_MB_UNUSED)
				continue;
			struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + (unsigned)i);
			u64 pa = mb_addr(vm, (unsigned)i);
			int err = mem && mem->state == MEM_ONLINE ?
					  offline_and_remove_memory(pa, MEMORY_BLOCK_SIZE) :
					  remove_memory(pa, MEMORY_BLOCK_SIZE);

			vmem_mb_refresh_state(vm, (unsigned)i);
			if (err)
				left++;
			else
				progress = true;
		}
	}
	if (left) {
		pr_err("%s: removed while %u memory blocks of it cannot be offlined: they stay, the device is marked broken\n",
		       vm->name, left);
		vm->vd.broken = true;
		return;
	}
	if (!vm->vd.broken) {
		int r = vmem_request(vm, VIRTIO_MEM_REQ_UNPLUG_ALL, 0, 0, NULL);

		if (r != VIRTIO_MEM_RESP_ACK)
			pr_warn("%s: UNPLUG_ALL at removal: %s\n", vm->name,
				r < 0 ? err_text(r) : resp_name((u16)r));
	}
	for (unsigned i = 0; i < vm->nr_mbs; i++)
		sb_set_plugged(vm, i, 0, vm->sb_per_mb, false);
	memory_group_unregister(vm->mgid);
	virtio_reset(&vm->vd);
	virtio_del_vq(&vm->vd);
	free_pages(vm->meta_pages, vm->meta_order);
	vm->meta_pages = NULL;
	vm->in_use = false;
	pci->driver_data = NULL;
	pr_info("%s: removed\n", vm->name);
	for (int d = 0; d < VMEM_MAX_DEVICES; d++)
		if (vmem_devs[d].in_use)
			return;
	/* the last device: onlined memory goes straight to the buddy again,
	 * and another driver may set its own callback */
	restore_online_page_callback(vmem_online_page);
	vmem_callback_set = false;
}

static const struct pci_driver vmem_driver = {
	.name = "virtio-mem",
	.vendor = VIRTIO_PCI_VENDOR,
	.device = VIRTIO_ID_MEM_PCI,
	.probe = vmem_probe,
	.remove = vmem_remove,
};

void virtio_mem_init(void)
{
	pci_register_driver(&vmem_driver);
}

/* ---- views --------------------------------------------------------------- */

void virtio_mem_dump(struct printer *p)
{
	int shown = 0;

	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (!vm->in_use)
			continue;
		shown++;
		vmem_read_config(vm);
		vmem_refresh_all(vm);
		pr_printf(p, "%s: node %d, memory group %d%s\n", vm->name, vm->nid, vm->mgid,
			  vm->vd.broken ? ", BROKEN (no more requests)" : "");
		pr_printf(p, "  region:      [0x%llx-0x%llx) %llu MiB\n", (unsigned long long)vm->addr,
			  (unsigned long long)(vm->addr + vm->region_size),
			  (unsigned long long)(vm->region_size >> 20));
		pr_printf(p, "  block size:  %llu KiB (sub-block %llu KiB, %u per memory block)\n",
			  (unsigned long long)(vm->block_size >> 10),
			  (unsigned long long)(vm->sb_size >> 10), vm->sb_per_mb);
		pr_printf(p, "  plugged:     %llu MiB (device: %llu MiB)\n",
			  (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20),
			  (unsigned long long)(vm->dev_plugged_size >> 20));
		pr_printf(p, "  requested:   %llu MiB\n", (unsigned long long)(vm->requested_size >> 20));
		pr_printf(p, "  usable:      %llu MiB\n",
			  (unsigned long long)(vm->usable_region_size >> 20));
		pr_printf(p, "  features:    %s%s%s\n",
			  virtio_has_feature(&vm->vd, VIRTIO_F_VERSION_1) ? "VERSION_1" : "",
			  virtio_has_feature(&vm->vd, VIRTIO_MEM_F_ACPI_PXM) ? " ACPI_PXM" : "",
			  virtio_has_feature(&vm->vd, VIRTIO_MEM_F_UNPLUGGED_INACCESSIBLE) ?
				  " UNPLUGGED_INACCESSIBLE" : "");
		pr_printf(p, "  requests:    plug %llu, unplug %llu, nack %llu, busy %llu, error %llu\n",
			  (unsigned long long)vm->plug_reqs, (unsigned long long)vm->unplug_reqs,
			  (unsigned long long)vm->nacks, (unsigned long long)vm->busys,
			  (unsigned long long)vm->errors);
		pr_printf(p, "  last round:  %llu ms\n", (unsigned long long)(vm->last_round_ns / 1000000));
		pr_printf(p, "  status:      %s%s%s\n",
			  vm->halted ? "halted: " :
			  vm->why[0] ? "stopped short: " : "converged",
			  vm->why, vm->retry_at ? " (retrying)" : "");
		pr_printf(p, "  blocks:");
		for (int s = 0; s < VMEM_MB_NR_STATES; s++)
			pr_printf(p, " %s %lu", vmem_mb_state_names[s], vm->mb_count[s]);
		pr_printf(p, "\n");
		for (unsigned i = 0; i < vm->nr_mbs; i++) {
			if (vm->mb_state[i] == VMEM_MB_UNUSED)
				continue;
			struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);
			char bits[VMEM_MAX_SB_PER_MB + 1];

			for (unsigned sb = 0; sb < vm->sb_per_mb; sb++)
				bits[sb] = sb_plugged(vm, i, sb) ? '#' : '.';
			bits[vm->sb_per_mb] = 0;
			pr_printf(p, "  memory%-6llu %-8s %-16s %2u/%u %s\n",
				  (unsigned long long)(vm->first_mb_id + i),
				  mem && mem->zone ? mem->zone->name : "-",
				  vmem_mb_state_names[vm->mb_state[i]], mb_nr_plugged(vm, i),
				  vm->sb_per_mb, bits);
		}
	}
	if (!shown)
		pr_printf(p, "virtio-mem: no device\n");
}

static const char *state_name(u16 s)
{
	switch (s) {
	case VIRTIO_MEM_STATE_PLUGGED: return "plugged";
	case VIRTIO_MEM_STATE_UNPLUGGED: return "unplugged";
	case VIRTIO_MEM_STATE_MIXED: return "mixed";
	default: return "invalid";
	}
}

static int cmd_virtio_mem(struct printer *out, int argc, char **argv)
{
	if (argc == 1) {
		virtio_mem_dump(out);
		return 0;
	}
	if (!strcmp(argv[1], "retry") && argc == 2) {
		int n = 0;

		for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
			if (!vmem_devs[d].in_use)
				continue;
			vmem_devs[d].halted = false;
			vmem_resize(&vmem_devs[d]);
			pr_printf(out, "%s: plugged %llu MiB, requested %llu MiB%s%s\n", vmem_devs[d].name,
				  (unsigned long long)((vmem_devs[d].plugged_sbs * vmem_devs[d].sb_size) >> 20),
				  (unsigned long long)(vmem_devs[d].requested_size >> 20),
				  vmem_devs[d].why[0] ? ": stopped short: " : "", vmem_devs[d].why);
			n++;
		}
		if (!n)
			pr_printf(out, "virtio-mem: no device\n");
		return 0;
	}
	if (!strcmp(argv[1], "inject") && (argc == 3 || argc == 4)) {
		u64 n = 1;

		if (!strcmp(argv[2], "off")) {
			inject_count = 0;
			pr_printf(out, "virtio-mem: no replies injected\n");
			return 0;
		}
		if (!strcmp(argv[2], "nack"))
			inject_resp = VIRTIO_MEM_RESP_NACK;
		else if (!strcmp(argv[2], "busy"))
			inject_resp = VIRTIO_MEM_RESP_BUSY;
		else if (!strcmp(argv[2], "error"))
			inject_resp = VIRTIO_MEM_RESP_ERROR;
		else
			return shell_usage(out, shell_find("virtio-mem"));
		if (argc == 4 && (parse_u64(argv[3], &n) || !n || n > 1000000)) {
			pr_printf(out, "virtio-mem inject: COUNT must be 1..1000000\n");
			return -EINVAL;
		}
		inject_count = (u32)n;
		pr_printf(out, "virtio-mem: the next %u plug/unplug replies will be %s\n",
			  inject_count, resp_name(inject_resp));
		return 0;
	}
	if (!strcmp(argv[1], "state") && argc == 4) {
		u64 addr, size;

		if (parse_u64(argv[2], &addr) || parse_u64(argv[3], &size) || !size) {
			pr_printf(out, "virtio-mem state: ADDR and SIZE must be numbers (SIZE > 0)\n");
			return -EINVAL;
		}
		for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
			struct vmem_dev *vm = &vmem_devs[d];

			if (!vm->in_use || addr < vm->addr || addr >= vm->addr + vm->region_size)
				continue;
			if ((addr | size) % vm->block_size || size / vm->block_size > 0xffff ||
			    addr + size > vm->addr + vm->region_size) {
				pr_printf(out, "virtio-mem state: [%#llx, +%#llx) must be block aligned (%llu KiB), at most 65535 blocks, inside the region\n",
					  (unsigned long long)addr, (unsigned long long)size,
					  (unsigned long long)(vm->block_size >> 10));
				return -EINVAL;
			}
			u16 st = 0;
			int r = vmem_request(vm, VIRTIO_MEM_REQ_STATE, addr, size / vm->block_size, &st);

			if (r < 0) {
				pr_printf(out, "virtio-mem state: request failed: %s\n", err_text(r));
				return r;
			}
			if (r != VIRTIO_MEM_RESP_ACK) {
				pr_printf(out, "virtio-mem state: [%#llx, +%#llx): %s\n",
					  (unsigned long long)addr, (unsigned long long)size, resp_name((u16)r));
				return -EIO;
			}
			pr_printf(out, "%s: [0x%llx-0x%llx) %s\n", vm->name, (unsigned long long)addr,
				  (unsigned long long)(addr + size), state_name(st));
			return 0;
		}
		pr_printf(out, "virtio-mem state: %#llx is in no virtio-mem region\n",
			  (unsigned long long)addr);
		return -EINVAL;
	}
	return shell_usage(out, shell_find("virtio-mem"));
}

SHELL_COMMAND(virtio_mem, .name = "virtio-mem",
	      .usage = "virtio-mem [retry | state ADDR SIZE | inject nack|busy|error [COUNT] | inject off]",
	      .summary = "virtio-mem devices: region, plugged/requested sizes, memory blocks",
	      .help = "Without arguments: each device's region, block size, plugged and\n"
		      "requested size, usable region, and per memory block its zone, state\n"
		      "and plugged sub-blocks ('#' plugged, '.' not).  `retry` runs a resize\n"
		      "round now.  `state ADDR SIZE` asks the device (STATE request) whether\n"
		      "the blocks of [ADDR, ADDR+SIZE) are plugged, unplugged or mixed.\n"
		      "`inject nack|busy|error [COUNT]` makes the next COUNT plug/unplug\n"
		      "requests come back with that reply without reaching the device, to\n"
		      "see how the driver handles it; `inject off` stops it.",
	      .fn = cmd_virtio_mem);
