/*
 * virtio_mem_plug.c - how the virtio-mem driver plugs and unplugs memory:
 * the online_page_callback that gives only plugged sub-blocks to the
 * buddy, plugging sub-blocks of added blocks and adding new blocks,
 * unplugging from offline and online blocks, the resize round that brings
 * plugged memory to requested_size, and the poller that starts it.
 *
 *   - a memory block of the region is added to the kernel (add_memory, its
 *     own dynamic memory group, MHP_NO_AUTO_ONLINE) when its first
 *     sub-block is plugged, onlined right away, and offlined and removed
 *     when its last sub-block is unplugged;
 *   - a sub-block (one device block, at least a pageblock) is plugged or
 *     not; the online_page_callback gives only plugged sub-blocks to the
 *     buddy and keeps the others PageOffline (online_pages_keep_offline:
 *     refcount 0, not managed, never touched: UNPLUGGED_INACCESSIBLE).
 *     Plugging a sub-block of an online block later fake-onlines it
 *     (fake_online_pages); unplugging one takes its pages with
 *     alloc_contig_range_explain() (movable pages migrate away) and
 *     fake-offlines them (fake_offline_pages) before the UNPLUG request.
 *   - with deferred_init_hotplug on, a block is online before its memmap
 *     is written (mm/deferred_init.c): the callback then runs at each
 *     section's hand-over, maybe on another CPU, and reads the bitmap
 *     there.  So a block's bits never change while its memmap is pending:
 *     before a plug or an unplug in an online block, its pending section
 *     is initialised (deferred_init_pfn_range(), on demand), under the
 *     plan of the bits as they are.
 *
 * Each memory block is onlined before the next one is added: the next
 * block's memmap then comes from memory already plugged, so a 2 GiB guest
 * can grow by far more than it could describe with boot memory alone.
 * A resize round that cannot reach requested_size (unmovable pages in the
 * last plugged sub-blocks) says why and is retried every 5 seconds.
 *
 * Context: (main): the poller and the shell.
 */
#include "virtio_mem_internal.h"
#include <kernel/console.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <mm/contig_alloc.h>
#include <mm/deferred_init.h>
#include <mm/gfp.h>
#include <mm/mmzone.h>
#include <mm/page.h>

/* ---- the online_page_callback -------------------------------------------- */

/* Contract in virtio_mem_internal.h. */
void vmem_online_page(u64 start_pfn, u64 end_pfn)
{
	struct vmem_dev *vm = vmem_dev_of_pfn(start_pfn);
	u64 pfn = start_pfn;

	if (!vm) {
		generic_online_pages(start_pfn, end_pfn);
		return;
	}
	u64 sb_pages = vm->sb_size >> PAGE_SHIFT;

	/* runs of sub-blocks in the same state go in one call each: a fully
	 * plugged block reaches the buddy in MAX_ORDER chunks, not 2 MiB ones */
	while (pfn < end_pfn) {
		u64 off = PFN_PHYS(pfn) - vmem_mb_addr(vm, 0);
		unsigned i = (unsigned)(off / MEMORY_BLOCK_SIZE);
		unsigned sb = (unsigned)((off % MEMORY_BLOCK_SIZE) / vm->sb_size);
		bool plugged = vmem_sb_plugged(vm, i, sb);
		u64 next = MIN(end_pfn, (pfn / sb_pages + 1) * sb_pages);

		while (next < end_pfn && ++sb < vm->sb_per_mb && vmem_sb_plugged(vm, i, sb) == plugged)
			next = MIN(end_pfn, next + sb_pages);
		if (plugged)
			generic_online_pages(pfn, next);
		else
			online_pages_keep_offline(pfn, next);
		pfn = next;
	}
}

/* Contract in virtio_mem_internal.h. */
u64 vmem_online_count(u64 start_pfn, u64 end_pfn)
{
	struct vmem_dev *vm = vmem_dev_of_pfn(start_pfn);
	u64 sb_pages, pages = 0;

	if (!vm)
		return end_pfn - start_pfn;	/* vmem_online_page() gives it all */
	sb_pages = vm->sb_size >> PAGE_SHIFT;
	for (u64 pfn = start_pfn; pfn < end_pfn; ) {
		u64 off = PFN_PHYS(pfn) - vmem_mb_addr(vm, 0);
		u64 next = MIN(end_pfn, (pfn / sb_pages + 1) * sb_pages);

		if (vmem_sb_plugged(vm, (unsigned)(off / MEMORY_BLOCK_SIZE),
				    (unsigned)((off % MEMORY_BLOCK_SIZE) / vm->sb_size)))
			pages += next - pfn;
		pfn = next;
	}
	return pages;
}

/* ---- plugging ------------------------------------------------------------ */

/*
 * Count block i's memmap in the block of the region that holds it
 * (mb_memmaps[]): that block's memory has been written, so the host backs
 * it, and giving it back costs the host time in proportion.  Called when
 * block i is added and before it is removed (its memmap may have moved).
 */
static void vmem_note_memmap(struct vmem_dev *vm, unsigned i)
{
	phys_addr_t pa = __pfn_to_section(PHYS_PFN(vmem_mb_addr(vm, i)))->memmap_pa;
	u64 k;

	if (!pa || pa < vmem_mb_addr(vm, 0))
		return;
	k = (pa - vmem_mb_addr(vm, 0)) / MEMORY_BLOCK_SIZE;
	if (k < vm->nr_mbs && vm->mb_memmaps[k] < 255)
		vm->mb_memmaps[k]++;
}

/* Sub-blocks of block i that lie inside the usable region. */
static unsigned mb_usable_sbs(const struct vmem_dev *vm, unsigned i)
{
	u64 start = vmem_mb_addr(vm, i), end = vm->addr + vm->usable_region_size;

	if (end <= start)
		return 0;
	return (unsigned)MIN((u64)vm->sb_per_mb, (end - start) / vm->sb_size);
}

/*
 * Plug up to *want unplugged sub-blocks of an added block i (runs of
 * unplugged sub-blocks, lowest first); in an online block they are
 * fake-onlined (fake_online_pages: to the buddy, managed, watermarks and
 * pcp sizes following, as memory_block_online() does).
 */
static int vmem_plug_in_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	unsigned usable = mb_usable_sbs(vm, i);
	int err = 0;

	for (unsigned sb = 0; sb < usable && *want;) {
		if (vmem_sb_plugged(vm, i, sb)) {
			sb++;
			continue;
		}
		unsigned n = 0;

		while (sb + n < usable && !vmem_sb_plugged(vm, i, sb + n) && n < *want)
			n++;
		if (vmem_mb_online(vm, i))	/* a pending memmap goes under the old bits */
			deferred_init_pfn_range(PHYS_PFN(vmem_mb_addr(vm, i)),
						PHYS_PFN(vmem_mb_addr(vm, i + 1)));
		err = vmem_plug_unplug(vm, true, vmem_sb_addr(vm, i, sb), n);
		if (err)
			break;
		vmem_sb_set_plugged(vm, i, sb, n, true);
		if (vmem_mb_online(vm, i))
			fake_online_pages(PHYS_PFN(vmem_sb_addr(vm, i, sb)),
					  PHYS_PFN(vmem_sb_addr(vm, i, sb + n)));
		*want -= n;
		sb += n;
	}
	vmem_mb_refresh_state(vm, i);
	return err;
}

/* Plug the first sub-blocks of unused block i, add it, online it. */
static int vmem_plug_new_mb(struct vmem_dev *vm, unsigned i, u64 *want)
{
	unsigned n = (unsigned)MIN((u64)mb_usable_sbs(vm, i), *want);
	u64 pa = vmem_mb_addr(vm, i);
	int err;

	if (!n)
		return -ENOSPC;
	err = vmem_plug_unplug(vm, true, pa, n);
	if (err)
		return err;
	vmem_sb_set_plugged(vm, i, 0, n, true);
	err = add_memory(vm->nid, pa, MEMORY_BLOCK_SIZE, vm->mgid, MHP_NO_AUTO_ONLINE);
	if (err) {
		ksnprintf(vm->why, sizeof(vm->why), "add_memory of memory%llu failed (%s)",
			  (unsigned long long)(vm->first_mb_id + i), err_text(err));
		pr_err("%s: %s; unplugging its sub-blocks again\n", vm->name, vm->why);
		int r = vmem_plug_unplug(vm, false, pa, n);

		/* never added, so never used: unknown (-ENODEV) counts as unplugged */
		if (r == 0 || r == -ENODEV)
			vmem_sb_set_plugged(vm, i, 0, n, false);
		else
			pr_err("%s: the device keeps %u sub-blocks of memory%llu plugged; the next unplug round retries\n",
			       vm->name, n, (unsigned long long)(vm->first_mb_id + i));
		return err;
	}
	*want -= n;
	vmem_note_memmap(vm, i);
	vmem_mb_refresh_state(vm, i);
	struct memory_block *mem = find_memory_block_by_id(vm->first_mb_id + i);

	err = mem ? memory_block_online(mem, default_online_type()) : -ENOENT;
	if (err) {
		ksnprintf(vm->why, sizeof(vm->why), "onlining memory%llu failed (%s): it stays offline",
			  (unsigned long long)(vm->first_mb_id + i), err_text(err));
		pr_err("%s: %s\n", vm->name, vm->why);
	}
	vmem_mb_refresh_state(vm, i);
	return err;
}

