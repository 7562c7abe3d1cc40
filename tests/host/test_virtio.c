/*
 * test_virtio.c - the virtio-pci transport and the virtio-mem driver
 * against a hostile fake device.
 *
 * The transport: capabilities that point outside their BAR, a notify
 * offset outside the notify window, used-ring replies with a wrong id or
 * an impossible length, and no reply at all.  Each must give an error,
 * never a stray access.  Here the fake device never runs: a reply is staged
 * in a queue built by hand before the request is sent, which is exactly
 * what the transport must not trust.
 *
 * The driver: probe, resize rounds and removal on the simulated machine
 * against the device of virtio_mem_fake.h, answering as QEMU does or with
 * the scripted lie of each test; after each step the driver's bookkeeping
 * (fvm_check_driver) and the machine (hotplug_check_invariants) are
 * checked.  Each test is a bug found by the fuzz target (fuzz_virtio_mem.c)
 * or while writing it.
 *
 * The suite `virtio` (Makefile: HOST_SUITE_virtio) links the real driver,
 * drivers/virtio/virtio_pci.c and virtio_mem*.c, its shell command
 * (shell/cmd_virtio_mem.c) and the fake device of virtio_mem_fake.c with
 * the PCI accessors, pci_map_bar(), ktime_ns() and jiffies() the driver
 * needs; the driver's shared state comes from
 * drivers/virtio/virtio_mem_internal.h.
 */
#include "htest.h"
#include <shell/shell.h>
#include <kernel/longop.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/gfp.h>
#include "../../mm/buddy_internal.h"
#include "../../drivers/virtio/virtio_pci_internal.h"
#include "mm_host.h"
#include "virtio_mem_fake.h"
#include "hotplug_check.h"
#include "platform_stub.h"

#include <stdlib.h>

/* A queue built by hand in host memory (virtio_find_vq needs the buddy). */
static u8 ring_mem[4096] __attribute__((aligned(4096)));
static u8 bounce_mem[4096] __attribute__((aligned(4096)));

static void fake_queue(struct virtio_device *vd)
{
	struct virtqueue *vq = &vd->vq;

	memset(ring_mem, 0, sizeof(ring_mem));
	vq->size = 64;
	vq->last_used = 0;
	vq->desc = (volatile struct virtq_desc *)ring_mem;
	vq->avail = (volatile u16 *)(ring_mem + RING_AVAIL_OFF);
	vq->used = (volatile u16 *)(ring_mem + RING_USED_OFF);
	vq->notify = (volatile u16 *)(fake_bar + 0x3000);
	vq->pages = pfn_to_page(1);		/* only its presence is checked */
	vq->bounce_page = pfn_to_page(2);	/* only its address is used */
	vq->bounce = bounce_mem;
}

static void stage_reply(struct virtio_device *vd, u32 id, u32 len)
{
	volatile struct virtq_used_elem *ue = (volatile struct virtq_used_elem *)(vd->vq.used + 2);

	ue[vd->vq.last_used & (vd->vq.size - 1)].id = id;
	ue[vd->vq.last_used & (vd->vq.size - 1)].len = len;
	vd->vq.used[1] = (u16)(vd->vq.last_used + 1);
}

HTEST(virtio_pci_setup_finds_the_windows)
{
	struct virtio_device vd;

	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0x3, 0), 0);
	CHECK(vd.common == fake_bar && vd.isr == fake_bar + 0x1000);
	CHECK(vd.device == fake_bar + 0x2000 && vd.device_len == 0x1000);
	CHECK(vd.notify_base == fake_bar + 0x3000 && vd.notify_off_multiplier == 4);
	CHECK_EQ(vd.features, (1ULL << 32) | 1);	/* offered & (wanted | VERSION_1) */
	CHECK(fake_bar[VCC_STATUS] & VIRTIO_STATUS_FEATURES_OK);
}

HTEST(virtio_pci_capability_past_the_bar_is_refused)
{
	struct virtio_device vd;

	fake_device();
	put_cap(0xa4, 0xb4, VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x3800, 0x1000, 0);	/* ends at 18 KiB */
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), -ENODEV);
	fake_device();
	put_cap(0x84, 0x94, VIRTIO_PCI_CAP_COMMON_CFG, 7, 0, 0x1000, 0);	/* no BAR7 */
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), -ENODEV);
	fake_device();
	put_cap(0x84, 0x94, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0xfffffff0u, 0x20, 0);	/* wraps */
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), -ENODEV);
	fake_device();
	put_cap(0x84, 0x94, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0, 0x10, 0);	/* too short */
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), -ENODEV);
	fake_device();
	fake_cfg[0xb5] = 0x84;	/* capability list loops */
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
}

