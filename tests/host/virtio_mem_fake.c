/*
 * virtio_mem_fake.c - a virtio-mem device in host memory, for the driver's
 * host tests (test_virtio.c, test_mm_cmds.c) and its fuzz targets
 * (fuzz_virtio_mem.c, fuzz_mm_cmds.c), linked with the real driver
 * (drivers/virtio/virtio_mem*.c, virtio_pci.c).  virtio_mem_fake.h says
 * what it offers.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <lib/fw_memmap.h>
#include <mm/mm_init.h>
#include <mm/memblock.h>
#include "mm_host.h"
#include "hotplug_check.h"
#include "virtio_mem_fake.h"
#include <kernel/longop.h>
#include <kernel/console.h>
#include "../../drivers/virtio/virtio_pci_internal.h"
#include <lib/errno.h>
#include <lib/printk.h>
#include <mm/gfp.h>
#include <mm/page.h>
#include <mm/mmzone.h>
#include <mm/memory_hotplug.h>


/* ---- the PCI function ------------------------------------------------------ */

u8 fake_cfg[256];
u8 fake_bar[16384] __attribute__((aligned(4096)));
struct pci_dev fake_pci;

u8 pci_read8(const struct pci_dev *d, u16 off) { return off < 256 ? fake_cfg[off] : 0xff; }
u16 pci_read16(const struct pci_dev *d, u16 off)
{
	return off < 255 ? (u16)(fake_cfg[off] | fake_cfg[off + 1] << 8) : 0xffff;
}
u32 pci_read32(const struct pci_dev *d, u16 off)
{
	u32 v = 0;

	if (off <= 252)
		memcpy(&v, fake_cfg + off, 4);
	return v;
}
void pci_enable_device(struct pci_dev *d) { (void)d; }
void *pci_map_bar(struct pci_dev *d, int bar) { return bar == 4 ? fake_bar : NULL; }
int pci_request_bar(struct pci_dev *d, int bar, const char *name)
{
	d->bar_owner[bar] = name;
	return 0;
}
void pci_register_driver(const struct pci_driver *drv) { (void)drv; }

u8 pci_find_capability(const struct pci_dev *d, u8 cap_id, u8 start)
{
	u8 pos = start ? fake_cfg[start + 1] : fake_cfg[0x34];

	for (int n = 0; pos && n < 48; n++, pos = fake_cfg[pos + 1])
		if (fake_cfg[pos] == cap_id)
			return pos;
	return 0;
}

void put_cap(u8 pos, u8 next, u8 type, u8 bar, u32 off, u32 len, u32 mult)
{
	fake_cfg[pos] = PCI_CAP_ID_VNDR;
	fake_cfg[pos + 1] = next;
	fake_cfg[pos + 2] = type == VIRTIO_PCI_CAP_NOTIFY_CFG ? 20 : 16;
	fake_cfg[pos + 3] = type;
	fake_cfg[pos + 4] = bar;
	memcpy(fake_cfg + pos + 8, &off, 4);
	memcpy(fake_cfg + pos + 12, &len, 4);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		memcpy(fake_cfg + pos + 16, &mult, 4);
}

/*
 * fake_device() - QEMU 7.2's virtio-pci layout: BAR4 of 16 KiB, common,
 * ISR, device config and notify (multiplier 4) windows of 4 KiB each, one
 * queue of 64 entries; device_feature reads 1 whatever the select (bits 0
 * and 32: ACPI_PXM and VERSION_1).  Everything else zero.
 */
void fake_device(void)
{
	u16 qsize = 64;

	memset(fake_cfg, 0, sizeof(fake_cfg));
	memset(fake_bar, 0, sizeof(fake_bar));
	memset(&fake_pci, 0, sizeof(fake_pci));
	fake_pci.bus = 1;
	fake_pci.bars[4].size = sizeof(fake_bar);
	fake_pci.bars[4].is_64 = true;
	fake_cfg[0x34] = 0x84;
	put_cap(0x84, 0x94, VIRTIO_PCI_CAP_COMMON_CFG, 4, BAR_COMMON, 0x1000, 0);
	put_cap(0x94, 0xa4, VIRTIO_PCI_CAP_ISR_CFG, 4, BAR_ISR, 0x1000, 0);
	put_cap(0xa4, 0xb4, VIRTIO_PCI_CAP_DEVICE_CFG, 4, BAR_DEVICE, 0x1000, 0);
	put_cap(0xb4, 0x00, VIRTIO_PCI_CAP_NOTIFY_CFG, 4, BAR_NOTIFY, 0x1000, 4);
	fake_bar[BAR_COMMON + VCC_DF] = 1;
	fake_bar[BAR_COMMON + VCC_NUM_QUEUES] = 1;
	memcpy(fake_bar + BAR_COMMON + VCC_Q_SIZE, &qsize, 2);
}

