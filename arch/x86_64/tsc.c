/*
 * tsc.c - timekeeping: the TSC's frequency, from CPUID or measured in a few
 * milliseconds against the ACPI PM timer (or the PIT), refined at the end
 * of the boot; a 100 Hz tick.
 *
 * Where the frequency comes from, first that applies:
 *
 *  1. CPUID leaf 0x15 (TSC / crystal ratio and the crystal's Hz; with the
 *     crystal left 0, leaf 0x16's base MHz stands in for it, as Linux's
 *     native_calibrate_tsc() does): nothing is measured.
 *  2. The ACPI PM timer (the FADT's PM_TMR_BLK, 3.579545 MHz, 24 or 32
 *     bits), handed over by time_set_pm_timer(): three runs of 7159 ticks
 *     (2 ms).  A run waits for the counter to change (the start edge),
 *     then for it to be 7159 further on (the end edge); each edge is known
 *     to lie between the TSC read before the last poll that saw the old
 *     value and the TSC read after the poll that saw the new one, so the
 *     run gives an interval [lo, hi] of cycles that surely holds the true
 *     count, and the narrowest run is kept (a run disturbed by the host is
 *     wide).  Its half-width over its middle is the error, printed in ppm.
 *  3. PIT channel 2 counting down 2 ms (2386 counts at 1.193182 MHz) with
 *     its gate opened through port 0x61, the same bracketing, three runs.
 *
 * Until this change the PIT was read over five runs of 10 ms (some 60 ms of
 * every boot under TCG); three short runs take about 7 ms and stay within
 * a few hundred ppm.  time_refine(), at the end of the boot, then waits for
 * one more PM timer edge and measures over everything since the first
 * run's start edge (a hundred ms or more: a few ppm; wraps of the counter
 * are counted from the first estimate), and takes the result when it is
 * narrower.  The switch keeps time continuous: the clock is a base (TSC,
 * ns, jiffies) and a rate, and a new clock starts at the old one's
 * reading; readers on other CPUs take whichever of the two clocks is
 * published (one store-release of its index; a clock is never rewritten).
 *
 * Conversion to nanoseconds is a multiply and a shift (no division at run
 * time): ns = base_ns + (cycles - base_tsc) * mult >> 32, with mult =
 * 10^6 * 2^32 / tsc_khz.
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
#define PM_TIMER_HZ	3579545ULL
#define QUICK_RUNS	3
#define QUICK_PM_TICKS	7159		/* 2 ms of the PM timer */
#define QUICK_PIT_COUNT	2386		/* 2 ms of the PIT */
#define EDGE_SPINS	50000000ULL	/* polls before a timer counts as stuck */

/* One clock: from base_tsc on, time is base_ns + cycles * mult >> 32. */
struct tsc_clock {
	u64 base_tsc, base_ns;
	u64 mult;		/* ns per cycle << 32; 0: not calibrated */
	u64 base_jiffies, per_jiffy;	/* jiffies without the tick */
};

static u64 tsc_at_boot;
static struct tsc_clock clocks[2];	/* [0] the boot's; [1] after time_refine() */
static unsigned clock_idx;		/* the one readers use (store-release) */
static u64 tsc_freq_khz;
static volatile u64 tick_count;
static bool tick_wired;		/* IRQ 0 has a handler: the tick counts jiffies */
static u64 idle_cycles;
static u16 pm_port;		/* ACPI PM timer's port, 0: none */
static u32 pm_mask;		/* 0xffffff or 0xffffffff */
static struct tsc_calibration calib;	/* what time_init() found */
static struct tsc_edge first_edge;	/* the PM timer's first start edge */

static const struct tsc_clock *clock_now(void)
{
	return &clocks[__atomic_load_n(&clock_idx, __ATOMIC_ACQUIRE)];
}

void time_early_init(void)
{
	tsc_at_boot = rdtsc();
	clock_idx = 0;
	clocks[0] = (struct tsc_clock){ .base_tsc = tsc_at_boot };
	clocks[1] = clocks[0];
	calib = (struct tsc_calibration){ 0 };
}

static struct boot_mark boot_mark_table[BOOT_MARKS_MAX];
static unsigned nr_boot_marks;