HTEST(virtio_pci_missing_version_1_is_refused)
{
	struct virtio_device vd;

	fake_device();
	fake_bar[VCC_DF] = 0;
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), -ENODEV);
	CHECK(vd.broken);
}

HTEST(virtio_pci_config_reads_are_bounded)
{
	struct virtio_device vd;
	u64 v = 0;

	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
	fake_bar[0x2000 + 0x30] = 0x40;
	CHECK_EQ(virtio_cfg_read(&vd, 0x30, &v, 8), 0);
	CHECK_EQ(v, 0x40);
	CHECK_EQ(virtio_cfg_read(&vd, 0xffc, &v, 8), -EINVAL);
	CHECK_EQ(virtio_cfg_read(&vd, 0xfffffffcu, &v, 8), -EINVAL);
}

HTEST(virtio_vq_request_checks_the_reply)
{
	struct virtio_device vd;
	u8 req[24] = { 1 }, resp[10];
	u32 written = 99;

	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
	fake_queue(&vd);

	/* a good reply: id 0 (the head sent), 10 bytes */
	stage_reply(&vd, 0, 10);
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 10), 0);
	CHECK_EQ(written, 10);
	CHECK_EQ(vd.vq.last_used, 1);
	CHECK_EQ(vd.vq.desc[0].len, 24);
	CHECK_EQ(vd.vq.desc[1].flags, VIRTQ_DESC_F_WRITE);
	CHECK_EQ(vd.vq.avail[1], 1);

	/* no reply at all: the device may still answer later, so it is broken */
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 2),
		 -ETIMEDOUT);
	CHECK_EQ(vd.vq.timeouts, 1);
	CHECK(vd.broken);
	stage_reply(&vd, 0, 10);	/* the late answer is not taken for the next request */
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 10), -EIO);
	CHECK_EQ(vd.vq.avail[1], 2);

	/* a length beyond the response buffer */
	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
	fake_queue(&vd);
	stage_reply(&vd, 0, 4096);
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 10), -EIO);
	CHECK(vd.broken);
	/* a broken device gets no more requests */
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 10), -EIO);

	/* an id that was never submitted */
	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
	fake_queue(&vd);
	stage_reply(&vd, 12345, 10);
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 10), -EIO);
	CHECK_EQ(written, 0);

	/* a used index that jumps by more than one */
	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
	fake_queue(&vd);
	vd.vq.used[1] = 7;
	CHECK_EQ(virtio_vq_request(&vd, req, sizeof(req), resp, sizeof(resp), &written, 10), -EIO);

	/* oversized buffers are refused before anything is sent */
	fake_device();
	CHECK_EQ(virtio_pci_setup(&vd, &fake_pci, 0, 0), 0);
	fake_queue(&vd);
	CHECK_EQ(virtio_vq_request(&vd, req, 4096, resp, sizeof(resp), &written, 10), -EINVAL);
	CHECK_EQ(vd.vq.avail[1], 0);
}

/* ---- the virtio-mem driver ------------------------------------------------- */

#define MiB		FVM_MiB
#define SB		(2 * MiB)	/* QEMU's block = the driver's sub-block */

/* Replies of the device, one byte per request (see enum fvm_lie); then honest. */
static const u8 *script;
static size_t script_len, script_pos;

static u8 script_reply(void)
{
	return script_pos < script_len ? script[script_pos++] : 0;
}

static void script_set(const u8 *bytes, size_t len)
{
	script = bytes;
	script_len = len;
	script_pos = 0;
	fvm_reply = script_reply;
}

/* A machine and QEMU's device: 2 MiB blocks, region at 4 GiB, usable = region. */
static struct vmem_dev *vm_up(u64 region, u64 requested)
{
	fvm_machine();
	printk_set_level(LOG_CRIT);
	fvm_setup(SB, 0, FVM_WINDOW, region, region, 0, requested);
	CHECK_EQ(fvm_probe(), 0);
	return fake_pci.driver_data;
}

