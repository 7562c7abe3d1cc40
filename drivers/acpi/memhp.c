/*
 * memhp.c - ACPI memory hotplug (QEMU's pc-dimm).
 *
 * Like Linux, memlab reaches the DIMM slots only through the firmware's
 * AML: the PNP0C80 devices and their methods (drivers/acpi/memhp_aml.c:
 * _STA, _CRS, _PXM, _OST, _EJ0, the GPE's method and its Notify).  Which
 * registers those methods touch is the firmware's business: no code here
 * knows QEMU's register layout.  Without memory devices in the namespace
 * (no DSDT, a table set the interpreter could not load, QEMU without
 * slots=) memory hotplug is off, said once in the log.
 *
 * Events arrive as GPE 3; the GPE work runs the GPE's method in the main
 * loop (never in the interrupt) and handles each Notify it made:
 *   1 Device Check  -> add the DIMM's range to mm (add_memory; onlined per
 *             auto_online_blocks), report _OST(Device Check, 0 or failure);
 *   3 Eject Request -> _OST(Eject Request, in progress), offline and remove
 *             the range (movable pages migrate away), then _EJ0 (QEMU sends
 *             DEVICE_DELETED); if offlining fails, _OST(Eject Request,
 *             device in use) and the DIMM stays, online and usable.
 * DIMMs present at boot (cold-plugged, _STA present) are added at init.
 *
 * Memory is added in whole 128 MiB memory blocks at 128 MiB boundaries.  A
 * DIMM whose size is not a multiple of 128 MiB, or that QEMU placed off a
 * boundary (after an odd-sized one), is used for the whole blocks inside
 * it; the head and tail left out are named, with the reason, on the
 * console and in `hotplug`.  A DIMM with no whole block in it is refused
 * with _OST(Device Check, insertion not supported).
 *
 * Each DIMM is a static memory group of the hotplug core; the core never
 * learns that ACPI asked.  Context: init (boot); everything else (main).
 */
#include <drivers/acpi.h>
#include <mm/memory_hotplug.h>
#include <lib/printk.h>
#include <kernel/workqueue.h>
#include <kernel/longop.h>
#include <kernel/resource.h>
#include <mm/mmzone.h>
#include <lib/string.h>
#include <lib/errno.h>
#include <kernel/time.h>
#include "memhp_aml.h"

#define MEMHP_MAX_SLOTS		MEMHP_AML_MAX_SLOTS
#define GPE_MEMORY_HOTPLUG	3

/* _OST codes (ACPI spec). */
#define OST_EV_DEVICE_CHECK	0x01
#define OST_EV_EJECT_REQUEST	0x03
#define OST_EV_OSPM_EJECT	0x103
#define OST_SUCCESS		0x00
#define OST_FAILURE		0x01
#define OST_INSERT_NOT_SUPPORTED 0x82
#define OST_EJECT_IN_USE	0x81
#define OST_EJECT_IN_PROGRESS	0x84

enum dimm_state {
	DIMM_EMPTY,		/* nothing known in the slot */
	DIMM_ADDED,		/* memory added to mm */
	DIMM_ADD_FAILED,	/* the insert could not be honoured */
	DIMM_REMOVE_FAILED,	/* eject refused; memory still added */
	DIMM_ADDING,		/* the add runs, block by block (a long operation) */
	DIMM_REMOVING,		/* the eject runs, block by block, top down */
};

static const char *const dimm_state_names[] = {
	[DIMM_EMPTY] = "empty", [DIMM_ADDED] = "added",
	[DIMM_ADD_FAILED] = "add failed", [DIMM_REMOVE_FAILED] = "remove refused",
	[DIMM_ADDING] = "adding", [DIMM_REMOVING] = "removing",
};

/* Free memory below which the blocks added so far are onlined before the
 * next block's 2 MiB memmap is allocated (a DIMM far larger than the guest:
 * later memmaps then come from earlier blocks, as add_memory does). */
#define MEMHP_ONLINE_FIRST_PAGES	((64ull << 20) >> PAGE_SHIFT)

