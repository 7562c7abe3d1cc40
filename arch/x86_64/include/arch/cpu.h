/*
 * arch/cpu.h - CPU registers, instructions and the features memlab uses.
 *
 * cpu_detect() fills boot_cpu once at boot from CPUID; everything else reads
 * boot_cpu.  Context: any.
 */
#ifndef ARCH_CPU_H
#define ARCH_CPU_H

#include <lib/types.h>
#include <lib/printer.h>

struct cpu_info {
	char vendor[13];	/* "GenuineIntel", "AuthenticAMD" */
	char brand[49];		/* brand string, or "" */
	u32 family, model, stepping; /* display family/model as Linux computes them */
	u32 max_leaf, max_ext_leaf; /* highest basic and extended CPUID leaves */
	u8 phys_bits, virt_bits;/* address widths */
	bool has_pdpe1gb;	/* 1 GiB pages */
	bool has_nx;		/* no-execute bit */
	bool has_invariant_tsc;	/* TSC runs at a constant rate in all states */
	bool has_x2apic;	/* x2APIC */
	bool has_apic;		/* local APIC */
	u32 apic_id;		/* this CPU's APIC id (CPUID 0xb: the x2APIC id) */
	bool hypervisor;	/* running under a hypervisor (CPUID.1:ECX.31) */
	char hv_vendor[13];	/* "TCGTCGTCGTCG", "KVMKVMKVM", or "" */
	u32 feat_ecx, feat_edx;	/* CPUID.1 */
	u32 ext_ecx, ext_edx;	/* CPUID.80000001 */
	u32 leaf7_ebx, leaf7_ecx, leaf7_edx; /* CPUID.7.0 */
	u64 tsc_khz;		/* calibrated TSC frequency, 0 before tsc_init */
};

extern struct cpu_info boot_cpu;

void cpu_detect(void);
/* cpu_dump() - the `cpuinfo` text: /proc/cpuinfo-like fields and flags. */
void cpu_dump(struct printer *p);
/* cpu_dump_stanza() - one CPU's stanza of /proc/cpuinfo, as Linux prints
 * it: `processor : N`, the boot CPU's identification and flags (memlab
 * reads CPUID on the boot CPU only; QEMU gives every CPU the same model),
 * and the CPU's own `apicid` and `initial apicid`.  No blank line after. */
void cpu_dump_stanza(struct printer *p, unsigned processor, u32 apic_id);

static inline void cpuid_count(u32 leaf, u32 sub, u32 *a, u32 *b, u32 *c, u32 *d)
{
	__asm__ volatile("cpuid" : "=a"(*a), "=b"(*b), "=c"(*c), "=d"(*d)
			 : "a"(leaf), "c"(sub));
}

static inline u64 rdmsr(u32 msr)
{
	u32 lo, hi;

	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return ((u64)hi << 32) | lo;
}

static inline void wrmsr(u32 msr, u64 v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((u32)v), "d"((u32)(v >> 32)));
}

static inline u64 rdtsc(void)
{
	u32 lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return ((u64)hi << 32) | lo;
}

#define DEFINE_CR(n)							\
	static inline u64 read_cr##n(void)				\
	{								\
		u64 v;							\
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));	\
		return v;						\
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void write_cr0(u64 v) { __asm__ volatile("mov %0, %%cr0" : : "r"(v) : "memory"); }
static inline void write_cr3(u64 v) { __asm__ volatile("mov %0, %%cr3" : : "r"(v) : "memory"); }
static inline void write_cr4(u64 v) { __asm__ volatile("mov %0, %%cr4" : : "r"(v) : "memory"); }
static inline void invlpg(const void *va) { __asm__ volatile("invlpg (%0)" : : "r"(va) : "memory"); }
static inline void cpu_relax(void) { __asm__ volatile("pause"); }
static inline void irq_enable(void) { __asm__ volatile("sti" : : : "memory"); }
static inline void irq_disable(void) { __asm__ volatile("cli" : : : "memory"); }

static inline u64 read_rflags(void)
{
	u64 f;

	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

static inline bool irqs_enabled(void) { return read_rflags() & (1 << 9); }

/* cpu_idle() - halt until the next interrupt, with interrupts enabled. */
static inline void cpu_idle(void) { __asm__ volatile("sti; hlt" : : : "memory"); }

/* cpu_halt_forever() - interrupts off, halt; an NMI or SMI wakes it only to
 * halt again. */
static inline __noreturn void cpu_halt_forever(void)
{
	for (;;)
		__asm__ volatile("cli; hlt");
}

/* cpu_triple_fault() - reset the machine the last way left: load an empty
 * IDT and raise an exception, which then cannot be delivered (shutdown). */
static inline __noreturn void cpu_triple_fault(void)
{
	struct { u16 limit; u64 base; } __packed empty = { 0, 0 };

	__asm__ volatile("lidt %0; int3" : : "m"(empty));
	cpu_halt_forever();
}

#define MSR_EFER	0xc0000080
#define EFER_NXE	(1ULL << 11)
#define CR0_WP		(1ULL << 16)
#define CR4_PGE		(1ULL << 7)

#endif