/*
 * The passes of a plug round over the blocks, in order: partly plugged
 * blocks by state (online ones first: their sub-blocks reach the buddy at
 * once), then unused blocks, which are added and onlined one by one.
 */
static const u8 plug_passes[] = { VMEM_MB_KERNEL_PARTIAL, VMEM_MB_MOVABLE_PARTIAL,
				  VMEM_MB_OFFLINE_PARTIAL, VMEM_MB_UNUSED };

/*
 * vmem_plug_unit() - one unit of a plug round: plug up to want sub-blocks
 * of the next block the cursor (cur_pass, cur_i) finds.  Returns 1 after a
 * block, -ENOSPC when the passes are over (the region holds no more), or
 * the error of the block's request or add.
 */
static int vmem_plug_unit(struct vmem_dev *vm, u64 want)
{
	while (vm->cur_pass < ARRAY_SIZE(plug_passes)) {
		u8 st = plug_passes[vm->cur_pass];
		unsigned i;
		int err;

		if (vm->cur_i >= vm->nr_mbs) {
			vm->cur_pass++;
			vm->cur_i = 0;
			continue;
		}
		i = vm->cur_i++;
		if (vm->mb_state[i] != st)
			continue;
		if (st != VMEM_MB_UNUSED) {
			err = vmem_plug_in_mb(vm, i, &want);
			return err ? err : 1;
		}
		/* a block not added but with plugged sub-blocks (its add failed
		 * and the device refused them back) waits for an unplug round */
		if (vmem_mb_nr_plugged(vm, i))
			continue;
		if (!mb_usable_sbs(vm, i))
			break;
		err = vmem_plug_new_mb(vm, i, &want);
		return err ? err : 1;
	}
	vm->cur_pass = ARRAY_SIZE(plug_passes);
	ksnprintf(vm->why, sizeof(vm->why), "%llu MiB more requested than the usable region holds",
		  (unsigned long long)(want * vm->sb_size >> 20));
	return -ENOSPC;
}

/* ---- what may be taken for good ------------------------------------------- */

/*
 * vmem_range_held() - memory_group_ops.range_held: before mm lets device
 * memory take blocks of this device, each must be wholly plugged and no
 * unplug may be pending (requested below plugged: the next round gives
 * memory back, maybe this block).  Context: (main).
 */
static int vmem_range_held(void *owner, u64 start_pfn, u64 nr_pages, char *why, size_t size)
{
	struct vmem_dev *vm = owner;
	u64 first = PFN_PHYS(start_pfn) / MEMORY_BLOCK_SIZE;
	u64 end = PFN_PHYS(start_pfn + nr_pages) / MEMORY_BLOCK_SIZE;

	if (vmem_resizing(vm)) {
		ksnprintf(why, size, "%s is resizing (plugged %llu MiB, requested %llu MiB)",
			  vm->name, (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20),
			  (unsigned long long)(vm->requested_size >> 20));
		return -EBUSY;
	}
	if (vm->requested_size < (vm->plugged_sbs * vm->sb_size)) {
		ksnprintf(why, size, "%s is unplugging (requested %llu MiB, plugged %llu MiB)",
			  vm->name, (unsigned long long)(vm->requested_size >> 20),
			  (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20));
		return -EBUSY;
	}
	for (u64 id = first; id < end; id++) {
		unsigned i;

		if (id < vm->first_mb_id || id >= vm->first_mb_id + vm->nr_mbs)
			continue;
		i = (unsigned)(id - vm->first_mb_id);
		if (vmem_mb_nr_plugged(vm, i) != vm->sb_per_mb) {
			ksnprintf(why, size, "memory%llu is not fully plugged by %s (%u of %u sub-blocks)",
				  (unsigned long long)id, vm->name, vmem_mb_nr_plugged(vm, i),
				  vm->sb_per_mb);
			return -EBUSY;
		}
	}
	return 0;
}

const struct memory_group_ops vmem_group_ops = {
	.range_held = vmem_range_held,
};

/*
 * May block i be given back to the device?  Not while the kernel uses it
 * (device memory made from it): then the block is skipped, the reason is
 * in vm->why and logged when it changes, and a later round retries.
 */
static bool vmem_mb_may_unplug(struct vmem_dev *vm, unsigned i)
{
	char why[128], msg[sizeof(vm->why)];

	if (!memory_range_in_use(PHYS_PFN(vmem_mb_addr(vm, i)), PAGES_PER_MEMORY_BLOCK, why,
				 sizeof(why)))
		return true;
	ksnprintf(msg, sizeof(msg), "memory%llu is %s: not unplugged",
		  (unsigned long long)(vm->first_mb_id + i), why);
	if (strcmp(msg, vm->in_use_logged))
		pr_warn("%s: %s\n", vm->name, msg);
	strlcpy(vm->in_use_logged, msg, sizeof(vm->in_use_logged));
	strlcpy(vm->why, msg, sizeof(vm->why));
	return false;
}