void boot_mark(const char *what)
{
	if (nr_boot_marks < BOOT_MARKS_MAX)
		boot_mark_table[nr_boot_marks++] = (struct boot_mark){ what, rdtsc() };
}

unsigned boot_marks(const struct boot_mark **marks)
{
	*marks = boot_mark_table;
	return nr_boot_marks;
}

u64 cycles_at_boot(void)
{
	return tsc_at_boot;
}

u64 cycles_now(void)
{
	return rdtsc();
}

static u64 mul_mult(u64 cycles, u64 mult)
{
	return (u64)(((unsigned __int128)cycles * mult) >> 32);
}

u64 cycles_to_ns(u64 cycles)
{
	return mul_mult(cycles, clock_now()->mult);
}

static u64 clock_ns(const struct tsc_clock *c, u64 tsc)
{
	if (!c->mult)
		return 0;
	return c->base_ns + (tsc > c->base_tsc ? mul_mult(tsc - c->base_tsc, c->mult) : 0);
}

u64 ktime_ns(void)
{
	const struct tsc_clock *c = clock_now();

	return clock_ns(c, rdtsc());
}

u64 ktime_idle_ns(void)
{
	return cycles_to_ns(idle_cycles);
}

u64 tsc_khz(void)
{
	return tsc_freq_khz;
}

static u64 clock_jiffies(const struct tsc_clock *c, u64 tsc)
{
	if (!c->per_jiffy)
		return c->base_jiffies;
	return c->base_jiffies + (tsc > c->base_tsc ? (tsc - c->base_tsc) / c->per_jiffy : 0);
}

u64 jiffies(void)
{
	const struct tsc_clock *c = clock_now();

	if (!tick_wired && c->per_jiffy)
		return clock_jiffies(c, rdtsc());
	return tick_count;
}

const struct tsc_calibration *tsc_calibration(void)
{
	return &calib;
}

/* ---- the arithmetic (pure: tests/host/test_tsc.c) ------------------------ */

u64 tsc_khz_from_cpuid(u32 denominator, u32 numerator, u32 crystal_hz, u32 base_mhz)
{
	u64 crystal = crystal_hz;

	if (!denominator || !numerator)
		return 0;
	if (!crystal && base_mhz)	/* Linux: crystal = base * denominator / numerator */
		crystal = (u64)base_mhz * 1000000ULL * denominator / numerator;
	return crystal * numerator / denominator / 1000;
}

bool tsc_interval_khz(u64 lo, u64 hi, u64 units, u64 unit_hz, u64 *khz, u32 *ppm)
{
	unsigned __int128 mid2 = (unsigned __int128)lo + hi;	/* twice the middle */

	if (!units || hi < lo || !hi)
		return false;
	*khz = (u64)(mid2 * unit_hz / ((unsigned __int128)units * 2000));
	/* half-width / middle = (hi - lo) / (hi + lo) */
	*ppm = (u32)MIN((unsigned __int128)(hi - lo) * 1000000 / mid2, (unsigned __int128)~0u);
	return *khz != 0;
}

u64 tsc_pm_ticks_between(u32 v0, u32 v1, u32 mask, u64 cycles, u64 khz)
{
	u64 wrap = (u64)mask + 1;
	u64 seen = (u64)((v1 - v0) & mask);
	u64 expect = khz ? (u64)((unsigned __int128)cycles * PM_TIMER_HZ / (khz * 1000)) : seen;
	u64 wraps = expect > seen ? (expect - seen + wrap / 2) / wrap : 0;

	return seen + wraps * wrap;
}

/* ---- the timers ---------------------------------------------------------- */

static u32 pm_read(void)
{
	return inl(pm_port) & pm_mask;
}

void time_set_pm_timer(u16 port, bool bits32)
{
	pm_port = port;
	pm_mask = bits32 ? 0xffffffffu : 0xffffffu;
}

/*
 * Wait for the PM timer's next edge: with any_change, the first change
 * from what it reads now; else until it is at least `delta` past `base`
 * (false if it already was on the first read: that edge cannot be
 * bracketed).  e->value is the counter then, reached between TSC
 * e->before (before the last poll that saw it short) and e->after (after
 * the poll that saw it).  false when it never got there.
 */
