/*
 * cpu.c - what the boot CPU is and can do, read once from CPUID.
 *
 * The `cpuinfo` command prints it in the spirit of /proc/cpuinfo: vendor,
 * family/model/stepping computed the way Linux does (extended family and
 * model folded in), the calibrated TSC frequency, address sizes and the
 * feature flags memlab cares about, by their Linux names.
 */
#include <arch/cpu.h>
#include <lib/string.h>

struct cpu_info boot_cpu;

static void copy_regs(char *dst, u32 a, u32 b, u32 c)
{
	memcpy(dst, &a, 4);
	memcpy(dst + 4, &b, 4);
	memcpy(dst + 8, &c, 4);
	dst[12] = '\0';
}

void cpu_detect(void)
{
	struct cpu_info *c = &boot_cpu;
	u32 a, b, cx, d;

	cpuid_count(0, 0, &a, &b, &cx, &d);
	c->max_leaf = a;
	copy_regs(c->vendor, b, d, cx);

	cpuid_count(1, 0, &a, &b, &cx, &d);
	c->feat_ecx = cx;
	c->feat_edx = d;
	c->family = (a >> 8) & 0xf;
	c->model = (a >> 4) & 0xf;
	c->stepping = a & 0xf;
	if (c->family == 0xf)
		c->family += (a >> 20) & 0xff;
	if (c->family >= 6)
		c->model += ((a >> 16) & 0xf) << 4;
	c->has_apic = d & (1u << 9);
	c->has_x2apic = cx & (1u << 21);
	c->hypervisor = cx & (1u << 31);
	c->apic_id = b >> 24;		/* initial APIC id, 8 bits */
	if (c->max_leaf >= 0xb) {	/* x2APIC topology leaf: the full 32-bit id */
		u32 ea, eb, ec, ed;

		cpuid_count(0xb, 0, &ea, &eb, &ec, &ed);
		if (eb)			/* a leaf with no levels reports EBX = 0 */
			c->apic_id = ed;
	}

	if (c->max_leaf >= 7)
		cpuid_count(7, 0, &a, &c->leaf7_ebx, &c->leaf7_ecx, &c->leaf7_edx);

	cpuid_count(0x80000000, 0, &a, &b, &cx, &d);
	c->max_ext_leaf = a;
	if (c->max_ext_leaf >= 0x80000001) {
		cpuid_count(0x80000001, 0, &a, &b, &c->ext_ecx, &c->ext_edx);
		c->has_nx = c->ext_edx & (1u << 20);
		c->has_pdpe1gb = c->ext_edx & (1u << 26);
	}
	if (c->max_ext_leaf >= 0x80000004) {
		u32 *w = (u32 *)c->brand;

		for (u32 leaf = 0; leaf < 3; leaf++)
			cpuid_count(0x80000002 + leaf, 0, &w[leaf * 4], &w[leaf * 4 + 1],
				    &w[leaf * 4 + 2], &w[leaf * 4 + 3]);
		c->brand[48] = '\0';
	}
	if (c->max_ext_leaf >= 0x80000007) {
		cpuid_count(0x80000007, 0, &a, &b, &cx, &d);
		c->has_invariant_tsc = d & (1u << 8);
	}
	c->phys_bits = 36;
	c->virt_bits = 48;
	if (c->max_ext_leaf >= 0x80000008) {
		cpuid_count(0x80000008, 0, &a, &b, &cx, &d);
		c->phys_bits = a & 0xff;
		c->virt_bits = (a >> 8) & 0xff;
	}
	if (c->hypervisor) {
		cpuid_count(0x40000000, 0, &a, &b, &cx, &d);
		copy_regs(c->hv_vendor, b, cx, d);
	}
}

/* Feature flags by their /proc/cpuinfo names: register, bit, name. */
struct cpu_flag {
	u8 reg;		/* 0 = 1:EDX, 1 = 1:ECX, 2 = 7:EBX, 3 = 8..1:EDX, 4 = 8..1:ECX */
	u8 bit;		/* bit number in that register */
	const char *name;
};