static void vm_check(struct vmem_dev *vm)
{
	CHECK_EQ(fvm_check_driver(vm, true), 0);
	hotplug_check_invariants();
}

/* The device goes; the next test of the binary gets the default callback. */
static void vm_down(void)
{
	if (fake_pci.driver_data)
		vmem_driver.remove(&fake_pci);
	restore_online_page_callback(vmem_online_page);
	vmem_callback_set = false;
	fvm_reply = NULL;
	printk_set_level(LOG_INFO);
}

static bool sb_pages_offline(u64 pa)
{
	for (u64 pfn = PHYS_PFN(pa); pfn < PHYS_PFN(pa + SB); pfn++)
		if (!PageOffline(pfn_to_page(pfn)) || pfn_to_page(pfn)->refcount)
			return false;
	return true;
}

/*
 * Probe and remove with every bad reply set aside: the usual life, with
 * the machine's counters back where they were (remove is new, and is what
 * the fuzz target ends each input with).
 */
HTEST(virtio_mem_plug_unplug_remove)
{
	u64 free0, total0, vmemmap0;
	struct vmem_dev *vm;

	fvm_machine();
	printk_set_level(LOG_CRIT);
	fvm_setup(SB, 0, FVM_WINDOW, 1024 * MiB, 1024 * MiB, 0, 0);
	free0 = global_free_pages();
	total0 = totalram_pages();
	vmemmap0 = host_vmemmap_populated_pages;
	CHECK_EQ(fvm_probe(), 0);
	vm = fake_pci.driver_data;
	fvm_request_size(300 * MiB);		/* two whole blocks and 44 MiB */
	fvm_poll(10);
	vm_check(vm);
	CHECK_EQ(vm->plugged_sbs, 150);
	CHECK_EQ(fvm.plugged, 300 * MiB);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 2);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL_PARTIAL], 1);
	fvm_request_size(100 * MiB);
	fvm_poll(10);
	vm_check(vm);
	CHECK_EQ(vm->plugged_sbs, 50);
	CHECK_EQ(fvm.plugged, 100 * MiB);

	vmem_driver.remove(&fake_pci);
	CHECK(!vmem_devs[0].in_use && !fake_pci.driver_data);
	CHECK_EQ(fvm.last_type, VIRTIO_MEM_REQ_UNPLUG_ALL);
	CHECK_EQ(fvm.plugged, 0);
	hotplug_check_invariants();
	CHECK_EQ(global_free_pages(), free0);	/* rings, state and memmaps given back */
	CHECK_EQ(totalram_pages(), total0);
	CHECK_EQ(host_vmemmap_populated_pages, vmemmap0);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_ONLINE], 1);
	CHECK_EQ(nr_memory_blocks_in_state[MEM_OFFLINE], 0);
	/* the last device gone, the default online_page_callback is back */
	CHECK(!vmem_callback_set);
	CHECK_EQ(set_online_page_callback(vmem_online_page), 0);
	CHECK_EQ(restore_online_page_callback(vmem_online_page), 0);
	vm_down();
}

/*
 * Bug: virtio_find_vq() allocated the ring and bounce pages, then refused a
 * notify offset outside the notify window without freeing them, and a
 * probe that failed after virtio_find_vq() never freed the queue either.
 */
HTEST(virtio_mem_probe_failures_leak_nothing)
{
	u16 noff = 0x400;
	u64 free0;
	int logs;

	fvm_machine();
	printk_set_level(LOG_EMERG);
	fvm_setup(SB, 0, FVM_WINDOW, 1024 * MiB, 1024 * MiB, 0, 0);
	memcpy(fake_bar + BAR_COMMON + VCC_Q_NOFF, &noff, 2);	/* 4 KiB past a 4 KiB window */
	free0 = global_free_pages();
	logs = host_log_count;
	CHECK_EQ(fvm_probe(), -EIO);
	CHECK(host_log_seen("queue notify offset outside the notify window", logs));
	CHECK_EQ(global_free_pages(), free0);
	CHECK(!vmem_devs[0].in_use);

	/* a failure after the queue is set up: no memory group left */
	int groups[MAX_MEMORY_GROUPS], nr = 0;

	fvm_setup(SB, 0, FVM_WINDOW, 1024 * MiB, 1024 * MiB, 0, 0);
	while (nr < MAX_MEMORY_GROUPS &&
	       (groups[nr] = memory_group_register_dynamic(0, PAGES_PER_MEMORY_BLOCK, "x")) >= 0)
		nr++;
	logs = host_log_count;
	CHECK_EQ(fvm_probe(), -ENOSPC);
	CHECK(host_log_seen("no memory group", logs));
	CHECK_EQ(global_free_pages(), free0);
	while (nr)
		memory_group_unregister(groups[--nr]);
	vm_down();
}

