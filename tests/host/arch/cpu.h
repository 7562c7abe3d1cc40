/*
 * arch/cpu.h for the host: the kernel's struct cpu_info and helpers, with
 * the privileged instructions taken out.
 *
 * The kernel's header is included with the names of its privileged
 * helpers renamed out of the way (they stay defined, unused); the host's
 * versions below replace them.  Interrupts on/off do nothing; the MSRs go
 * to host_rdmsr() / host_wrmsr(), and the two ends that never return
 * (cpu_halt_forever, cpu_triple_fault) to host_cpu_halt() /
 * host_cpu_triple_fault(): a test program that compiles a driver using
 * them defines them, typically with a longjmp back into the test
 * (tests/host/test_power.c).  boot_cpu is defined by that program too.
 * rdtsc() goes to host_rdtsc(), which a program that compiles code reading
 * the TSC defines (tests/host/test_tsc.c: a model TSC).  cpuid, pause and
 * pushf are not privileged and stay as they are; the control registers and
 * invlpg must not be used on the host.
 */
#ifndef HOST_ARCH_CPU_H
#define HOST_ARCH_CPU_H

#define rdmsr			kernel_rdmsr
#define wrmsr			kernel_wrmsr
#define irq_enable		kernel_irq_enable
#define irq_disable		kernel_irq_disable
#define cpu_idle		kernel_cpu_idle
#define cpu_halt_forever	kernel_cpu_halt_forever
#define cpu_triple_fault	kernel_cpu_triple_fault
#define rdtsc			kernel_rdtsc
#include "../../../arch/x86_64/include/arch/cpu.h"
#undef rdmsr
#undef wrmsr
#undef irq_enable
#undef irq_disable
#undef cpu_idle
#undef cpu_halt_forever
#undef cpu_triple_fault
#undef rdtsc

/* host_rdmsr() / host_wrmsr() - the test program's model of the MSRs. */
u64 host_rdmsr(u32 msr);
void host_wrmsr(u32 msr, u64 v);
/* host_cpu_halt() - the CPU halts for good; must not return. */
void host_cpu_halt(void) __noreturn;
/* host_cpu_triple_fault() - the CPU resets itself; must not return. */
void host_cpu_triple_fault(void) __noreturn;
/* host_rdtsc() - the test program's time stamp counter. */
u64 host_rdtsc(void);

static inline u64 rdmsr(u32 msr) { return host_rdmsr(msr); }
static inline void wrmsr(u32 msr, u64 v) { host_wrmsr(msr, v); }
static inline void irq_enable(void) { }
static inline void irq_disable(void) { }
static inline void cpu_idle(void) { }
static inline __noreturn void cpu_halt_forever(void) { host_cpu_halt(); }
static inline __noreturn void cpu_triple_fault(void) { host_cpu_triple_fault(); }
static inline u64 rdtsc(void) { return host_rdtsc(); }

#endif
