/*
 * proc_interrupts.c - /proc/interrupts: how many interrupts each online
 * CPU handled, per wired line and per kind of inter-CPU interrupt, in
 * Linux's layout.  The counts live in each CPU's struct percpu
 * (arch/x86_64/include/arch/smp.h); arch/x86_64/idt.c prints them.
 */
#include <views/vfs.h>
#include <lib/printer.h>
#include <arch/traps.h>

/* show_interrupts() - the file's text (interrupts_dump()); returns 0.
 * Context: main loop. */
static int show_interrupts(struct printer *p, void *data)
{
	(void)data;
	interrupts_dump(p);
	return 0;
}

static const struct vfs_file_ops interrupts_ops = { .show = show_interrupts };
VFS_FILE(interrupts, "/proc/interrupts", &interrupts_ops, NULL);