/*
 * Bug: a device offering a queue of one entry was accepted; every request
 * is a chain of two descriptors, so the second was written past the queue.
 */
HTEST(virtio_mem_queue_of_one_entry_is_refused)
{
	u16 qsize = 1;
	u64 free0;
	int logs;

	fvm_machine();
	printk_set_level(LOG_EMERG);
	fvm_setup(SB, 0, FVM_WINDOW, 1024 * MiB, 1024 * MiB, 0, 0);
	memcpy(fake_bar + BAR_COMMON + VCC_Q_SIZE, &qsize, 2);
	free0 = global_free_pages();
	logs = host_log_count;
	CHECK_EQ(fvm_probe(), -ENOENT);
	CHECK(host_log_seen("queue 0 has 1 entries; a request is a chain of two descriptors", logs));
	CHECK_EQ(global_free_pages(), free0);
	vm_down();
}

/*
 * Bug: a region ending beyond the 46-bit physical address space was
 * accepted (add_memory then failed or worse); a region over boot RAM was
 * accepted and every round plugged, failed to add and unplugged again.
 */
HTEST(virtio_mem_bad_regions_are_refused)
{
	int logs;

	fvm_machine();
	printk_set_level(LOG_EMERG);
	fvm_setup(SB, 0, (1ULL << 46) - 128 * MiB, 256 * MiB, 256 * MiB, 0, 0);
	logs = host_log_count;
	CHECK_EQ(fvm_probe(), -EINVAL);
	CHECK(host_log_seen("ends beyond the 46-bit physical address space", logs));

	fvm_setup(SB, 0, ~0ULL - 128 * MiB + 1, 256 * MiB, 256 * MiB, 0, 0);	/* wraps */
	CHECK_EQ(fvm_probe(), -EINVAL);

	fvm_setup(SB, 0, 64 * MiB, 512 * MiB, 512 * MiB, 0, 0);	/* over boot RAM's block 0 */
	logs = host_log_count;
	CHECK_EQ(fvm_probe(), -EEXIST);
	CHECK(host_log_seen("overlaps memory0, which the kernel already has", logs));
	CHECK(!vmem_devs[0].in_use);
	vm_down();
}

/*
 * Known bug (found by the fuzz target's watermark check): unplugging a
 * sub-block of an online block lowered the zone's managed pages without
 * recomputing the watermarks and pcp sizes, as offlining does; plugging
 * one into an online block raised them the same way.
 */
HTEST(virtio_mem_sub_block_changes_recompute_watermarks)
{
	struct vmem_dev *vm = vm_up(1024 * MiB, 0);
	struct zone *normal = &NODE_DATA(0)->node_zones[ZONE_NORMAL];

	fvm_request_size(64 * MiB);		/* half of memory32 */
	fvm_poll(10);
	vm_check(vm);
	u64 low0 = normal->watermark[WMARK_LOW];

	fvm_request_size(126 * MiB);		/* fake-online 31 sub-blocks */
	fvm_poll(10);
	vm_check(vm);
	CHECK(normal->watermark[WMARK_LOW] > low0);
	fvm_request_size(2 * MiB);		/* unplug 62 sub-blocks of an online block */
	fvm_poll(10);
	vm_check(vm);
	CHECK_EQ(vm->plugged_sbs, 1);
	CHECK(normal->watermark[WMARK_LOW] < low0);
	CHECK(sb_pages_offline(FVM_WINDOW + SB));
	vm_down();
}

/*
 * A config read that fails (virtio_cfg_read() gives up when the device's
 * config generation never holds still for a whole read; here the read is
 * made to fail by shrinking the config window the transport checks) was
 * taken as the value 0: a poll read "requested size 0" and the driver
 * unplugged all the device's memory.  Now the read is refused, logged, and
 * nothing changes; once reads work again, the driver goes on.
 */
