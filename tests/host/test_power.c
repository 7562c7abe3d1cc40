/*
 * test_power.c - power off and reset (arch/x86_64/power.c) against good
 * and hostile firmware: a q35-like FADT and DSDT, PM1 control blocks and
 * a reset register beyond the 16-bit port space, FADTs too short for the
 * reset register, DSDTs whose \_S5 is missing, cut short or garbage.
 * Each test checks the exact port writes, in order: the FADT's ports when
 * they are sound, never a port cut to 16 bits, and the fallbacks.
 *
 * The suite `power` links the real arch/x86_64/power.c, drivers/acpi/
 * sleep.c (which reads the FADT, evaluates \_S5 and runs \_PTS) and the
 * AML interpreter (each test's DSDT loaded into a namespace on a platform
 * whose port I/O is the fake below) with the fakes below: acpi_find_table() returns what the test
 * put up, each table in a heap buffer of exactly its length, so ASan
 * catches a read past it.  Like tables.c it never returns a FADT shorter
 * than 116 bytes or a DSDT shorter than its header (test_acpi.c tests
 * that).  The ports and udelay() are fakes too.  The CPU's last acts, halt
 * and triple fault, longjmp back into the test (tests/host/arch/cpu.h).
 */
#include "htest.h"
#include <drivers/acpi.h>
#include <drivers/aml.h>
#include <arch/power.h>
#include <arch/io.h>
#include <arch/cpu.h>
#include <lib/printk.h>
#include "platform_stub.h"

#include <setjmp.h>
#include <stdlib.h>

#define FADT_RESET_REG_SUP_FLAG	(1u << 10)
#define MAX_WRITES		16

struct port_write {
	u16 port;		/* where */
	u8 width;		/* 1, 2 or 4 bytes */
	u32 value;		/* what */
};

static struct acpi_sdt_header *fadt_tab, *dsdt_tab;	/* what acpi_find_table gives */
static struct port_write writes[MAX_WRITES];		/* host_port_out() calls, in order */
static unsigned nr_writes;
static unsigned kbc_busy_reads;	/* reads of port 0x64 that say "input buffer full" */
static unsigned kbc_reads;	/* reads of port 0x64 */
static jmp_buf cpu_stopped;	/* where host_cpu_halt() and host_cpu_triple_fault() return */

enum { RAN, HALTED, TRIPLE_FAULT };

const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned n)
{
	if (n)
		return NULL;
	if (!memcmp(sig, "FACP", 4))
		return fadt_tab;
	if (!memcmp(sig, "DSDT", 4))
		return dsdt_tab;
	return NULL;
}

/* The keyboard controller's status port says "busy" kbc_busy_reads times. */
u32 host_port_in(u16 port, unsigned width)
{
	if (port != 0x64)
		return 0;
	return kbc_reads++ < kbc_busy_reads ? 0x02 : 0x00;
}

void host_port_out(u16 port, unsigned width, u32 v)
{
	CHECK(nr_writes < MAX_WRITES);
	if (nr_writes < MAX_WRITES)
		writes[nr_writes++] = (struct port_write){ port, (u8)width, v };
}

void udelay(u64 usecs) { (void)usecs; }
void host_cpu_halt(void) { longjmp(cpu_stopped, HALTED); }
void host_cpu_triple_fault(void) { longjmp(cpu_stopped, TRIPLE_FAULT); }

/* Copy `length` bytes of a table built at t into an exact heap buffer. */
static struct acpi_sdt_header *table_copy(const u8 *t, u32 length)
{
	struct acpi_sdt_header *h = malloc(length);

	memcpy(h, t, length);
	return h;
}

/*
 * A FADT of `length` bytes (116: ACPI 1.0; 244: q35's revision 3) with
 * these PM1 control blocks and, if length allows, this reset register
 * (I/O space unless space says otherwise) and value.
 */