u64 bar_rd64(u32 off)
{
	u64 v;

	memcpy(&v, fake_bar + off, 8);
	return v;
}

static void bar_wr64(u32 off, u64 v)
{
	memcpy(fake_bar + off, &v, 8);
}

static u16 bar_rd16(u32 off)
{
	u16 v;

	memcpy(&v, fake_bar + off, 2);
	return v;
}

/* ---- services the driver needs ---------------------------------------------- */

static u64 fake_jiffies;	/* jiffies() */
static u64 fake_ns;		/* ktime_ns() */

u64 jiffies(void) { return fake_jiffies; }
void register_poller(struct poller *p) { (void)p; }

/* acpi_pxm_to_node() as drivers/acpi/srat.c does it: domains get nodes in
 * order of first sight, until MAX_NUMNODES; the SRAT named pxm 0 (node 0). */
u32 fvm_pxm_of_node[MAX_NUMNODES];
int fvm_nr_pxm_nodes;

int acpi_pxm_to_node(u32 pxm)
{
	for (int nid = 0; nid < fvm_nr_pxm_nodes; nid++)
		if (fvm_pxm_of_node[nid] == pxm)
			return nid;
	if (fvm_nr_pxm_nodes == MAX_NUMNODES)
		return NUMA_NO_NODE;
	fvm_pxm_of_node[fvm_nr_pxm_nodes] = pxm;
	return fvm_nr_pxm_nodes++;
}

/* ---- the device ------------------------------------------------------------- */



struct fvm_dev fvm;
u8 (*fvm_reply)(void);	/* the next reply byte; NULL: always honest */

void fvm_cfg_show(void)
{
	fake_bar[BAR_COMMON + VCC_CFG_GEN]++;
	fake_bar[BAR_ISR] |= 2;
}

/* fvm_cfg_set() - one le64 field of the device config changes (generation bumped). */
void fvm_cfg_set(u32 off, u64 v)
{
	bar_wr64(BAR_DEVICE + off, v);
	if (off == VMEM_CFG_USABLE_SIZE && v > fvm.max_usable_shown)
		fvm.max_usable_shown = v;
	fvm_cfg_show();
}

/* The host asks for a size (QEMU's qom-set requested-size). */
void fvm_request_size(u64 v)
{
	fvm.requested = v;
	fvm_cfg_set(VMEM_CFG_REQUESTED_SIZE, v);
}

static u8 fvm_next_reply(void)
{
	return fvm_reply ? fvm_reply() : 0;
}

/* Blocks [*first, *first + nb) of the tracked prefix, or false if outside. */
static bool fvm_range(u64 addr, u64 nb, u64 limit, u64 *first)
{
	u64 size;

	if (!fvm.tracked || !nb || addr < fvm.addr || (addr - fvm.addr) % fvm.bs)
		return false;
	if (__builtin_mul_overflow(nb, fvm.bs, &size) || addr + size < addr ||
	    addr + size > fvm.addr + limit)
		return false;
	*first = (addr - fvm.addr) / fvm.bs;
	return *first + nb <= fvm.nr_blocks;
}

static unsigned fvm_count_plugged(u64 first, u64 nb)
{
	unsigned n = 0;

	for (u64 b = first; b < first + nb; b++)
		n += fvm.map[b];
	return n;
}