HTEST(virtio_mem_failed_config_read_is_not_read_as_zero)
{
	struct vmem_dev *vm = vm_up(1024 * MiB, 256 * MiB);
	u32 device_len;
	int logs;

	fvm_poll(10);
	CHECK_EQ(vm->plugged_sbs, 128);
	logs = host_log_count;
	device_len = vm->vd.device_len;
	vm->vd.device_len = 0;			/* every config read now fails */
	fvm_poll(60);				/* the poll reads requested_size */
	vmem_resize(vm);			/* a resize round reads all three */
	CHECK_EQ(vm->plugged_sbs, 128);		/* nothing was unplugged */
	CHECK_EQ(fvm.plugged, 256 * MiB);
	CHECK(host_log_seen("no stable read", logs));
	CHECK(strstr(vm->why, "does not hold still"));
	vm->vd.device_len = device_len;
	vm_check(vm);
	fvm_request_size(128 * MiB);
	fvm_poll(60);
	CHECK_EQ(vm->plugged_sbs, 64);
	vm_check(vm);
	vm_down();
}

/*
 * Bug: a request the device answered after the 2 s timeout left its used
 * entry in the ring, and the transport took it as the answer to the next
 * request (and that one's as the answer to the one after): the driver and
 * the device disagreed on what was plugged.  Now a timeout marks the
 * device broken; the driver sends nothing more and uses only what the
 * device surely plugged.
 */
HTEST(virtio_mem_late_reply_breaks_the_device)
{
	static const u8 replies[] = { FVM_LIE(FVM_LATE), 0 };
	struct vmem_dev *vm = vm_up(1024 * MiB, 0);
	int logs = host_log_count;

	script_set(replies, sizeof(replies));
	fvm_request_size(8 * MiB);
	fvm_poll(10);				/* PLUG: no answer within 2 s */
	CHECK(vm->vd.broken);
	CHECK(host_log_seen("no reply within 2000 ms", logs));
	CHECK(host_log_seen("the device is broken: no more requests", logs));
	CHECK_EQ(vm->plugged_sbs, 0);
	u64 requests = fvm.requests;

	fvm_request_size(16 * MiB);
	fvm_poll(10);
	fvm_poll(HZ * 10);
	char buf[512], *argv[] = { "virtio-mem", "retry" };
	struct buf_printer bp;

	buf_printer_init(&bp, buf, sizeof(buf));
	shell_find("virtio-mem")->fn(&bp.p, 2, argv);		/* `virtio-mem retry` says why it does nothing */
	CHECK(strstr(buf, "the device is broken") != NULL);
	CHECK_EQ(vm->plugged_sbs, 0);
	vm_check(vm);
	CHECK(fvm.requests <= requests + 1);	/* at most the late one was answered */
	vm_down();
}

/*
 * Bug: a response type outside the enum, or a reply too short to hold
 * one, counted as ERROR, as if the device had done nothing; it may have
 * done it.  Now the device is marked broken and the driver assumes the
 * worse: an UNPLUG so answered keeps its pages PageOffline for good.
 */
HTEST(virtio_mem_malformed_unplug_reply_keeps_pages_offline)
{
	static const u8 replies[] = { FVM_LIE(FVM_BAD_TYPE), 7 };
	struct vmem_dev *vm = vm_up(1024 * MiB, 64 * MiB);
	int logs;

	fvm_poll(10);
	CHECK_EQ(vm->plugged_sbs, 32);
	vm_check(vm);
	script_set(replies, sizeof(replies));
	logs = host_log_count;
	fvm_request_size(62 * MiB);		/* UNPLUG of sub-block 31: type 11 back */
	fvm_poll(10);
	CHECK(vm->vd.broken);
	CHECK(host_log_seen("malformed response", logs));
	CHECK_EQ(vm->plugged_sbs, 31);		/* counted as unplugged ... */
	CHECK(sb_pages_offline(FVM_WINDOW + 31 * SB));	/* ... and never used again */
	vm_check(vm);
	vm_down();
}

/*
 * Bug: with no usable answer to a whole-block UNPLUG the driver added and
 * onlined the block again, and went on to the next block.  Now the blocks
 * of the request stay removed (maybe unplugged) and the round stops.
 */
