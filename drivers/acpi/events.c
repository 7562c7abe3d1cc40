/*
 * events.c - ACPI mode, the SCI and general-purpose events (GPEs).
 *
 * Firmware starts in legacy mode; writing ACPI_ENABLE to the FADT's SMI
 * command port switches to ACPI mode (PM1a_CNT.SCI_EN becomes 1).  Then
 * hardware events raise the SCI, a level-triggered interrupt (IRQ 9 on
 * QEMU), while any GPE status bit is set whose enable bit is set too.
 *
 * The GPE0 block (FADT GPE0_BLK, GPE0_BLK_LEN bytes) is two halves: status
 * bytes then enable bytes; a status bit is cleared by writing 1 to it.
 * Drivers claim a GPE number with acpi_gpe_register(); the SCI handler reads
 * status & enable, clears the bits it saw (before the EOI, or the level
 * interrupt fires again at once) and schedules each claimed GPE's work item:
 * the real work runs in the main loop, never in the handler.
 *
 * When the SCI cannot be wired (no FADT, no interrupt controller route) the
 * same status bits are polled every 100 ms: they latch even when disabled.
 *
 * Context: acpi_events_init (boot); the handler (interrupt); the poll (main).
 */
#include <drivers/acpi.h>
#include <lib/printk.h>
#include <kernel/workqueue.h>
#include <lib/string.h>
#include <kernel/time.h>
#include <arch/io.h>
#include <arch/traps.h>

#define MAX_GPES	64
#define PM1_SCI_EN	1u

static const struct acpi_fadt *fadt;
static u16 gpe0_port;		/* first status byte */
static unsigned gpe0_bytes;	/* bytes of status (= bytes of enable) */
static struct work *gpe_work[MAX_GPES];
static u64 gpe_counts[MAX_GPES];
static u64 sci_count;
static bool sci_wired;
static unsigned sci_line;		/* the GSI (I/O APIC) or IRQ (8259) it came to */
static const char *sci_how = "not wired";	/* trigger, polarity */
static struct poller gpe_poller;

static u8 gpe_status_byte(unsigned i) { return inb((u16)(gpe0_port + i)); }
static u8 gpe_enable_byte(unsigned i) { return inb((u16)(gpe0_port + gpe0_bytes + i)); }

/*
 * Look at the GPE status bits (only the enabled ones when `enabled_only`),
 * clear those that have a handler, and schedule the handlers' work.
 * Returns the number of GPEs seen.  Context: (any).
 */
static unsigned gpe_scan(bool enabled_only)
{
	unsigned seen = 0;

	for (unsigned i = 0; i < gpe0_bytes; i++) {
		u8 sts = gpe_status_byte(i);

		if (enabled_only)
			sts &= gpe_enable_byte(i);
		for (unsigned bit = 0; sts && bit < 8; bit++) {
			unsigned gpe = i * 8 + bit;

			if (!(sts & (1u << bit)) || gpe >= MAX_GPES || !gpe_work[gpe])
				continue;
			outb((u16)(gpe0_port + i), (u8)(1u << bit));	/* write 1 to clear */
			gpe_counts[gpe]++;
			schedule_work(gpe_work[gpe]);
			seen++;
		}
	}
	return seen;
}

static void sci_handler(unsigned irq)
{
	(void)irq;
	sci_count++;
	gpe_scan(true);
}

static void gpe_poll(void)
{
	gpe_scan(false);
}

int acpi_gpe_register(unsigned gpe, struct work *w)
{
	if (!gpe0_bytes || gpe >= gpe0_bytes * 8 || gpe >= MAX_GPES)
		return -1;
	gpe_work[gpe] = w;
	/* a stale event from before we listened: clear it, then enable */
	outb((u16)(gpe0_port + gpe / 8), (u8)(1u << (gpe % 8)));
	outb((u16)(gpe0_port + gpe0_bytes + gpe / 8),
	     (u8)(gpe_enable_byte(gpe / 8) | (1u << (gpe % 8))));
	return 0;
}

bool acpi_sci_wired(void)
{
	return sci_wired;
}

