/*
 * traps.c - what happens when the CPU raises an exception: a full report,
 * then a stop.
 *
 * memlab has no user space to kill and no way to recover from a kernel
 * fault, so every exception is fatal.  The report is modelled on a Linux
 * oops, because that is what readers know how to read: the vector and its
 * name, the error code decoded (for #PF: read/write, present, fetch), RIP with
 * its function, every general register, CR0/CR2/CR3/CR4, and the call trace
 * from the frame-pointer chain (the kernel is built with
 * -fno-omit-frame-pointer).  Then QEMU is asked to exit through
 * isa-debug-exit with code 0x20 + vector (status ((0x20 + vector) << 1) | 1,
 * e.g. 93 for a page fault), so a test sees a distinct status; without that
 * device the CPU halts for good.
 */
#include <arch/traps.h>
#include <arch/cpu.h>
#include <arch/io.h>
#include <lib/printk.h>
#include <arch/kallsyms.h>
#include <arch/sections.h>
#include <lib/errno.h>
#include <arch/smp.h>

extern char boot_stack[], boot_stack_top[];
extern u64 ist_df_stack_lo, ist_df_stack_hi;

static const char *const exception_names[32] = {
	[0] = "#DE Divide Error", [1] = "#DB Debug", [2] = "NMI",
	[3] = "#BP Breakpoint", [4] = "#OF Overflow", [5] = "#BR Bound Range",
	[6] = "#UD Invalid Opcode", [7] = "#NM Device Not Available",
	[8] = "#DF Double Fault", [10] = "#TS Invalid TSS",
	[11] = "#NP Segment Not Present", [12] = "#SS Stack Fault",
	[13] = "#GP General Protection", [14] = "#PF Page Fault",
	[16] = "#MF x87 FPU Error", [17] = "#AC Alignment Check",
	[18] = "#MC Machine Check", [19] = "#XM SIMD Exception",
	[20] = "#VE Virtualization", [21] = "#CP Control Protection",
};

void qemu_debug_exit(u8 code)
{
	outb(0xf4, code);
}

/* Stacks besides the boot and double-fault ones: cooperative threads'. */
#define TRAPS_MAX_STACKS	4
static struct { u64 lo, hi; } extra_stacks[TRAPS_MAX_STACKS];
static unsigned nr_extra_stacks;

int traps_add_stack(u64 lo, u64 hi)
{
	if (nr_extra_stacks == TRAPS_MAX_STACKS)
		return -ENOSPC;
	extra_stacks[nr_extra_stacks].lo = lo;
	extra_stacks[nr_extra_stacks].hi = hi;
	nr_extra_stacks++;
	return 0;
}

/* A frame pointer is followed only if it lies on a known kernel stack. */
static bool on_kernel_stack(u64 p)
{
	u64 lo = (u64)(uintptr_t)boot_stack, hi = (u64)(uintptr_t)boot_stack_top;

	if (p >= lo && p + 16 <= hi)
		return true;
	for (unsigned i = 0; i < nr_extra_stacks; i++)
		if (p >= extra_stacks[i].lo && p + 16 <= extra_stacks[i].hi)
			return true;
	return p >= ist_df_stack_lo && p + 16 <= ist_df_stack_hi;
}

static void print_symbol(struct printer *p, u64 addr)
{
	u64 off, size;
	const char *name = kallsyms_lookup(addr, &off, &size);

	if (name)
		pr_printf(p, " [<%016llx>] %s+0x%llx/0x%llx\n", (unsigned long long)addr,
			  name, (unsigned long long)off, (unsigned long long)size);
	else
		pr_printf(p, " [<%016llx>] ?\n", (unsigned long long)addr);
}

void backtrace_print(struct printer *p, u64 rip, u64 rbp)
{
	pr_printf(p, "Call Trace:\n");
	if (rip)
		print_symbol(p, rip);
	/* Each frame: [rbp] = caller's rbp, [rbp + 8] = return address. */
	for (int depth = 0; depth < 32 && rbp; depth++) {
		u64 *frame = (u64 *)(uintptr_t)rbp;

		if (!IS_ALIGNED(rbp, 8) || !on_kernel_stack(rbp)) {
			pr_printf(p, " (frame pointer %#llx is not on a kernel stack; trace ends)\n",
				  (unsigned long long)rbp);
			return;
		}
		if (!frame[1])
			break;
		/* A return address points after the call; -1 names the caller's line. */
		print_symbol(p, frame[1] - 1);
		if (frame[0] && frame[0] <= rbp) {
			pr_printf(p, " (frame chain goes backwards at %#llx; trace ends)\n",
				  (unsigned long long)rbp);
			return;
		}
		rbp = frame[0];
	}
}