/* ---- unplugging ---------------------------------------------------------- */

/* Remove block i once nothing of it is plugged. */
static int vmem_remove_empty_mb(struct vmem_dev *vm, unsigned i)
{
	u64 pa = vmem_mb_addr(vm, i);
	int err;

	if (vmem_mb_nr_plugged(vm, i) || vm->mb_state[i] == VMEM_MB_UNUSED)
		return 0;
	err = vmem_mb_online(vm, i) ? offline_and_remove_memory(pa, MEMORY_BLOCK_SIZE) :
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
		if (!vmem_sb_plugged(vm, i, (unsigned)sb))
			continue;
		int err = vmem_plug_unplug(vm, false, vmem_sb_addr(vm, i, (unsigned)sb), 1);

		if (err == -ENODEV)
			vmem_sb_set_plugged(vm, i, (unsigned)sb, 1, false);
		if (err) {
			vmem_mb_refresh_state(vm, i);
			return err;
		}
		vmem_sb_set_plugged(vm, i, (unsigned)sb, 1, false);
		(*want)--;
	}
	vmem_mb_refresh_state(vm, i);
	vmem_remove_empty_mb(vm, i);	/* a failure is in vm->why; the bits are right */
	return 0;
}

/*
 * Blocks one batch of whole-block unplugs may take: 64 (8 GiB), and no
 * more than one UNPLUG request can name (nb_blocks is 16 bits).
 */
static unsigned vmem_whole_batch_max(const struct vmem_dev *vm)
{
	u64 nb_per_mb = (u64)vm->sb_per_mb * (vm->sb_size / vm->block_size);

	return (unsigned)MAX(1ULL, MIN((u64)VMEM_UNPLUG_BATCH_MBS, 0xffffULL / nb_per_mb));
}

/*
 * The run of blocks a whole-block unplug from block i may take: i, i - 1,
 * ... while each is in block i's state with every sub-block plugged, may
 * be unplugged (vmem_mb_may_unplug(); block i was asked by the caller),
 * and want covers it; at most max blocks.  The blocks after the first
 * hold at most VMEM_UNPLUG_BATCH_MEMMAPS memmaps between them
 * (mb_memmaps[]): the host frees what the guest wrote while it answers the
 * request, with the guest waiting, and a run through memory full of
 * memmaps (the eager plug puts them in its first blocks) would hold the
 * CPU for a long time; such a block goes alone (and block i, if it is
 * one, too).  At least 1.
 */
static unsigned vmem_whole_run(struct vmem_dev *vm, unsigned i, u64 want, unsigned max)
{
	unsigned n = 1, memmaps = 0;

	if (vm->mb_memmaps[i] > VMEM_UNPLUG_BATCH_MEMMAPS)
		return 1;	/* alone, and in pieces (vmem_unplug_tail()) */
	while (n < max && n <= i && want >= (u64)(n + 1) * vm->sb_per_mb) {
		unsigned j = i - n;

		memmaps += vm->mb_memmaps[j];
		if (vm->mb_state[j] != vm->mb_state[i] || memmaps > VMEM_UNPLUG_BATCH_MEMMAPS ||
		    vmem_mb_nr_plugged(vm, j) != vm->sb_per_mb || !vmem_mb_may_unplug(vm, j))
			break;
		n++;
	}
	return n;
}

/*
 * What the round learns from an UNPLUG of nr_sbs sub-blocks answered after
 * ns: the host frees the memory the guest (or anyone) wrote there while
 * the guest waits, from next to nothing to tens of ms per block, and the
 * guest cannot tell beforehand beyond its own memmaps.  The next batch may
 * take as many blocks as fit in a slice at that cost (at most twice this
 * one), and a block costing more than half a slice goes in pieces.
 */
static void vmem_unplug_learn(struct vmem_dev *vm, u64 nr_sbs, u64 ns)
{
	u64 per_mb = ns * vm->sb_per_mb / MAX(nr_sbs, 1ULL);
	u64 fit = LONGOP_SLICE_NS / MAX(per_mb, 1ULL);
	u64 grow = 2 * MAX(nr_sbs / vm->sb_per_mb, 1ULL);

	vm->unplug_costly = per_mb > LONGOP_SLICE_NS / 2;
	vm->unplug_batch = (unsigned)MAX(1ULL, MIN(fit, grow));
}

/*
 * The next piece of a tail (vm->tail_mb): block tail_mb - 1 is removed and
 * its sub-blocks [0, tail_sbs) are still plugged; UNPLUG the top
 * VMEM_UNPLUG_TAIL_SBS of them (all of them with all set).  A block that
 * held many memmaps goes back this way, over several units: the host
 * frees what the guest wrote there while the guest waits for each answer,
 * about 20 ms for a block full of them under TCG, too long for one slice.
 * An error ends the tail and leaves the rest plugged in the removed block,
 * which an unplug round's first pass (blocks not added) gives back later;
 * no usable answer counts the piece as unplugged.  Returns 0 or the
 * request's error.
 */
