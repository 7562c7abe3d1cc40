/*
 * mm_bench.h - what the shell's mm commands share with `bench NAME`
 * (shell/cmd_bench.c): the range helpers of shell/cmd_contig.c that the
 * free_contig_range benchmark uses, and the benchmark entries that the
 * old spellings `contig bench` and `devmem bench` still call.  Private to
 * shell/.  Context: (main).
 */
#ifndef SHELL_MM_BENCH_H
#define SHELL_MM_BENCH_H

#include <lib/types.h>
#include <lib/printer.h>
#include <mm/mechanisms.h>

#define CONTIG_MAX_PAGES	(1ULL << 24)	/* 64 GiB: a sanity bound on NR */

/* A page count from the shell: a number, 1 .. max; prints why not (cmd_contig.c). */
int contig_parse_pages(struct printer *out, const char *cmd, const char *arg, u64 max, u64 *nr);

/*
 * contig_pick_range() - allocate nr pages (refcounted or frozen) for a
 * measurement: in the CMA area if one has room, else wherever
 * alloc_contig_pages() finds them; *pfn and *mt say where.
 * contig_realloc_range() - allocate [pfn, pfn + nr) again after a free.
 * Both print why they failed, prefixed by cmd.  (cmd_contig.c)
 */
int contig_pick_range(struct printer *out, const char *cmd, u64 nr, bool frozen, u64 *pfn, int *mt);
int contig_realloc_range(struct printer *out, const char *cmd, u64 pfn, u64 nr, int mt, bool frozen);

/*
 * contig_free_timed() - free [pfn, pfn + nr) (refcounted, or frozen) as
 * free_contig_range() frees it with the switch at design d: the switch is
 * overridden around the timed call only (mech_override()/mech_restore()),
 * so no pause sees it.  *st (may be NULL) gets what the free did, *cycles
 * the cycles of the free alone.  Returns 0, or the override's error after
 * saying so, prefixed by cmd (the range is then freed with the design in
 * force: free, as after any error).  (cmd_contig.c)
 */
struct contig_free_stats;
int contig_free_timed(struct printer *out, const char *cmd, u64 pfn, u64 nr, bool frozen,
		      enum mech_design d, struct contig_free_stats *st, u64 *cycles);

/*
 * contig_take() - alloc_contig_range() of [start, start + nr) in pieces of
 * at most 128 MiB that end on MAX_ORDER boundaries (no free buddy block
 * spans one), with a checkpoint (shell_checkpoint()) between pieces: all
 * or nothing, a failure or a stop request frees the pieces taken.
 * Returns 0, -EINTR (asked to stop; *taken says how far it got) or the
 * failing piece's error, *r saying at which step and why.  (cmd_contig.c)
 */
struct contig_alloc_report;
int contig_take(u64 start, u64 nr, bool frozen, struct contig_alloc_report *r, u64 *taken);

/*
 * The benchmarks with their arguments after the name (argv[0] is the
 * first argument, not the command), messages prefixed by cmd
 * ("bench free_contig_range", or the alias "contig bench").  (cmd_bench.c)
 */
int bench_free_contig_range_cmd(struct printer *out, const char *cmd, int argc, char **argv);
int bench_memmap_init_cmd(struct printer *out, const char *cmd, int argc, char **argv);

#endif
