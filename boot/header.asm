; header.asm - the multiboot2 header GRUB looks for in the first 32 KiB.
;
; We ask for nothing special: GRUB loads the ELF by its program headers and
; enters _start in 32-bit protected mode with EAX = 0x36d76289 and EBX = the
; physical address of the multiboot2 information block.  The information
; request tag asks for the tags memlab reads (they are optional, so GRUB
; boots us even if it cannot provide one).

section .multiboot2
align 8
mb2_header:
	dd 0xe85250d6			; magic
	dd 0				; architecture: i386 protected mode
	dd mb2_header_end - mb2_header	; header length
	dd -(0xe85250d6 + 0 + (mb2_header_end - mb2_header)) ; checksum

align 8
info_request:				; tag type 1, optional (flags = 1)
	dw 1, 1
	dd info_request_end - info_request
	dd 1				; boot command line
	dd 2				; boot loader name
	dd 6				; memory map
	dd 14				; ACPI old RSDP
	dd 15				; ACPI new RSDP
info_request_end:

align 8
	dw 0, 0				; end tag
	dd 8
mb2_header_end:
