/*
 * virtio_pci.c - the modern virtio-pci transport, polled (see virtio.h).
 *
 * Every window a capability describes is checked against the BAR it names
 * before it is used, and every reply from the device is checked against
 * what was submitted: a device (or a fuzzer standing in for one) can make
 * a request fail, never make the kernel read or write outside its buffers.
 *
 * Context: (main).
 */
#include <drivers/virtio.h>
#include <drivers/pci.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <kernel/time.h>
#include <mm/gfp.h>
#include <mm/page.h>
#include <mm/platform.h>

#include "virtio_pci_internal.h"

#define mmio_barrier()		__asm__ volatile("mfence" ::: "memory")

static inline u8 rd8(volatile u8 *b, u32 o) { return *(volatile u8 *)(b + o); }
static inline u16 rd16(volatile u8 *b, u32 o) { return *(volatile u16 *)(b + o); }
static inline u32 rd32(volatile u8 *b, u32 o) { return *(volatile u32 *)(b + o); }
static inline void wr8(volatile u8 *b, u32 o, u8 v) { *(volatile u8 *)(b + o) = v; }
static inline void wr16(volatile u8 *b, u32 o, u16 v) { *(volatile u16 *)(b + o) = v; }
static inline void wr32(volatile u8 *b, u32 o, u32 v) { *(volatile u32 *)(b + o) = v; }
static inline void wr64(volatile u8 *b, u32 o, u64 v)
{
	wr32(b, o, (u32)v);		/* low half first, as the spec allows */
	wr32(b, o + 4, (u32)(v >> 32));
}

static const char *vname(const struct virtio_device *vd)
{
	static char buf[16];

	ksnprintf(buf, sizeof(buf), "%02x:%02x.%u", vd->pci->bus, vd->pci->dev, vd->pci->fn);
	return buf;
}

static void set_status(struct virtio_device *vd, u8 bits)
{
	vd->status |= bits;
	wr8(vd->common, VCC_STATUS, vd->status);
}

static int fail(struct virtio_device *vd, int err, const char *why)
{
	pr_err("virtio %s: %s (%s)\n", vname(vd), why, err_text(err));
	if (vd->common)
		set_status(vd, VIRTIO_STATUS_FAILED);
	vd->broken = true;
	return err;
}

void virtio_reset(struct virtio_device *vd)
{
	wr8(vd->common, VCC_STATUS, 0);
	vd->status = 0;
	for (int i = 0; i < 100000 && rd8(vd->common, VCC_STATUS) != 0; i++)
		__asm__ volatile("pause");
}

/*
 * map_cap() - the window of the capability at config offset cap: its BAR
 * must be a mapped memory BAR and [offset, offset+length) must lie inside
 * it with at least min_len bytes.  maps[] caches one mapping per BAR.
 */
static volatile u8 *map_cap(struct virtio_device *vd, u8 cap, u32 min_len, void **maps, u32 *len_out,
			    const char *what)
{
	struct pci_dev *d = vd->pci;
	u8 bar = pci_read8(d, cap + VCAP_BAR);
	u32 off = pci_read32(d, cap + VCAP_OFFSET);
	u32 len = pci_read32(d, cap + VCAP_LENGTH);

	if (bar > 5 || d->bars[bar].size == 0 || d->bars[bar].is_io) {
		pr_err("virtio %s: %s capability names BAR%u, which is not a memory BAR\n", vname(vd),
		       what, bar);
		return NULL;
	}
	if (len < min_len || (u64)off + len > d->bars[bar].size) {
		pr_err("virtio %s: %s window [%#x, +%#x) does not fit BAR%u (%#llx bytes, need %#x)\n",
		       vname(vd), what, off, len, bar, (unsigned long long)d->bars[bar].size, min_len);
		return NULL;
	}
	if (!maps[bar]) {
		maps[bar] = pci_map_bar(d, bar);
		if (!maps[bar]) {
			pr_err("virtio %s: BAR%u cannot be mapped (unassigned?)\n", vname(vd), bar);
			return NULL;
		}
		pci_request_bar(d, bar, "virtio-pci-modern");	/* /proc/iomem, as Linux's */
	}
	if (len_out)
		*len_out = len;
	return (volatile u8 *)maps[bar] + off;
}

int virtio_pci_setup(struct virtio_device *vd, struct pci_dev *pci, u64 wanted, u64 must_have)
{
	void *maps[6] = { 0 };
	u8 cap = 0;
	int guard = 0;

	memset(vd, 0, sizeof(*vd));
	vd->pci = pci;
	pci_enable_device(pci);

	while ((cap = pci_find_capability(pci, PCI_CAP_ID_VNDR, cap)) != 0 && guard++ < 48) {
		u8 type = pci_read8(pci, cap + VCAP_TYPE);
		u8 clen = pci_read8(pci, cap + VCAP_LEN);

		if (clen < 16)
			continue;	/* too short to be a virtio capability */
		switch (type) {
		case VIRTIO_PCI_CAP_COMMON_CFG:
			if (!vd->common)
				vd->common = map_cap(vd, cap, VCC_MIN_LEN, maps, NULL, "common");
			break;
		case VIRTIO_PCI_CAP_NOTIFY_CFG:
			if (!vd->notify_base && clen >= 20) {
				vd->notify_base = map_cap(vd, cap, 2, maps, &vd->notify_len, "notify");
				vd->notify_off_multiplier = pci_read32(pci, cap + VCAP_NOTIFY_MULT);
			}
			break;
		case VIRTIO_PCI_CAP_ISR_CFG:
			if (!vd->isr)
				vd->isr = map_cap(vd, cap, 1, maps, NULL, "ISR");
			break;
		case VIRTIO_PCI_CAP_DEVICE_CFG:
			if (!vd->device)
				vd->device = map_cap(vd, cap, 1, maps, &vd->device_len, "device");
			break;
		default:
			break;		/* PCI-cfg access (5) and unknown types are ignored */
		}
	}
	if (!vd->common || !vd->notify_base || !vd->isr || !vd->device) {
		pr_err("virtio %s: missing capability:%s%s%s%s\n", vname(vd), vd->common ? "" : " common",
		       vd->notify_base ? "" : " notify", vd->isr ? "" : " ISR",
		       vd->device ? "" : " device");
		vd->broken = true;
		return -ENODEV;
	}

	virtio_reset(vd);
	if (rd8(vd->common, VCC_STATUS) != 0)
		return fail(vd, -EIO, "device does not come out of reset");
	set_status(vd, VIRTIO_STATUS_ACKNOWLEDGE);
	set_status(vd, VIRTIO_STATUS_DRIVER);

	u64 offered = 0;

	for (u32 sel = 0; sel < 2; sel++) {
		wr32(vd->common, VCC_DFSELECT, sel);
		mmio_barrier();
		offered |= (u64)rd32(vd->common, VCC_DF) << (32 * sel);
	}
	must_have |= 1ULL << VIRTIO_F_VERSION_1;
	if ((offered & must_have) != must_have) {
		pr_err("virtio %s: device offers features %#llx, needs %#llx\n", vname(vd),
		       (unsigned long long)offered, (unsigned long long)must_have);
		return fail(vd, -ENODEV, "required features missing");
	}
	vd->features = offered & (wanted | must_have);
	for (u32 sel = 0; sel < 2; sel++) {
		wr32(vd->common, VCC_GFSELECT, sel);
		mmio_barrier();
		wr32(vd->common, VCC_GF, (u32)(vd->features >> (32 * sel)));
	}
	set_status(vd, VIRTIO_STATUS_FEATURES_OK);
	mmio_barrier();
	if (!(rd8(vd->common, VCC_STATUS) & VIRTIO_STATUS_FEATURES_OK)) {
		pr_err("virtio %s: device refused features %#llx (offered %#llx)\n", vname(vd),
		       (unsigned long long)vd->features, (unsigned long long)offered);
		return fail(vd, -EIO, "FEATURES_OK did not stick");
	}
	return 0;
}

int virtio_find_vq(struct virtio_device *vd, u16 index)
{
	struct virtqueue *vq = &vd->vq;
	u16 qsize, size = 1;

	if (index >= rd16(vd->common, VCC_NUM_QUEUES))
		return fail(vd, -ENOENT, "queue does not exist");
	wr16(vd->common, VCC_Q_SELECT, index);
	mmio_barrier();
	qsize = rd16(vd->common, VCC_Q_SIZE);
	if (qsize == 0)
		return fail(vd, -ENOENT, "queue size 0: queue not available");
	if (qsize < 2) {
		pr_err("virtio %s: queue %u has %u entries; a request is a chain of two descriptors\n",
		       vname(vd), index, qsize);
		return fail(vd, -ENOENT, "queue too small");
	}
	while ((u32)size * 2 <= MIN(qsize, (u16)VIRTQ_MAX_SIZE))
		size *= 2;

	/* checked before anything is allocated: no page leaks on this error */
	u64 noff = (u64)rd16(vd->common, VCC_Q_NOFF) * vd->notify_off_multiplier;

	if (noff + 2 > vd->notify_len)
		return fail(vd, -EIO, "queue notify offset outside the notify window");

	vq->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	vq->bounce_page = alloc_pages(GFP_KERNEL | __GFP_ZERO, 0);
	if (!vq->pages || !vq->bounce_page) {
		if (vq->pages)
			free_pages(vq->pages, 0);
		if (vq->bounce_page)
			free_pages(vq->bounce_page, 0);
		vq->pages = vq->bounce_page = NULL;
		return fail(vd, -ENOMEM, "no memory for the virtqueue");
	}
	vq->ring_order = 0;
	u8 *ring = mm_phys_to_virt(page_to_phys(vq->pages));
	phys_addr_t ring_pa = page_to_phys(vq->pages);

	vq->index = index;
	vq->size = size;
	vq->last_used = 0;
	vq->desc = (volatile struct virtq_desc *)ring;
	vq->avail = (volatile u16 *)(ring + RING_AVAIL_OFF);
	vq->used = (volatile u16 *)(ring + RING_USED_OFF);
	vq->bounce = mm_phys_to_virt(page_to_phys(vq->bounce_page));
	vq->notify = (volatile u16 *)(vd->notify_base + noff);

	wr16(vd->common, VCC_Q_SIZE, size);
	wr64(vd->common, VCC_Q_DESC, ring_pa);
	wr64(vd->common, VCC_Q_AVAIL, ring_pa + RING_AVAIL_OFF);
	wr64(vd->common, VCC_Q_USED, ring_pa + RING_USED_OFF);
	mmio_barrier();
	wr16(vd->common, VCC_Q_ENABLE, 1);
	return 0;
}

void virtio_del_vq(struct virtio_device *vd)
{
	struct virtqueue *vq = &vd->vq;

	if (vq->pages)
		free_pages(vq->pages, vq->ring_order);
	if (vq->bounce_page)
		free_pages(vq->bounce_page, 0);
	vq->pages = vq->bounce_page = NULL;
	vq->desc = NULL;
	vq->avail = vq->used = vq->notify = NULL;
	vq->bounce = NULL;
}

int virtio_driver_ok(struct virtio_device *vd)
{
	set_status(vd, VIRTIO_STATUS_DRIVER_OK);
	mmio_barrier();
	u8 st = rd8(vd->common, VCC_STATUS);

	if (st & (VIRTIO_STATUS_NEEDS_RESET | VIRTIO_STATUS_FAILED))
		return fail(vd, -EIO, "device reports NEEDS_RESET/FAILED after DRIVER_OK");
	return 0;
}

