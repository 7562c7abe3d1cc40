/*
 * aml_fake.h - a fake machine for the AML interpreter's host tests: memory,
 * I/O ports and PCI config space that read 0 until written and keep what is
 * written (as acpiexec's region simulation does, so results compare), a
 * log of every access, Notify calls and log lines recorded.
 */
#ifndef TESTS_HOST_AML_FAKE_H
#define TESTS_HOST_AML_FAKE_H

#include <drivers/aml.h>

#define FAKE_MAX_BYTES	8192
#define FAKE_MAX_LOG	512

struct fake_access {
	u8 space;		/* AML_SPACE_* */
	bool write;
	u8 width;
	u64 addr;		/* PCI: seg << 32 | bus << 20 | dev << 15 | fn << 12 | off */
	u64 val;
};

struct aml_fake {
	struct { u8 space; u64 addr; u8 val; } bytes[FAKE_MAX_BYTES];
	unsigned nbytes;
	struct fake_access log[FAKE_MAX_LOG];
	unsigned nlog;
	struct { struct aml_node *node; u64 value; } notifies[32];
	unsigned nnotify;
	char lines[8192];	/* log lines, each ending in \n */
	size_t lines_len;
	u64 now_ns;		/* advanced by Sleep, Stall and each read of time */
	u64 io_clock_ns;	/* the accesses' clock: each read advances it by 7 */
	bool echo;		/* log lines to stdout too */
	unsigned global_lock_depth;
};

/* aml_fake_platform() - a platform whose callbacks use fake. */
struct aml_platform aml_fake_platform(struct aml_fake *fake);
/* aml_fake_ns() - a namespace on the fake machine with the given tables
 * (paths of .aml files) loaded; NULL on failure (printed). arena: 4 MiB
 * static per call slot (slot 0 or 1). */
struct aml_ns *aml_fake_ns(struct aml_fake *fake, const char *const *files, unsigned n,
			   const struct aml_limits *lim);
/* aml_fake_done() - destroy ns and check its arena is empty; true if so. */
bool aml_fake_done(struct aml_ns *ns);
/* aml_fake_poke() - preset a byte of a space. */
void aml_fake_poke(struct aml_fake *fake, u8 space, u64 addr, u8 val);
u8 aml_fake_peek(struct aml_fake *fake, u8 space, u64 addr);
/* aml_fake_eval_text() - evaluate path with integer args and print the
 * result as acpiexec does ("  [Integer] = ..." or "No object ...") into buf. */
int aml_fake_eval_text(struct aml_ns *ns, const char *path, const u64 *args, unsigned nargs,
		       char *buf, size_t size);

/* aml_collect_paths() - append to paths[*n..max) the absolute path of
 * each of names[0..nnames) that a device of ns has (a method only if it
 * takes no arguments). */
void aml_collect_paths(struct aml_ns *ns, const char *const *names, unsigned nnames,
		       char (*paths)[64], unsigned *n, unsigned max);

#endif