/* QEMU's answer to req, applied.  *state for STATE. */
static u16 fvm_honest(const struct virtio_mem_req *req, u16 *state)
{
	u64 first, nb = req->nb_blocks, limit = MIN(fvm.usable, fvm.region);

	switch (req->type) {
	case VIRTIO_MEM_REQ_PLUG:
		if (!fvm_range(req->addr, nb, limit, &first))
			return VIRTIO_MEM_RESP_ERROR;
		if (fvm.plugged + nb * fvm.bs > fvm.requested)
			return VIRTIO_MEM_RESP_NACK;
		if (fvm_count_plugged(first, nb))
			return VIRTIO_MEM_RESP_ERROR;
		memset(fvm.map + first, 1, nb);
		fvm.plugged += nb * fvm.bs;
		return VIRTIO_MEM_RESP_ACK;
	case VIRTIO_MEM_REQ_UNPLUG:
		if (!fvm_range(req->addr, nb, limit, &first) || fvm_count_plugged(first, nb) != nb)
			return VIRTIO_MEM_RESP_ERROR;
		memset(fvm.map + first, 0, nb);
		fvm.plugged -= nb * fvm.bs;
		return VIRTIO_MEM_RESP_ACK;
	case VIRTIO_MEM_REQ_UNPLUG_ALL:
		memset(fvm.map, 0, sizeof(fvm.map));
		fvm.plugged = 0;
		return VIRTIO_MEM_RESP_ACK;
	case VIRTIO_MEM_REQ_STATE: {
		if (!fvm_range(req->addr, nb, limit, &first))
			return VIRTIO_MEM_RESP_ERROR;
		unsigned n = fvm_count_plugged(first, nb);

		*state = n == nb ? VIRTIO_MEM_STATE_PLUGGED :
			 n == 0 ? VIRTIO_MEM_STATE_UNPLUGGED : VIRTIO_MEM_STATE_MIXED;
		return VIRTIO_MEM_RESP_ACK;
	}
	default:
		return VIRTIO_MEM_RESP_ERROR;
	}
}

/* What the driver hands the device must be sound, as a strict device checks. */
#define FVM_DEVICE_CHECK(cond)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "virtio_mem_fake.h:%d: the driver gave the device a bad queue: %s\n", \
				__LINE__, #cond);				\
			abort();						\
		}								\
	} while (0)

static void *fvm_guest(u64 pa, u32 len)
{
	FVM_DEVICE_CHECK(pa + len >= pa && pa + len <= FVM_SIM_RAM);
	return mm_phys_to_virt(pa);
}

static void fvm_used(u16 qsize, volatile u8 *used, u32 id, u32 len, u16 step)
{
	volatile struct virtq_used_elem *ue = (volatile struct virtq_used_elem *)(used + 4);

	ue[fvm.used_idx % qsize].id = id;
	ue[fvm.used_idx % qsize].len = len;
	fvm.used_idx = (u16)(fvm.used_idx + step);
	*(volatile u16 *)(used + 2) = fvm.used_idx;
}