HTEST(virtio_mem_lost_whole_block_unplug_keeps_it_removed)
{
	static const u8 replies[] = { FVM_LIE(FVM_SHORT) };
	struct vmem_dev *vm = vm_up(1024 * MiB, 384 * MiB);

	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 3);
	script_set(replies, sizeof(replies));
	fvm_request_size(0);
	fvm_poll(10);				/* memory34 goes whole: no usable answer */
	CHECK(vm->vd.broken);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 2);
	CHECK(!find_memory_block_by_id(34));
	CHECK(find_memory_block_by_id(33) && find_memory_block_by_id(32));
	CHECK_EQ(vm->plugged_sbs, 128);
	vm_check(vm);
	vm_down();
}

/*
 * Whole blocks go back in batches: a run of fully plugged online blocks
 * is offlined and removed block by block, from the top, and given back in
 * one UNPLUG request; the round's first batch is one block, and while the
 * answers come quickly each batch may be twice the last.  The device's
 * size, the driver's bits and the machine's counters end exactly where
 * they were before the plug.
 */
HTEST(virtio_mem_whole_blocks_unplug_in_growing_batches)
{
	struct vmem_dev *vm = vm_up(1024 * MiB, 0);
	u64 free0 = global_free_pages(), total0 = totalram_pages(), reqs;
	int logs;

	fvm_request_size(1024 * MiB);		/* memory32-39, all of them */
	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 8);
	CHECK_EQ(fvm.plugged, 1024 * MiB);
	reqs = vm->unplug_reqs;
	logs = host_log_count;
	fvm_request_size(256 * MiB);
	fvm_poll(10);
	CHECK_EQ(vm->unplug_reqs - reqs, 3);	/* memory39, 38-37, 36-34 */
	CHECK(host_log_seen("remove_memory: [mem 0x138000000-0x13fffffff]: 1 blocks", logs));
	CHECK(host_log_seen("remove_memory: [mem 0x128000000-0x137ffffff]: 2 blocks", logs));
	CHECK(host_log_seen("remove_memory: [mem 0x110000000-0x127ffffff]: 3 blocks", logs));
	CHECK_EQ(fvm.plugged, 256 * MiB);
	CHECK_EQ(vm->plugged_sbs, 128);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 2);
	vm_check(vm);
	fvm_request_size(0);
	fvm_poll(10);
	CHECK_EQ(fvm.plugged, 0);
	CHECK_EQ(vm->plugged_sbs, 0);
	CHECK_EQ(vm->mb_count[VMEM_MB_UNUSED], vm->nr_mbs);
	vm_check(vm);
	CHECK_EQ(global_free_pages(), free0);
	CHECK_EQ(totalram_pages(), total0);
	vm_down();
}

/*
 * mb_memmaps[] counts, per block of the region, the memmaps of blocks that
 * lay in it (the memory the host backs there); a batch takes at most
 * VMEM_UNPLUG_BATCH_MEMMAPS of them beyond its first block, so a block
 * that held many goes alone, and back in pieces of VMEM_UNPLUG_TAIL_SBS
 * sub-blocks, one request per unit; a block given back counts 0.
 */
HTEST(virtio_mem_batch_ends_before_a_block_full_of_memmaps)
{
	struct vmem_dev *vm = vm_up(1024 * MiB, 0);
	unsigned counted = 0, inside = 0;
	u64 reqs;
	int logs;

	fvm_request_size(1024 * MiB);
	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 8);
	for (unsigned i = 0; i < vm->nr_mbs; i++) {
		phys_addr_t pa = __pfn_to_section(PHYS_PFN(vmem_mb_addr(vm, i)))->memmap_pa;

		counted += vm->mb_memmaps[i];
		inside += pa >= vmem_mb_addr(vm, 0) && pa < vmem_mb_addr(vm, vm->nr_mbs);
	}
	CHECK(inside > 0);			/* later blocks take theirs from earlier ones */
	CHECK_EQ(counted, inside);		/* each block's memmap, where it was put */
	memset(vm->mb_memmaps, 0, vm->nr_mbs);
	vm->mb_memmaps[4] = VMEM_UNPLUG_BATCH_MEMMAPS + 1;	/* memory36 */
	logs = host_log_count;
	reqs = vm->unplug_reqs;
	fvm_request_size(0);
	fvm_poll(10);
	/* memory39, 38-37, then 36 alone (its batch could have been 4) */
	CHECK(host_log_seen("remove_memory: [mem 0x128000000-0x137ffffff]: 2 blocks", logs));
	CHECK(host_log_seen("remove_memory: [mem 0x120000000-0x127ffffff]: 1 blocks", logs));
	CHECK(host_log_seen("remove_memory: [mem 0x110000000-0x11fffffff]: 2 blocks", logs));
	CHECK_EQ(vm->unplug_reqs - reqs, 1 + 1 + 64 / VMEM_UNPLUG_TAIL_SBS + 1 + 1);
	CHECK_EQ(vm->tail_mb, 0);
	CHECK_EQ(fvm.plugged, 0);
	for (unsigned i = 0; i < vm->nr_mbs; i++)
		CHECK_EQ(vm->mb_memmaps[i], 0);
	vm_check(vm);
	vm_down();
}