static void set_fadt(u32 length, u32 pm1a, u32 pm1b, u32 flags, u8 space, u64 reset_addr,
		     u8 reset_value)
{
	u8 t[256] = { 0 };
	struct acpi_fadt *f = (struct acpi_fadt *)t;

	free(fadt_tab);
	memcpy(f->h.signature, "FACP", 4);
	f->h.length = length;
	f->h.revision = length >= 244 ? 3 : 1;
	f->pm1a_cnt_blk = pm1a;
	f->pm1b_cnt_blk = pm1b;
	f->pm1_cnt_len = 2;
	f->flags = flags;
	f->reset_reg = (struct acpi_generic_address){ .space_id = space, .bit_width = 8,
						      .address = reset_addr };
	f->reset_value = reset_value;
	fadt_tab = table_copy(t, length);
}

/* A DSDT whose AML is these len bytes. */
static void set_dsdt(const u8 *aml, size_t len)
{
	u8 t[256] = { 0 };
	struct acpi_sdt_header *h = (struct acpi_sdt_header *)t;

	free(dsdt_tab);
	memcpy(h->signature, "DSDT", 4);
	h->length = (u32)(sizeof(*h) + len);
	memcpy(t + sizeof(*h), aml, len);
	dsdt_tab = table_copy(t, h->length);
}

static void tables_free(void)
{
	free(fadt_tab);
	free(dsdt_tab);
	fadt_tab = dsdt_tab = NULL;
}

/* The AML's port I/O: the same fake ports as power.c's. */
static int aml_io_read(void *ctx, u32 port, unsigned width, u64 *val)
{
	(void)ctx;
	*val = host_port_in((u16)port, width);
	return 0;
}

static int aml_io_write(void *ctx, u32 port, unsigned width, u64 val)
{
	(void)ctx;
	host_port_out((u16)port, width, (u32)val);
	return 0;
}

/* Run machine_poweroff() or machine_reboot() until the CPU stops: the
 * FADT taken, the DSDT loaded into a namespace (as at boot), then fn. */
static int run(void (*fn)(void))
{
	static u8 arena[256 << 10] __attribute__((aligned(16)));
	static struct aml_ns *ns;
	static const struct aml_platform plat = { .io_read = aml_io_read, .io_write = aml_io_write };
	int how;

	nr_writes = 0;
	kbc_reads = 0;
	printk_set_level(-1);
	acpi_power_init();	/* the tables the test put up, as at boot */
	if (ns)
		aml_destroy(ns);
	ns = aml_create(arena, sizeof(arena), &plat, NULL);
	if (dsdt_tab)
		aml_load_table(ns, dsdt_tab, dsdt_tab->length);
	acpi_power_use_aml(ns);
	how = setjmp(cpu_stopped);
	if (how == RAN)
		fn();
	printk_set_level(LOG_INFO);
	return how;
}

static bool written(u16 port)
{
	for (unsigned i = 0; i < nr_writes; i++)
		if (writes[i].port == port)
			return true;
	return false;
}

#define CHECK_WRITE(i, port_, width_, value_)			\
	do {							\
		CHECK((i) < nr_writes);				\
		CHECK_EQ(writes[i].port, port_);		\
		CHECK_EQ(writes[i].width, width_);		\
		CHECK_EQ(writes[i].value, value_);		\
	} while (0)

/* After the ACPI attempt (if any), from write `from`: 0x604, 0xb004, halt. */
static void expect_poweroff_fallback(unsigned from, int how)
{
	CHECK_EQ(how, HALTED);
	CHECK_EQ(nr_writes, from + 2);
	CHECK_WRITE(from, 0x604, 2, 0x2000);
	CHECK_WRITE(from + 1, 0xb004, 2, 0x2000);
}

/* After the ACPI reset register (if any), from write `from`: 0xcf9, the
 * keyboard controller, the triple fault. */
static void expect_reboot_fallback(unsigned from, int how)
{
	CHECK_EQ(how, TRIPLE_FAULT);
	CHECK_EQ(nr_writes, from + 3);
	CHECK_WRITE(from, 0xcf9, 1, 0x02);
	CHECK_WRITE(from + 1, 0xcf9, 1, 0x06);
	CHECK_WRITE(from + 2, 0x64, 1, 0xfe);
}

/* QEMU's \_S5: Name (_S5, Package (4) { Zero, Zero, Zero, Zero }) */
static const u8 q35_s5[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00 };

/*
 * q35: PM1a_CNT at 0x604, no PM1b, \_S5 = 0.  Expect SLP_TYP 0 | SLP_EN
 * written (2 bytes) to 0x604, then the fallbacks, then the halt.
 */
