/*
 * virtio_mem_internal.h - what the files of the virtio-mem driver share
 * (drivers/virtio/virtio_mem*.c) and its host tests read: the device's
 * wire format, the per-device state and the functions one file of the
 * driver calls in another.  Nothing outside drivers/virtio/ and the tests
 * includes it; the shell and kmain use include/drivers/virtio_mem.h.
 *
 * The files and their jobs:
 *   virtio_mem.c        probe and removal (the PCI driver)
 *   virtio_mem_proto.c  the protocol: config reads, requests and replies,
 *                       injected replies
 *   virtio_mem_sb.c     the sub-block state machine: per memory block its
 *                       state and plugged bitmap, one setter per counter
 *   virtio_mem_plug.c   plugging, unplugging, the online_page_callback,
 *                       the resize round and the poller
 *   virtio_mem_dump.c   the `virtio-mem` view
 *
 * Invariants of struct vmem_dev (tests/host/virtio_mem_fake.c checks them
 * after every step, fvm_check_driver()):
 *   - mb_count[s] is the number of blocks i with mb_state[i] == s;
 *     vmem_mb_set_state() (virtio_mem_sb.c, behind vmem_mb_refresh_state())
 *     is the only writer of both;
 *   - plugged_sbs is the number of set bits over mb_plugged[];
 *     vmem_sb_set_plugged() is the only writer of both;
 *   - no bit at or above sb_per_mb is set; every plugged sub-block lies
 *     inside [addr, addr + usable_region_size);
 *   - a block is not VMEM_MB_UNUSED exactly while the kernel has it
 *     (find_memory_block_by_id()) in the device's memory group mgid;
 *   - in an online block, the pages of every unplugged sub-block are
 *     PageOffline with refcount 0 and not managed; those of a plugged one
 *     are not PageOffline;
 *   - a sub-block counts as plugged only if the device surely plugged it.
 *
 * Context: (main): probe from pci_init/pci_rescan, the rest from the
 * poller and the shell.
 */
#ifndef DRIVERS_VIRTIO_MEM_INTERNAL_H
#define DRIVERS_VIRTIO_MEM_INTERNAL_H

#include <drivers/virtio.h>
#include <drivers/virtio_mem.h>
#include <drivers/pci.h>
#include <kernel/longop.h>
#include <kernel/time.h>
#include <kernel/workqueue.h>
#include <mm/memory_hotplug.h>

#define VIRTIO_ID_MEM_PCI		0x1058	/* 0x1040 + device id 24 */
#define VIRTIO_PCI_VENDOR		0x1af4

#define VIRTIO_MEM_F_ACPI_PXM		0
#define VIRTIO_MEM_F_UNPLUGGED_INACCESSIBLE 1

#define VIRTIO_MEM_REQ_PLUG		0
#define VIRTIO_MEM_REQ_UNPLUG		1
#define VIRTIO_MEM_REQ_UNPLUG_ALL	2
#define VIRTIO_MEM_REQ_STATE		3

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

/* A request on the device's one virtqueue (24 bytes, little endian). */
struct virtio_mem_req {
	u16 type;			/* VIRTIO_MEM_REQ_* */
	u16 padding[3];			/* zero */
	u64 addr;			/* PLUG/UNPLUG/STATE: first byte */
	u16 nb_blocks;			/* PLUG/UNPLUG/STATE: device blocks */
	u16 padding2[3];		/* zero */
} __packed;

/* The device's reply (10 bytes). */
struct virtio_mem_resp {
	u16 type;			/* VIRTIO_MEM_RESP_* */
	u16 padding[3];			/* zero */
	u16 state;			/* STATE: VIRTIO_MEM_STATE_* */
} __packed;

_Static_assert(sizeof(struct virtio_mem_req) == 24, "virtio-mem request is 24 bytes");
_Static_assert(sizeof(struct virtio_mem_resp) == 10, "virtio-mem response is 10 bytes");

#define VMEM_MAX_DEVICES	4
#define VMEM_MAX_MBS		8192	/* memory blocks per device (1 TiB) */
#define VMEM_MAX_SB_PER_MB	64	/* 128 MiB / 2 MiB: one u64 bitmap per block */
#define VMEM_UNPLUG_BATCH_MBS	64	/* whole blocks one UNPLUG request may give back (8 GiB) */
#define VMEM_UNPLUG_BATCH_MEMMAPS 8	/* memmaps held in one batch's blocks beyond its first */
#define VMEM_UNPLUG_TAIL_SBS	8	/* sub-blocks per request of a block full of memmaps */
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

/* "unused", "offline", ...: the names the view prints, by state. */
extern const char *const vmem_mb_state_names[VMEM_MB_NR_STATES];

