/*
 * kernel/time.h - time since boot, for the kernel's services, the drivers,
 * the views and the shell.
 *
 * The clock is the architecture's: the TSC read at the first instruction of
 * kmain and measured against the PIT, declared in arch/time.h (implemented
 * by arch/x86_64/tsc.c, which may not include kernel/ headers).  This header
 * is the name the layers above arch/ use for it.
 *
 * Context: any.
 */
#ifndef KERNEL_TIME_H
#define KERNEL_TIME_H

#include <arch/time.h>

#endif
