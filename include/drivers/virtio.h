/*
 * virtio.h - the modern virtio-pci transport (virtio 1.x, "virtio over
 * PCI bus" in the spec) and one polled split virtqueue per request type.
 *
 * A virtio-pci device describes its register blocks with vendor-specific
 * PCI capabilities (id 0x09): common configuration (type 1), notification
 * (2), ISR status (3) and device-specific configuration (4), each a window
 * [offset, offset + length) of one BAR.  virtio_pci_setup() finds and maps
 * them, resets the device, acknowledges it, negotiates features, and
 * virtio_find_vq() sets up a split virtqueue in pages from alloc_pages().
 *
 * Invariants of struct virtio_device once virtio_pci_setup() returned 0:
 *   - common, isr, device and notify point inside the mapped BAR(s), and
 *     every window is at least as long as the registers used in it;
 *   - status holds what the driver last wrote to device_status.
 * Invariants of struct virtqueue:
 *   - size is a power of two <= VIRTQ_MAX_SIZE; desc/avail/used live in
 *     pages the queue owns; last_used == used->idx once a request finished;
 *   - only virtio_vq_request() touches the ring: one request in flight.
 *
 * Interrupts are not used (QEMU 7.2's virtio-mem-pci has no MSI-X and INTx
 * needs _PRT): completion is polled; under TCG the notify write runs the
 * device synchronously, so the used ring has moved when it returns.
 *
 * Replies are never trusted: a used element with an id that is not the
 * head just submitted, or a written length larger than the buffer, is an
 * error (-EIO) and the device is marked broken.  So is a request with no
 * reply in time (-ETIMEDOUT): the device may still complete it later, and
 * its late used entry would be taken as the answer to the next request.
 *
 * Context: (main).
 */
#ifndef DRIVERS_VIRTIO_H
#define DRIVERS_VIRTIO_H

#include <lib/types.h>
#include <drivers/pci.h>

/* device_status bits */
#define VIRTIO_STATUS_ACKNOWLEDGE	1u
#define VIRTIO_STATUS_DRIVER		2u
#define VIRTIO_STATUS_DRIVER_OK		4u
#define VIRTIO_STATUS_FEATURES_OK	8u
#define VIRTIO_STATUS_NEEDS_RESET	0x40u
#define VIRTIO_STATUS_FAILED		0x80u

#define VIRTIO_F_VERSION_1		32

/* virtio-pci capability cfg_type values */
#define VIRTIO_PCI_CAP_COMMON_CFG	1
#define VIRTIO_PCI_CAP_NOTIFY_CFG	2
#define VIRTIO_PCI_CAP_ISR_CFG		3
#define VIRTIO_PCI_CAP_DEVICE_CFG	4

/* split ring descriptor flags */
#define VIRTQ_DESC_F_NEXT		1u
#define VIRTQ_DESC_F_WRITE		2u

#define VIRTQ_MAX_SIZE			64	/* cap on the device's queue_size */
#define VIRTIO_REQ_TIMEOUT_MS		2000	/* polling budget per request */

struct virtq_desc {
	u64 addr;			/* guest-physical buffer address */
	u32 len;			/* buffer length in bytes */
	u16 flags;			/* VIRTQ_DESC_F_* */
	u16 next;			/* next descriptor when F_NEXT */
} __packed;

struct virtq_used_elem {
	u32 id;				/* head of the finished chain */
	u32 len;			/* bytes the device wrote */
} __packed;

struct virtqueue {
	u16 index;			/* queue number */
	u16 size;			/* entries, a power of two */
	u16 last_used;			/* used->idx value consumed so far */
	volatile struct virtq_desc *desc;	/* descriptor table */
	volatile u16 *avail;		/* flags, idx, ring[size], used_event */
	volatile u16 *used;		/* flags, idx, then struct virtq_used_elem[size] */
	volatile u16 *notify;		/* notify register of this queue */
	struct page *pages;		/* the ring memory (order ring_order) */
	unsigned ring_order;		/* allocation order of pages */
	void *bounce;			/* one page for request and response buffers */
	struct page *bounce_page;	/* its page */
	u64 requests, timeouts;		/* counters for views */
};

struct virtio_device {
	struct pci_dev *pci;		/* the PCI function */
	volatile u8 *common;		/* common configuration window */
	volatile u8 *isr;		/* ISR status byte */
	volatile u8 *device;		/* device-specific configuration window */
	u32 device_len;			/* its length */
	volatile u8 *notify_base;	/* notification window */
	u32 notify_len;			/* its length */
	u32 notify_off_multiplier;	/* bytes per queue_notify_off unit */
	u64 features;			/* negotiated */
	u8 status;			/* last status written */
	bool broken;			/* a reply broke the protocol or never came: no more requests */
	struct virtqueue vq;		/* the one queue (virtio-mem needs one) */
};

/*
 * virtio_pci_setup() - find and map the capabilities of pci (enabled and
 * mapped here), reset the device, set ACKNOWLEDGE|DRIVER, then negotiate:
 * the driver accepts VERSION_1 plus the bits of `wanted` the device
 * offers, and must_have bits the device must offer (-ENODEV otherwise);
 * FEATURES_OK is written and read back (-EIO if the device refused it).
 * On error the device is marked FAILED and a line says why.  Returns 0.
 */
int virtio_pci_setup(struct virtio_device *vd, struct pci_dev *pci, u64 wanted, u64 must_have);

/*
 * virtio_find_vq() - set up queue `index` (size min(device's, VIRTQ_MAX_SIZE)),
 * rings from alloc_pages(), enable it.  Returns 0, -ENOENT (no such
 * queue, or fewer than the 2 entries a request takes), -ENOMEM, -EIO
 * (notify offset outside the notify window).  On an error nothing stays
 * allocated and the device is marked FAILED.
 */
int virtio_find_vq(struct virtio_device *vd, u16 index);

/*
 * virtio_del_vq() - free the queue's ring and bounce pages.  Call it after
 * virtio_reset(): a device that still runs may write to the rings.
 */
void virtio_del_vq(struct virtio_device *vd);

/* virtio_driver_ok() - set DRIVER_OK; -EIO if the device reports NEEDS_RESET/FAILED. */
int virtio_driver_ok(struct virtio_device *vd);

/* virtio_reset() - write 0 and wait (bounded) until it reads 0; frees nothing. */
void virtio_reset(struct virtio_device *vd);

/*
 * virtio_vq_request() - send req (req_len bytes, device-readable) and a
 * response buffer of resp_len bytes (device-writable) as one two-descriptor
 * chain, notify, and poll the used ring for at most timeout_ms.  Both
 * buffers are copied through the queue's bounce page (len <= 2048 each).
 * *written gets the length the device reported.  Returns 0, -ETIMEDOUT
 * (the device is then marked broken), -EIO (bad reply: wrong id, length
 * beyond the buffer, broken device), -EINVAL (buffers too large, nothing
 * sent).
 */
int virtio_vq_request(struct virtio_device *vd, const void *req, u32 req_len, void *resp,
		      u32 resp_len, u32 *written, u32 timeout_ms);

/*
 * Device configuration reads.  virtio_cfg_read() copies len bytes at off
 * (bounds checked: 0 or -EINVAL) using naturally sized accesses, retrying
 * until the config generation byte is the same before and after.
 */
int virtio_cfg_read(struct virtio_device *vd, u32 off, void *buf, u32 len);

/* virtio_isr_read() - read (and so clear) the ISR byte; bit 1: config changed. */
u8 virtio_isr_read(struct virtio_device *vd);

/* virtio_has_feature() - the bit was negotiated. */
static inline bool virtio_has_feature(const struct virtio_device *vd, unsigned bit)
{
	return (vd->features >> bit) & 1;
}

#endif