int virtio_vq_request(struct virtio_device *vd, const void *req, u32 req_len, void *resp,
		      u32 resp_len, u32 *written, u32 timeout_ms)
{
	struct virtqueue *vq = &vd->vq;
	u8 *bounce = vq->bounce;
	phys_addr_t bpa;

	if (written)
		*written = 0;
	if (vd->broken || !vq->pages)
		return -EIO;
	if (req_len == 0 || req_len > BOUNCE_RESP_OFF || resp_len > PAGE_SIZE - BOUNCE_RESP_OFF)
		return -EINVAL;
	bpa = page_to_phys(vq->bounce_page);
	memcpy(bounce, req, req_len);
	memset(bounce + BOUNCE_RESP_OFF, 0, resp_len);

	/* descriptors 0 (request) and 1 (response): one chain, head 0 */
	vq->desc[0].addr = bpa;
	vq->desc[0].len = req_len;
	vq->desc[0].flags = resp_len ? VIRTQ_DESC_F_NEXT : 0;
	vq->desc[0].next = 1;
	vq->desc[1].addr = bpa + BOUNCE_RESP_OFF;
	vq->desc[1].len = resp_len;
	vq->desc[1].flags = VIRTQ_DESC_F_WRITE;
	vq->desc[1].next = 0;

	u16 aidx = vq->avail[1];

	vq->avail[2 + (aidx & (vq->size - 1))] = 0;	/* ring[idx % size] = head 0 */
	mmio_barrier();
	vq->avail[1] = (u16)(aidx + 1);
	mmio_barrier();
	*vq->notify = vq->index;
	vq->requests++;

	u64 deadline = ktime_ns() + (u64)timeout_ms * 1000000ULL;
	u64 spins = 0;

	while (vq->used[1] == vq->last_used) {
		__asm__ volatile("pause");
		/* ktime may be 0 before time_init: bound by spins as well */
		if (ktime_ns() > deadline || ++spins > (u64)timeout_ms * 200000ULL) {
			/* the device may still finish it later, reading and
			 * writing whatever the buffers hold by then, and its
			 * late used entry would answer the next request */
			vq->timeouts++;
			vd->broken = true;
			pr_err("virtio %s: no reply within %u ms (used.idx %u): device marked broken, no more requests\n",
			       vname(vd), timeout_ms, vq->used[1]);
			return -ETIMEDOUT;
		}
	}
	mmio_barrier();
	u16 uidx = vq->used[1];
	volatile struct virtq_used_elem *ue =
		(volatile struct virtq_used_elem *)(vq->used + 2) + (vq->last_used & (vq->size - 1));
	u32 id = ue->id, len = ue->len;

	if ((u16)(uidx - vq->last_used) != 1 || id != 0 || len > resp_len) {
		pr_err("virtio %s: bad reply: used.idx %u after %u, id %u (sent 0), len %u (buffer %u)\n",
		       vname(vd), uidx, vq->last_used, id, len, resp_len);
		vq->last_used = uidx;
		vd->broken = true;
		return -EIO;
	}
	vq->last_used = uidx;
	memcpy(resp, bounce + BOUNCE_RESP_OFF, resp_len);
	if (written)
		*written = len;
	return 0;
}

/* The device config generation byte. */
static u8 virtio_cfg_generation(struct virtio_device *vd)
{
	return rd8(vd->common, VCC_CFG_GEN);
}

int virtio_cfg_read(struct virtio_device *vd, u32 off, void *buf, u32 len)
{
	u8 *out = buf;

	if ((u64)off + len > vd->device_len)
		return -EINVAL;
	for (int tries = 0; tries < 100; tries++) {
		u8 gen = virtio_cfg_generation(vd);

		for (u32 i = 0; i < len;) {
			if (len - i >= 4 && !((off + i) & 3)) {
				u32 v = rd32(vd->device, off + i);

				memcpy(out + i, &v, 4);
				i += 4;
			} else if (len - i >= 2 && !((off + i) & 1)) {
				u16 v = rd16(vd->device, off + i);

				memcpy(out + i, &v, 2);
				i += 2;
			} else {
				out[i] = rd8(vd->device, off + i);
				i++;
			}
		}
		if (virtio_cfg_generation(vd) == gen)
			return 0;
	}
	return -EIO;
}

u8 virtio_isr_read(struct virtio_device *vd)
{
	return rd8(vd->isr, 0);
}