/*
 * A new requested size while a block full of memmaps goes back in pieces:
 * the rest of it goes back at once (one request) before the round turns
 * round, so no sub-block stays plugged in a block the kernel no longer
 * has; the plug then reaches the new size with MemTotal to match.
 */
HTEST(virtio_mem_retarget_finishes_a_tail_first)
{
	struct vmem_dev *vm = vm_up(1024 * MiB, 256 * MiB);
	u64 total0;

	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 2);
	total0 = totalram_pages();
	vm->mb_memmaps[1] = VMEM_UNPLUG_BATCH_MEMMAPS + 1;	/* memory33 */
	longop_pause();
	fvm_request_size(128 * MiB);
	vmem_poller.fn();			/* the round starts, held */
	CHECK(vmem_resizing(vm));
	CHECK_EQ(longop_step(1), 1);		/* memory33 removed, its first piece */
	CHECK_EQ(vm->tail_mb, 2);
	CHECK_EQ(vm->tail_sbs, 64 - VMEM_UNPLUG_TAIL_SBS);
	CHECK(!find_memory_block_by_id(33));
	vm_check(vm);
	fvm_request_size(256 * MiB);		/* back up, while the tail is pending */
	longop_resume();
	fvm_poll(10);
	CHECK_EQ(vm->tail_mb, 0);
	CHECK_EQ(vm->plugged_sbs, 128);
	CHECK_EQ(fvm.plugged, 256 * MiB);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 2);
	CHECK_EQ(totalram_pages(), total0);
	vm_check(vm);
	vm_down();
}

/*
 * An ERROR reply to a batch's UNPLUG: every block of the batch is added
 * and onlined again (memory_removal_rollback()), still plugged, and the
 * counters are those before the round; the round stops until the
 * requested size changes.
 */
HTEST(virtio_mem_refused_batch_unplug_comes_back_whole)
{
	static const u8 replies[] = { FVM_LIE(FVM_ERROR) };
	struct vmem_dev *vm = vm_up(1024 * MiB, 512 * MiB);
	u64 free1, total1;

	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 4);
	free1 = global_free_pages();
	total1 = totalram_pages();
	script_set(replies, sizeof(replies));
	fvm_request_size(0);
	fvm_poll(10);
	CHECK(vm->halted);
	CHECK_EQ(vm->errors, 1);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 4);
	for (unsigned long id = 32; id < 36; id++)
		CHECK(find_memory_block_by_id(id) && find_memory_block_by_id(id)->state == MEM_ONLINE);
	CHECK_EQ(vm->plugged_sbs, 256);
	CHECK_EQ(fvm.plugged, 512 * MiB);
	CHECK_EQ(global_free_pages(), free1);
	CHECK_EQ(totalram_pages(), total1);
	vm_check(vm);
	vm_down();
}

/*
 * A slow answer (the host freeing memory that was written) makes the next
 * block go in pieces, one request of VMEM_UNPLUG_TAIL_SBS sub-blocks per
 * unit, and quick answers make the batches grow again.
 */
HTEST(virtio_mem_slow_unplug_answers_make_pieces)
{
	static const u8 replies[] = { FVM_LIE(FVM_SLOW), 4 };	/* 33 ms for memory34 */
	struct vmem_dev *vm = vm_up(1024 * MiB, 384 * MiB);
	u64 reqs;

	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 3);
	memset(vm->mb_memmaps, 0, vm->nr_mbs);
	reqs = vm->unplug_reqs;
	script_set(replies, sizeof(replies));
	fvm_request_size(0);
	fvm_poll(10);
	CHECK_EQ(vm->unplug_reqs - reqs, 1 + 64 / VMEM_UNPLUG_TAIL_SBS + 1);	/* 34, 33's, 32 */
	CHECK_EQ(fvm.plugged, 0);
	CHECK_EQ(vm->plugged_sbs, 0);
	CHECK(!vm->unplug_costly);
	vm_check(vm);
	vm_down();
}