struct dimm_slot {
	enum dimm_state state;	/* what memlab did with it */
	u64 base, size;		/* the DIMM's range, when known */
	u64 use_base, use_size;	/* its whole memory blocks: what memlab adds */
	u32 pxm;		/* proximity domain from the device */
	int nid;		/* memlab node */
	int mgid;		/* memory group, -1 if none */
	u32 ost_event, ost_status; /* last _OST sent */
	char ost_info[224];	/* and its status information (Arg2), "" if none */
	u64 last_event_ms;	/* uptime of the last event */
	char why[160];		/* reason of the last failure */
	char left_out[128];	/* the parts not used and why, "" if none */
	/* the add or eject while it runs: a long operation (`work`) */
	struct longop op;	/* busy range: the DIMM */
	char op_name[32];	/* "dimm3 add", "dimm3 remove" */
	unsigned nr_blocks;	/* memory blocks of the DIMM */
	unsigned added;		/* add: blocks [0, added) exist */
	unsigned onlined;	/* add: blocks [0, onlined) were auto-onlined */
	unsigned removed;	/* eject: blocks [nr_blocks - removed, nr_blocks) are gone */
	struct memory_removal removal;	/* eject: what it removed, to put back on a refusal */
	char removal_who[24];	/* "acpi-memhp: slot 3", its log prefix */
	bool eject_pending;	/* device_del came while the add ran: eject after it */
	bool eject_waits;	/* the eject waits for a shell job's range, said so */
	bool add_queued;	/* DIMM_ADDING, waiting for another slot's add */
	u64 add_seq;		/* order of the queued adds */
	u64 t0_ns;		/* ktime_ns() when the operation started */
	u64 gpe_ns;		/* add: ktime_ns() when the GPE method that asked for it began */
	struct memhp_aml_cost gpe_aml;	/* add: memhp_aml_spent() then */
};

static unsigned nr_slots;	/* PNP0C80 devices; slot numbers are their _UID */
static struct dimm_slot slots[MEMHP_MAX_SLOTS];
static struct work memhp_work;
static u64 scans;	/* GPE work runs (a deferred pass is part of its run) */
static int eject_running = -1;	/* slot of the running eject, or -1 */
/*
 * Adds run one at a time too, in the order their Device Checks came: where
 * a block goes depends on what is online already (auto-movable counts the
 * kernel and movable memory of the machine and of the DIMM's group), so a
 * DIMM plugged right behind another must be placed after the first one is
 * online, as Linux's device_hotplug_lock makes it.  Interleaved, three
 * DIMMs plugged back to back all went to ZONE_MOVABLE, past the ratio.
 */
static int add_running = -1;	/* slot of the running add, or -1 */
static u64 last_add_seq;		/* the last add_seq handed out */
/* The GPE work's next pass, put off while an add runs (memhp_scan()):
 * due once no add runs; scheduled for that, not by a GPE; and the passes
 * run since the last GPE, the deferred ones counted.  Main loop only. */
static bool scan_deferred;
static bool scan_resumed;
static unsigned scan_passes;

/* Eject the DIMM in slot: its _EJ0 (QEMU unplugs it and sends
 * DEVICE_DELETED).  Context: (main). */
static void slot_eject(unsigned slot)
{
	memhp_aml_eject(slot);
}

/* Report to the firmware: the device's _OST(event, status, information);
 * kept for `hotplug`.  The information (Arg2, text) says why a failure
 * failed, and for a DIMM used in part which part and what was left out
 * (QEMU's _OST keeps only the event and status).  Context: (main). */
static void slot_ost(unsigned slot, u32 event, u32 status)
{
	struct dimm_slot *s = &slots[slot];

	s->ost_info[0] = '\0';
	if (status != OST_SUCCESS && event == OST_EV_DEVICE_CHECK)
		strlcpy(s->ost_info, s->why, sizeof(s->ost_info));
	else if (event == OST_EV_DEVICE_CHECK && s->left_out[0])
		ksnprintf(s->ost_info, sizeof(s->ost_info),
			  "used [%#llx-%#llx] (%llu blocks); left out: %s: not whole 128 MiB blocks",
			  (unsigned long long)s->use_base,
			  (unsigned long long)(s->use_base + s->use_size - 1),
			  (unsigned long long)(s->use_size / MEMORY_BLOCK_SIZE), s->left_out);
	memhp_aml_ost(slot, event, status, s->ost_info);
	s->ost_event = event;
	s->ost_status = status;
}

static void dimm_add_start(unsigned slot);
static void dimm_add_next(void);
static void dimm_eject_start(unsigned slot);

/* Physical address of block i of the DIMM in s (of its used part). */
static u64 dimm_block_pa(const struct dimm_slot *s, unsigned i)
{
	return s->use_base + (u64)i * MEMORY_BLOCK_SIZE;
}