HTEST(power_off_q35_fadt)
{
	int logs = host_log_count, how;

	set_fadt(244, 0x604, 0, 0, 1, 0xcf9, 0x0f);
	set_dsdt(q35_s5, sizeof(q35_s5));
	how = run(machine_poweroff);
	CHECK_WRITE(0, 0x604, 2, 0x2000);
	expect_poweroff_fallback(1, how);
	CHECK(host_log_seen("power: ACPI S5 (SLP_TYP 0) through PM1a_CNT 0x604", logs));
	tables_free();
}

/*
 * A firmware-style \_S5 (root prefix, BytePrefix values, a 2-byte
 * PkgLength) with a PM1b block, in an ACPI 1.0 FADT of 116 bytes.  Expect
 * SLP_TYP 7 into both blocks.  And OneOp: SLP_TYP 1.
 */
HTEST(power_off_pm1a_and_pm1b)
{
	static const u8 s5[] = {
		0x10, 0x13, '\\', 0x00, 0x08, '\\', '_', 'S', '5', '_',	/* Scope (\) { Name (\_S5, */
		0x12, 0x49, 0x00, 0x04, 0x0a, 0x07, 0x0a, 0x07, 0x00, 0x00,	/* Package (4) {7, 7, 0, 0} */
	};
	static const u8 s5_one[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x01, 0x01, 0x00, 0x00 };
	int how;

	set_fadt(116, 0x1804, 0x1808, 0, 0, 0, 0);
	set_dsdt(s5, sizeof(s5));
	how = run(machine_poweroff);
	CHECK_WRITE(0, 0x1804, 2, (7 << 10) | 0x2000);
	CHECK_WRITE(1, 0x1808, 2, (7 << 10) | 0x2000);
	expect_poweroff_fallback(2, how);

	set_dsdt(s5_one, sizeof(s5_one));
	how = run(machine_poweroff);
	CHECK_WRITE(0, 0x1804, 2, (1 << 10) | 0x2000);
	CHECK_WRITE(1, 0x1808, 2, (1 << 10) | 0x2000);
	expect_poweroff_fallback(2, how);
	tables_free();
}

/*
 * A PM1a or PM1b control block whose 2 bytes do not fit below 0x10000:
 * cut to 16 bits, the port would be another device's.  Expect the FADT
 * not used (no write to the cut port, nor to the other block), the reason
 * logged, and the fallbacks; 0xfffe, the last 2-byte port, is used.
 */
HTEST(power_off_pm1_ports_past_0xffff)
{
	static const struct { u32 pm1a, pm1b; u16 cut; } bad[] = {
		{ 0x12345, 0, 0x2345 },
		{ 0xffff, 0, 0xffff },		/* its second byte is port 0x10000 */
		{ 0x1804, 0x10000, 0x0000 },
		{ 0xffffffff, 0x1808, 0xffff },
	};
	int logs, how;

	set_dsdt(q35_s5, sizeof(q35_s5));
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		logs = host_log_count;
		set_fadt(244, bad[i].pm1a, bad[i].pm1b, 0, 1, 0, 0);
		how = run(machine_poweroff);
		CHECK(!written(bad[i].cut));
		CHECK(!written(0x1804) && !written(0x1808));
		expect_poweroff_fallback(0, how);
		CHECK(host_log_seen("outside the I/O port space; not used", logs));
	}

	set_fadt(244, 0xfffe, 0, 0, 1, 0, 0);
	how = run(machine_poweroff);
	CHECK_WRITE(0, 0xfffe, 2, 0x2000);
	expect_poweroff_fallback(1, how);
	tables_free();
}

/* No FADT, no DSDT, a FADT with no PM1a block: the fallbacks only. */
HTEST(power_off_without_fadt_or_dsdt)
{
	int logs = host_log_count, how;

	how = run(machine_poweroff);
	expect_poweroff_fallback(0, how);
	CHECK(host_log_seen("no FADT or no \\_S5 in the DSDT", logs));

	set_fadt(244, 0x604, 0, 0, 1, 0, 0);
	how = run(machine_poweroff);
	expect_poweroff_fallback(0, how);

	set_fadt(244, 0, 0x608, 0, 1, 0, 0);
	set_dsdt(q35_s5, sizeof(q35_s5));
	how = run(machine_poweroff);
	CHECK(!written(0x608));
	expect_poweroff_fallback(0, how);
	tables_free();
}

