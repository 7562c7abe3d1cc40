/*
 * tsc.c - timekeeping: TSC frequency measured against the PIT, a 100 Hz tick.
 *
 * Calibration: PIT channel 2 counts down from a known value at 1.193182 MHz
 * with its gate opened through port 0x61; when its output goes high, exactly
 * count/1193182 seconds have passed.  Reading the TSC before and after gives
 * its frequency.  Five 10 ms runs are made, each giving an interval that
 * surely holds the true count (pit_measure_tsc), and the narrowest is kept:
 * a run disturbed by the host (TCG on a busy machine) is wide and loses.  If the CPU
 * tells the TSC frequency in CPUID leaf 0x15 (real Icelake), that is printed
 * beside the measurement for comparison.
 *
 * Conversion to nanoseconds is a multiply and a shift (no division at run
 * time): ns = cycles * mult >> 32, with mult = 10^6 * 2^32 / tsc_khz.
 *
 * Without the tick (an interrupt source override in a hostile MADT can
 * leave IRQ 0 without a line) jiffies are counted from the TSC instead and
 * the idle loop spins rather than halts: nothing else is sure to wake it.
 */
#include <arch/time.h>
#include <lib/printk.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/traps.h>

#define PIT_HZ		1193182ULL
#define PIT_CH0		0x40
#define PIT_CH2		0x42
#define PIT_CMD		0x43
#define PORT_B		0x61

static u64 tsc_at_boot;
static u64 tsc_mult;		/* ns per cycle << 32 */
static u64 tsc_freq_khz;
static volatile u64 tick_count;
static bool tick_wired;		/* IRQ 0 has a handler: the tick counts jiffies */
static u64 tsc_per_jiffy;	/* for jiffies without the tick */
static u64 idle_cycles;

void time_early_init(void)
{
	tsc_at_boot = rdtsc();
}

u64 cycles_now(void)
{
	return rdtsc();
}

u64 cycles_to_ns(u64 cycles)
{
	return (u64)(((unsigned __int128)cycles * tsc_mult) >> 32);
}

u64 ktime_ns(void)
{
	return tsc_mult ? cycles_to_ns(rdtsc() - tsc_at_boot) : 0;
}

u64 ktime_idle_ns(void)
{
	return cycles_to_ns(idle_cycles);
}

u64 tsc_khz(void)
{
	return tsc_freq_khz;
}

u64 jiffies(void)
{
	if (!tick_wired && tsc_per_jiffy)
		return (rdtsc() - tsc_at_boot) / tsc_per_jiffy;
	return tick_count;
}

/*
 * One calibration run: TSC cycles over `ms` milliseconds of PIT channel 2,
 * as an interval [*lo, *hi] that surely contains the true count.  The start
 * is bracketed by TSC reads around the port write that starts the count, the
 * end by the last poll that saw the output low and the first that saw it
 * high.  A run disturbed by the host (the vCPU descheduled under TCG, an SMI
 * on hardware) shows up as a wide interval.  Returns false on a timeout.
 */
static bool pit_measure_tsc(unsigned ms, u64 *lo, u64 *hi)
{
	u32 count = (u32)(PIT_HZ * ms / 1000);
	u64 t0, t1, e0, e1;
	u8 b = inb(PORT_B);

	outb(PORT_B, (b & ~0x02) | 0x01);	/* speaker off, gate 2 on */
	outb(PIT_CMD, 0xb0);			/* ch 2, lo/hi, mode 0 */
	outb(PIT_CH2, count & 0xff);
	t0 = rdtsc();
	outb(PIT_CH2, count >> 8);		/* counting starts now */
	t1 = rdtsc();
	e0 = t1;
	/* The output (bit 5) rises when the count reaches zero. */
	for (u64 spins = 0;; spins++) {
		u64 before = rdtsc();

		if (inb(PORT_B) & 0x20) {
			e1 = rdtsc();
			break;
		}
		e0 = before;
		if (spins > 100000000ULL) {
			outb(PORT_B, b);
			return false;
		}
	}
	outb(PORT_B, b);
	*lo = e0 > t1 ? e0 - t1 : 0;
	*hi = e1 - t0;
	return true;
}

static void timer_tick(unsigned irq)
{
	(void)irq;
	tick_count++;
}

void time_init(void)
{
	u64 best_lo = 0, best_hi = 0;
	unsigned ms = 10, good = 0;
	u32 a, b, c, d;

	/* Keep the run with the narrowest interval: the least disturbed one. */
	for (int i = 0; i < 5; i++) {
		u64 lo, hi;

		if (!pit_measure_tsc(ms, &lo, &hi))
			continue;
		if (!good++ || hi - lo < best_hi - best_lo) {
			best_lo = lo;
			best_hi = hi;
		}
	}
	if (!good) {
		pr_warn("tsc: PIT channel 2 never finished; assuming 1 GHz");
		tsc_freq_khz = 1000000;
	} else {
		tsc_freq_khz = (best_lo + best_hi) / 2 / ms;
	}
	tsc_mult = (1000000ULL << 32) / tsc_freq_khz;	/* fits: 10^6 << 32 < 2^52 */
	boot_cpu.tsc_khz = tsc_freq_khz;
	pr_info("tsc: %llu.%03llu MHz measured against the PIT (best of %u runs: %llu-%llu cycles per %u ms)",
		(unsigned long long)(tsc_freq_khz / 1000),
		(unsigned long long)(tsc_freq_khz % 1000), good,
		(unsigned long long)best_lo, (unsigned long long)best_hi, ms);
	if (boot_cpu.max_leaf >= 0x15) {
		cpuid_count(0x15, 0, &a, &b, &c, &d);
		if (a && b && c)
			pr_info("tsc: CPUID 0x15 says %llu kHz",
				(unsigned long long)c * b / a / 1000);
	}

	/* PIT channel 0, mode 2 (rate generator), HZ interrupts per second. */
	u16 divisor = (u16)(PIT_HZ / HZ);

	outb(PIT_CMD, 0x34);
	outb(PIT_CH0, divisor & 0xff);
	outb(PIT_CH0, divisor >> 8);
	tsc_per_jiffy = tsc_freq_khz * 1000 / HZ;
	tick_wired = irq_register(0, timer_tick) == 0;
	if (!tick_wired)
		pr_warn("tsc: no timer interrupt (IRQ 0 has no line): jiffies come from the TSC and the idle loop polls instead of halting");
}

void udelay(u64 usecs)
{
	u64 khz = tsc_freq_khz ? tsc_freq_khz : 1000000;
	u64 end = rdtsc() + usecs * khz / 1000;

	while (rdtsc() < end)
		cpu_relax();
}

void cpu_wait_for_interrupt(void)
{
	u64 t0 = rdtsc();

	if (!tick_wired && tsc_per_jiffy) {	/* no tick to end a hlt */
		irq_enable();
		cpu_relax();
		irq_disable();
		idle_cycles += rdtsc() - t0;
		return;
	}
	cpu_idle();		/* sti; hlt: the interrupt runs here */
	irq_disable();
	idle_cycles += rdtsc() - t0;
}
