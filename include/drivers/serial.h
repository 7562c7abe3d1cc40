/*
 * serial.h - the second serial port, COM2 (I/O 0x2f8), as a raw line for
 * the view channel (shell/view_channel.c).  COM1, the console, is set up
 * through serial_init() (include/kernel/kernel.h); both ports are driven
 * by the same code, drivers/serial/uart16550.c.
 *
 * COM2 is not a console: bytes go out as they are (no "\r" added), and
 * input is polled, never by interrupt.
 *
 * Context: (main).
 */
#ifndef DRIVERS_SERIAL_H
#define DRIVERS_SERIAL_H

#include <lib/types.h>

/* serial_aux_init() - program COM2 and check it by loopback.  Returns true
 * if the port is there.  Context: boot. */
bool serial_aux_init(void);

/* serial_aux_write() - send s[0, len) on COM2 (nothing if it is absent;
 * dropped and counted while its transmitter is stuck).  Context: (main). */
void serial_aux_write(const char *s, size_t len);

/* serial_aux_tx_dropped() - bytes COM2 dropped since boot (its transmitter
 * stayed busy: the other end stopped reading).  Context: (main). */
u64 serial_aux_tx_dropped(void);

/* serial_aux_stuck() - COM2 is stuck (it dropped bytes) and its transmitter
 * is still busy, so what is written now is dropped too.  Context: (main). */
bool serial_aux_stuck(void);

/* serial_aux_getc() - the next byte received on COM2, or -1.  Context: (main). */
int serial_aux_getc(void);

#endif