/* Take the next available request, if any, and answer it (or not). */
static void fvm_service(void)
{
	u16 qsize = bar_rd16(BAR_COMMON + VCC_Q_SIZE);

	if (bar_rd16(BAR_COMMON + VCC_Q_ENABLE) != 1 || !qsize)
		return;
	volatile u16 *avail = fvm_guest(bar_rd64(BAR_COMMON + VCC_Q_AVAIL), 4 + 2 * qsize);
	volatile u8 *used = fvm_guest(bar_rd64(BAR_COMMON + VCC_Q_USED), 4 + 8 * qsize);
	volatile struct virtq_desc *desc = fvm_guest(bar_rd64(BAR_COMMON + VCC_Q_DESC), 16 * qsize);

	if (avail[1] == fvm.last_avail)
		return;
	if (fvm.stall > 0) {
		fvm.stall--;
		fake_ns += 1000000;
		if (fvm.stall)
			return;
		if (!fvm.stall_answer) {
			fvm.last_avail++;	/* dropped */
			return;
		}
	}

	u16 head = avail[2 + fvm.last_avail % qsize];

	FVM_DEVICE_CHECK(head < qsize);
	FVM_DEVICE_CHECK(desc[head].flags & VIRTQ_DESC_F_NEXT);
	FVM_DEVICE_CHECK(desc[head].len == sizeof(struct virtio_mem_req));
	u16 next = desc[head].next;

	FVM_DEVICE_CHECK(next < qsize && next != head);
	FVM_DEVICE_CHECK(desc[next].flags & VIRTQ_DESC_F_WRITE);
	FVM_DEVICE_CHECK(desc[next].len == sizeof(struct virtio_mem_resp));

	struct virtio_mem_req req;
	struct virtio_mem_resp resp = { 0 };
	u8 *resp_buf = fvm_guest(desc[next].addr, sizeof(resp));
	u8 r = fvm.stall_answer ? 0 : fvm_next_reply();
	u32 len = sizeof(resp);
	u16 state = 0;

	memcpy(&req, fvm_guest(desc[head].addr, sizeof(req)), sizeof(req));
	fvm.last_type = req.type;
	fvm.stall_answer = false;
	if (r < 0x80) {
		resp.type = fvm_honest(&req, &state);
		resp.state = state;
	} else {
		/* slow is not a lie: a device may answer late, even after the
		 * driver gave up (then with what the descriptors hold by then) */
		if ((r & 0x0f) != FVM_LATE && (r & 0x0f) != FVM_SLOW)
			fvm.honest = false;
		switch ((enum fvm_lie)(r & 0x0f)) {
		case FVM_ACK_NOOP:
			resp.type = VIRTIO_MEM_RESP_ACK;
			resp.state = (u16)(r >> 4 & 3);
			break;
		case FVM_NACK:
			resp.type = VIRTIO_MEM_RESP_NACK;
			break;
		case FVM_BUSY:
			resp.type = VIRTIO_MEM_RESP_BUSY;
			break;
		case FVM_ERROR:
			resp.type = VIRTIO_MEM_RESP_ERROR;
			break;
		case FVM_BAD_TYPE:
			fvm_honest(&req, &state);
			resp.type = (u16)(4 + fvm_next_reply());
			break;
		case FVM_SHORT:
			resp.type = fvm_honest(&req, &state);
			len = r & 0x10 ? 1 : 0;
			break;
		case FVM_STILL_PLUGGED: {
			u64 before = fvm.plugged;

			resp.type = fvm_honest(&req, &state);
			fvm.plugged = before;
			break;
		}
		case FVM_BAD_ID:
			fvm.last_avail++;
			fvm_used(qsize, used, head + 1u + fvm_next_reply(), len, 1);
			return;
		case FVM_BAD_LEN:
			fvm.last_avail++;
			fvm_used(qsize, used, head, sizeof(resp) + 1u + fvm_next_reply(), 1);
			return;
		case FVM_IDX_JUMP:
			resp.type = fvm_honest(&req, &state);
			memcpy(resp_buf, &resp, sizeof(resp));
			fvm.last_avail++;
			fvm_used(qsize, used, head, len, 2);
			return;
		case FVM_LOST:
			fvm.stall = 1;		/* the next look drops it */
			fvm.stall_answer = false;
			return;
		case FVM_LATE:
			fvm.stall = 2100 + fvm_next_reply();
			fvm.stall_answer = true;
			return;
		case FVM_SLOW:
			fvm.stall = 1 + 8 * fvm_next_reply();
			fvm.stall_answer = true;
			return;
		case FVM_GARBAGE_STATE:
			resp.type = fvm_honest(&req, &state);
			resp.state = (u16)(3 + fvm_next_reply());
			break;
		case FVM_DONE_BUT_BUSY:
			fvm_honest(&req, &state);
			resp.type = VIRTIO_MEM_RESP_BUSY;
			break;
		case FVM_RESIZE_UNDER:
			resp.type = fvm_honest(&req, &state);
			resp.state = state;
			if (r & 0x10) {
				fvm_request_size((u64)fvm_next_reply() * fvm.bs);
			} else {
				fvm.usable = (u64)fvm_next_reply() * fvm.bs;
				fvm_cfg_set(VMEM_CFG_USABLE_SIZE, fvm.usable);
			}
			break;
		}
	}
	memcpy(resp_buf, &resp, sizeof(resp));
	fvm.last_avail++;
	fvm.requests++;
	fvm_cfg_set(VMEM_CFG_PLUGGED_SIZE, fvm.plugged);
	fvm_used(qsize, used, head, len, 1);
}

/* Virtual time; the device looks at its queue on every call. */
u64 ktime_ns(void)
{
	fake_ns += 1000;
	fvm_service();
	return fake_ns;
}

/*
 * fvm_setup() - fake_device() plus a virtio-mem config: block size bs,
 * proximity domain pxm, region [addr, +region), usable, plugged (left over
 * from before: the first plugged / bs blocks, when that is a whole number
 * of tracked blocks; otherwise a lie) and requested size.  The device
 * tracks blocks of a power-of-two size in [2 MiB, 1 GiB] inside the
 * simulated RAM.
 */