/* "[a-b] (N MiB)" for the range [start, end), KiB if not whole MiB. */
static int print_part(char *buf, size_t size, u64 start, u64 end)
{
	u64 len = end - start;
	bool mib = (len & ((1ULL << 20) - 1)) == 0;

	return ksnprintf(buf, size, "[%#llx-%#llx] (%llu %s)", (unsigned long long)start,
			 (unsigned long long)(end - 1), (unsigned long long)(mib ? len >> 20 : len >> 10),
			 mib ? "MiB" : "KiB");
}

/*
 * The part of the DIMM in s that memlab uses: the whole 128 MiB memory
 * blocks inside [base, base + size).  Sets use_base/use_size and says in
 * left_out which head and tail are left ("" if none).  Returns false if no
 * block is whole (or the device's range wraps).  Context: (main).
 */
static bool dimm_usable_part(struct dimm_slot *s)
{
	u64 end = s->base + s->size;
	u64 ubase = ALIGN_UP(s->base, MEMORY_BLOCK_SIZE), uend = ALIGN_DOWN(end, MEMORY_BLOCK_SIZE);
	int n = 0;

	s->left_out[0] = '\0';
	s->use_base = s->use_size = 0;
	if (end < s->base || ubase < s->base || uend <= ubase)
		return false;
	s->use_base = ubase;
	s->use_size = uend - ubase;
	if (ubase > s->base)
		n = print_part(s->left_out, sizeof(s->left_out), s->base, ubase);
	if (end > uend) {
		if (n)
			n += ksnprintf(s->left_out + n, sizeof(s->left_out) - (size_t)n, " and ");
		print_part(s->left_out + n, sizeof(s->left_out) - (size_t)n, uend, end);
	}
	return true;
}

/* The slot whose long operation op is. */
static unsigned slot_of_op(const struct longop *op)
{
	return (unsigned)(container_of(op, struct dimm_slot, op) - slots);
}

/*
 * An add that cannot finish: the blocks added so far are offlined and
 * removed again, last first (a later block's memmap may lie in an earlier
 * one), the group goes, and QEMU hears _OST(Device Check, failure).
 */
static void dimm_add_fail(unsigned slot, int err)
{
	struct dimm_slot *s = &slots[slot];

	ksnprintf(s->why, sizeof(s->why), "add_memory of block %u of %u at %#llx: %s", s->added,
		  s->nr_blocks, (unsigned long long)dimm_block_pa(s, s->added), err_text(err));
	while (s->added) {
		if (offline_and_remove_memory(dimm_block_pa(s, s->added - 1), MEMORY_BLOCK_SIZE))
			break;	/* logged by mm; the blocks below stay too */
		s->added--;
	}
	if (!s->added) {
		memory_group_unregister(s->mgid);
		s->mgid = -1;
	}
	s->state = DIMM_ADD_FAILED;
	slot_ost(slot, OST_EV_DEVICE_CHECK, OST_FAILURE);
	pr_err("acpi-memhp: slot %u: cannot use the DIMM: %s", slot, s->why);
	range_release(&s->op.claim);
	if (s->eject_pending && !s->added) {
		/* device_del came during the add: nothing is left to remove */
		slot_eject(slot);
		s->state = DIMM_EMPTY;
		slot_ost(slot, OST_EV_OSPM_EJECT, OST_SUCCESS);
	}
	s->eject_pending = false;
}

/*
 * The add's step, one memory block per unit: add the blocks offline one
 * by one (add_memory of one block: its memmap written), then, if
 * auto_online_blocks says so, online them one by one, as add_memory of the
 * whole range does; when free memory runs low (or a memmap cannot be
 * allocated) the blocks added so far are onlined first.  The DIMM is
 * reported added (_OST success) when the last block is done, then a
 * device_del that came meanwhile is handled.
 */
