/*
 * arch/time.h - time since boot, from the TSC (arch/x86_64/tsc.c).
 *
 * The TSC is read at the first instruction of kmain (time zero); its
 * frequency comes from CPUID or is measured against the ACPI PM timer or
 * the PIT by time_init() (arch/x86_64/tsc.c says how).  Before that,
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
/*
 * time_set_pm_timer() - the ACPI PM timer (the FADT's PM_TMR_BLK port;
 * 32 bits wide when the FADT's TMR_VAL_EXT flag is set, else 24), for
 * time_init() to measure against; port 0: none (the PIT is used).  Before
 * time_init().
 */
void time_set_pm_timer(u16 port, bool bits32);
/* time_init() - the TSC frequency (CPUID 0x15/0x16, or some 7 ms against
 * the PM timer or the PIT, the error stated) and the 100 Hz tick. */
void time_init(void);
/*
 * time_refine() - at the end of the boot: measure the TSC again against
 * the PM timer, over all the time since time_init()'s first run, and use
 * that frequency from now on if its error is smaller (time stays
 * continuous).  Nothing when the frequency came from CPUID or the PIT.
 * Context: (boot), the boot CPU.
 */
void time_refine(void);

/* Where the frequency came from, and how good it is (`cpuinfo`, tests). */
enum tsc_source {
	TSC_ASSUMED,		/* no timer answered: 1 GHz */
	TSC_FROM_CPUID,		/* leaf 0x15 with the crystal's frequency */
	TSC_FROM_CPUID_BASE,	/* leaf 0x15's ratio, the crystal from 0x16 */
	TSC_FROM_PM_TIMER,
	TSC_FROM_PIT,
};
struct tsc_calibration {
	enum tsc_source source;
	u64 khz;		/* time_init()'s frequency */
	u32 ppm;		/* its error bound (measured sources), parts per million */
	unsigned runs;		/* runs that finished (measured sources) */
	u64 refined_khz;	/* time_refine()'s, 0 if it changed nothing */
	u32 refined_ppm, refined_ms;	/* its error bound and window */
};
const struct tsc_calibration *tsc_calibration(void);

/* A timer's edge: it reached `value` between TSC `before` and `after`. */
struct tsc_edge {
	u64 before, after;
	u32 value;
};

/*
 * The arithmetic of the calibration, pure (tests/host/test_tsc.c):
 *  tsc_khz_from_cpuid() - CPUID 0x15's EAX (denominator), EBX (numerator),
 *    ECX (crystal Hz) and 0x16's EAX (base MHz, used when ECX is 0) as
 *    kHz; 0 when the leaf does not give it.
 *  tsc_interval_khz() - a run of [lo, hi] cycles over `units` periods of
 *    a unit_hz timer: the middle as kHz and the half-width in ppm; false
 *    for a degenerate run.
 *  tsc_pm_ticks_between() - PM timer ticks from value v0 to v1 of a
 *    counter of `mask` + 1 values, its wraps counted from an estimate: that
 *    `cycles` of a TSC of khz kHz passed.
 */
u64 tsc_khz_from_cpuid(u32 denominator, u32 numerator, u32 crystal_hz, u32 base_mhz);
bool tsc_interval_khz(u64 lo, u64 hi, u64 units, u64 unit_hz, u64 *khz, u32 *ppm);
u64 tsc_pm_ticks_between(u32 v0, u32 v1, u32 mask, u64 cycles, u64 khz);

u64 ktime_ns(void);			/* nanoseconds since boot */
u64 ktime_idle_ns(void);		/* of which spent halted waiting for input */
u64 cycles_now(void);			/* raw cycle counter (TSC) */
u64 cycles_to_ns(u64 cycles);		/* using the measured frequency */
u64 tsc_khz(void);			/* measured TSC frequency, kHz */
u64 jiffies(void);			/* timer ticks since time_init */
#define HZ 100				/* timer ticks per second */

/*
 * boot_mark() - the boot has just finished the step `what` (a string that
 * lives for good): the cycle counter now, kept in a table of
 * BOOT_MARKS_MAX that the `boottime` command lists as milliseconds since
 * time zero, each with the time since the mark before (marks taken before
 * time_init() convert like the others, once the frequency is known).
 * Marks past the table's end are dropped.  boot_marks() - the table and
 * its length.  cycles_at_boot() - the counter at time zero.
 * Context: (boot): the boot CPU only.
 */
#define BOOT_MARKS_MAX	64
struct boot_mark {
	const char *what;
	u64 cycles;
};
void boot_mark(const char *what);
unsigned boot_marks(const struct boot_mark **marks);
u64 cycles_at_boot(void);

/* udelay() - busy-wait at least usecs microseconds. */
void udelay(u64 usecs);

/* cpu_wait_for_interrupt() - halt until an interrupt; the time is counted
 * as idle.  Call with interrupts disabled after checking there is no work:
 * the sti;hlt pair leaves no window for a lost wakeup. */
void cpu_wait_for_interrupt(void);

#endif
