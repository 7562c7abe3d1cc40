/*
 * kernel.h - what the rest of the kernel needs from kmain's world.
 */
#ifndef KERNEL_KERNEL_H
#define KERNEL_KERNEL_H

#include <lib/types.h>

#define MEMLAB_VERSION	"0.1.0"

/* The text of /proc/version. */
extern const char memlab_version_string[];

void serial_init(void);
void serial_enable_irq(void);
u64 serial_rx_dropped(void);

#endif
