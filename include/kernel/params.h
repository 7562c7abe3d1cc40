/*
 * params.h - the parameter table applied to the boot command line.
 *
 * The table itself and the rules for each type are in include/lib/params.h;
 * views/sysfs_params.c shows the same table as /sys/module/.../parameters.
 */
#ifndef KERNEL_PARAMS_H
#define KERNEL_PARAMS_H

/*
 * params_apply_cmdline() - set every parameter of the table that cmdline
 * names (MODULE.NAME=VALUE or NAME=VALUE; a bare name sets a bool to Y).
 * A value the parameter refuses is reported with the reason and the
 * parameter keeps its value, e.g.
 *   memory_hotplug.auto_movable_ratio=abc: not an unsigned number; keeping 301
 * Returns the number of values refused.
 * Context: boot, once, before anything reads the parameters.
 */
int params_apply_cmdline(const char *cmdline);

#endif
