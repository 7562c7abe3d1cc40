/*
 * acpi.h - the ACPI tables memlab reads, found from the RSDP GRUB hands over.
 *
 * acpi_tables_init() validates the RSDP (checksum, and the extended checksum
 * for revision 2+), then the RSDT or XSDT (XSDT preferred when valid, the
 * RSDT when the XSDT is rejected), then each table's header: a table with a
 * bad checksum, a length shorter than the fixed part of its type (FADT 116
 * bytes, MADT/SLIT/MCFG 44, SRAT 48, any other 36), one that cannot be
 * mapped, or one listed twice is listed with the reason and never returned
 * by acpi_find_table().  So a caller may read the fixed fields of any table
 * it is given without checking the length again.  Tables are reached
 * through ioremap (writeback), wherever the firmware put them.
 *
 * Context: boot, then main loop.
 */
#ifndef DRIVERS_ACPI_H
#define DRIVERS_ACPI_H

#include <lib/types.h>
#include <lib/printer.h>
#include <arch/traps.h>

struct acpi_sdt_header {
	char signature[4];	/* "FACP", "APIC", "SRAT", ... */
	u32 length;		/* of the whole table, header included */
	u8 revision;
	u8 checksum;		/* all bytes of the table sum to 0 */
	char oem_id[6];
	char oem_table_id[8];
	u32 oem_revision;
	u32 creator_id;
	u32 creator_revision;
} __packed;

struct acpi_generic_address {
	u8 space_id;		/* 0 = memory, 1 = I/O port */
	u8 bit_width;
	u8 bit_offset;
	u8 access_size;
	u64 address;
} __packed;

/* The FADT fields up to the ACPI 2.0 extended blocks. */
struct acpi_fadt {
	struct acpi_sdt_header h;
	u32 firmware_ctrl;
	u32 dsdt;
	u8 reserved0;
	u8 preferred_pm_profile;
	u16 sci_int;
	u32 smi_cmd;
	u8 acpi_enable;
	u8 acpi_disable;
	u8 s4bios_req;
	u8 pstate_cnt;
	u32 pm1a_evt_blk;
	u32 pm1b_evt_blk;
	u32 pm1a_cnt_blk;
	u32 pm1b_cnt_blk;
	u32 pm2_cnt_blk;
	u32 pm_tmr_blk;
	u32 gpe0_blk;
	u32 gpe1_blk;
	u8 pm1_evt_len;
	u8 pm1_cnt_len;
	u8 pm2_cnt_len;
	u8 pm_tmr_len;
	u8 gpe0_blk_len;
	u8 gpe1_blk_len;
	u8 gpe1_base;
	u8 cst_cnt;
	u16 p_lvl2_lat;
	u16 p_lvl3_lat;
	u16 flush_size;
	u16 flush_stride;
	u8 duty_offset;
	u8 duty_width;
	u8 day_alrm;
	u8 mon_alrm;
	u8 century;
	u16 iapc_boot_arch;
	u8 reserved1;
	u32 flags;
	struct acpi_generic_address reset_reg;
	u8 reset_value;
	u16 arm_boot_arch;
	u8 minor_version;
	u64 x_firmware_ctrl;
	u64 x_dsdt;
} __packed;

struct boot_info;

/* acpi_tables_init() - find and check the tables; logs what it finds. */
void acpi_tables_init(const struct boot_info *bi);

/*
 * acpi_find_table() - the n-th (from 0) valid table with signature sig
 * (4 characters; "DSDT" is found through the FADT), or NULL.
 */
const struct acpi_sdt_header *acpi_find_table(const char *sig, unsigned n);

/*
 * acpi_table_by_index() - the i-th (from 0) table the firmware gave that
 * was accepted, in the order found: the root table's entries, the DSDT,
 * then the FACS (which has only a signature and a length, 64 to 4096
 * bytes, for a header: its other header fields are not there, and it is
 * never returned by acpi_find_table()).  *phys is where the firmware put
 * it.  NULL past the last.  These are the tables Linux lists in
 * /sys/firmware/acpi/tables/.  Context: main loop, after acpi_tables_init().
 */
const struct acpi_sdt_header *acpi_table_by_index(unsigned i, phys_addr_t *phys);

/* acpi_root_table() - the RSDT or XSDT in use and its address, or NULL when
 * there is none.  Context: main loop, after acpi_tables_init(). */
const struct acpi_sdt_header *acpi_root_table(phys_addr_t *phys);

