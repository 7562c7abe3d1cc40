/*
 * virtio_mem_fake.h - a virtio-mem device in host memory, for the driver's
 * host tests (test_virtio.c, test_mm_cmds.c) and its fuzz targets
 * (fuzz_virtio_mem.c, fuzz_mm_cmds.c); tests/host/virtio_mem_fake.c
 * implements it, linked next to the real driver.
 *
 * The PCI function: a 256-byte config space whose vendor capabilities
 * describe QEMU 7.2's layout over a 16 KiB BAR4 in host memory (common
 * config, ISR, device config, notify at 0/4/8/12 KiB); pci_read*(),
 * pci_find_capability(), pci_map_bar() and friends read them.
 *
 * Time is virtual: ktime_ns() moves 1 us per call (1 ms while a request is
 * held back), jiffies() only when a test moves time (fvm_poll()).  The
 * device runs inside ktime_ns(): the transport calls it while it polls the
 * used ring, so each call looks at the available ring through the queue
 * addresses the driver wrote into the common config, as a device would,
 * and answers a request through its descriptors into the used ring.
 *
 * The device (struct fvm_dev) keeps its own truth: block size, region,
 * usable and requested size, a plugged bit per block (blocks of >= 2 MiB
 * inside the simulated RAM) and its plugged size, which it shows in the
 * config after each request.  For each request it asks fvm_reply() for a
 * byte (NULL or 0: answer as QEMU does).  Below 0x80 it is honest: PLUG
 * beyond requested_size is NACKed, a range outside the usable region or in
 * the wrong state is ERROR, UNPLUG_ALL always works.  Otherwise the low
 * nibble is an enum fvm_lie; a few lies take one more fvm_reply() byte.
 * fvm.honest stays true while nothing it said was a lie (slow and late
 * answers are not lies).
 *
 * fvm_check_driver() returns the source line of the first rule of the
 * driver's bookkeeping that does not hold (0 if all do); the rules are
 * listed above it in virtio_mem_fake.c.
 */
#ifndef HOST_VIRTIO_MEM_FAKE_H
#define HOST_VIRTIO_MEM_FAKE_H

#include "../../drivers/virtio/virtio_mem_internal.h"

#define FVM_MiB		(1ULL << 20)
#define FVM_GiB		(1ULL << 30)
#define FVM_SIM_RAM	(5 * FVM_GiB)	/* simulated physical memory */
#define FVM_BOOT_RAM	(128 * FVM_MiB)	/* what the firmware map calls RAM, node 0 */
#define FVM_WINDOW	(4 * FVM_GiB)	/* QEMU's device-memory window starts here */
#define FVM_MAX_BLOCKS	(FVM_SIM_RAM / (2 * FVM_MiB))

#define BAR_COMMON	0x0000
#define BAR_ISR		0x1000
#define BAR_DEVICE	0x2000
#define BAR_NOTIFY	0x3000

#define FVM_UNUSED	__attribute__((unused))

/* How a lying device answers (a reply byte >= 0x80: its low nibble). */
enum fvm_lie {
	FVM_ACK_NOOP,		/* ACK, nothing done (bits 4-5: the STATE value) */
	FVM_NACK,		/* NACK, nothing done */
	FVM_BUSY,		/* BUSY, nothing done */
	FVM_ERROR,		/* ERROR, nothing done */
	FVM_BAD_TYPE,		/* done, response type 4 + next byte */
	FVM_SHORT,		/* done, written length 0 (1 with bit 4) */
	FVM_STILL_PLUGGED,	/* done and ACKed, plugged_size left as it was */
	FVM_BAD_ID,		/* used element with id head + 1 + next byte */
	FVM_BAD_LEN,		/* used element longer than the response buffer */
	FVM_IDX_JUMP,		/* done, used index moves by 2 */
	FVM_LOST,		/* never answered */
	FVM_LATE,		/* answered honestly after 2100 + next byte ms (past the timeout) */
	FVM_SLOW,		/* answered honestly after 1 + 8 * next byte ms (in time) */
	FVM_GARBAGE_STATE,	/* done, STATE value 3 + next byte */
	FVM_DONE_BUT_BUSY,	/* done, but BUSY answered */
	FVM_RESIZE_UNDER,	/* done; requested (bit 4) or usable size := next byte blocks */
};

#define FVM_LIE(l)	((u8)(0x80 | (l)))

/* The device's state. */
struct fvm_dev {
	u64 bs, addr, region, usable, requested;	/* the device's own values */
	u64 plugged;			/* bytes, its own count */
	u64 nr_blocks;			/* blocks it tracks: a prefix of the region */
	u8 map[FVM_MAX_BLOCKS];		/* plugged flag per tracked block */
	bool tracked;			/* map in use (block size and region allow it) */
	u16 last_avail;			/* available entries consumed */
	u16 used_idx;			/* used entries produced */
	int stall;			/* ktime_ns() calls before it looks at the ring again */
	bool stall_answer;		/* answer the held request then (else drop it) */
	bool honest;			/* nothing it said so far was a lie */
	u64 max_usable_shown;		/* largest usable size the config showed */
	u64 requests;			/* requests answered */
	u64 last_type;			/* type of the last request seen */
	/* what vmem_probe() accepted, for fvm_check_driver() */
	u64 probe_addr, probe_region, probe_bs, probe_first_mb;
	unsigned probe_nr_mbs;
};

extern struct fvm_dev fvm;		/* the one device */
extern u8 (*fvm_reply)(void);		/* the next reply byte; NULL: always honest */
extern u8 fake_cfg[256];		/* the PCI function's config space */
extern u8 fake_bar[16384];		/* its BAR4 */
extern struct pci_dev fake_pci;		/* the function the driver probes */
extern u32 fvm_pxm_of_node[MAX_NUMNODES]; /* acpi_pxm_to_node(): the domain of each node */
extern int fvm_nr_pxm_nodes;		/* nodes with a domain */

/* put_cap() - a virtio vendor capability at config offset pos. */
void put_cap(u8 pos, u8 next, u8 type, u8 bar, u32 off, u32 len, u32 mult);
/* fake_device() - QEMU 7.2's virtio-pci layout, no virtio-mem config yet. */
void fake_device(void);
/* bar_rd64() - a 64-bit value of BAR4 at off. */
u64 bar_rd64(u32 off);
/* fvm_cfg_show() - the config changed: generation bumped, ISR bit 1 set. */
void fvm_cfg_show(void);
/* fvm_cfg_set() - a 64-bit device config field at off, shown. */
void fvm_cfg_set(u32 off, u64 v);
/* fvm_request_size() - the host asks for v bytes (qom-set requested-size). */
void fvm_request_size(u64 v);
/* fvm_setup() - fake_device() plus a virtio-mem config (see the .c). */
void fvm_setup(u64 bs, u16 pxm, u64 addr, u64 region, u64 usable, u64 plugged,
	       u64 requested);
/* fvm_machine() - a fresh simulated machine and the driver as at boot. */
void fvm_machine(void);
/* fvm_driver_reset() - the driver's and the fake's statics as at boot. */
void fvm_driver_reset(void);
/* fvm_probe() - the driver's probe on the fake; remembers what it accepted. */
int fvm_probe(void);
/* fvm_poll() - ticks later, the poller runs. */
void fvm_poll(unsigned ticks);
/* fvm_check_driver() - 0, or the line of the first bookkeeping rule that fails. */
int fvm_check_driver(struct vmem_dev *vm, bool pages);

#endif
