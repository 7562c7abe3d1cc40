/*
 * arch/time.h - time since boot, from the TSC (arch/x86_64/tsc.c).
 *
 * The TSC is read at the first instruction of kmain (time zero) and its
 * frequency is measured against the PIT by time_init().  Before that,
 * ktime_ns() returns 0, which is what the first boot messages show.
 *
 * Context: any.
 */
#ifndef ARCH_TIME_H
#define ARCH_TIME_H

#include <lib/types.h>

#define NSEC_PER_SEC	1000000000ULL
#define NSEC_PER_USEC	1000ULL

/* time_early_init() - take the TSC reading that is time zero. */
void time_early_init(void);
/* time_init() - measure the TSC frequency and start the 100 Hz tick. */
void time_init(void);

u64 ktime_ns(void);			/* nanoseconds since boot */
u64 ktime_idle_ns(void);		/* of which spent halted waiting for input */
u64 cycles_now(void);			/* raw cycle counter (TSC) */
u64 cycles_to_ns(u64 cycles);		/* using the measured frequency */
u64 tsc_khz(void);			/* measured TSC frequency, kHz */
u64 jiffies(void);			/* timer ticks since time_init */
#define HZ 100				/* timer ticks per second */

/* udelay() - busy-wait at least usecs microseconds. */
void udelay(u64 usecs);

/* cpu_wait_for_interrupt() - halt until an interrupt; the time is counted
 * as idle.  Call with interrupts disabled after checking there is no work:
 * the sti;hlt pair leaves no window for a lost wakeup. */
void cpu_wait_for_interrupt(void);

#endif