/*
 * acpi_dump_tables() - every accepted table (the root table, then those of
 * acpi_table_by_index()), or those whose signature is sig (4 characters,
 * any case), in the text of ACPICA's acpidump, which acpixtract reads
 * (drivers/acpi/acpidump.c).  Returns how many tables it printed.
 * Context: main loop.
 */
unsigned acpi_dump_tables(struct printer *p, const char *sig);

/* acpi_dump() - every table seen, with address, length, OEM and status. */
void acpi_dump(struct printer *p);

/*
 * The AML namespace (drivers/acpi/aml_kernel.c over drivers/acpi/aml/):
 * acpi_aml_init() loads the DSDT and every SSDT, runs \_PIC(1) and the
 * _STA/_INI walk (context: boot, after ACPI mode and PCI); acpi_aml() is
 * the namespace, or NULL.
 */
struct aml_ns;
struct aml_node;
void acpi_aml_init(void);
/* acpi_aml_set_notify() - Notify() goes to fn (NULL: logged). */
void acpi_aml_set_notify(void (*fn)(struct aml_node *node, u64 value));
/* acpi_power_use_aml() - \_S5's sleep types from ns, \_PTS run before power
 * off (drivers/acpi/sleep.c).  Context: boot. */
void acpi_power_use_aml(struct aml_ns *ns);
struct aml_ns *acpi_aml(void);

/* acpi_checksum_ok() - true if len bytes at p sum to 0 (mod 256). */
bool acpi_checksum_ok(const void *p, size_t len);

/*
 * The MADT (drivers/acpi/madt.c): the interrupt controllers and overrides,
 * in arch's neutral description (struct irq_topology of arch/traps.h) that
 * init/main.c hands to apic_init().
 */
extern struct irq_topology madt_info;
/* madt_parse() - fill madt_info; true if an I/O APIC and a local APIC exist.
 * A malformed MADT leaves madt_info empty and returns false (8259 PICs).
 * Context: boot. */
bool madt_parse(void);
void madt_dump(struct printer *p);

/*
 * The MADT's processor entries, in table order: type 0 (local APIC, 8-bit
 * id) and type 9 (local x2APIC, 32-bit id), each id once; and its NMI
 * entries, types 4 and 10 (uid 0xffffffff: every processor).  Filled by
 * madt_parse(), emptied by a rejected MADT.  Context: boot, then main loop.
 */
#define MADT_LOCAL_APIC		0
#define MADT_LOCAL_X2APIC	9
#define MADT_CPU_ENABLED	(1u << 0)
#define MADT_CPU_ONLINE_CAPABLE	(1u << 1)
#define MADT_MAX_CPUS		1024	/* processor entries kept; more are counted */
#define MADT_MAX_NMIS		16	/* NMI entries kept for the view */

struct acpi_madt_cpu {
	u32 apic_id;		/* local APIC id (type 0) or x2APIC id (type 9) */
	u32 uid;		/* ACPI processor UID */
	u32 flags;		/* MADT_CPU_ENABLED, MADT_CPU_ONLINE_CAPABLE */
	u8 type;		/* MADT_LOCAL_APIC or MADT_LOCAL_X2APIC */
};

struct acpi_madt_nmi {
	u32 uid;		/* processor UID, 0xffffffff for all */
	u16 flags;		/* MPS INTI polarity and trigger */
	u8 lint;		/* the local APIC's LINT pin, 0 or 1 */
	u8 type;		/* 4 (local APIC NMI) or 10 (local x2APIC NMI) */
};

/* madt_nr_cpus() - processor entries listed; madt_cpu(i) - the i-th, or NULL. */
unsigned madt_nr_cpus(void);
const struct acpi_madt_cpu *madt_cpu(unsigned i);

struct work;

/* acpi_resources_init() - IOAPIC, Local APIC, HPET and the FADT's I/O
 * blocks into /proc/iomem and /proc/ioports (drivers/acpi/resources.c).
 * Context: boot, after madt_parse(). */
void acpi_resources_init(void);

/* A window the root PCI bus decodes, from its _CRS (drivers/acpi/crs.c). */
struct acpi_window {
	u64 start, end;		/* [start, end], in memory or I/O port space */
	bool io;		/* I/O ports, else memory */
	bool prefetchable;	/* memory marked cacheable-prefetchable */
};

#define ACPI_ROOT_WINDOWS_MAX	16

/*
 * acpi_root_windows() - the windows of root bus 0 in the order the host
 * bridge's _CRS lists them, at most max of them into win[].  Returns how
 * many, or -ENOENT when neither the first root bridge's _CRS (evaluated
 * once the namespace exists) nor a Name(_CRS, Buffer) with a bus range
 * from bus 0 in the tables gives one.  Malformed templates are logged and
 * skipped.
 * Context: boot or main loop, after acpi_tables_init().
 */
