/*
 * numa_cpus.c - the CPUs of the machine and their nodes: the MADT's
 * processor entries joined to the SRAT's processor affinity, handed to
 * mm's CPU table (include/mm/numa_cpu.h) for `numa` and the node files.
 *
 * The boot CPU runs memlab; arch/x86_64/smp.c starts the others from this
 * table, and they only idle and answer calls (docs/smp.md).
 * Numbering follows Linux: the boot CPU is CPU 0, the other enabled
 * processors follow in MADT order.  Context: (boot).
 */
#include <drivers/acpi.h>
#include <mm/numa_cpu.h>
#include <mm/mmzone.h>
#include <lib/printk.h>
#include <lib/errno.h>

/* The first online node: where a CPU goes when the SRAT says nothing. */
static int first_node(void)
{
	int nid;

	for_each_online_node(nid)
		return nid;
	return 0;
}

/* List one CPU with its node; the reason in the log when it cannot be. */
static void list_cpu(u32 apic_id, u32 uid, bool boot, bool have_srat)
{
	long pxm = srat_cpu_pxm(apic_id);
	struct numa_cpu c = { .hw_id = apic_id, .uid = uid, .pxm = (s32)pxm, .boot = boot };
	int ret;

	if (pxm > 0x7fffffff)	/* a domain s32 cannot hold: no affinity */
		c.pxm = -1;
	if (c.pxm < 0) {
		c.nid = first_node();
		if (have_srat)
			pr_warn("srat: APIC id %u has no processor affinity entry; put on node %d",
				apic_id, c.nid);
	} else {
		c.nid = acpi_pxm_find_node((u32)c.pxm);
		if (c.nid == NUMA_NO_NODE)
			pr_warn("srat: APIC id %u is in proximity domain %d, which has no memory "
				"node; listed without a node", apic_id, c.pxm);
	}
	ret = numa_cpu_add(&c);
	if (ret == -ENOSPC && numa_cpus_dropped() == 1)
		pr_warn("numa: more than %d CPUs; APIC id %u and the rest are not listed",
			NUMA_MAX_CPUS, apic_id);
}

void acpi_numa_cpus_init(u32 boot_apic_id)
{
	bool have_srat = acpi_find_table("SRAT", 0) && acpi_node_to_pxm(0) >= 0;
	bool boot_listed = false;
	int nid;

	numa_cpus_reset();
	for (unsigned i = 0; i < madt_nr_cpus(); i++) {
		const struct acpi_madt_cpu *c = madt_cpu(i);

		if (c->apic_id == boot_apic_id)
			boot_listed = true;
		else if (!(c->flags & MADT_CPU_ENABLED))
			continue;
		list_cpu(c->apic_id, c->uid, c->apic_id == boot_apic_id, have_srat);
	}
	if (!madt_nr_cpus())
		return;		/* no MADT: the table's fallback, one CPU */
	if (!boot_listed) {
		pr_warn("madt: the boot CPU's APIC id %u has no processor entry; listed as CPU 0",
			boot_apic_id);
		list_cpu(boot_apic_id, 0, true, have_srat);
	}
	for_each_online_node(nid) {
		char list[64];
		struct buf_printer bp;

		buf_printer_init(&bp, list, sizeof(list));
		node_cpulist_print(&bp.p, nid);
		pr_info("numa: node %d: CPUs %s%s", nid, list[0] ? list : "none",
			bp.overflow ? "..." : "");
	}
	pr_info("numa: %u CPUs listed, boot CPU APIC id %u; smp starts the others (see `cpus`)",
		nr_numa_cpus(), boot_apic_id);
}
