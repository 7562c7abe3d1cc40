/*
 * mm_handles.h - the shell's allocation handles (shell/cmd_handles.c), as
 * other commands see them.
 */
#ifndef SHELL_MM_HANDLES_H
#define SHELL_MM_HANDLES_H

#include <mm/page.h>

/*
 * mm_handle_of() - the id of the live handle whose block holds page, or 0
 * if no handle holds it (`page PFN` names the owner).  Context: (main).
 */
unsigned long mm_handle_of(const struct page *page);

#endif