int acpi_root_windows(struct acpi_window *win, unsigned max);

/* What one root bridge's _CRS says (acpi_bridge_crs()). */
struct acpi_crs {
	struct acpi_window win[ACPI_ROOT_WINDOWS_MAX];
	unsigned nr;		/* windows in win[] */
	unsigned dropped;	/* windows past ACPI_ROOT_WINDOWS_MAX */
	int bus_min, bus_max;	/* its bus-number range; -1 when it has none */
	const char *why;	/* why it could not be read (NULL: it was) */
};

struct aml_node;
/*
 * acpi_bridge_crs() - the _CRS of root bridge device `dev`, evaluated by the
 * interpreter (a Name or a Method alike) and decoded into *out.  0, or
 * -ENOENT (no namespace, no _CRS), -EINVAL (the evaluation failed or the
 * template is malformed: out->why says which).  Context: boot or main
 * loop, after acpi_aml_init().
 */
int acpi_bridge_crs(struct aml_node *dev, struct acpi_crs *out);

/* ACPI mode, SCI and GPEs (drivers/acpi/events.c). */
void acpi_events_init(void);
/* acpi_gpe_register() - run w (in the main loop) when GPE `gpe` fires; 0 or -1. */
int acpi_gpe_register(unsigned gpe, struct work *w);
bool acpi_sci_wired(void);
void acpi_events_dump(struct printer *p);

/*
 * acpi_power_init() - hand arch/x86_64/power.c the FADT's PM1 control and
 * reset registers (drivers/acpi/sleep.c); \_S5 comes later from the AML
 * (acpi_power_use_aml()).  Call after acpi_tables_init().  Context: boot.
 */
void acpi_power_init(void);

/* The ACPI memory hotplug device (drivers/acpi/memhp.c). */
void acpi_memhp_init(void);
void acpi_memhp_dump(struct printer *p);

/* Decoders for `acpi fadt|srat|slit|mcfg` (drivers/acpi/decode.c). */
void acpi_decode_fadt(struct printer *p);
void acpi_decode_srat(struct printer *p);
void acpi_decode_slit(struct printer *p);
void acpi_decode_mcfg(struct printer *p);

struct mm_boot_params;

/*
 * srat_parse() - NUMA ranges (SRAT) and distances (SLIT) into bp, replacing
 * what bp->numa and bp->distance held; returns the number of ranges (0: no
 * SRAT, or one that was rejected: one node).  Every range it gives is
 * non-empty, ends at or below 2^MAX_PHYSMEM_BITS, has a node id below
 * MAX_NUMNODES, and does not overlap a range of another node; every node
 * has a range.  distance[][] is either all zero or, for every pair of
 * nodes, the SLIT's value (10 on the diagonal, more elsewhere).
 * drivers/acpi/srat.c
 */
int srat_parse(struct mm_boot_params *bp);
/* acpi_pxm_to_node() - node id for a proximity domain (assigned in order of
 * first appearance), NUMA_NO_NODE when all MAX_NUMNODES are taken. */
int acpi_pxm_to_node(u32 pxm);
/* acpi_pxm_find_node() - the node already given to pxm, or NUMA_NO_NODE;
 * never assigns one (for views). */
int acpi_pxm_find_node(u32 pxm);
/* acpi_node_to_pxm() - the proximity domain of node nid, -1 if none. */
long acpi_node_to_pxm(int nid);

/*
 * srat_cpu_pxm() - the proximity domain the SRAT's processor affinity
 * (type 0, local APIC; type 2, x2APIC; enabled entries only) gives APIC id
 * apic_id, or -1.  srat_parse() collects them, at most SRAT_MAX_CPUS.
 */
#define SRAT_MAX_CPUS		1024
long srat_cpu_pxm(u32 apic_id);

/*
 * acpi_numa_cpus_init() - list every enabled MADT processor in mm's CPU
 * table (include/mm/numa_cpu.h) with its node: the node of its SRAT
 * proximity domain; the first online node without an SRAT or without an
 * affinity entry for it; NUMA_NO_NODE (with a warning) when its domain has
 * no memory node.  boot_apic_id is the CPU memlab runs on (CPU 0); it is
 * listed even if the MADT does not name it.  Call after madt_parse(),
 * srat_parse() and mm_core_init() (nodes online).  Context: boot.
 */
void acpi_numa_cpus_init(u32 boot_apic_id);

#endif