static bool dimm_add_step(struct longop *op, u64 deadline_ns)
{
	unsigned slot = slot_of_op(op);
	struct dimm_slot *s = &slots[slot];
	enum mmop type = memhp_get_default_online_type();
	unsigned flags = MHP_NO_AUTO_ONLINE | (memhp_get_memmap_on_memory() ? MHP_MEMMAP_ON_MEMORY : 0);

	do {
		bool auto_on = type != MMOP_OFFLINE;
		bool online_now = auto_on && s->onlined < s->added &&
				  (s->added == s->nr_blocks ||
				   global_free_pages() < MEMHP_ONLINE_FIRST_PAGES);

		if (online_now) {
			struct memory_block *mem =
				find_memory_block_by_id(dimm_block_pa(s, s->onlined) / MEMORY_BLOCK_SIZE);
			int err = mem ? memory_block_online(mem, type) : -ENOENT;

			if (err)
				pr_warn("acpi-memhp: slot %u: block %u left offline: online failed: %s",
					slot, s->onlined, err_text(err));
			s->onlined++;
		} else if (s->added < s->nr_blocks) {
			int err = add_memory(s->nid, dimm_block_pa(s, s->added), MEMORY_BLOCK_SIZE,
					     s->mgid, flags);

			if (err == -ENOMEM && auto_on && s->onlined < s->added) {
				/* no memmap: online the blocks added so far, then retry */
				while (s->onlined < s->added) {
					struct memory_block *mem = find_memory_block_by_id(
						dimm_block_pa(s, s->onlined) / MEMORY_BLOCK_SIZE);

					if (mem)
						memory_block_online(mem, type);
					s->onlined++;
				}
				continue;
			}
			if (err) {
				dimm_add_fail(slot, err);
				dimm_add_next();
				return false;
			}
			s->added++;
		} else {
			break;
		}
		op->done = s->added + s->onlined;
	} while (ktime_ns() < deadline_ns);
	if (s->added < s->nr_blocks || (type != MMOP_OFFLINE && s->onlined < s->added))
		return true;
	s->state = DIMM_ADDED;
	add_system_ram_resource(s->use_base, s->use_size, "System RAM", false);	/* /proc/iomem */
	/* QEMU hears first: who sees the log line can rely on the _OST event */
	slot_ost(slot, OST_EV_DEVICE_CHECK, OST_SUCCESS);
	pr_info("acpi-memhp: slot %u: DIMM [mem %#llx-%#llx] node %d: %u blocks added%s in %llu ms",
		slot, (unsigned long long)s->base, (unsigned long long)(s->base + s->size - 1),
		s->nid, s->nr_blocks, type != MMOP_OFFLINE ? " and onlined" : "",
		(unsigned long long)((ktime_ns() - s->t0_ns) / 1000000));
	/* the AML's share of the add, for make bench (tests/bench/memhp_bench.py);
	 * a cold-plugged DIMM had no GPE */
	if (s->gpe_ns) {
		struct memhp_aml_cost now;

		memhp_aml_spent(&now);
		pr_debug("acpi-memhp: slot %u: %llu MiB added%s %llu us after its GPE, %llu us of it in AML",
			 slot, (unsigned long long)(s->use_size >> 20), type != MMOP_OFFLINE ? " and onlined" : "",
			 (unsigned long long)((ktime_ns() - s->gpe_ns) / 1000),
			 (unsigned long long)((now.ns - s->gpe_aml.ns) / 1000));
		/* and what that AML was: opcodes run, and the region accesses
		 * (each a port access QEMU emulates) with their time; the rest
		 * of the AML's time is interpretation */
		pr_debug("acpi-memhp: slot %u: AML of the add: %llu opcodes, %llu region accesses taking %llu us, %llu us interpreting",
			 slot, (unsigned long long)(now.ops - s->gpe_aml.ops),
			 (unsigned long long)(now.io - s->gpe_aml.io),
			 (unsigned long long)((now.io_ns - s->gpe_aml.io_ns) / 1000),
			 (unsigned long long)((now.ns - s->gpe_aml.ns - (now.io_ns - s->gpe_aml.io_ns)) / 1000));
	}
	range_release(&op->claim);
	if (s->eject_pending) {
		s->eject_pending = false;
		dimm_eject_start(slot);
	}
	dimm_add_next();
	return false;
}

/*
 * Run the slot's add or eject, holding the DIMM's range for it in mm; when
 * another holder has memory there, the eject's step waits for it and the
 * add's add_memory() is refused (-EBUSY).  Context: (main).
 */
static void dimm_op_start(struct dimm_slot *s)
{
	longop_start(&s->op);
	longop_claim(&s->op, s->base, s->base + s->size);
}

