; header.asm - the multiboot2 header GRUB looks for in the first 32 KiB.
;
; GRUB loads the ELF by its program headers and enters _start in 32-bit
; protected mode with EAX = 0x36d76289 and EBX = the physical address of the
; multiboot2 information block.  The information request tag asks for the
; tags memlab reads (they are optional, so GRUB boots us even if it cannot
; provide one).  The console tag says EGA text is fine and no console is
; required; the framebuffer tag asks for a linear framebuffer with no
; preferred size (GRUB keeps the mode UEFI's GOP is in, or picks one with
; VBE under BIOS; a fixed size GRUB cannot set gives no framebuffer at all),
; optional, so GRUB may hand over EGA text under BIOS or nothing at all.  There is no EFI boot services tag (type 7) and no EFI
; entry tag (types 8, 9): under UEFI, GRUB exits the boot services and
; enters _start the same way as under BIOS.

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
	dd 8				; framebuffer
	dd 12				; EFI 64-bit system table
	dd 14				; ACPI old RSDP
	dd 15				; ACPI new RSDP
	dd 17				; EFI memory map
info_request_end:

align 8
console_flags:				; tag type 4, optional
	dw 4, 1
	dd 12
	dd 2				; EGA text supported; a console not required

align 8
framebuffer:				; tag type 5, optional
	dw 5, 1
	dd 20
	dd 0				; width: no preference
	dd 0				; height: no preference
	dd 0				; depth: no preference

align 8
	dw 0, 0				; end tag
	dd 8
mb2_header_end:
