; entry.asm - from GRUB's 32-bit protected mode to kmain() in long mode.
;
; GRUB jumps to _start with paging off, EAX = multiboot2 magic, EBX = the
; physical address of the information block.  This stub:
;   1. checks the magic and that the CPU has CPUID, long mode and PAE, and
;      says on COM1 what is missing before halting (no C runs without them);
;   2. builds boot page tables that map the first 4 GiB twice: identity (so
;      this code and the multiboot2 block stay reachable) and at KERNEL_VMA
;      (the first GiB, where the kernel is linked), with 2 MiB pages;
;   3. enables PAE, long mode (EFER.LME), no-execute (EFER.NXE) when the CPU
;      has it, paging and write protection, loads a 64-bit GDT and far-jumps
;      into 64-bit code;
;   4. moves to the higher-half stack and calls kmain(magic, mbi_phys) with
;      RBP = 0 so backtraces end there.
; arch/x86_64/paging.c later replaces these tables with the real ones.

KERNEL_VMA	equ 0xffffffff80000000
MB2_MAGIC	equ 0x36d76289
COM1		equ 0x3f8

extern kmain
global _start
global boot_stack, boot_stack_top, boot_stack_guard
global boot_pml4
global boot_nx_supported

section .boot.text
bits 32

_start:
	cli
	cld
	mov	[boot_magic], eax	; keep the magic
	mov	[boot_mbi], ebx		; and the info block address
	mov	esp, boot32_stack_top

	call	serial32_init
	cmp	dword [boot_magic], MB2_MAGIC
	jne	.no_multiboot

	; CPUID is present iff EFLAGS.ID (bit 21) can be toggled.
	pushfd
	pop	eax
	mov	ecx, eax
	xor	eax, 1 << 21
	push	eax
	popfd
	pushfd
	pop	eax
	push	ecx
	popfd
	cmp	eax, ecx
	je	.no_cpuid

	mov	eax, 0x80000000		; highest extended leaf
	cpuid
	cmp	eax, 0x80000001
	jb	.no_long_mode
	mov	eax, 0x80000001
	cpuid
	test	edx, 1 << 29		; LM
	jz	.no_long_mode
	test	edx, 1 << 20		; NX
	jz	.no_nx
	mov	byte [boot_nx_supported], 1
.no_nx:
	mov	eax, 1
	cpuid
	test	edx, 1 << 6		; PAE
	jz	.no_pae

	call	build_page_tables

	mov	eax, cr4
	or	eax, 1 << 5		; PAE
	mov	cr4, eax
	mov	eax, boot_pml4
	mov	cr3, eax
	mov	ecx, 0xc0000080		; EFER
	rdmsr
	or	eax, 1 << 8		; LME
	cmp	byte [boot_nx_supported], 0
	je	.skip_nxe
	or	eax, 1 << 11		; NXE
.skip_nxe:
	wrmsr
	mov	eax, cr0
	or	eax, (1 << 31) | (1 << 16) | 1	; PG, WP, PE
	mov	cr0, eax

	lgdt	[gdt64_ptr]
	jmp	0x08:long_mode_entry

.no_multiboot:
	mov	eax, msg_no_multiboot
	jmp	fatal32
.no_cpuid:
	mov	eax, msg_no_cpuid
	jmp	fatal32
.no_long_mode:
	mov	eax, msg_no_long_mode
	jmp	fatal32
.no_pae:
	mov	eax, msg_no_pae
	jmp	fatal32

; Print the NUL-terminated message at EAX on COM1 and halt for good.
fatal32:
	mov	ebx, eax
.next:
	mov	al, [ebx]
	test	al, al
	jz	.halt
	call	serial32_putc
	inc	ebx
	jmp	.next
.halt:
	cli
	hlt
	jmp	.halt

; 115200 8N1 on COM1, FIFOs on.  Same settings as the C driver.
serial32_init:
	mov	dx, COM1 + 1
	xor	al, al
	out	dx, al			; no interrupts
	mov	dx, COM1 + 3
	mov	al, 0x80
	out	dx, al			; DLAB
	mov	dx, COM1 + 0
	mov	al, 1
	out	dx, al			; divisor 1 = 115200
	mov	dx, COM1 + 1
	xor	al, al
	out	dx, al
	mov	dx, COM1 + 3
	mov	al, 0x03
	out	dx, al			; 8N1
	mov	dx, COM1 + 2
	mov	al, 0xc5
	out	dx, al			; FIFO on, transmit FIFO cleared
	ret

