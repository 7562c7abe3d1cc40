/*
 * test_tsc.c - arch/x86_64/tsc.c on the host: the TSC calibrated against a
 * model of PIT channel 2, and what time does when the tick cannot be
 * wired (a MADT override took IRQ 0's line, so irq_register() refuses):
 * jiffies must still advance, from the TSC, and the idle wait must come
 * back by itself.  With the tick wired, jiffies are the ticks counted.
 *
 * The suite `tsc` links the real tsc.c (its definitions of cycles_now(),
 * tsc_khz() and cycles_to_ns() take the place of platform_stub.c's weak
 * ones) with the fakes below: the ports, irq_register() and the TSC.  The
 * TSC is a model (host_rdtsc(), which tests/host/arch/cpu.h sends rdtsc()
 * to), so that nothing depends on how busy the host is: every read
 * advances it by TSC_MODEL_STEP cycles of a TSC_MODEL_HZ clock.  The PIT
 * model raises channel 2's output (port 0x61 bit 5) once the programmed
 * count's time has passed since the count was started; the ACPI PM timer
 * model (port PM_PORT) is the model time at 3.579545 MHz, 24 bits.  So a
 * calibration must read TSC_MODEL_HZ within the error it states.
 * Everything is checked through tsc.c's public API (arch/time.h).
 */
#include "htest.h"
#include <arch/cpu.h>
#include <arch/io.h>
#include <arch/time.h>
#include <arch/traps.h>
#include "platform_stub.h"
#include <lib/errno.h>

#define TSC_MODEL_STEP		100
#define PORT_B			0x61	/* as tsc.c: PIT channel 2 gate and output */
#define PIT_CH2			0x42
#define PIT_CMD			0x43

static u64 tsc_model;

struct cpu_info boot_cpu;

/* host_rdtsc() - the TSC model: each read is TSC_MODEL_STEP cycles later. */
u64 host_rdtsc(void)
{
	return tsc_model += TSC_MODEL_STEP;
}

#define TSC_MODEL_HZ		200000000ULL	/* the model TSC: 200 MHz */
#define PIT_HZ			1193182ULL
#define PM_HZ			3579545ULL
#define PM_PORT			0x608

static u64 pit_started;		/* TSC when channel 2's count was started */
static u32 pit_count;		/* the count programmed */
static bool pm_present;		/* the PM timer answers at PM_PORT */
static int irq_answer;		/* what irq_register() returns */
static void (*irq0_handler)(unsigned irq);
static unsigned irq_calls;

u32 host_port_in(u16 port, unsigned width)
{
	(void)width;
	if (port == PORT_B)
		return pit_started && (tsc_model - pit_started) * PIT_HZ >= pit_count * TSC_MODEL_HZ ?
		       0x20 : 0;
	if (port == PM_PORT && pm_present)
		return (u32)((unsigned __int128)tsc_model * PM_HZ / TSC_MODEL_HZ) & 0xffffff;
	return 0;
}

void host_port_out(u16 port, unsigned width, u32 v)
{
	static bool low_written;

	(void)width;
	if (port == PIT_CMD && (v & 0xc0) == 0x80)	/* channel 2 programmed */
		low_written = false;
	if (port == PIT_CH2) {
		if (low_written) {
			pit_count |= v << 8;
			pit_started = rdtsc();	/* the high byte starts the count */
		} else {
			pit_count = v & 0xff;
		}
		low_written = !low_written;
	}
}

int irq_register(unsigned irq, void (*handler)(unsigned irq))
{
	irq_calls++;
	if (irq == 0 && !irq_answer)
		irq0_handler = handler;
	return irq_answer;
}

/* boot() - time_early_init() and time_init() with irq_register() saying
 * answer, against the PIT (pm false) or the PM timer. */
static void boot_with(int answer, bool pm)
{
	irq_answer = answer;
	irq0_handler = NULL;
	irq_calls = 0;
	pit_started = 0;
	pm_present = pm;
	boot_cpu.max_leaf = 0;		/* no CPUID 0x15: measured */
	time_early_init();
	time_set_pm_timer(pm ? PM_PORT : 0, false);
	time_init();
}

static void boot(int answer)
{
	boot_with(answer, false);
}

/* Is khz the model's frequency within ppm (and a little rounding)? */
static bool within(u64 khz, u32 ppm)
{
	u64 want = TSC_MODEL_HZ / 1000, slack = want * ppm / 1000000 + 1;

	return khz + slack >= want && khz <= want + slack;
}

/* spin_jiffies() - busy-wait until n jiffies' worth of TSC cycles have passed. */
static void spin_jiffies(unsigned n)
{
	u64 end = rdtsc() + n * (tsc_khz() * 1000 / HZ);

	while (rdtsc() < end)
		;
}

/*
 * Against the PIT: three runs of 2 ms (2386 counts), the model's 200 MHz
 * within the error the calibration states, which is a few hundred ppm
 * (the polls are 300 model cycles apart); the tick is registered on IRQ 0.
 */
HTEST(tsc_calibrated_against_the_pit_model)
{
	const struct tsc_calibration *c;
	int logs = host_log_count;

	boot(0);
	c = tsc_calibration();
	CHECK_EQ(c->source, TSC_FROM_PIT);
	CHECK_EQ(c->runs, 3);
	CHECK(c->ppm > 0 && c->ppm < 1000);
	CHECK(within(tsc_khz(), c->ppm));
	CHECK(host_log_seen("measured against the PIT (best of 3 runs of 2 ms: +-", logs));
	CHECK_EQ(irq_calls, 1);
	CHECK(irq0_handler != NULL);
}

/*
 * Against the ACPI PM timer: the same, and time_refine() later measures
 * over the whole time since the first run: a much smaller error, the
 * frequency still right, and time continuous across the switch (the
 * clock reads on from where it was, it does not jump back or ahead).
 */
