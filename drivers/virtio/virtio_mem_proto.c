/*
 * virtio_mem_proto.c - the virtio-mem protocol: the device's config (read
 * only when its generation holds still), the synchronous requests PLUG,
 * UNPLUG, UNPLUG_ALL and STATE and what each reply means for the driver,
 * and the injected replies of `virtio-mem inject`.
 *
 * Requests are synchronous (virtio_vq_request); ACK goes on, NACK (plug
 * beyond requested_size) stops the round and re-reads the config, BUSY
 * retries a second later, ERROR stops until the host asks for a new size.
 * No usable answer (none within 2 s, a malformed one) marks the device
 * broken for good, and what that request did is taken as the worse case:
 * memory the device may have taken back is never used again.
 *
 * Context: (main).
 */
#include "virtio_mem_internal.h"
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

/*
 * vmem_cfg64() - a 64-bit config field into *v; -EIO (logged) when the device's
 * config generation never held still for a whole read, as a device that
 * rewrites its config all the time would make it.  A failed read is never
 * taken as 0: a "requested size 0" read that way would unplug everything.
 */
int vmem_cfg64(struct vmem_dev *vm, u32 off, u64 *v)
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
int vmem_read_config(struct vmem_dev *vm)
{
	u64 usable, plugged, requested;

	if (vmem_cfg64(vm, VMEM_CFG_USABLE_SIZE, &usable) ||
	    vmem_cfg64(vm, VMEM_CFG_PLUGGED_SIZE, &plugged) ||
	    vmem_cfg64(vm, VMEM_CFG_REQUESTED_SIZE, &requested))
		return -EIO;
	vm->usable_region_size = MIN(usable, vm->region_size);
	vm->dev_plugged_size = plugged;
	vm->requested_size = requested;
	return 0;
}

/* Contract in virtio_mem.h. */
const char *virtio_mem_resp_name(u16 t)
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
 * Fault injection (`virtio-mem inject`): the next vmem_inject_count PLUG, UNPLUG
 * or UNPLUG_ALL requests are not sent; the driver behaves as if the device
 * had answered vmem_inject_resp.  QEMU never NACKs, BUSYs or ERRORs a well-formed
 * request of a correct driver, so this is how the driver's handling of those
 * replies (its message, its retry, its accounting) is exercised.
 */
u16 vmem_inject_resp;
u32 vmem_inject_count;

/* Contract in virtio_mem.h. */
void virtio_mem_inject(u16 resp, u32 count)
{
	vmem_inject_resp = resp;
	vmem_inject_count = count;
}

/*
 * vmem_request() - one request; returns the response type (>= 0) or a
 * transport -errno.  *state gets the STATE answer.  A response type
 * outside the enum or a reply too short to hold one says nothing about
 * what the device did: the device is marked broken (as the transport does
 * for a missing or malformed used entry) and -EIO returned.
 */
int vmem_request(struct vmem_dev *vm, u16 type, u64 addr, u64 nb_blocks, u16 *state)
{
	struct virtio_mem_req req = { .type = type, .addr = addr, .nb_blocks = (u16)nb_blocks };
	struct virtio_mem_resp resp = { 0 };
	u32 written = 0;
	int err;

	if (nb_blocks > 0xffff)
		return -EINVAL;
	if (vmem_inject_count && type != VIRTIO_MEM_REQ_STATE) {
		vmem_inject_count--;
		pr_info("%s: injected %s reply to a request of type %u at %#llx (not sent)",
			vm->name, virtio_mem_resp_name(vmem_inject_resp), type, (unsigned long long)addr);
		return vmem_inject_resp;
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
int vmem_plug_unplug(struct vmem_dev *vm, bool plug, u64 pa, unsigned n)
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