void fvm_setup(u64 bs, u16 pxm, u64 addr, u64 region, u64 usable, u64 plugged,
	       u64 requested)
{
	fake_device();
	memset(&fvm, 0, sizeof(fvm));
	fvm.bs = bs;
	fvm.addr = addr;
	fvm.region = region;
	fvm.usable = usable;
	fvm.requested = requested;
	fvm.honest = true;
	if (bs >= 2 * FVM_MiB && bs <= FVM_GiB && !(bs & (bs - 1)) && !(addr % bs) &&
	    addr < FVM_SIM_RAM) {
		fvm.nr_blocks = MIN(region, FVM_SIM_RAM - addr) / bs;
		fvm.tracked = true;
	}
	if (plugged && fvm.tracked && plugged % bs == 0 && plugged / bs <= fvm.nr_blocks)
		memset(fvm.map, 1, plugged / bs);
	else if (plugged)
		fvm.honest = false;
	fvm.plugged = plugged;
	bar_wr64(BAR_DEVICE + VMEM_CFG_BLOCK_SIZE, bs);
	memcpy(fake_bar + BAR_DEVICE + VMEM_CFG_NODE_ID, &pxm, 2);
	bar_wr64(BAR_DEVICE + VMEM_CFG_ADDR, addr);
	bar_wr64(BAR_DEVICE + VMEM_CFG_REGION_SIZE, region);
	fvm_cfg_set(VMEM_CFG_USABLE_SIZE, usable);
	fvm_cfg_set(VMEM_CFG_PLUGGED_SIZE, plugged);
	fvm_cfg_set(VMEM_CFG_REQUESTED_SIZE, requested);
}

/* ---- the machine -------------------------------------------------------------- */


/*
 * fvm_machine() - a fresh simulated machine (FVM_BOOT_RAM of boot RAM on
 * node 0 in FVM_SIM_RAM), hotplug knobs at their defaults, and the
 * driver's and the fake's statics as at boot.
 */
void fvm_machine(void)
{
	hotplug_boot(FVM_SIM_RAM, FVM_BOOT_RAM);
	fvm_driver_reset();
}

/*
 * fvm_driver_reset() - the driver's and the fake's statics as at boot: no
 * device, the default online_page_callback, nothing injected, proximity
 * domain 0 on node 0, an honest device, time at its start.  For a machine
 * built some other way (tests/host/mm_cmds_machine.h) after its
 * mm_core_init().
 */

void fvm_driver_reset(void)
{
	restore_online_page_callback(vmem_online_page);
	memset(vmem_devs, 0, sizeof(vmem_devs));
	memset(vmem_seen_request, 0, sizeof(vmem_seen_request));
	vmem_callback_set = false;
	vmem_inject_count = 0;
	vmem_inject_resp = 0;

	fvm_nr_pxm_nodes = 1;
	fvm_pxm_of_node[0] = 0;
	fvm_reply = NULL;
	fake_ns = 0;
	fake_jiffies = 1000;
}

/* fvm_probe() - the driver's probe on the fake; remembers what it accepted. */
int fvm_probe(void)
{
	int err = vmem_probe(&fake_pci);
	struct vmem_dev *vm = fake_pci.driver_data;

	if (!err && vm) {
		fvm.probe_addr = vm->addr;
		fvm.probe_region = vm->region_size;
		fvm.probe_bs = vm->block_size;
		fvm.probe_first_mb = vm->first_mb_id;
		fvm.probe_nr_mbs = vm->nr_mbs;
	}
	return err;
}

/* fvm_poll() - ticks later, the poller runs. */
void fvm_poll(unsigned ticks)
{
	fake_jiffies += ticks;
	vmem_poller.fn();	/* the driver's poller */
	while (longop_run_slice())	/* the round it started, slice by slice */
		;
}

/* The console has no Ctrl-C on the host. */
bool console_interrupted(void)
{
	return false;
}

/* ---- the driver's bookkeeping --------------------------------------------------- */

#define FVM_RULE(cond)	do { if (!(cond)) return __LINE__; } while (0)