void acpi_events_init(void)
{
	gpe0_bytes = 0;		/* start over: no events until the FADT says where */
	sci_wired = false;
	fadt = (const void *)acpi_find_table("FACP", 0);
	if (!fadt || fadt->h.length < offsetof(struct acpi_fadt, gpe1_base)) {
		pr_warn("acpi: no usable FADT: no ACPI events");
		return;
	}
	if (!fadt->gpe0_blk || fadt->gpe0_blk_len < 2) {
		pr_warn("acpi: the FADT has no GPE0 block: no ACPI events");
		return;
	}
	/* I/O ports are 16-bit: a block past 0xffff would wrap onto others */
	if (fadt->gpe0_blk > 0x10000u - fadt->gpe0_blk_len) {
		pr_warn("acpi: FADT GPE0 block at I/O %#x (%u bytes) runs past port 0xffff: "
			"no ACPI events", fadt->gpe0_blk, fadt->gpe0_blk_len);
		return;
	}
	gpe0_port = (u16)fadt->gpe0_blk;
	gpe0_bytes = fadt->gpe0_blk_len / 2;
	/* all GPEs off until a driver claims one */
	for (unsigned i = 0; i < gpe0_bytes; i++)
		outb((u16)(gpe0_port + gpe0_bytes + i), 0);

	if (fadt->smi_cmd > 0xffff || fadt->pm1a_cnt_blk > 0xfffe) {
		pr_warn("acpi: FADT SMI command %#x or PM1a control %#x is not an I/O port: "
			"staying in the mode the firmware left", fadt->smi_cmd, fadt->pm1a_cnt_blk);
	} else if (fadt->smi_cmd && fadt->acpi_enable && fadt->pm1a_cnt_blk &&
		   !(inw((u16)fadt->pm1a_cnt_blk) & PM1_SCI_EN)) {
		outb((u16)fadt->smi_cmd, fadt->acpi_enable);
		for (int i = 0; i < 1000 && !(inw((u16)fadt->pm1a_cnt_blk) & PM1_SCI_EN); i++)
			udelay(100);
	}
	if (fadt->pm1a_cnt_blk && fadt->pm1a_cnt_blk <= 0xfffe &&
	    !(inw((u16)fadt->pm1a_cnt_blk) & PM1_SCI_EN))
		pr_warn("acpi: the firmware did not enter ACPI mode (SCI_EN stays 0)");

	sci_wired = irq_register_sci(fadt->sci_int, sci_handler, &sci_line, &sci_how) == 0;
	gpe_poller = (struct poller){ .fn = gpe_poll, .name = "acpi gpe0 status",
				      .period = sci_wired ? 100 : 10 };
	register_poller(&gpe_poller);	/* a backstop even with the SCI */
	if (sci_wired)
		pr_info("acpi: ACPI mode, SCI on IRQ %u (line %u, %s), GPE0 at %#x (%u status bytes)",
			fadt->sci_int, sci_line, sci_how, gpe0_port, gpe0_bytes);
	else
		pr_info("acpi: ACPI mode, SCI on IRQ %u not wired: polling every 100 ms, GPE0 at %#x "
			"(%u status bytes)", fadt->sci_int, gpe0_port, gpe0_bytes);
}

void acpi_events_dump(struct printer *p)
{
	if (!gpe0_bytes) {
		pr_printf(p, "no GPE0 block\n");
		return;
	}
	if (sci_wired)
		pr_printf(p, "SCI: IRQ %u, wired (line %u, %s), %llu interrupts\n", fadt->sci_int,
			  sci_line, sci_how, (unsigned long long)sci_count);
	else
		pr_printf(p, "SCI: IRQ %u, polled\n", fadt->sci_int);
	pr_printf(p, "GPE0: port %#x, %u bytes of status and enable\n", gpe0_port, gpe0_bytes);
	for (unsigned gpe = 0; gpe < MAX_GPES && gpe < gpe0_bytes * 8; gpe++)
		if (gpe_work[gpe] || gpe_counts[gpe])
			pr_printf(p, "  GPE %2u: %-28s %llu events\n", gpe,
				  gpe_work[gpe] ? gpe_work[gpe]->name : "(no handler)",
				  (unsigned long long)gpe_counts[gpe]);
}