static bool pm_edge(bool any_change, u32 base, u32 delta, struct tsc_edge *e)
{
	u64 prev = rdtsc();
	u32 first = pm_read();

	if (any_change) {
		base = first;
		delta = 1;
	} else if (((first - base) & pm_mask) >= delta) {
		return false;
	}
	for (u64 spins = 0; spins < EDGE_SPINS; spins++) {
		u64 t0 = rdtsc();
		u32 now = pm_read();
		u64 t1 = rdtsc();

		if (((now - base) & pm_mask) >= delta) {
			e->before = prev;
			e->after = t1;
			e->value = now;
			return true;
		}
		prev = t0;
	}
	return false;
}

/* One run against the PM timer: [*lo, *hi] cycles for *ticks ticks. */
static bool pm_measure(u64 *lo, u64 *hi, u64 *ticks, struct tsc_edge *start)
{
	struct tsc_edge s, e;

	if (!pm_edge(true, 0, 0, &s) || !pm_edge(false, s.value, QUICK_PM_TICKS, &e))
		return false;
	*lo = e.before > s.after ? e.before - s.after : 0;
	*hi = e.after - s.before;
	*ticks = (e.value - s.value) & pm_mask;
	*start = s;
	return true;
}

/*
 * One run of PIT channel 2: TSC cycles over `count` PIT counts, as an
 * interval [*lo, *hi] that surely contains the true count.  The start is
 * bracketed by TSC reads around the port write that starts the count, the
 * end by the last poll that saw the output low and the first that saw it
 * high.  A run disturbed by the host (the vCPU descheduled under TCG, an
 * SMI on hardware) shows up as a wide interval.  false on a timeout.
 */
static bool pit_measure_tsc(u32 count, u64 *lo, u64 *hi)
{
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
		if (spins > EDGE_SPINS) {
			outb(PORT_B, b);
			return false;
		}
	}
	outb(PORT_B, b);
	*lo = e0 > t1 ? e0 - t1 : 0;
	*hi = e1 - t0;
	return true;
}

/* QUICK_RUNS runs against the PM timer or the PIT; the narrowest kept. */
static bool measure(struct tsc_calibration *c)
{
	u64 best_lo = 0, best_hi = 0, best_units = 0;
	unsigned good = 0;

	for (int i = 0; i < QUICK_RUNS; i++) {
		u64 lo, hi, units;
		struct tsc_edge start;

		if (pm_port) {
			if (!pm_measure(&lo, &hi, &units, &start))
				continue;
			if (!good)
				first_edge = start;
		} else {
			units = QUICK_PIT_COUNT;
			if (!pit_measure_tsc(QUICK_PIT_COUNT, &lo, &hi))
				continue;
		}
		/* compare widths per unit of time: the runs may differ by a tick */
		if (!good++ || (unsigned __int128)(hi - lo) * best_units <
			       (unsigned __int128)(best_hi - best_lo) * units) {
			best_lo = lo;
			best_hi = hi;
			best_units = units;
		}
	}
	c->runs = good;
	return good && tsc_interval_khz(best_lo, best_hi, best_units, pm_port ? PM_TIMER_HZ : PIT_HZ,
					&c->khz, &c->ppm);
}

static void timer_tick(unsigned irq)
{
	(void)irq;
	tick_count++;
}

/* Start clock i at TSC `at` with frequency khz, continuing clock i - 1. */
static void clock_start(unsigned i, u64 at, u64 khz)
{
	struct tsc_clock *c = &clocks[i];

	c->base_tsc = at;
	c->base_ns = i ? clock_ns(&clocks[i - 1], at) : 0;
	c->base_jiffies = i ? clock_jiffies(&clocks[i - 1], at) : 0;
	c->mult = (1000000ULL << 32) / khz;	/* fits: 10^6 << 32 < 2^52 */
	c->per_jiffy = khz * 1000 / HZ;
	tsc_freq_khz = khz;
	boot_cpu.tsc_khz = khz;
	__atomic_store_n(&clock_idx, i, __ATOMIC_RELEASE);
}

static const char *source_name(enum tsc_source s)
{
	switch (s) {
	case TSC_FROM_CPUID:
		return "CPUID 0x15";
	case TSC_FROM_CPUID_BASE:
		return "CPUID 0x15 and 0x16's base frequency";
	case TSC_FROM_PM_TIMER:
		return "the ACPI PM timer";
	case TSC_FROM_PIT:
		return "the PIT";
	default:
		return "nothing (assumed)";
	}
}