/* One virtio-mem device and the driver's view of its region. */
struct vmem_dev {
	struct virtio_device vd;	/* transport */
	bool in_use;			/* slot taken */
	char name[24];			/* "virtio-mem 01:00.0" */
	int nid;			/* node of the memory */
	int mgid;			/* dynamic memory group */
	u64 block_size;			/* device block size, bytes */
	u64 sb_size;			/* sub-block = max(block_size, pageblock) */
	unsigned sb_per_mb;		/* sub-blocks in a memory block */
	u64 addr;			/* first byte of the region, fixed */
	u64 region_size;		/* bytes of the region, fixed */
	u64 usable_region_size;		/* last read */
	u64 dev_plugged_size;		/* plugged_size last read from the device */
	u64 requested_size;		/* last read */
	u64 first_mb_id;		/* first memory block wholly inside the region */
	unsigned nr_mbs;		/* memory blocks wholly inside the region (capped) */
	u8 *mb_state;			/* enum vmem_mb_state per memory block */
	u8 *mb_memmaps;			/* per block: memmaps of blocks it held, ever (capped at
					 * 255), 0 again once given back: an estimate of the
					 * memory the host backs there, which an UNPLUG frees */
	u64 *mb_plugged;		/* plugged sub-block bitmap per memory block */
	struct page *meta_pages;	/* the pages of both arrays */
	unsigned meta_order;		/* their order */
	unsigned long mb_count[VMEM_MB_NR_STATES]; /* blocks per state */
	u64 plugged_sbs;		/* plugged sub-blocks (driver's view) */
	bool halted;			/* ERROR or a broken device: wait for a new request size */
	u64 halted_request;		/* requested_size when halted */
	u64 retry_at;			/* jiffies of the next retry, 0: none pending */
	char why[200];			/* why the last round stopped short, "" if converged */
	char in_use_logged[200];	/* the last "in use: not unplugged" logged, to log each once */
	u64 plug_reqs;			/* PLUG requests sent */
	u64 unplug_reqs;		/* UNPLUG requests sent */
	u64 nacks;			/* NACK replies */
	u64 busys;			/* BUSY replies */
	u64 errors;			/* ERROR replies and requests without a usable answer */
	u64 last_round_ns;		/* duration of the last resize round */
	bool last_busy;			/* the last round ended on a BUSY reply */
	bool stop_logged;		/* the last round stopped short and said so */
	bool wait_logged;		/* the round waits for a shell job's range, said so */
	/* the resize round while it moves: a long operation (`work`) */
	struct longop op;		/* running while the round moves; busy range: the region */
	char op_name[40];		/* "virtio-mem 01:00.0 resize" */
	bool op_plug;			/* the round plugs (else it unplugs) */
	unsigned cur_pass;		/* the round's cursor: which pass over the blocks */
	unsigned cur_i;			/* the next block of that pass (unplug: counted from the top) */
	u64 cur_request;		/* requested_size the cursor was set for */
	u64 round_t0;			/* ktime_ns() when the round started */
	u64 round_from;			/* plugged_sbs when the round started */
	u64 blocks_seen;		/* memory_blocks_generation() at the end of its last slice */
	unsigned whole_refused;		/* block + 1 that just refused a whole-block offline, 0: none */
	unsigned tail_mb;		/* block + 1 removed whole whose sub-blocks [0, tail_sbs) the
					 * next units UNPLUG, a few per request; 0: none */
	unsigned tail_sbs;
	unsigned unplug_batch;		/* blocks the next whole-block batch may take, learned
					 * from the round's UNPLUG answers: 1 at the start */
	bool unplug_costly;		/* the last answer took long per block: pieces */
};

/* The device slots (virtio_mem.c); a slot is a device while in_use. */
extern struct vmem_dev vmem_devs[VMEM_MAX_DEVICES];
/* vmem_online_page() is the online_page_callback (virtio_mem.c sets it). */
extern bool vmem_callback_set;

/* What virtio-mem answers mm about its memory (virtio_mem_plug.c). */
extern const struct memory_group_ops vmem_group_ops;

/* ---- virtio_mem_sb.c: the sub-block state machine ------------------------- */

/* Physical address of memory block i of the region. */
static inline u64 vmem_mb_addr(const struct vmem_dev *vm, unsigned i)
{
	return (vm->first_mb_id + i) * MEMORY_BLOCK_SIZE;
}

/* Physical address of sub-block sb of memory block i. */
static inline u64 vmem_sb_addr(const struct vmem_dev *vm, unsigned i, unsigned sb)
{
	return vmem_mb_addr(vm, i) + (u64)sb * vm->sb_size;
}

/* Plugged sub-blocks of memory block i. */
static inline unsigned vmem_mb_nr_plugged(const struct vmem_dev *vm, unsigned i)
{
	return (unsigned)__builtin_popcountll(vm->mb_plugged[i]);
}

/* Is sub-block sb of memory block i plugged? */
static inline bool vmem_sb_plugged(const struct vmem_dev *vm, unsigned i, unsigned sb)
{
	return (vm->mb_plugged[i] >> sb) & 1;
}