/* Start the add of the DIMM in slot (range, node and group known). */
static void dimm_add_start(unsigned slot)
{
	struct dimm_slot *s = &slots[slot];
	bool auto_on = memhp_get_default_online_type() != MMOP_OFFLINE;

	s->nr_blocks = (unsigned)(s->use_size / MEMORY_BLOCK_SIZE);
	s->added = s->onlined = s->removed = 0;
	s->eject_pending = false;
	s->add_queued = false;
	s->state = DIMM_ADDING;
	s->t0_ns = ktime_ns();
	ksnprintf(s->op_name, sizeof(s->op_name), "dimm%u add", slot);
	s->op = (struct longop){
		.name = s->op_name, .unit = "block steps", .step = dimm_add_step,
		.total = (u64)s->nr_blocks * (auto_on ? 2 : 1),
	};
	if (add_running >= 0) {
		s->add_queued = true;
		s->add_seq = ++last_add_seq;
		pr_info("acpi-memhp: slot %u: add waits for slot %d's add to finish (one at a time: each DIMM is placed with the ones before it online)",
			slot, add_running);
		return;
	}
	add_running = (int)slot;
	dimm_op_start(s);
}

/* The running add ended (done or failed): start the add that waited
 * longest; when none waits, the GPE work's deferred pass is due. */
static void dimm_add_next(void)
{
	int next = -1;

	add_running = -1;
	for (unsigned k = 0; k < MEMHP_MAX_SLOTS; k++)
		if (slots[k].add_queued && (next < 0 || slots[k].add_seq < slots[next].add_seq))
			next = (int)k;
	if (next < 0) {
		if (scan_deferred) {
			scan_deferred = false;
			scan_resumed = true;
			schedule_work(&memhp_work);
		}
		return;
	}
	slots[next].add_queued = false;
	slots[next].t0_ns = ktime_ns();
	add_running = next;
	dimm_op_start(&slots[next]);
}

/*
 * The eject's step, one memory block per unit, top down (a block's memmap
 * may lie in the block below): offline and remove the highest block left
 * (memory_removal_step() on the slot's struct memory_removal).  If one
 * refuses (unmovable pages), memory_removal_rollback() adds and onlines
 * the blocks above it again with their old types (all their pages were
 * free once offline, so nothing is lost), QEMU hears _OST(Eject Request, in use)
 * and the DIMM stays, online and usable.  When the last block is gone the
 * DIMM is ejected.
 */
static bool dimm_eject_step(struct longop *op, u64 deadline_ns)
{
	unsigned slot = slot_of_op(op);
	struct dimm_slot *s = &slots[slot];
	/* a shell job holds memory of the DIMM (a benchmark onlining its
	 * blocks, `memory offline N-M &`): the eject waits for it */
	const struct range_claim *other = longop_wait_range(op, s->base, s->base + s->size);

	if (other) {
		if (!s->eject_waits)
			pr_info("acpi-memhp: slot %u: eject waits: %s holds memory of the DIMM",
				slot, other->name);
		s->eject_waits = true;
		return true;
	}
	s->eject_waits = false;
	do {
		int err;

		if (s->removed == s->nr_blocks)
			break;
		err = memory_removal_step(&s->removal);
		if (err < 0) {
			memory_removal_rollback(&s->removal);	/* a block that stays out is logged */
			ksnprintf(s->why, sizeof(s->why),
				  "memory [%#llx-%#llx) cannot be offlined: %s (see the log above)",
				  (unsigned long long)s->base, (unsigned long long)(s->base + s->size),
				  err_text(err));
			s->state = DIMM_REMOVE_FAILED;
			pr_err("acpi-memhp: slot %u: eject refused: %s", slot, s->why);
			slot_ost(slot, OST_EV_EJECT_REQUEST, OST_EJECT_IN_USE);
			goto end;
		}
		s->removed++;
		op->done = s->removed;
	} while (ktime_ns() < deadline_ns);
	if (s->removed < s->nr_blocks)
		return true;
	memory_group_unregister(s->mgid);
	s->mgid = -1;
	release_mem_region_adjustable(s->use_base, s->use_size);	/* /proc/iomem */
	slot_eject(slot);	/* QEMU unplugs it and sends DEVICE_DELETED */
	s->state = DIMM_EMPTY;
	s->why[0] = '\0';
	slot_ost(slot, OST_EV_OSPM_EJECT, OST_SUCCESS);
	pr_info("acpi-memhp: slot %u: DIMM [mem %#llx-%#llx] removed in %llu ms and ejected", slot,
		(unsigned long long)s->base, (unsigned long long)(s->base + s->size - 1),
		(unsigned long long)((ktime_ns() - s->t0_ns) / 1000000));
end:
	range_release(&op->claim);
	eject_running = -1;
	for (unsigned k = 0; k < MEMHP_MAX_SLOTS; k++)	/* the next eject that waited */
		if (slots[k].eject_pending && slots[k].state != DIMM_ADDING) {
			slots[k].eject_pending = false;
			dimm_eject_start(k);
			break;
		}
	return false;
}