void time_init(void)
{
	u32 a = 0, b = 0, c = 0, d, base = 0;

	calib = (struct tsc_calibration){ 0 };
	if (boot_cpu.max_leaf >= 0x15)
		cpuid_count(0x15, 0, &a, &b, &c, &d);
	if (boot_cpu.max_leaf >= 0x16)
		cpuid_count(0x16, 0, &base, &d, &d, &d);
	calib.khz = tsc_khz_from_cpuid(a, b, c, c ? 0 : base & 0xffff);
	if (calib.khz) {
		calib.source = c ? TSC_FROM_CPUID : TSC_FROM_CPUID_BASE;
		pr_info("tsc: %llu.%03llu MHz from %s (crystal %u Hz x %u/%u), not measured",
			(unsigned long long)(calib.khz / 1000), (unsigned long long)(calib.khz % 1000),
			source_name(calib.source),
			c ? c : (u32)((u64)(base & 0xffff) * 1000000ULL * a / b), b, a);
	} else if (measure(&calib)) {
		calib.source = pm_port ? TSC_FROM_PM_TIMER : TSC_FROM_PIT;
		pr_info("tsc: %llu.%03llu MHz measured against %s (best of %u runs of 2 ms: +-%u ppm)",
			(unsigned long long)(calib.khz / 1000), (unsigned long long)(calib.khz % 1000),
			source_name(calib.source), calib.runs, calib.ppm);
	} else {
		pr_warn("tsc: %s never finished; assuming 1 GHz", pm_port ? "the ACPI PM timer" :
			"PIT channel 2");
		calib.khz = 1000000;
	}
	clock_start(0, tsc_at_boot, calib.khz);

	/* PIT channel 0, mode 2 (rate generator), HZ interrupts per second. */
	u16 divisor = (u16)(PIT_HZ / HZ);

	outb(PIT_CMD, 0x34);
	outb(PIT_CH0, divisor & 0xff);
	outb(PIT_CH0, divisor >> 8);
	tick_wired = irq_register(0, timer_tick) == 0;
	if (!tick_wired)
		pr_warn("tsc: no timer interrupt (IRQ 0 has no line): jiffies come from the TSC and the idle loop polls instead of halting");
}

void time_refine(void)
{
	struct tsc_edge e = { 0 };
	u64 lo, hi, ticks, khz;
	u32 ppm;

	bool irqs = irqs_enabled();
	bool got = false;

	if (calib.source != TSC_FROM_PM_TIMER || clock_idx)
		return;
	/* the narrowest of three edges, no interrupt between the polls */
	irq_disable();
	for (int i = 0; i < QUICK_RUNS; i++) {
		struct tsc_edge t;

		if (pm_edge(true, 0, 0, &t) && (!got || t.after - t.before < e.after - e.before)) {
			e = t;
			got = true;
		}
	}
	if (irqs)
		irq_enable();
	if (!got)
		return;
	lo = e.before > first_edge.after ? e.before - first_edge.after : 0;
	hi = e.after - first_edge.before;
	ticks = tsc_pm_ticks_between(first_edge.value, e.value, pm_mask, hi, calib.khz);
	if (!tsc_interval_khz(lo, hi, ticks, PM_TIMER_HZ, &khz, &ppm) || ppm >= calib.ppm)
		return;
	pr_info("tsc: %llu.%03llu MHz against the ACPI PM timer over the boot's %llu ms "
		"(+-%u ppm; the first estimate was %lld ppm off)",
		(unsigned long long)(khz / 1000), (unsigned long long)(khz % 1000),
		(unsigned long long)(ticks * 1000 / PM_TIMER_HZ), ppm,
		(long long)(((long long)calib.khz - (long long)khz) * 1000000 / (long long)khz));
	calib.refined_khz = khz;
	calib.refined_ppm = ppm;
	calib.refined_ms = (u32)(ticks * 1000 / PM_TIMER_HZ);
	clock_start(1, rdtsc(), khz);
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

	if (!tick_wired && clock_now()->per_jiffy) {	/* no tick to end a hlt */
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
