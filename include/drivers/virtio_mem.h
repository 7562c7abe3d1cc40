/*
 * virtio_mem.h - the virtio-mem driver (drivers/virtio/virtio_mem*.c):
 * what kmain and the `virtio-mem` shell command may call.
 *
 * virtio_mem_init() registers the PCI driver (1af4:1058); kmain calls it
 * BEFORE pci_init() so cold-plugged devices are probed during enumeration
 * and hot-added ones on pci_rescan().  Resizing then runs from a poller
 * (every 100 ms) that reads requested_size from the device config.
 *
 * Context: (boot) for init, (main) for the rest.
 */
#ifndef DRIVERS_VIRTIO_MEM_H
#define DRIVERS_VIRTIO_MEM_H

#include <lib/printer.h>
#include <lib/types.h>

/* The device's reply to a request (virtio spec, virtio-mem). */
#define VIRTIO_MEM_RESP_ACK		0
#define VIRTIO_MEM_RESP_NACK		1
#define VIRTIO_MEM_RESP_BUSY		2
#define VIRTIO_MEM_RESP_ERROR		3

/* virtio_mem_init() - register the PCI driver.  Context: (boot). */
void virtio_mem_init(void);

/* virtio_mem_dump() - the `virtio-mem` view: every device and its memory blocks. */
void virtio_mem_dump(struct printer *p);

/*
 * `virtio-mem retry`, in three calls, so the shell can wait between them
 * its own way (as a job, the console answering):
 * virtio_mem_retry_start() - a resize round now on every device (a halted
 * one too); returns the number of devices.
 * virtio_mem_any_resizing() - does a round still move on some device?
 * virtio_mem_retry_report() - one line per device: plugged and requested
 * size, and why it stopped short (or that the round goes on, when the
 * wait was interrupted).
 * Context: (main) or the shell's job.
 */
int virtio_mem_retry_start(void);
bool virtio_mem_any_resizing(void);
void virtio_mem_retry_report(struct printer *p);

/*
 * virtio_mem_inject() - the next count PLUG/UNPLUG/UNPLUG_ALL requests are
 * not sent; the driver acts as if the device had replied resp (a
 * VIRTIO_MEM_RESP_*).  count 0 stops it.  Context: (main).
 */
void virtio_mem_inject(u16 resp, u32 count);

/* virtio_mem_resp_name() - "ACK", "NACK", "BUSY", "ERROR" or "invalid". */
const char *virtio_mem_resp_name(u16 resp);

/*
 * virtio_mem_state() - ask the device whose region holds addr (STATE
 * request) whether the device blocks of [addr, addr + size) are plugged,
 * unplugged or mixed, and print the answer to p, or why there is none:
 * -EINVAL (no device there, not block aligned, more than 65535 blocks,
 * beyond the region), -EIO (the device did not ACK), or the transport's
 * error.  Context: (main).
 */
int virtio_mem_state(struct printer *p, u64 addr, u64 size);

#endif