static const struct cpu_flag cpu_flags[] = {
	{ 0, 0, "fpu" }, { 0, 4, "tsc" }, { 0, 5, "msr" }, { 0, 6, "pae" },
	{ 0, 9, "apic" }, { 0, 13, "pge" }, { 0, 15, "cmov" }, { 0, 16, "pat" },
	{ 0, 19, "clflush" }, { 0, 25, "sse" }, { 0, 26, "sse2" },
	{ 1, 0, "pni" }, { 1, 9, "ssse3" }, { 1, 19, "sse4_1" }, { 1, 20, "sse4_2" },
	{ 1, 21, "x2apic" }, { 1, 23, "popcnt" }, { 1, 24, "tsc_deadline_timer" },
	{ 1, 26, "xsave" }, { 1, 28, "avx" }, { 1, 31, "hypervisor" },
	{ 2, 0, "fsgsbase" }, { 2, 3, "bmi1" }, { 2, 5, "avx2" }, { 2, 8, "bmi2" },
	{ 2, 9, "erms" }, { 2, 16, "avx512f" }, { 2, 19, "adx" },
	{ 2, 23, "clflushopt" }, { 2, 24, "clwb" },
	{ 3, 11, "syscall" }, { 3, 20, "nx" }, { 3, 26, "pdpe1gb" }, { 3, 27, "rdtscp" },
	{ 3, 29, "lm" }, { 4, 0, "lahf_lm" }, { 4, 5, "abm" },
};

/* The body of cpu_dump() and cpu_dump_stanza(); apic ids when with_ids. */
static void dump_one(struct printer *p, unsigned processor, bool with_ids, u32 apic_id)
{
	const struct cpu_info *c = &boot_cpu;
	u32 regs[5] = { c->feat_edx, c->feat_ecx, c->leaf7_ebx, c->ext_edx, c->ext_ecx };

	pr_printf(p, "processor\t: %u\n", processor);
	pr_printf(p, "vendor_id\t: %s\n", c->vendor);
	pr_printf(p, "cpu family\t: %u\n", c->family);
	pr_printf(p, "model\t\t: %u\n", c->model);
	pr_printf(p, "model name\t: %s\n", c->brand[0] ? c->brand : "unknown");
	pr_printf(p, "stepping\t: %u\n", c->stepping);
	if (c->tsc_khz)
		pr_printf(p, "cpu MHz\t\t: %llu.%03llu\n",
			  (unsigned long long)(c->tsc_khz / 1000),
			  (unsigned long long)(c->tsc_khz % 1000));
	if (with_ids) {
		pr_printf(p, "apicid\t\t: %u\n", apic_id);
		pr_printf(p, "initial apicid\t: %u\n", apic_id);
	}
	pr_printf(p, "hypervisor\t: %s\n", c->hypervisor ? c->hv_vendor : "none");
	pr_printf(p, "flags\t\t:");
	for (size_t i = 0; i < ARRAY_SIZE(cpu_flags); i++)
		if (regs[cpu_flags[i].reg] & (1u << cpu_flags[i].bit))
			pr_printf(p, " %s", cpu_flags[i].name);
	if (c->has_invariant_tsc)
		pr_printf(p, " constant_tsc nonstop_tsc");
	pr_printf(p, "\n");
	pr_printf(p, "address sizes\t: %u bits physical, %u bits virtual\n",
		  c->phys_bits, c->virt_bits);
	pr_printf(p, "cpuid level\t: %u (extended 0x%x)\n", c->max_leaf, c->max_ext_leaf);
}

void cpu_dump(struct printer *p)
{
	dump_one(p, 0, false, 0);
}

void cpu_dump_stanza(struct printer *p, unsigned processor, u32 apic_id)
{
	dump_one(p, processor, true, apic_id);
}
