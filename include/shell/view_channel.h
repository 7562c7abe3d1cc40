/*
 * view_channel.h - the machine-readable channel out of memlab, on COM2
 * (shell/view_channel.c; the protocol in docs/view.md).
 */
#ifndef SHELL_VIEW_CHANNEL_H
#define SHELL_VIEW_CHANNEL_H

/*
 * view_channel_init() - look for COM2; if it is there, send the hello and
 * start the channel's poller, else say once that the channel is off.
 * Context: boot, after mm and the memory blocks are set up.
 */
void view_channel_init(void);

#endif
