; kthread_switch.asm - the one piece of a cooperative thread switch that C
; cannot write: change stacks.
;
; kthread_switch(save_sp, next_sp) is an ordinary call for whoever makes it.
; It pushes the registers the SysV ABI says a callee must preserve (rbp,
; rbx, r12-r15), stores the stack pointer in *save_sp, loads next_sp, pops
; the other side's six registers and returns on the other side: into
; whichever kthread_switch() call saved next_sp, or, for a thread that has
; never run, into kthread_entry with the frame kthread_init() built
; (kernel/kthread.c).  Caller-saved registers need no saving: the compiler
; assumes a call clobbers them.  The kernel uses no SSE/x87 registers
; (-mgeneral-regs-only), so there is no FPU state to switch either.

extern kthread_main
global kthread_switch, kthread_entry

section .text
bits 64

; void kthread_switch(u64 *save_sp, u64 next_sp)
kthread_switch:
	push	rbp
	push	rbx
	push	r12
	push	r13
	push	r14
	push	r15
	mov	[rdi], rsp
	mov	rsp, rsi
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	rbx
	pop	rbp
	ret

; The first switch into a new thread "returns" here, with r12 = the struct
; kthread (kthread_init() put it in r12's slot), rbp = 0 (the outermost
; frame for the backtrace walker) and rsp 16-byte aligned, so the call
; below enters kthread_main() as the ABI wants.  kthread_main() never
; returns: a finished thread switches away for good.
kthread_entry:
	mov	rdi, r12
	call	kthread_main
	ud2