static int vmem_unplug_tail(struct vmem_dev *vm, bool all)
{
	unsigned i = vm->tail_mb - 1;
	unsigned n = all ? vm->tail_sbs : MIN(vm->tail_sbs, (unsigned)VMEM_UNPLUG_TAIL_SBS);
	unsigned sb = vm->tail_sbs - n;
	u64 t0 = ktime_ns();
	int err = vmem_plug_unplug(vm, false, vmem_sb_addr(vm, i, sb), n);

	vmem_unplug_learn(vm, n, ktime_ns() - t0);

	if (!err || err == -ENODEV) {
		vmem_sb_set_plugged(vm, i, sb, n, false);
		vm->tail_sbs = sb;
	}
	if (!vm->tail_sbs)
		vm->mb_memmaps[i] = 0;	/* the host has let go of it */
	if (err || !vm->tail_sbs)
		vm->tail_mb = 0;
	vmem_mb_refresh_state(vm, i);
	return err;
}

/*
 * A whole-block batch [first, last] whose UNPLUG failed: its blocks added
 * and onlined again as they were (memory_removal_rollback(), which logs a
 * failure with its block); one that could not come back is still plugged
 * and says so.  Context: (main).
 */
static void vmem_whole_rollback(struct vmem_dev *vm, struct memory_removal *removal,
				unsigned first, unsigned last)
{
	memory_removal_rollback(removal);
	for (unsigned j = first; j <= last; j++) {
		if (!find_memory_block_by_id(vm->first_mb_id + j))
			pr_err("%s: memory%llu is removed but still plugged\n", vm->name,
			       (unsigned long long)(vm->first_mb_id + j));
		vmem_mb_refresh_state(vm, j);
	}
}

/*
 * Fully plugged online blocks that go away whole, from block i down: each
 * is offlined and removed (movable pages migrate; one
 * memory_removal_step() per block, until deadline_ns passes, at least
 * one), then the removed ones are UNPLUGged in one request.  If the
 * UNPLUG fails they are all added and onlined again with their old online
 * types (memory_removal_rollback()).  A block that refuses its offline
 * ends the batch; it stays as it was and is noted in vm->whole_refused, so
 * the next unit unplugs it by sub-blocks.  vm->cur_i is left at the
 * lowest block removed.  Returns 0, or 1 (block i refused: fall back to
 * its sub-blocks), or the request's error.
 */
static int vmem_unplug_whole_mbs(struct vmem_dev *vm, unsigned i, u64 *want, u64 deadline_ns)
{
	unsigned n = vmem_whole_run(vm, i, *want, MIN(vmem_whole_batch_max(vm),
						      MAX(vm->unplug_batch, 1U))), first, got;
	u64 t0;
	struct memory_removal removal;
	int err = memory_removal_begin(&removal, vm->name, vmem_mb_addr(vm, i + 1 - n),
				       (u64)n * MEMORY_BLOCK_SIZE, vm->nid, vm->mgid, MHP_NONE);

	if (err)
		return 1;
	removal.quiet = true;	/* one remove_memory line for the batch */
	while (removal.removed < n) {
		unsigned j = i - (unsigned)removal.removed;

		vmem_note_memmap(vm, j);	/* where it is now, moved or not */
		err = memory_removal_step(&removal);
		vmem_mb_refresh_state(vm, j);	/* removed: UNUSED, bits still set */
		if (err) {
			if (j != i)
				vm->whole_refused = j + 1;
			break;
		}
		if (ktime_ns() >= deadline_ns)
			break;
	}
	got = (unsigned)removal.removed;
	if (!got)
		return 1;
	memory_removal_report(&removal);
	first = i + 1 - got;
	vm->cur_i = first;	/* the next unit goes on below the batch */
	if (got == 1 && (vm->mb_memmaps[i] > VMEM_UNPLUG_BATCH_MEMMAPS || vm->unplug_costly)) {
		/* full of memmaps: its first piece now, the rest by the next
		 * units (vmem_unplug_tail()); only this first one rolls back */
		vm->tail_mb = i + 1;
		vm->tail_sbs = vm->sb_per_mb;
		err = vmem_unplug_tail(vm, false);
		if (!err || err == -ENODEV) {
			*want -= MIN(*want, (u64)VMEM_UNPLUG_TAIL_SBS);
			return err;
		}
		vm->tail_mb = 0;
		vmem_whole_rollback(vm, &removal, i, i);
		return err;
	}
	t0 = ktime_ns();
	err = vmem_plug_unplug(vm, false, vmem_mb_addr(vm, first), got * vm->sb_per_mb);
	vmem_unplug_learn(vm, (u64)got * vm->sb_per_mb, ktime_ns() - t0);
	if (err == -ENODEV) {
		/* maybe unplugged: they must not come back */
		for (unsigned j = first; j <= i; j++)
			vmem_sb_set_plugged(vm, j, 0, vm->sb_per_mb, false);
		pr_err("%s: memory%llu-%llu stay removed: their UNPLUG got no usable answer\n",
		       vm->name, (unsigned long long)(vm->first_mb_id + first),
		       (unsigned long long)(vm->first_mb_id + i));
		return err;
	}
	if (err) {
		vmem_whole_rollback(vm, &removal, first, i);
		return err;
	}
	for (unsigned j = first; j <= i; j++) {
		vmem_sb_set_plugged(vm, j, 0, vm->sb_per_mb, false);
		vm->mb_memmaps[j] = 0;	/* the host has let go of it */
	}
	*want -= (u64)got * vm->sb_per_mb;
	return 0;
}