/*
 * A block in the middle of a batch refuses its offline (an unmovable page
 * in memory33): the blocks above it go in their batches, the refusing block
 * is then unplugged by sub-blocks, all but the one holding the page, and
 * its offline is tried (and logged) once, not again by the next unit.
 */
HTEST(virtio_mem_batch_stops_at_a_block_that_refuses)
{
	struct vmem_dev *vm = vm_up(1024 * MiB, 512 * MiB);
	u64 pin = PHYS_PFN(FVM_WINDOW + 128 * MiB + 16 * MiB), reqs, refused;
	int logs;

	fvm_poll(10);
	CHECK_EQ(vm->mb_count[VMEM_MB_KERNEL], 4);
	CHECK_EQ(alloc_contig_range(pin, pin + 1, MIGRATE_MOVABLE, 0), 0);
	reqs = vm->unplug_reqs;
	refused = memhp_stats.offline_failures;
	logs = host_log_count;
	fvm_request_size(0);
	fvm_poll(10);
	CHECK(host_log_seen("remove_memory: [mem 0x118000000-0x11fffffff]: 1 blocks", logs));
	CHECK(host_log_seen("remove_memory: [mem 0x110000000-0x117ffffff]: 1 blocks", logs));
	CHECK(host_log_seen("offline: memory block 33:", logs));
	CHECK_EQ(memhp_stats.offline_failures - refused, 1);
	CHECK_EQ(vm->plugged_sbs, 1);		/* the pinned page's sub-block */
	CHECK_EQ(fvm.plugged, SB);
	CHECK(vmem_sb_plugged(vm, 1, 8));
	CHECK(find_memory_block_by_id(33) && !find_memory_block_by_id(32));
	CHECK_EQ(vm->unplug_reqs - reqs, 1 + 1 + 63 + 1);	/* 35, 34 (33 refused), 33's, 32 */
	vm_check(vm);
	free_contig_range(pin, 1);
	fvm_poll(600);				/* the retry, 5 s later, takes the last one */
	CHECK_EQ(vm->plugged_sbs, 0);
	CHECK_EQ(fvm.plugged, 0);
	vm_check(vm);
	vm_down();
}

/*
 * A block whose add_memory() failed (no memmap to be had) and whose
 * sub-blocks the device then refused to take back: they stay plugged,
 * counted, not added; the next plug round leaves the block alone and the
 * next unplug round gives them back.
 */
HTEST(virtio_mem_plugged_block_that_could_not_be_added)
{
	static const u8 replies[] = { 0, FVM_LIE(FVM_BUSY) };
	static struct page *hog[64];
	struct vmem_dev *vm = vm_up(1024 * MiB, 0);
	unsigned nr = 0;
	int logs = host_log_count;

	while (nr < 64 && (hog[nr] = alloc_pages(GFP_KERNEL | __GFP_NOWARN, 9)))
		nr++;
	script_set(replies, sizeof(replies));
	fvm_request_size(16 * MiB);
	fvm_poll(10);				/* PLUG ACK, add_memory -ENOMEM, UNPLUG BUSY */
	CHECK(host_log_seen("the device keeps 8 sub-blocks of memory32 plugged", logs));
	CHECK_EQ(vm->plugged_sbs, 8);
	CHECK_EQ(vm->mb_state[0], VMEM_MB_UNUSED);
	vm_check(vm);
	while (nr)
		free_pages(hog[--nr], 9);
	fvm_request_size(32 * MiB);
	fvm_poll(10);				/* memory32 is left alone, memory33 gets 8 */
	CHECK_EQ(vm->plugged_sbs, 16);
	CHECK_EQ(vm->mb_state[0], VMEM_MB_UNUSED);
	vm_check(vm);
	fvm_request_size(16 * MiB);
	fvm_poll(10);				/* memory32's go back first */
	CHECK_EQ(vm->plugged_sbs, 8);
	CHECK_EQ(vmem_mb_nr_plugged(vm, 0), 0);
	vm_check(vm);
	vm_down();
}