/* Is memory block i online (in a kernel zone or ZONE_MOVABLE)? */
static inline bool vmem_mb_online(const struct vmem_dev *vm, unsigned i)
{
	return vm->mb_state[i] >= VMEM_MB_KERNEL;
}

/*
 * vmem_sb_set_plugged() - the only writer of mb_plugged[]: sub-blocks
 * [sb, sb + n) of block i become plugged (on) or not; keeps plugged_sbs.
 */
void vmem_sb_set_plugged(struct vmem_dev *vm, unsigned i, unsigned sb, unsigned n, bool on);

/*
 * vmem_mb_refresh_state() - derive the state of block i from the kernel's
 * memory block (added? online? which zone?) and its bitmap;
 * vmem_refresh_all() does it for every added block (they may have been
 * onlined or offlined through sysfs meanwhile) and notes the
 * memory_blocks_generation() it saw in blocks_seen.
 */
void vmem_mb_refresh_state(struct vmem_dev *vm, unsigned i);
void vmem_refresh_all(struct vmem_dev *vm);

/* vmem_dev_of_pfn() - the device whose memory blocks hold pfn, or NULL. */
struct vmem_dev *vmem_dev_of_pfn(u64 pfn);

/* ---- virtio_mem_proto.c: config and requests ------------------------------ */

/*
 * vmem_cfg64() - a 64-bit config field into *v; -EIO (logged) when the
 * device's config generation never held still for a whole read.  A failed
 * read is never taken as 0.
 */
int vmem_cfg64(struct vmem_dev *vm, u32 off, u64 *v);

/*
 * vmem_read_config() - usable, plugged and requested size from the device;
 * all or nothing: on a failed read the previous values stay, -EIO.
 */
int vmem_read_config(struct vmem_dev *vm);

/*
 * vmem_request() - one request; returns the response type (>= 0) or a
 * transport -errno.  *state (if not NULL) gets the STATE answer.  A
 * malformed reply marks the device broken and gives -EIO.
 */
int vmem_request(struct vmem_dev *vm, u16 type, u64 addr, u64 nb_blocks, u16 *state);

/*
 * vmem_plug_unplug() - PLUG or UNPLUG n sub-blocks from address pa.
 * Returns 0 on ACK, -EAGAIN on NACK, -EBUSY on BUSY, -EIO on ERROR
 * (halted until the requested size changes) and -ENODEV when no usable
 * answer came (the device is broken; callers assume the worse).
 */
int vmem_plug_unplug(struct vmem_dev *vm, bool plug, u64 pa, unsigned n);

/* Injected replies (`virtio-mem inject`): the next vmem_inject_count
 * PLUG/UNPLUG/UNPLUG_ALL requests get vmem_inject_resp without being sent. */
extern u16 vmem_inject_resp;
extern u32 vmem_inject_count;

/* ---- virtio_mem_plug.c: plug, unplug, the resize round -------------------- */

/*
 * vmem_online_page() - the online_page_callback: pages of a virtio-mem
 * memory block go to the buddy only where their sub-block is plugged.
 * Set deferrable (set_online_page_callback_deferrable()): with
 * deferred_init_hotplug on it runs at a pending section's hand-over, on
 * any CPU with mem_resize_lock held, and only reads the device slots and
 * the block's bits, which do not change while the section is pending
 * (virtio_mem_plug.c initialises it before a plug or unplug in it).
 * Context: (main) at an eager online, (any CPU) at a hand-over.
 */
void vmem_online_page(u64 start_pfn, u64 end_pfn);

/*
 * vmem_online_count() - the count op of vmem_online_page(): the pages of
 * [start_pfn, end_pfn) it would give to the buddy now (those of plugged
 * sub-blocks), which a lazy online counts as managed and free at once.
 * Context: (main).
 */
u64 vmem_online_count(u64 start_pfn, u64 end_pfn);

/*
 * vmem_resize() - start a resize round that brings plugged memory to
 * requested_size (rounded down to sub-blocks), or let the running round
 * retarget: the round is a long operation (vm->op) that plugs or unplugs
 * one memory block per unit of work from the main loop's idle point, and
 * re-reads requested_size every slice.  When it stops short for a reason
 * that may go away (BUSY, memory in use) it sets retry_at.
 */
void vmem_resize(struct vmem_dev *vm);

/* vmem_resizing() - is a resize round of vm moving? */
static inline bool vmem_resizing(const struct vmem_dev *vm)
{
	return vm->op.running;
}

/* The poller (every 100 ms); probe registers it once. */
extern struct poller vmem_poller;
/* requested_size as the poller last saw it, per slot. */
extern u64 vmem_seen_request[VMEM_MAX_DEVICES];

/* ---- virtio_mem.c: probe and removal -------------------------------------- */

/* vmem_probe() - the PCI driver's probe: 0, or -errno with the reason logged. */
int vmem_probe(struct pci_dev *pci);
/* The PCI driver: 1af4:1058, vmem_probe and the removal. */
extern const struct pci_driver vmem_driver;

#endif