static void describe_page_fault(struct printer *p, u64 err, u64 cr2)
{
	pr_printf(p, "BUG: unable to handle page fault for address: %016llx\n",
		  (unsigned long long)cr2);
	pr_printf(p, "#PF: supervisor %s access in %s mode\n",
		  err & 0x10 ? "instruction fetch" : err & 0x2 ? "write" : "read",
		  err & 0x4 ? "user" : "kernel");
	pr_printf(p, "#PF: error_code(0x%04llx) - %s%s\n", (unsigned long long)err,
		  err & 0x1 ? "permissions violation" : "not-present page",
		  err & 0x8 ? ", reserved bit set" : "");
	if (cr2 < 0x1000)
		pr_printf(p, "#PF: the address is in the first page: a NULL pointer dereference\n");
}

void trap_exception(struct trap_frame *tf) __noreturn;
void trap_exception(struct trap_frame *tf)
{
	struct printer *p = &console_printer;
	unsigned vec = (unsigned)tf->vector;
	const char *name = vec < 32 && exception_names[vec] ? exception_names[vec] : "reserved";
	u64 cr2 = read_cr2(), off, size;
	const char *fn = kallsyms_lookup(tf->rip, &off, &size);

	pr_printf(p, "\n");
	if (vec == 14)
		describe_page_fault(p, tf->error_code, cr2);
	pr_printf(p, "Oops: exception %u (%s), error code 0x%llx\n", vec, name,
		  (unsigned long long)tf->error_code);
	if (fn)
		pr_printf(p, "RIP: %04llx:%s+0x%llx/0x%llx (%016llx)\n",
			  (unsigned long long)tf->cs, fn, (unsigned long long)off,
			  (unsigned long long)size, (unsigned long long)tf->rip);
	else
		pr_printf(p, "RIP: %04llx:%016llx\n", (unsigned long long)tf->cs,
			  (unsigned long long)tf->rip);
	pr_printf(p, "RSP: %04llx:%016llx EFLAGS: %08llx\n", (unsigned long long)tf->ss,
		  (unsigned long long)tf->rsp, (unsigned long long)tf->rflags);
	pr_printf(p, "RAX: %016llx RBX: %016llx RCX: %016llx\n",
		  (unsigned long long)tf->rax, (unsigned long long)tf->rbx, (unsigned long long)tf->rcx);
	pr_printf(p, "RDX: %016llx RSI: %016llx RDI: %016llx\n",
		  (unsigned long long)tf->rdx, (unsigned long long)tf->rsi, (unsigned long long)tf->rdi);
	pr_printf(p, "RBP: %016llx R08: %016llx R09: %016llx\n",
		  (unsigned long long)tf->rbp, (unsigned long long)tf->r8, (unsigned long long)tf->r9);
	pr_printf(p, "R10: %016llx R11: %016llx R12: %016llx\n",
		  (unsigned long long)tf->r10, (unsigned long long)tf->r11, (unsigned long long)tf->r12);
	pr_printf(p, "R13: %016llx R14: %016llx R15: %016llx\n",
		  (unsigned long long)tf->r13, (unsigned long long)tf->r14, (unsigned long long)tf->r15);
	pr_printf(p, "CR0: %016llx CR2: %016llx CR3: %016llx CR4: %016llx\n",
		  (unsigned long long)read_cr0(), (unsigned long long)cr2,
		  (unsigned long long)read_cr3(), (unsigned long long)read_cr4());
	backtrace_print(p, tf->rip, tf->rbp);
	smp_stop_others(p);	/* the other CPUs halt, each line says where */
	pr_printf(p, "---[ end trace: exception %u, memlab stopped; QEMU exit status %u with isa-debug-exit ]---\n",
		  vec, ((EXIT_CODE_EXCEPTION_BASE + vec) << 1) | 1);
	qemu_debug_exit((u8)(EXIT_CODE_EXCEPTION_BASE + vec));
	cpu_halt_forever();
}
