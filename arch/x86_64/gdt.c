/*
 * gdt.c - segments and the task state segment.
 *
 * Long mode ignores segment bases and limits, but the CPU still wants a
 * 64-bit code segment, a data segment and a TSS.  The TSS matters for one
 * thing: its interrupt stack table gives the double-fault handler a stack of
 * its own, so a kernel stack overflow (which faults again on every push)
 * still ends in a readable report instead of a silent triple fault.
 */
#include <arch/traps.h>
#include <lib/string.h>

#define GDT_KERNEL_CS	0x08
#define GDT_KERNEL_DS	0x10
#define GDT_TSS		0x18

struct gdt_ptr {
	u16 limit;
	u64 base;
} __packed;

static struct cpu_tables boot_tables;
static u8 ist_stack_df[8192] __aligned(16);	/* double fault */
static u8 ist_stack_nmi[4096] __aligned(16);	/* NMI and machine check */

/* The top of the double-fault stack, for traps.c's backtrace bounds. */
u64 ist_df_stack_lo = 0, ist_df_stack_hi = 0;

/*
 * gdt_load_cpu() - see traps.h.  The descriptors are the same on every
 * CPU; only the TSS (its address in the descriptor, its IST stacks)
 * differs.
 */
void gdt_load_cpu(struct cpu_tables *t, u64 df_top, u64 nmi_top)
{
	u64 base = (u64)(uintptr_t)&t->tss;
	u64 limit = sizeof(t->tss) - 1;
	struct gdt_ptr ptr = { sizeof(t->gdt) - 1, (u64)(uintptr_t)t->gdt };

	memset(&t->tss, 0, sizeof(t->tss));
	t->tss.ist[0] = df_top;
	t->tss.ist[1] = nmi_top;
	t->tss.iomap_base = sizeof(t->tss);

	t->gdt[0] = 0;
	t->gdt[1] = 0x00209a0000000000ULL;	/* present, ring 0, code, long mode */
	t->gdt[2] = 0x0000920000000000ULL;	/* present, ring 0, data, writable */
	/* 64-bit available TSS: a 16-byte descriptor over two slots. */
	t->gdt[3] = (limit & 0xffff) | ((base & 0xffffff) << 16) |
		    (0x89ULL << 40) | (((limit >> 16) & 0xf) << 48) |
		    (((base >> 24) & 0xff) << 56);
	t->gdt[4] = base >> 32;

	__asm__ volatile(
		"lgdt %0\n\t"
		"mov %1, %%ds\n\t"
		"mov %1, %%es\n\t"
		"mov %1, %%ss\n\t"
		"xor %%eax, %%eax\n\t"
		"mov %%ax, %%fs\n\t"
		"mov %%ax, %%gs\n\t"
		"pushq %2\n\t"
		"leaq 1f(%%rip), %%rax\n\t"
		"pushq %%rax\n\t"
		"lretq\n"
		"1:\n\t"
		"ltr %w3"
		: : "m"(ptr), "r"((u64)GDT_KERNEL_DS), "i"(GDT_KERNEL_CS),
		    "r"((u16)GDT_TSS)
		: "rax", "memory");
}

/* gdt_init() - the boot CPU's tables, with the static IST stacks. */
void gdt_init(void)
{
	ist_df_stack_lo = (u64)(uintptr_t)ist_stack_df;
	ist_df_stack_hi = (u64)(uintptr_t)(ist_stack_df + sizeof(ist_stack_df));
	gdt_load_cpu(&boot_tables, ist_df_stack_hi,
		     (u64)(uintptr_t)(ist_stack_nmi + sizeof(ist_stack_nmi)));
}