/* Start the eject of the added DIMM in slot, or queue it behind the running one. */
static void dimm_eject_start(unsigned slot)
{
	struct dimm_slot *s = &slots[slot];

	if (eject_running >= 0) {
		s->eject_pending = true;
		pr_info("acpi-memhp: slot %u: eject waits for slot %d's eject to finish", slot,
			eject_running);
		return;
	}
	eject_running = (int)slot;
	s->nr_blocks = (unsigned)(s->use_size / MEMORY_BLOCK_SIZE);
	s->removed = 0;
	ksnprintf(s->removal_who, sizeof(s->removal_who), "acpi-memhp: slot %u", slot);
	memory_removal_begin(&s->removal, s->removal_who, s->use_base, s->use_size, s->nid, s->mgid,
			     MHP_NONE);
	s->state = DIMM_REMOVING;
	s->t0_ns = ktime_ns();
	ksnprintf(s->op_name, sizeof(s->op_name), "dimm%u remove", slot);
	s->op = (struct longop){
		.name = s->op_name, .unit = "blocks", .step = dimm_eject_step,
		.total = s->nr_blocks,
	};
	dimm_op_start(s);
}

/*
 * Device Check: a DIMM appeared in `slot` (hot- or cold-plugged).  Read its
 * range and node, add it as one static memory group.
 */
static void dimm_device_check(unsigned slot)
{
	struct dimm_slot *s = &slots[slot];
	char name[16];
	int err;

	if (!memhp_aml_present(slot)) {
		ksnprintf(s->why, sizeof(s->why), "device check on an empty slot");
		slot_ost(slot, OST_EV_DEVICE_CHECK, OST_FAILURE);
		return;
	}
	if (s->state == DIMM_ADDED || s->state == DIMM_REMOVE_FAILED) {
		slot_ost(slot, OST_EV_DEVICE_CHECK, OST_SUCCESS);	/* already ours */
		return;
	}
	if (s->state == DIMM_ADDING || s->state == DIMM_REMOVING)
		return;		/* the running operation reports when it ends */
	memhp_aml_scan_began(&s->gpe_ns, &s->gpe_aml);
	if (memhp_aml_range(slot, &s->base, &s->size, &s->pxm)) {
		ksnprintf(s->why, sizeof(s->why), "_CRS gives no memory range");
		s->state = DIMM_ADD_FAILED;
		slot_ost(slot, OST_EV_DEVICE_CHECK, OST_FAILURE);
		return;
	}
	s->nid = acpi_pxm_to_node(s->pxm);
	s->mgid = -1;
	s->why[0] = '\0';
	if (!dimm_usable_part(s)) {
		ksnprintf(s->why, sizeof(s->why),
			  "no whole 128 MiB memory block in [%#llx-%#llx] (memory is added in 128 MiB blocks at 128 MiB boundaries)",
			  (unsigned long long)s->base, (unsigned long long)(s->base + s->size - 1));
		s->state = DIMM_ADD_FAILED;
		slot_ost(slot, OST_EV_DEVICE_CHECK, OST_INSERT_NOT_SUPPORTED);
		pr_err("acpi-memhp: slot %u: cannot use the DIMM: %s", slot, s->why);
		return;
	}
	if (s->nid < 0) {
		ksnprintf(s->why, sizeof(s->why), "proximity domain %u: no node left", s->pxm);
		err = -ENOSPC;
		goto fail;
	}
	ksnprintf(name, sizeof(name), "dimm%u", slot);
	err = memory_group_register_static(s->nid, (unsigned long)(s->use_size >> PAGE_SHIFT), name);
	if (err < 0) {
		ksnprintf(s->why, sizeof(s->why), "no memory group: %s", err_text(err));
		goto fail;
	}
	s->mgid = err;
	pr_info("acpi-memhp: slot %u: DIMM [mem %#llx-%#llx] (%llu MiB) on node %d (pxm %u)",
		slot, (unsigned long long)s->base, (unsigned long long)(s->base + s->size - 1),
		(unsigned long long)(s->size >> 20), s->nid, s->pxm);
	if (s->left_out[0])
		pr_warn("acpi-memhp: slot %u: using [mem %#llx-%#llx] (%llu MiB, %llu blocks); left out: %s, not whole 128 MiB memory blocks at 128 MiB boundaries",
			slot, (unsigned long long)s->use_base,
			(unsigned long long)(s->use_base + s->use_size - 1),
			(unsigned long long)(s->use_size >> 20),
			(unsigned long long)(s->use_size / MEMORY_BLOCK_SIZE), s->left_out);
	dimm_add_start(slot);
	return;
fail:
	s->state = DIMM_ADD_FAILED;
	slot_ost(slot, OST_EV_DEVICE_CHECK, OST_FAILURE);
	pr_err("acpi-memhp: slot %u: cannot use the DIMM: %s", slot, s->why);
}