; Send AL on COM1 once the transmitter holding register is empty.
serial32_putc:
	mov	ah, al
	mov	dx, COM1 + 5
.wait:
	in	al, dx
	test	al, 0x20
	jz	.wait
	mov	dx, COM1
	mov	al, ah
	out	dx, al
	ret

; Map [0, 4 GiB) with 2 MiB pages: PML4[0] -> identity PDPT (four PDs),
; PML4[511] -> high PDPT whose entries 510 and 511 reuse the first two PDs,
; so KERNEL_VMA + x maps physical x for x < 2 GiB.
build_page_tables:
	mov	edi, boot_page_tables
	mov	ecx, BOOT_PT_PAGES * 1024
	xor	eax, eax
	rep	stosd

	mov	eax, boot_pdpt_low
	or	eax, 0x3			; present, writable
	mov	[boot_pml4], eax
	mov	eax, boot_pdpt_high
	or	eax, 0x3
	mov	[boot_pml4 + 511 * 8], eax

	mov	ecx, 0				; PD index 0..3
.pdpt:
	mov	eax, ecx
	shl	eax, 12
	add	eax, boot_pd
	or	eax, 0x3
	mov	[boot_pdpt_low + ecx * 8], eax
	inc	ecx
	cmp	ecx, 4
	jne	.pdpt
	mov	eax, boot_pd
	or	eax, 0x3
	mov	[boot_pdpt_high + 510 * 8], eax
	add	eax, 4096
	mov	[boot_pdpt_high + 511 * 8], eax

	mov	ecx, 0				; 2048 PD entries = 4 GiB
.pd:
	mov	eax, ecx
	shl	eax, 21				; low 32 bits of the address
	or	eax, 0x83			; present, writable, 2 MiB page
	mov	edx, ecx
	shr	edx, 11				; high bits (0 below 4 GiB)
	mov	[boot_pd + ecx * 8], eax
	mov	[boot_pd + ecx * 8 + 4], edx
	inc	ecx
	cmp	ecx, 2048
	jne	.pd
	ret

bits 64
long_mode_entry:
	xor	eax, eax
	mov	ds, ax
	mov	es, ax
	mov	ss, ax
	mov	fs, ax
	mov	gs, ax
	mov	rax, higher_half_entry
	jmp	rax

section .boot.data
align 16
gdt64:
	dq 0					; null
	dq 0x00209a0000000000			; 0x08: 64-bit code, ring 0
	dq 0x0000920000000000			; 0x10: data
gdt64_end:
gdt64_ptr:
	dw gdt64_end - gdt64 - 1
	dd gdt64

boot_nx_supported:
	db 0
align 4
boot_magic:	dd 0			; EAX from the loader
boot_mbi:	dd 0			; EBX from the loader

msg_no_multiboot:
	db "memlab: not started by a multiboot2 loader (bad magic in EAX); halting", 13, 10, 0
msg_no_cpuid:
	db "memlab: this CPU has no CPUID instruction; memlab needs an x86_64 CPU; halting", 13, 10, 0
msg_no_long_mode:
	db "memlab: this CPU has no long mode (x86_64); memlab needs a 64-bit CPU; halting", 13, 10, 0
msg_no_pae:
	db "memlab: this CPU has no PAE; memlab needs PAE for long mode; halting", 13, 10, 0

BOOT_PT_PAGES equ 7			; PML4, two PDPTs, four PDs
align 4096
boot_page_tables:
boot_pml4:	times 512 dq 0
boot_pdpt_low:	times 512 dq 0
boot_pdpt_high:	times 512 dq 0
boot_pd:	times 2048 dq 0

align 16
boot32_stack:	times 1024 db 0
boot32_stack_top:

section .text
bits 64
; Now running at KERNEL_VMA.  RBP = 0 marks the outermost frame for the
; backtrace walker; RSP + 8 is 16-byte aligned at kmain's entry (SysV).
higher_half_entry:
	mov	rsp, boot_stack_top
	xor	ebp, ebp
	mov	edi, [boot_magic]		; arg 0: magic (zero-extended)
	mov	esi, [boot_mbi]			; arg 1: info block physical address
	call	kmain
.hang:
	cli
	hlt
	jmp	.hang

section .bss
align 4096
boot_stack_guard: resb 4096			; left unmapped by paging.c: an
						; overflow faults (double fault on IST1)
boot_stack:	resb 32768			; the kernel's only stack
boot_stack_top:
