/*
 * sysfs_params.h - /sys/module/MODULE/parameters/ (views/sysfs_params.c).
 */
#ifndef VIEWS_SYSFS_PARAMS_H
#define VIEWS_SYSFS_PARAMS_H

/*
 * sysfs_params_init() - create one file per module parameter of the table.
 * Returns 0, or -ENOSPC if the file tree is full (each failure is logged).
 * Context: boot, after vfs_init().
 */
int sysfs_params_init(void);

#endif