/*
 * Eject Request: QEMU wants the DIMM in `slot` back (device_del).  Offline
 * and remove its memory, then eject; or refuse, keeping everything as it
 * was, and say why.
 */
static void dimm_eject_request(unsigned slot)
{
	struct dimm_slot *s = &slots[slot];

	slot_ost(slot, OST_EV_EJECT_REQUEST, OST_EJECT_IN_PROGRESS);
	if (s->state == DIMM_ADDING) {
		/* the add finishes first; none is lost */
		s->eject_pending = true;
		pr_info("acpi-memhp: slot %u: eject request while the DIMM is being added: it is ejected once the add completes",
			slot);
		return;
	}
	if (s->state == DIMM_REMOVING || s->eject_pending)
		return;		/* already on its way out */
	if (s->state == DIMM_ADDED || s->state == DIMM_REMOVE_FAILED) {
		dimm_eject_start(slot);
		return;
	}
	slot_eject(slot);	/* QEMU unplugs it and sends DEVICE_DELETED */
	s->state = DIMM_EMPTY;
	s->why[0] = '\0';
	slot_ost(slot, OST_EV_OSPM_EJECT, OST_SUCCESS);
	pr_info("acpi-memhp: slot %u: DIMM [mem %#llx-%#llx] not in use: ejected", slot,
		(unsigned long long)s->base, (unsigned long long)(s->base + s->size - 1));
}

/* An event the GPE method notified: 1 device check, 3 eject request. */
static void aml_event(unsigned slot, u64 value)
{
	if (slot >= MEMHP_MAX_SLOTS)
		return;
	slots[slot].last_event_ms = ktime_ns() / 1000000;
	if (value == OST_EV_DEVICE_CHECK)
		dimm_device_check(slot);
	else if (value == OST_EV_EJECT_REQUEST)
		dimm_eject_request(slot);
}

/*
 * The GPE 3 work: run \_GPE._E03 (or _L03), handle its Notify()s in order,
 * and run it again while it notified anything.  One pass does not see every
 * event: QEMU's MSCN reports one event per slot and pass (the insert bit
 * before the remove bit), and QEMU raises the GPE once per event, so a
 * device_del that comes before the guest scanned its device_add leaves the
 * remove bit set behind one GPE that the insert used up.  A pass that
 * notifies nothing means every bit the method looks at is clear.
 *
 * What a later pass can find is only a second event of a device the pass
 * notified (the GPE's status bit is cleared before the work runs, so an
 * event that comes after a device was looked at raises the GPE again).
 * While an add runs, such an event can wait for it: an eject request of
 * the DIMM being added waits for the add anyway, another add queues
 * behind it, and anything else is handled a little later, never lost.  So
 * the next pass is put off until no add runs (dimm_add_next() schedules
 * it): the add's memory comes online without a second run of the method
 * in its way.  Bounded, for
 * firmware that notifies forever: MEMHP_SCAN_PASSES since the last GPE,
 * the deferred passes counted.  Context: (main).
 */
#define MEMHP_SCAN_PASSES	8

static void memhp_scan(struct work *w)
{
	(void)w;
	if (!scan_resumed) {	/* a GPE: its passes start anew */
		scans++;
		scan_passes = 0;
	}
	scan_resumed = false;
	scan_deferred = false;
	while (scan_passes < MEMHP_SCAN_PASSES) {
		scan_passes++;
		if (!memhp_aml_scan(GPE_MEMORY_HOTPLUG, aml_event))
			return;
		if (add_running >= 0) {
			scan_deferred = true;	/* the next pass once the add is done */
			return;
		}
	}
	pr_warn("acpi-memhp: the GPE method still notified after %u passes: the rest waits for the next GPE",
		scan_passes);
}