/*
 * DSDTs whose \_S5 is missing, cut short at every byte, or not a package
 * of integers memlab can read.  Each DSDT ends exactly where its bytes do
 * (ASan).  Expect no PM1 write: the fallbacks only.
 */
HTEST(power_off_missing_or_garbage_s5)
{
	static const u8 word[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x07, 0x04, 0x0b, 0x05, 0x01, 0x00, 0x00 };
	static const u8 method[] = { 0x14, 0x08, '_', 'S', '5', '_', 0x00, 0xa4, 0x00, 0x00 };
	static const u8 string[] = { 0x0d, '_', 'S', '5', '_', 0x00, 0x12, 0x06, 0x04, 0x00 };
	static const u8 other[] = { 0x08, '_', 'S', '4', '_', 0x12, 0x06, 0x04, 0x00, 0x00, 0x00, 0x00 };
	static const u8 huge_pkglen[] = { 0x08, '_', 'S', '5', '_', 0x12, 0xc0, 0x00, 0x00 };
	const u8 *garbage[] = { word, method, string, other, huge_pkglen };
	const size_t garbage_len[] = { sizeof(word), sizeof(method), sizeof(string),
				       sizeof(other), sizeof(huge_pkglen) };
	int how;

	set_fadt(244, 0x604, 0, 0, 1, 0, 0);
	for (unsigned i = 0; i < sizeof(garbage) / sizeof(garbage[0]); i++) {
		set_dsdt(garbage[i], garbage_len[i]);
		how = run(machine_poweroff);
		expect_poweroff_fallback(0, how);
	}

	/* q35's \_S5 cut after each of its bytes, up to its first element */
	for (size_t len = 0; len <= 8; len++) {
		set_dsdt(q35_s5, len);
		how = run(machine_poweroff);
		expect_poweroff_fallback(0, how);
	}
	/* and a BytePrefix without its byte */
	{
		static const u8 cut[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x06, 0x04, 0x0a };

		set_dsdt(cut, sizeof(cut));
		how = run(machine_poweroff);
		expect_poweroff_fallback(0, how);
	}
	tables_free();
}

/*
 * q35's reset register: I/O 0xcf9, value 0x0f, RESET_REG_SUP set.  Expect
 * it written first, then 0xcf9 (2, 6), then 0xfe to the keyboard
 * controller once its input buffer is empty (three busy reads here), then
 * the triple fault.
 */
HTEST(reboot_q35_reset_register)
{
	int logs = host_log_count, how;

	set_fadt(244, 0x604, 0, FADT_RESET_REG_SUP_FLAG, 1, 0xcf9, 0x0f);
	kbc_busy_reads = 3;
	how = run(machine_reboot);
	kbc_busy_reads = 0;
	CHECK_WRITE(0, 0xcf9, 1, 0x0f);
	expect_reboot_fallback(1, how);
	CHECK_EQ(kbc_reads, 4);
	CHECK(host_log_seen("reboot: ACPI reset register 0xcf9 <- 0xf", logs));

	/* the keyboard controller never gets ready: 0xfe is written anyway */
	kbc_busy_reads = ~0u;
	how = run(machine_reboot);
	kbc_busy_reads = 0;
	expect_reboot_fallback(1, how);
	tables_free();
}

/*
 * A reset register memlab must not use: beyond port 0xffff (cut to 16
 * bits it would be another device's), in memory space, at address 0,
 * without RESET_REG_SUP, or in a FADT too short to hold it (116: ACPI 1.0;
 * 128: the register but not the value).  Expect no write to it, the
 * fallbacks only; a 129-byte FADT holds both and is used.
 */
