; smp_trampoline.asm - where an application processor (AP) starts: 16-bit real
; mode at a page below 1 MiB, to 32-bit protected mode, to long mode, to
; smp_ap_main() in C on its own stack.
;
; smp.c copies the bytes between trampoline_start and trampoline_end to the
; trampoline page P (smp_trampoline_pick() chose it, init/main.c reserved
; it in memblock), fills the parameter block (trampoline_params, below) for
; one AP, and sends that AP INIT and then SIPI with vector P >> 12.  The AP
; begins at CS:IP = (P >> 4):0, so the code finds its own linear address
; as CS << 4 and reaches everything through offsets from it: the bytes are
; the same wherever P is, and nothing in them is patched but the
; parameters.
;
; The identity-mapping problem.  The instant CR0.PG is set, the next
; instruction is fetched through the page tables at the virtual address
; equal to its physical one, P + something, below 1 MiB.  The kernel's own
; tables (paging.c, the BSP's CR3) map nothing below the canonical hole,
; on purpose.  So the AP turns paging on with boot/entry.asm's boot tables
; (boot_pml4, kept intact in the image after boot): they map the first
; 4 GiB at their own addresses and the kernel image at KERNEL_VMA, so both
; the trampoline page and the kernel's text are reachable through them.
; The AP jumps to the kernel's text (smp_ap_entry, high) still on those
; tables, and only there loads the BSP's CR3, from which on the trampoline
; page no longer matters.  The kernel's tables never get an identity map.
;
; The parameter block (struct trampoline_params in smp.c, same order):
;   +0  u32 stage       the AP writes 1 in real mode, 2 in long mode
;   +4  u32 apic_id     the APIC id this start is meant for
;   +8  u32 id_leaf     CPUID leaf that gives it: 1 (bits 24-31 of EBX) or
;                       0xb (EDX, the x2APIC id)
;   +12 u32 efer        EFER bits to set: LME, and NXE if the BSP has it
;   +16 u64 kernel_cr3  the BSP's CR3
;   +24 u64 stack_top   the AP's stack
;   +32 u64 percpu      its struct percpu, smp_ap_main()'s argument
;   +40 u64 entry       smp_ap_entry, the high address
;   +48 u32 boot_cr3    boot_pml4's physical address (below 4 GiB)
; An AP whose APIC id is not apic_id (a CPU that answered a SIPI meant for
; another, after the BSP gave up on it) halts in long mode without
; touching the stack or the area of the CPU the block is for.

global trampoline_start, trampoline_end, trampoline_params
global smp_ap_entry
extern smp_ap_main

TRAMP_STACK	equ 0x1000		; top of the page: the few pushes below

section .rodata
bits 16
align 16
trampoline_start:
	cli
	cld
	mov	ax, cs
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	sp, TRAMP_STACK
	xor	ebx, ebx
	mov	bx, ax
	shl	ebx, 4				; EBX = P, the page's linear address
	mov	dword [tp_stage - trampoline_start], 1

	; the GDT's linear address into its pointer, then protected mode
	lea	eax, [ebx + (tgdt - trampoline_start)]
	mov	[tgdt_ptr - trampoline_start + 2], eax
	o32 lgdt [tgdt_ptr - trampoline_start]
	mov	eax, cr0
	or	eax, 1				; PE
	mov	cr0, eax
	lea	eax, [ebx + (pm32 - trampoline_start)]
	push	dword 0x08			; 32-bit code
	push	eax
	o32 retf

bits 32
pm32:
	mov	ax, 0x10
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	fs, ax
	mov	gs, ax
	lea	esp, [ebx + TRAMP_STACK]

	mov	eax, cr4
	or	eax, 1 << 5			; PAE
	mov	cr4, eax
	mov	eax, [ebx + (tp_boot_cr3 - trampoline_start)]
	mov	cr3, eax			; the boot tables: see the top
	mov	ecx, 0xc0000080			; EFER
	rdmsr
	or	eax, [ebx + (tp_efer - trampoline_start)]
	wrmsr
	mov	eax, cr0
	or	eax, (1 << 31) | (1 << 16) | 1	; PG, WP, PE
	mov	cr0, eax
	lea	eax, [ebx + (lm64 - trampoline_start)]
	push	dword 0x18			; 64-bit code
	push	eax
	retf

bits 64
lm64:
	mov	r12d, ebx			; P, zero-extended
	cmp	dword [r12 + (tp_id_leaf - trampoline_start)], 0xb
	jne	.leaf1
	mov	eax, 0xb
	xor	ecx, ecx
	cpuid
	mov	eax, edx			; the x2APIC id
	jmp	.check
.leaf1:
	mov	eax, 1
	cpuid
	shr	ebx, 24
	mov	eax, ebx			; the initial APIC id
.check:
	cmp	eax, [r12 + (tp_apic_id - trampoline_start)]
	jne	.not_mine
	mov	dword [r12 + (tp_stage - trampoline_start)], 2
	mov	rax, [r12 + (tp_kernel_cr3 - trampoline_start)]
	mov	rsi, [r12 + (tp_stack_top - trampoline_start)]
	mov	rdi, [r12 + (tp_percpu - trampoline_start)]
	mov	rcx, [r12 + (tp_entry - trampoline_start)]
	jmp	rcx
.not_mine:
	cli
	hlt
	jmp	.not_mine

align 16
tgdt:
	dq 0					; null
	dq 0x00cf9a000000ffff			; 0x08: 32-bit code, flat
	dq 0x00cf92000000ffff			; 0x10: data, flat
	dq 0x00209a0000000000			; 0x18: 64-bit code
tgdt_end:
align 8
tgdt_ptr:
	dw tgdt_end - tgdt - 1
	dd 0					; the linear address, set above
align 8
trampoline_params:
tp_stage:	dd 0
tp_apic_id:	dd 0
tp_id_leaf:	dd 0
tp_efer:	dd 0
tp_kernel_cr3:	dq 0
tp_stack_top:	dq 0
tp_percpu:	dq 0
tp_entry:	dq 0
tp_boot_cr3:	dd 0
		dd 0
trampoline_end:

section .text
bits 64
; The AP on the boot tables, at the kernel's address: RAX = the BSP's CR3,
; RSI = the top of its stack, RDI = its struct percpu.  Load the kernel's
; tables (the AP's stack is mapped only there, in the ioremap area), move
; to the stack, and call smp_ap_main(percpu), which never returns.  RBP = 0
; ends backtraces here; RSP is 16-byte aligned before the call (SysV).
smp_ap_entry:
	mov	cr3, rax
	mov	rsp, rsi
	xor	ebp, ebp
	call	smp_ap_main
.hang:
	cli
	hlt
	jmp	.hang