/*
 * fvm_check_driver() - 0, or the line of the first rule that fails:
 *   - region, block size and first block are what probe accepted;
 *   - plugged_sbs is the number of bits in the per-block bitmaps, the
 *     per-state counters match the states, no bit beyond the sub-blocks of
 *     a block, every plugged sub-block inside the region and inside the
 *     largest usable size the device ever showed;
 *   - the blocks the driver tracks as added are exactly the kernel's
 *     blocks of its memory group;
 *   - with pages: in every online block it added, each page of an
 *     unplugged sub-block is PageOffline with refcount 0 and each page of
 *     a plugged one is not;
 *   - while the device has been honest: the driver's bitmap equals the
 *     device's block by block and plugged_size agrees; once the driver has
 *     marked the device broken, no sub-block it uses is unplugged at the
 *     device (it may think less is plugged, never more).
 */
int fvm_check_driver(struct vmem_dev *vm, bool pages)
{
	unsigned long count[VMEM_MB_NR_STATES] = { 0 };
	u64 bits = 0, sb_pages = vm->sb_size >> PAGE_SHIFT;
	u64 usable_limit = MIN(vm->region_size, fvm.max_usable_shown);

	FVM_RULE(vm->addr == fvm.probe_addr && vm->region_size == fvm.probe_region);
	FVM_RULE(vm->block_size == fvm.probe_bs && vm->first_mb_id == fvm.probe_first_mb);
	FVM_RULE(vm->nr_mbs == fvm.probe_nr_mbs);
	FVM_RULE(vm->sb_per_mb >= 1 && vm->sb_per_mb <= VMEM_MAX_SB_PER_MB);
	FVM_RULE(vm->sb_size * vm->sb_per_mb == MEMORY_BLOCK_SIZE);
	for (unsigned i = 0; i < vm->nr_mbs; i++) {
		u64 m = vm->mb_plugged[i];
		struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);
		bool ours = mem && mem->group && mem->group->id == vm->mgid;

		FVM_RULE(vm->mb_state[i] < VMEM_MB_NR_STATES);
		count[vm->mb_state[i]]++;
		bits += (u64)__builtin_popcountll(m);
		if (vm->sb_per_mb < 64)
			FVM_RULE((m >> vm->sb_per_mb) == 0);
		for (unsigned sb = 0; sb < vm->sb_per_mb; sb++)
			if ((m >> sb) & 1) {
				u64 a = vmem_sb_addr(vm, i, sb);

				FVM_RULE(a >= vm->addr && a + vm->sb_size <= vm->addr + usable_limit);
			}
		FVM_RULE(ours == (vm->mb_state[i] != VMEM_MB_UNUSED));
		if (!pages || !ours || mem->state != MEM_ONLINE)
			continue;
		for (unsigned sb = 0; sb < vm->sb_per_mb; sb++) {
			u64 pfn = PHYS_PFN(vmem_sb_addr(vm, i, sb));
			bool plugged = (m >> sb) & 1;

			for (u64 p = pfn; p < pfn + sb_pages; p++) {
				struct page *page = pfn_to_page(p);

				if (plugged)
					FVM_RULE(!PageOffline(page));
				else
					FVM_RULE(PageOffline(page) && page->refcount == 0);
			}
		}
	}
	FVM_RULE(bits == vm->plugged_sbs);
	FVM_RULE(vm->plugged_sbs * vm->sb_size <= usable_limit);
	for (int s = 0; s < VMEM_MB_NR_STATES; s++)
		FVM_RULE(count[s] == vm->mb_count[s]);

	struct memory_block *mem;
	unsigned long id = 0;

	for (; (mem = memory_block_next(&id)); id++)
		if (mem->group && mem->group->id == vm->mgid)
			FVM_RULE(id >= vm->first_mb_id && id < vm->first_mb_id + vm->nr_mbs);

	if (!fvm.honest || !fvm.tracked)
		return 0;
	if (!vm->vd.broken)
		FVM_RULE(fvm.plugged == vm->plugged_sbs * vm->sb_size);
	for (u64 b = 0; b < fvm.nr_blocks; b++) {
		u64 pa = fvm.addr + b * fvm.bs;
		bool drv = false;

		if (pa >= vmem_mb_addr(vm, 0) && pa < vmem_mb_addr(vm, vm->nr_mbs)) {
			u64 off = pa - vmem_mb_addr(vm, 0);

			drv = vmem_sb_plugged(vm, (unsigned)(off / MEMORY_BLOCK_SIZE),
					 (unsigned)(off % MEMORY_BLOCK_SIZE / vm->sb_size));
		}
		if (vm->vd.broken)
			FVM_RULE(!drv || fvm.map[b]);
		else
			FVM_RULE(drv == (fvm.map[b] != 0));
	}
	return 0;
}