HTEST(reboot_reset_register_refused)
{
	static const struct { u32 length, flags; u8 space; u64 addr; u16 cut; } bad[] = {
		{ 244, FADT_RESET_REG_SUP_FLAG, 1, 0x12345, 0x2345 },
		{ 244, FADT_RESET_REG_SUP_FLAG, 1, 0xffffffff00000092ULL, 0x92 },
		{ 244, FADT_RESET_REG_SUP_FLAG, 0, 0x92, 0x92 },
		{ 244, FADT_RESET_REG_SUP_FLAG, 1, 0, 0 },
		{ 244, 0, 1, 0x92, 0x92 },
		{ 116, FADT_RESET_REG_SUP_FLAG, 1, 0x92, 0x92 },
		{ 128, FADT_RESET_REG_SUP_FLAG, 1, 0x92, 0x92 },
	};
	int logs, how;

	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		logs = host_log_count;
		set_fadt(bad[i].length, 0x604, 0, bad[i].flags, bad[i].space, bad[i].addr, 0x01);
		how = run(machine_reboot);
		CHECK(!written(bad[i].cut));
		expect_reboot_fallback(0, how);
		if (i < 2)
			CHECK(host_log_seen("is outside the I/O port space; not used", logs));
	}

	set_fadt(129, 0x604, 0, FADT_RESET_REG_SUP_FLAG, 1, 0x92, 0x01);
	how = run(machine_reboot);
	CHECK_WRITE(0, 0x92, 1, 0x01);
	expect_reboot_fallback(1, how);

	tables_free();
	how = run(machine_reboot);
	expect_reboot_fallback(0, how);
	tables_free();
}

/*
 * Bug: a \_S5 whose SLP_TYP does not fit the 3-bit field was cut to 3
 * bits (9 became 1: S3 on QEMU, a suspend instead of a power off), and a
 * \_S5 package with no elements took the next AML byte as its SLP_TYP.
 * Expect both ignored with the fallbacks, and the reason for the first.
 */
HTEST(power_off_s5_not_a_sleep_type)
{
	static const u8 nine[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x09, 0x0a, 0x09,
				   0x00, 0x00 };
	static const u8 empty[] = { 0x08, '_', 'S', '5', '_', 0x12, 0x02, 0x00,	/* Package (0) {} */
				    0x01, 0x00 };				/* then One, Zero */
	int logs = host_log_count, how;

	set_fadt(244, 0x1804, 0, 0, 1, 0, 0);
	set_dsdt(nine, sizeof(nine));
	how = run(machine_poweroff);
	CHECK(!written(0x1804));
	expect_poweroff_fallback(0, how);
	CHECK(host_log_seen("power: \\_S5 gives SLP_TYP 9, not a 3-bit sleep type; ignored", logs));

	set_dsdt(empty, sizeof(empty));
	how = run(machine_poweroff);
	CHECK(!written(0x1804));
	expect_poweroff_fallback(0, how);
	tables_free();
}

/*
 * The firmware's \_PTS (5) runs before the PM1 write: here it writes its
 * argument to port 0x80 through a SystemIO field.  \_S5 = {5, 6}: SLP_TYPa
 * into PM1a, SLP_TYPb into PM1b.
 */
HTEST(power_off_runs_pts_first)
{
	static const u8 aml[] = {
		0x5b, 0x80, 'D', 'B', 'G', '_', 0x01, 0x0a, 0x80, 0x0a, 0x01,	/* OperationRegion */
		0x5b, 0x81, 0x0b, 'D', 'B', 'G', '_', 0x01, 'P', '8', '0', '_', 0x08,	/* Field */
		0x14, 0x0c, '_', 'P', 'T', 'S', 0x01, 0x70, 0x68, 'P', '8', '0', '_',	/* Method (_PTS, 1) */
		0x08, '_', 'S', '5', '_', 0x12, 0x08, 0x04, 0x0a, 0x05, 0x0a, 0x06, 0x00, 0x00,
	};
	int logs = host_log_count, how;

	set_fadt(116, 0x1804, 0x1808, 0, 0, 0, 0);
	set_dsdt(aml, sizeof(aml));
	how = run(machine_poweroff);
	CHECK_WRITE(0, 0x80, 1, 5);
	CHECK_WRITE(1, 0x1804, 2, (5 << 10) | 0x2000);
	CHECK_WRITE(2, 0x1808, 2, (6 << 10) | 0x2000);
	expect_poweroff_fallback(3, how);
	CHECK(host_log_seen("power: \\_PTS(5) ran", logs));
	tables_free();
}
