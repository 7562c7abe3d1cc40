; isr.asm - the entry stubs for all interrupt vectors memlab uses.
;
; Each stub makes the stack look the same (an error code, 0 when the CPU
; pushes none, then the vector number) and jumps to isr_common, which saves
; the general registers in the order of struct trap_frame and calls
; trap_dispatch(frame).  On return everything is restored and iretq resumes
; the interrupted code.  isr_table holds the stub addresses for idt.c.

extern trap_dispatch
global isr_table

section .text
bits 64

%macro STUB_NOERR 1
isr_stub_%1:
	push	0
	push	%1
	jmp	isr_common
%endmacro

%macro STUB_ERR 1
isr_stub_%1:
	push	%1
	jmp	isr_common
%endmacro

; Vectors whose exceptions push an error code: 8, 10-14, 17, 21, 29, 30.
%assign v 0
%rep 64
%if v == 8 || (v >= 10 && v <= 14) || v == 17 || v == 21 || v == 29 || v == 30
	STUB_ERR v
%else
	STUB_NOERR v
%endif
%assign v v + 1
%endrep

	STUB_NOERR 255			; local APIC spurious interrupt
	STUB_NOERR 0xf0			; cross-CPU call (arch/smp.h)
	STUB_NOERR 0xec			; local APIC timer (arch/traps.h)

isr_common:
	push	rax
	push	rbx
	push	rcx
	push	rdx
	push	rsi
	push	rdi
	push	rbp
	push	r8
	push	r9
	push	r10
	push	r11
	push	r12
	push	r13
	push	r14
	push	r15
	cld
	mov	rdi, rsp
	call	trap_dispatch
	pop	r15
	pop	r14
	pop	r13
	pop	r12
	pop	r11
	pop	r10
	pop	r9
	pop	r8
	pop	rbp
	pop	rdi
	pop	rsi
	pop	rdx
	pop	rcx
	pop	rbx
	pop	rax
	add	rsp, 16			; vector and error code
	iretq

section .rodata
align 8
isr_table:				; vectors 0-63, then 255, 0xf0, 0xec
%assign v 0
%rep 64
	dq isr_stub_%+v
%assign v v + 1
%endrep
	dq isr_stub_255
	dq isr_stub_0xf0
	dq isr_stub_0xec
