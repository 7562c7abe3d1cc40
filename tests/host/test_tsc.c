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
 * advances it by TSC_MODEL_STEP cycles.  The PIT model raises channel 2's
 * output (port 0x61 bit 5) once PIT_MODEL_CYCLES of those cycles have
 * passed since the count was started, so the calibration must read
 * PIT_MODEL_CYCLES per 10 ms.  Everything is checked through tsc.c's
 * public API (arch/time.h).
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

#define PIT_MODEL_CYCLES	2000000ULL	/* "10 ms": a 200 MHz TSC to tsc.c */

static u64 pit_started;		/* TSC when channel 2's count was started */
static int irq_answer;		/* what irq_register() returns */
static void (*irq0_handler)(unsigned irq);
static unsigned irq_calls;

u32 host_port_in(u16 port, unsigned width)
{
	(void)width;
	if (port == PORT_B)
		return pit_started && tsc_model - pit_started >= PIT_MODEL_CYCLES ? 0x20 : 0;
	return 0;
}

void host_port_out(u16 port, unsigned width, u32 v)
{
	static bool low_written;

	(void)width;
	if (port == PIT_CMD && (v & 0xc0) == 0x80)	/* channel 2 programmed */
		low_written = false;
	if (port == PIT_CH2) {
		if (low_written)
			pit_started = rdtsc();	/* the high byte starts the count */
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

/* boot() - time_early_init() and time_init() with irq_register() saying answer. */
static void boot(int answer)
{
	irq_answer = answer;
	irq0_handler = NULL;
	irq_calls = 0;
	pit_started = 0;
	time_early_init();
	time_init();
}

/* spin_jiffies() - busy-wait until n jiffies' worth of TSC cycles have passed. */
static void spin_jiffies(unsigned n)
{
	u64 end = rdtsc() + n * (tsc_khz() * 1000 / HZ);

	while (rdtsc() < end)
		;
}

/*
 * The calibration reads the model's 10 ms as PIT_MODEL_CYCLES cycles
 * (within a few polls), and the tick is registered on IRQ 0.
 */
HTEST(tsc_calibrated_against_the_pit_model)
{
	u64 khz;

	boot(0);
	khz = tsc_khz();
	CHECK(khz >= PIT_MODEL_CYCLES / 10 && khz <= PIT_MODEL_CYCLES / 10 + 100);
	CHECK_EQ(irq_calls, 1);
	CHECK(irq0_handler != NULL);
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