/*
 * Unplug sub-blocks of online block i from the top: each one's pages are
 * taken with alloc_contig_range_explain (movable ones migrated away),
 * fake-offlined (fake_offline_pages: PageOffline, unmanaged, watermarks
 * and pcp sizes following), then UNPLUGged.  A sub-block holding
 * unmovable pages is skipped and vm->why says which page.
 */
static int vmem_unplug_online_mb(struct vmem_dev *vm, unsigned i, u64 *want, u64 deadline_ns)
{
	u64 sb_pages = vm->sb_size >> PAGE_SHIFT;
	bool refused = vm->whole_refused == i + 1;	/* just now, in the batch above it */
	int err = 0;

	vm->whole_refused = 0;
	if (!refused && vmem_mb_nr_plugged(vm, i) == vm->sb_per_mb && *want >= vm->sb_per_mb) {
		err = vmem_unplug_whole_mbs(vm, i, want, deadline_ns);
		if (err <= 0)
			return err;
	}

	for (int sb = (int)vm->sb_per_mb - 1; sb >= 0 && *want; sb--) {
		if (!vmem_sb_plugged(vm, i, (unsigned)sb))
			continue;
		u64 pfn = PHYS_PFN(vmem_sb_addr(vm, i, (unsigned)sb));
		struct contig_alloc_report rep;

		/* a pending memmap goes under the old bits (alloc_contig_range
		 * would do it too, and the whole block's offline above) */
		deferred_init_pfn_range(PHYS_PFN(vmem_mb_addr(vm, i)), PHYS_PFN(vmem_mb_addr(vm, i + 1)));
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
		fake_offline_pages(pfn, pfn + sb_pages);
		err = vmem_plug_unplug(vm, false, PFN_PHYS(pfn), 1);
		if (err == -ENODEV) {
			/* maybe unplugged: the pages stay PageOffline for good */
			vmem_sb_set_plugged(vm, i, (unsigned)sb, 1, false);
			break;
		}
		if (err) {
			fake_online_pages(pfn, pfn + sb_pages);	/* back to the buddy */
			break;
		}
		vmem_sb_set_plugged(vm, i, (unsigned)sb, 1, false);
		(*want)--;
	}
	vmem_mb_refresh_state(vm, i);
	if (err)
		return err;
	vmem_remove_empty_mb(vm, i);
	return 0;
}

/*
 * The passes of an unplug round, each from the top block down: unused
 * blocks first (only those whose add failed hold plugged sub-blocks), then
 * offline ones (nothing to migrate), then online ones, partly plugged
 * before full ones.
 */
static const u8 unplug_passes[] = { VMEM_MB_UNUSED, VMEM_MB_OFFLINE_PARTIAL, VMEM_MB_OFFLINE,
				    VMEM_MB_MOVABLE_PARTIAL, VMEM_MB_KERNEL_PARTIAL,
				    VMEM_MB_MOVABLE, VMEM_MB_KERNEL };

/*
 * vmem_unplug_unit() - one unit of an unplug round: unplug up to want
 * sub-blocks of the next block the cursor finds (cur_i counts down).  A
 * block in use as device memory is skipped (vm->why says so).  Returns 1
 * after a block, -EBUSY when the passes are over and want is left (a later
 * round retries), or a request's error.
 */
static int vmem_unplug_unit(struct vmem_dev *vm, u64 want, u64 deadline_ns)
{
	if (vm->tail_mb) {	/* a block full of memmaps, piece by piece */
		int err = vmem_unplug_tail(vm, false);

		return err ? err : 1;
	}
	while (vm->cur_pass < ARRAY_SIZE(unplug_passes)) {
		u8 st = unplug_passes[vm->cur_pass];
		unsigned i;
		int err;

		if (!vm->cur_i) {
			vm->cur_pass++;
			vm->cur_i = vm->nr_mbs;
			continue;
		}
		i = --vm->cur_i;
		if (vm->mb_state[i] != st || !vmem_mb_nr_plugged(vm, i))
			continue;
		if (!vmem_mb_may_unplug(vm, i))
			continue;	/* want stays: -EBUSY at the end, retried */
		err = st <= VMEM_MB_OFFLINE_PARTIAL ? vmem_unplug_offline_mb(vm, i, &want) :
						       vmem_unplug_online_mb(vm, i, &want, deadline_ns);
		return err ? err : 1;
	}
	return -EBUSY;
}

/* ---- the resize round ---------------------------------------------------- */

/* Point the round's cursor at the first block of its first pass, for a
 * round that plugs (plug) or unplugs; progress counts from here. */
static void vmem_round_cursor(struct vmem_dev *vm, bool plug)
{
	if (vm->tail_mb)	/* a new target or direction: the tail goes back first, whole */
		vmem_unplug_tail(vm, true);
	vm->op_plug = plug;
	vm->cur_pass = 0;
	vm->cur_i = plug ? 0 : vm->nr_mbs;
	vm->cur_request = vm->requested_size;
	vm->whole_refused = 0;
	vm->unplug_batch = 1;		/* nothing learned yet: one block, measured */
	vm->unplug_costly = false;
}

/* done/total of the long operation, in MiB moved since the round began. */
static void vmem_round_progress(struct vmem_dev *vm)
{
	u64 target = vm->requested_size / vm->sb_size, now = vm->plugged_sbs;
	u64 from = vm->round_from;

	vm->op.total = (target > from ? target - from : from - target) * vm->sb_size >> 20;
	vm->op.done = (now > from ? now - from : from - now) * vm->sb_size >> 20;
	if (vm->op.done > vm->op.total)
		vm->op.total = vm->op.done;
}

/*
 * The end of a round (err 0: converged): blocks left empty but not yet
 * removed are removed, the device's count is compared with the driver's,
 * one log line says what the round did (a retry that changed nothing is
 * not logged again), and a retry is set when it stopped short.
 */
static void vmem_round_end(struct vmem_dev *vm, int err)
{
	u64 from = vm->round_from;

	for (unsigned i = 0; i < vm->nr_mbs; i++)
		if (vm->mb_state[i] != VMEM_MB_UNUSED && !vmem_mb_nr_plugged(vm, i))
			vmem_remove_empty_mb(vm, i);
	vm->last_round_ns = ktime_ns() - vm->round_t0;
	range_release(&vm->op.claim);
	vmem_read_config(vm);
	if (vm->dev_plugged_size != vm->plugged_sbs * vm->sb_size)
		pr_err("%s: device says %llu MiB plugged, driver %llu MiB\n", vm->name,
		       (unsigned long long)(vm->dev_plugged_size >> 20),
		       (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20));
	if (err && from == vm->plugged_sbs && vm->stop_logged)
		goto out;
	vm->stop_logged = err != 0;
	if (from != vm->plugged_sbs || err)
		pr_info("%s: %s %llu -> %llu MiB (requested %llu MiB) in %llu ms%s%s\n", vm->name,
			vm->op_plug ? "plugged" : "unplugged",
			(unsigned long long)((from * vm->sb_size) >> 20),
			(unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20),
			(unsigned long long)(vm->requested_size >> 20),
			(unsigned long long)(vm->last_round_ns / 1000000), err ? ": stopped: " : "",
			err ? vm->why : "");
out:
	if (err && !vm->halted)
		vm->retry_at = jiffies() + (vm->last_busy ? VMEM_RETRY_BUSY : VMEM_RETRY_SHORT);
}

/*
 * The round's step: re-read requested_size (a new one retargets the
 * round; a change of direction starts its passes over and logs the part
 * done), then one block per unit until the deadline passes.  A block is
 * the unit because its add, online, offline or removal leaves the block in
 * a state every other path understands; between slices nothing is half done.
 */
static bool vmem_round_step(struct longop *op, u64 deadline_ns)
{
	struct vmem_dev *vm = container_of(op, struct vmem_dev, op);
	int err = 0;

	if (vm->vd.broken) {
		ksnprintf(vm->why, sizeof(vm->why),
			  "the device is broken (a reply was missing or malformed): no more requests");
		err = -ENODEV;
		goto end;
	}
	if (!vmem_read_config(vm) && vm->requested_size != vm->cur_request)
		vmem_round_cursor(vm, vm->op_plug);
	/* a shell job holds memory of the region (`memory offline N-M &`):
	 * wait for it, as it would refuse the blocks this round holds */
	const struct range_claim *other = longop_wait_range(op, vm->addr,
							     vm->addr + vm->region_size);

	if (other) {
		if (!vm->wait_logged)
			pr_info("%s: resize waits: %s holds memory of the region\n", vm->name,
				other->name);
		vm->wait_logged = true;
		return true;
	}
	vm->wait_logged = false;
	/* a block may have been onlined or offlined by hand since the last
	 * slice: re-read them all only then (each slice did so once, which
	 * made a 256 GiB plug cost O(blocks) per block) */
	if (memory_blocks_generation() != vm->blocks_seen)
		vmem_refresh_all(vm);
	for (;;) {
		u64 target = vm->requested_size / vm->sb_size, plugged = vm->plugged_sbs;
		bool plug = target > plugged;

		if (target == plugged)
			break;
		if (plug != vm->op_plug) {
			vmem_round_end(vm, 0);	/* the part done so far, logged */
			vm->round_t0 = ktime_ns();
			vm->round_from = plugged;
			longop_claim(op, vm->addr, vm->addr + vm->region_size);	/* its own step: granted */
			vmem_round_cursor(vm, plug);
		}
		err = plug ? vmem_plug_unit(vm, target - plugged) :
			     vmem_unplug_unit(vm, plugged - target, deadline_ns);
		vmem_round_progress(vm);
		if (err < 0)
			goto end;
		err = 0;
		if (ktime_ns() >= deadline_ns) {
			vm->blocks_seen = memory_blocks_generation();	/* its own changes, known */
			return true;
		}
	}
end:
	vmem_round_end(vm, err);
	return false;
}

/* Contract in virtio_mem_internal.h. */
void vmem_resize(struct vmem_dev *vm)
{
	u64 target;

	if (vmem_resizing(vm))
		return;		/* the running round re-reads requested_size every slice */
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
				  r < 0 ? err_text(r) : virtio_mem_resp_name((u16)r),
				  (unsigned long long)(vm->dev_plugged_size >> 20));
			vm->last_busy = r == VIRTIO_MEM_RESP_BUSY;
			vm->retry_at = jiffies() + (vm->last_busy ? VMEM_RETRY_BUSY : VMEM_RETRY_SHORT);
			return;
		}
	}
	target = vm->requested_size / vm->sb_size;
	vm->retry_at = 0;
	vm->why[0] = 0;
	if (target == vm->plugged_sbs) {
		vm->stop_logged = false;
		return;
	}
	ksnprintf(vm->op_name, sizeof(vm->op_name), "%s resize", vm->name);
	vm->op.name = vm->op_name;
	vm->op.unit = "MiB";
	vm->op.step = vmem_round_step;
	vm->round_t0 = ktime_ns();
	vm->round_from = vm->plugged_sbs;
	vmem_round_cursor(vm, target > vm->plugged_sbs);
	vmem_round_progress(vm);
	longop_start(&vm->op);
	/* the region is the round's from now; when another holder has memory
	 * there, the first step waits for it (longop_wait_range) */
	longop_claim(&vm->op, vm->addr, vm->addr + vm->region_size);
}

u64 vmem_seen_request[VMEM_MAX_DEVICES];

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
		if (vmem_resizing(vm))
			continue;	/* the round re-reads requested_size itself */
		u64 req;

		if (vmem_cfg64(vm, VMEM_CFG_REQUESTED_SIZE, &req))
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

/* Contract in virtio_mem.h. */
int virtio_mem_retry_start(void)
{
	int n = 0;

	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (!vm->in_use)
			continue;
		vm->halted = false;
		vmem_resize(vm);
		n++;
	}
	return n;
}

/* Contract in virtio_mem.h. */
bool virtio_mem_any_resizing(void)
{
	for (int d = 0; d < VMEM_MAX_DEVICES; d++)
		if (vmem_devs[d].in_use && vmem_resizing(&vmem_devs[d]))
			return true;
	return false;
}

/* Contract in virtio_mem.h. */
void virtio_mem_retry_report(struct printer *p)
{
	for (int d = 0; d < VMEM_MAX_DEVICES; d++) {
		struct vmem_dev *vm = &vmem_devs[d];

		if (!vm->in_use)
			continue;
		if (vmem_resizing(vm))
			pr_printf(p, "%s: interrupted: the resize goes on in the background (see `work`)\n",
				  vm->name);
		pr_printf(p, "%s: plugged %llu MiB, requested %llu MiB%s%s\n", vm->name,
			  (unsigned long long)((vm->plugged_sbs * vm->sb_size) >> 20),
			  (unsigned long long)(vm->requested_size >> 20),
			  vm->why[0] ? ": stopped short: " : "", vm->why);
	}
}

struct poller vmem_poller = { .fn = vmem_poll, .name = "virtio-mem", .period = 10 };