/*
 * Find the DIMM slots (the PNP0C80 devices), add the cold-plugged DIMMs
 * and listen to GPE 3.  Without memory devices, memory hotplug is off.
 * Context: init (boot), after the AML namespace is loaded.
 */
void acpi_memhp_init(void)
{
	unsigned n;

	/* start over: no slot until the AML names one */
	nr_slots = 0;
	scans = 0;
	scan_deferred = scan_resumed = false;
	scan_passes = 0;
	memset(slots, 0, sizeof(slots));

	n = memhp_aml_init();	/* the PNP0C80 devices of the AML, slots by _UID */
	if (!n) {
		pr_info("acpi-memhp: no memory device (PNP0C80) in the AML: memory hotplug is off (QEMU needs -m ...,slots=N,maxmem=...)");
		return;
	}
	nr_slots = n;
	for (unsigned i = 0; i < MEMHP_MAX_SLOTS; i++)
		slots[i].mgid = -1;
	memhp_work = (struct work)WORK_INIT(memhp_scan, "acpi memory hotplug scan");
	pr_info("acpi-memhp: %u DIMM slots: PNP0C80 devices of the AML (_STA, _CRS, _PXM, _OST, _EJ0; events by \\_GPE._E%02X)",
		nr_slots, GPE_MEMORY_HOTPLUG);

	/* Cold-plugged DIMMs: present now; a pending insert is seen again
	 * by the first scan and finds the DIMM added. */
	for (unsigned slot = 0; slot < MEMHP_MAX_SLOTS; slot++) {
		if (memhp_aml_has(slot) && memhp_aml_present(slot)) {
			dimm_device_check(slot);
			longop_finish(&slots[slot].op);	/* boot waits for cold-plugged memory */
		}
	}
	if (acpi_gpe_register(GPE_MEMORY_HOTPLUG, &memhp_work))
		pr_warn("acpi-memhp: GPE %u is not in the GPE0 block; events will be missed",
			GPE_MEMORY_HOTPLUG);
	schedule_work(&memhp_work);	/* events raised before we listened */
}

void acpi_memhp_dump(struct printer *p)
{
	if (!nr_slots) {
		pr_printf(p, "no ACPI memory hotplug device\n");
		return;
	}
	pr_printf(p, "ACPI memory hotplug: %u slots (PNP0C80 devices of the AML), %llu scans, events %s\n",
		  nr_slots, (unsigned long long)scans,
		  acpi_sci_wired() ? "by SCI (GPE 3)" : "polled");
	pr_printf(p, "%-4s %-15s %-37s %4s %5s  %s\n", "slot", "state", "range", "node",
		  "group", "last _OST (event/status)");
	for (unsigned i = 0; i < MEMHP_MAX_SLOTS; i++) {
		const struct dimm_slot *s = &slots[i];
		char range[48] = "-";

		if (s->state == DIMM_EMPTY && !s->ost_event)
			continue;
		if (s->size)
			ksnprintf(range, sizeof(range), "[%#llx-%#llx]",
				  (unsigned long long)s->base,
				  (unsigned long long)(s->base + s->size - 1));
		pr_printf(p, "%-4u %-15s %-37s %4d %5d  %#x/%#x\n", i,
			  s->add_queued ? "add queued" : dimm_state_names[s->state],
			  range, s->state == DIMM_EMPTY ? -1 : s->nid, s->mgid, s->ost_event,
			  s->ost_status);
		if (s->left_out[0] && s->state != DIMM_EMPTY && s->state != DIMM_ADD_FAILED)
			pr_printf(p, "     used: [%#llx-%#llx] (%llu blocks); left out: %s (not whole 128 MiB blocks)\n",
				  (unsigned long long)s->use_base,
				  (unsigned long long)(s->use_base + s->use_size - 1),
				  (unsigned long long)(s->use_size / MEMORY_BLOCK_SIZE), s->left_out);
		if (s->why[0])
			pr_printf(p, "     why: %s\n", s->why);
		if (s->ost_info[0])
			pr_printf(p, "     _OST information: %s\n", s->ost_info);
	}
}