HTEST(tsc_calibrated_against_the_pm_timer_and_refined)
{
	const struct tsc_calibration *c;
	u64 before, after, khz0;
	u32 ppm0;
	int logs = host_log_count;

	boot_with(0, true);
	c = tsc_calibration();
	CHECK_EQ(c->source, TSC_FROM_PM_TIMER);
	CHECK(c->ppm > 0 && c->ppm < 1000);
	CHECK(within(tsc_khz(), c->ppm));
	CHECK(host_log_seen("measured against the ACPI PM timer (best of 3 runs of 2 ms: +-",
			    logs));
	khz0 = tsc_khz();
	ppm0 = c->ppm;
	tsc_model += TSC_MODEL_HZ / 5;		/* 200 ms of boot */
	before = ktime_ns();
	time_refine();
	after = ktime_ns();
	CHECK(c->refined_khz != 0);
	CHECK(c->refined_ppm * 20 < ppm0);	/* 100 times the window */
	CHECK(within(tsc_khz(), c->refined_ppm));
	CHECK_EQ(tsc_khz(), c->refined_khz);
	CHECK(c->refined_ms >= 200 && c->refined_ms <= 210);
	CHECK(after >= before && after - before < 10000);	/* a few polls, not a jump */
	CHECK(host_log_seen("tsc: ", logs));
	time_refine();				/* once a boot */
	CHECK_EQ(tsc_khz(), c->refined_khz);
	(void)khz0;
}

/* A 24-bit PM timer wraps every 4.69 s: a boot that took 10 s still gets
 * its ticks right, the wraps counted from the first estimate. */
HTEST(tsc_refine_counts_the_pm_timer_wraps)
{
	const struct tsc_calibration *c;

	boot_with(0, true);
	tsc_model += 10 * TSC_MODEL_HZ;
	time_refine();
	c = tsc_calibration();
	CHECK(c->refined_khz != 0);
	CHECK(within(c->refined_khz, c->refined_ppm));
	CHECK(c->refined_ms >= 10000 && c->refined_ms <= 10010);
	CHECK_EQ(tsc_pm_ticks_between(0xfffff0, 0x10, 0xffffff, 0x1000020 * TSC_MODEL_HZ / PM_HZ,
				      TSC_MODEL_HZ / 1000),
		 (u64)0x20 + (u64)0x1000000);		/* 4.69 s + 32 ticks: one wrap */
	CHECK_EQ(tsc_pm_ticks_between(5, 9, 0xffffff, 100, TSC_MODEL_HZ / 1000), 4);
}

/* CPUID 0x15 gives the frequency without a measurement: crystal x EBX /
 * EAX; a crystal of 0 takes 0x16's base MHz (Linux's rule); no ratio, no
 * frequency. */
HTEST(tsc_khz_from_cpuid_leaves)
{
	CHECK_EQ(tsc_khz_from_cpuid(2, 188, 24000000, 0), 2256000);	/* 24 MHz x 94 */
	CHECK_EQ(tsc_khz_from_cpuid(2, 176, 0, 2200), 2200000);
	CHECK_EQ(tsc_khz_from_cpuid(0, 176, 24000000, 0), 0);
	CHECK_EQ(tsc_khz_from_cpuid(2, 0, 24000000, 0), 0);
	CHECK_EQ(tsc_khz_from_cpuid(2, 176, 0, 0), 0);
}

/* A run's interval as a frequency and an error: [lo, hi] cycles over
 * units of a unit_hz timer. */
HTEST(tsc_interval_arithmetic)
{
	u64 khz;
	u32 ppm;

	CHECK(tsc_interval_khz(999000, 1001000, 1000, 1000000, &khz, &ppm));	/* 1 ms */
	CHECK_EQ(khz, 1000000);
	CHECK_EQ(ppm, 1000);
	CHECK(tsc_interval_khz(2386000, 2386000, 2386, PIT_HZ, &khz, &ppm));	/* 2 ms of the PIT */
	CHECK_EQ(khz, PIT_HZ);
	CHECK_EQ(ppm, 0);
	CHECK(!tsc_interval_khz(10, 5, 1000, 1000000, &khz, &ppm));
	CHECK(!tsc_interval_khz(5, 10, 0, 1000000, &khz, &ppm));
}

/*
 * With the tick wired, jiffies are the ticks: they do not move while the
 * TSC runs on, and each tick adds one.
 */
HTEST(tsc_jiffies_count_ticks_when_the_tick_is_wired)
{
	u64 j;

	boot(0);
	j = jiffies();
	spin_jiffies(3);
	CHECK_EQ(jiffies(), j);
	if (irq0_handler) {
		irq0_handler(0);
		irq0_handler(0);
	}
	CHECK_EQ(jiffies(), j + 2);
}

/*
 * irq_register(0) refused: the boot log says time comes from the TSC,
 * jiffies advance with it (three jiffies' worth of cycles are three
 * jiffies more), and the idle wait returns at once and counts as
 * idle.  Before the fallback jiffies stayed at 0 and the idle loop halted
 * with nothing to wake it.
 */
HTEST(tsc_jiffies_come_from_the_tsc_without_the_tick)
{
	u64 j, idle0;
	int logs = host_log_count;

	boot(-EBUSY);
	CHECK(irq0_handler == NULL);
	CHECK(host_log_seen("tsc: no timer interrupt (IRQ 0 has no line)", logs));
	j = jiffies();
	spin_jiffies(3);
	CHECK(jiffies() >= j + 3);
	CHECK(jiffies() <= j + 4);
	idle0 = ktime_idle_ns();
	cpu_wait_for_interrupt();
	CHECK(ktime_idle_ns() > idle0);
}
