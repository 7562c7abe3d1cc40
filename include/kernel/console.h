/*
 * console.h - the byte stream the shell talks over (COM1 in the kernel).
 *
 * Output is synchronous: console_write() returns when the bytes are in the
 * UART.  Input is buffered by the serial driver (interrupt-driven, or polled
 * when the interrupt cannot be wired).  "\n" is sent as "\r\n".
 *
 * Context: console_write() from any context; console_getc() only from the
 * main loop (it may halt the CPU while waiting).
 */
#ifndef KERNEL_CONSOLE_H
#define KERNEL_CONSOLE_H

#include <lib/types.h>

void console_write(const char *s, size_t len);
void console_putc(char c);

/* console_getc() - the next input byte, waiting for one. Never fails. */
int console_getc(void);

/* console_trygetc() - the next input byte, or -1 if none is waiting. */
int console_trygetc(void);

#endif
