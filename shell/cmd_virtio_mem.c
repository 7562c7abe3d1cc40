/*
 * cmd_virtio_mem.c - the `virtio-mem` shell command: the driver's view,
 * a resize round by hand, a STATE request, and injected device replies.
 * It parses and formats; the driver (include/drivers/virtio_mem.h) does
 * the work.
 *
 * Context: (main), the shell.
 */
#include <drivers/virtio_mem.h>
#include <shell/args.h>
#include <shell/shell.h>
#include <kernel/longop.h>
#include <lib/errno.h>
#include <lib/printer.h>
#include <lib/string.h>

/*
 * `virtio-mem retry`: start a round on every device and wait for it.  As a
 * job the wait yields every turn, so the round (a long operation) and the
 * console go on; Ctrl-C ends the wait, not the round.  Without a job
 * (the host tests) the round's slices run here, back to back.
 */
static int vmem_retry(struct printer *out)
{
	if (!virtio_mem_retry_start()) {
		pr_printf(out, "virtio-mem: no device\n");
		return 0;
	}
	while (virtio_mem_any_resizing() && !shell_stop_requested()) {
		if (shell_job_longop())
			shell_yield();
		else
			longop_run_slice();
	}
	virtio_mem_retry_report(out);
	return 0;
}

static bool vmem_runs_long(int argc, char **argv)
{
	return argc == 2 && !strcmp(argv[1], "retry");
}

static int cmd_virtio_mem(struct printer *out, int argc, char **argv)
{
	if (argc == 1) {
		virtio_mem_dump(out);
		return 0;
	}
	if (!strcmp(argv[1], "retry") && argc == 2)
		return vmem_retry(out);
	if (!strcmp(argv[1], "inject") && (argc == 3 || argc == 4)) {
		u16 resp;
		u64 n = 1;

		if (!strcmp(argv[2], "off")) {
			virtio_mem_inject(VIRTIO_MEM_RESP_ACK, 0);
			pr_printf(out, "virtio-mem: no replies injected\n");
			return 0;
		}
		if (!strcmp(argv[2], "nack"))
			resp = VIRTIO_MEM_RESP_NACK;
		else if (!strcmp(argv[2], "busy"))
			resp = VIRTIO_MEM_RESP_BUSY;
		else if (!strcmp(argv[2], "error"))
			resp = VIRTIO_MEM_RESP_ERROR;
		else
			return shell_usage(out, shell_find("virtio-mem"));
		if (argc == 4 && shell_arg_u64(out, "virtio-mem inject", "count", argv[3], 1,
					       1000000, NULL, &n))
			return -EINVAL;
		virtio_mem_inject(resp, (u32)n);
		pr_printf(out, "virtio-mem: the next %u plug/unplug replies will be %s\n", (u32)n,
			  virtio_mem_resp_name(resp));
		return 0;
	}
	if (!strcmp(argv[1], "state") && argc == 4) {
		u64 addr, size;

		if (shell_arg_u64(out, "virtio-mem state", "address", argv[2], 0, ~0ULL, NULL, &addr) ||
		    shell_arg_u64(out, "virtio-mem state", "size", argv[3], 1, ~0ULL, NULL, &size))
			return -EINVAL;
		return virtio_mem_state(out, addr, size);
	}
	return shell_usage(out, shell_find("virtio-mem"));
}

SHELL_COMMAND(virtio_mem, .name = "virtio-mem",
	      .usage = "virtio-mem [retry | state ADDR SIZE | inject nack|busy|error [COUNT] | inject off]",
	      .summary = "virtio-mem devices: region, plugged/requested sizes, memory blocks",
	      .help = "Without arguments: each device's region, block size, plugged and\n"
		      "requested size, usable region, and per memory block its zone, state\n"
		      "and plugged sub-blocks ('#' plugged, '.' not).  `retry` runs a resize\n"
		      "round now and waits for it, as a job (Ctrl-C ends the wait; the\n"
		      "round goes on in the background).  `state ADDR SIZE` asks the device (STATE request) whether\n"
		      "the blocks of [ADDR, ADDR+SIZE) are plugged, unplugged or mixed.\n"
		      "`inject nack|busy|error [COUNT]` makes the next COUNT plug/unplug\n"
		      "requests come back with that reply without reaching the device, to\n"
		      "see how the driver handles it; `inject off` stops it.",
	      .fn = cmd_virtio_mem,
	      .runs_long = vmem_runs_long);
