/*
 * params.h - one table of kernel parameters, for the boot command line and
 * for /sys/module/MODULE/parameters/NAME alike, in the manner of Linux's
 * module_param().
 *
 * A parameter is a struct kernel_param placed in the "kernel_params" link
 * section by KERNEL_PARAM(), next to the variable it sets or the owner's
 * getter and setter of that variable (a tunable private to its file, such
 * as mm's: the table then holds no pointer to it).  It has a name,
 * optionally the module it belongs to (then the command line spells it
 * MODULE.NAME and sysfs shows it under /sys/module/MODULE/parameters/), a
 * type, a range, its default and a line of help.  Both paths go through
 * param_set(), so the command line and sysfs accept the same values and
 * refuse the rest with the same errno and the same words (param_error()).
 *
 * Types and the text they take (one trailing newline allowed, as from echo):
 *   PARAM_BOOL   kstrtobool: 1/0, y/n, Y/N, t/f, on/off; shown "Y" or "N".
 *                On the command line a bare MODULE.NAME means Y.
 *   PARAM_UINT   kstrtoull rules (decimal, 0x hex, 0 octal), then
 *                [min, max]; shown in decimal.
 *   PARAM_ENUM   one of names[]; stored as the index, shown as the name.
 *   PARAM_SIZE   memparse: a number with an optional K/M/G/T suffix,
 *                then [min, max]; shown in bytes.
 *
 * Invariants: either set and get are both given and value is NULL, or
 * value points at a bool (PARAM_BOOL), an unsigned int (PARAM_UINT) or an
 * int-sized enum (PARAM_ENUM), or a u64 (PARAM_SIZE) and set and get are
 * NULL.  set accepts every value param_set() lets through (a bool as 0/1,
 * an enum as its index, a number in [min, max]), so the range and the words
 * of a refusal are the table's alone.  min <= def <= max; for PARAM_ENUM
 * def < nr_names.
 *
 * Context: main loop only (no locking); the command line is applied once,
 * during boot.
 */
#ifndef LIB_PARAMS_H
#define LIB_PARAMS_H

#include <lib/types.h>
#include <lib/printer.h>

enum param_type {
	PARAM_BOOL,
	PARAM_UINT,
	PARAM_ENUM,
	PARAM_SIZE,
};

struct kernel_param {
	const char *module;		/* "memory_hotplug", or NULL for a plain boot parameter */
	const char *name;		/* "auto_movable_ratio" */
	enum param_type type;		/* how the text is read and shown */
	void *value;			/* the variable it sets (see Invariants), or NULL */
	int (*set)(u64 v);		/* else: the owner's setter, 0 or a negative errno */
	u64 (*get)(void);		/* and its getter (bool 0/1, enum index) */
	u64 min, max;			/* PARAM_UINT / PARAM_SIZE: the accepted range */
	u64 def;			/* the default: the variable's value before any setting */
	const char *const *names;	/* PARAM_ENUM: the accepted words, by index */
	unsigned nr_names;		/* PARAM_ENUM: entries in names[] */
	bool writable;			/* sysfs mode 0644 (else 0444: boot only) */
	const char *help;		/* one line for `params` and docs */
};

#define KERNEL_PARAM(ident, ...)					\
	static const struct kernel_param kernel_param_##ident		\
	__used __section("kernel_params") __aligned(8) = { __VA_ARGS__ }

extern const struct kernel_param __start_kernel_params[];
extern const struct kernel_param __stop_kernel_params[];

#define for_each_kernel_param(kp)					\
	for (const struct kernel_param *kp = __start_kernel_params;	\
	     kp < __stop_kernel_params; kp++)

/*
 * param_set() - read buf[0, len) by kp's type and store it with
 * param_store().  Returns 0, or -EINVAL (not a value of that type) or
 * -ERANGE (outside [min, max]); the variable is unchanged on an error.
 */
int param_set(const struct kernel_param *kp, const char *buf, size_t len);

/*
 * param_store() - store value v (of kp's type: bool 0/1, enum index, a
 * number) through kp->set or into kp->value, after the one check every
 * path makes: -EINVAL for a bool other than 0/1 or an enum index past
 * names[], -ERANGE for a number outside [min, max].  Returns 0 or that
 * errno (or the setter's), the variable unchanged on an error.  For
 * param_set() and for code that restores saved values (param_get()'s).
 */
int param_store(const struct kernel_param *kp, u64 v);

/* param_show() - print the current value and a newline, as sysfs shows it. */
void param_show(const struct kernel_param *kp, struct printer *p);

/* param_show_value() - print value v (of kp's type) without a newline. */
void param_show_value(const struct kernel_param *kp, struct printer *p, u64 v);

/* param_get() - the current value as a u64 (bool 0/1, enum index). */
u64 param_get(const struct kernel_param *kp);

/*
 * param_error() - the words for param_set()'s error err on kp, e.g.
 * "not a boolean (1/0, y/n, on/off)" or "out of range [0, 4294967295]",
 * into buf (size bytes, NUL-terminated).  Returns buf.
 */
const char *param_error(const struct kernel_param *kp, int err, char *buf, size_t size);

/* param_type_name() - "bool", "uint", "enum" or "size". */
const char *param_type_name(const struct kernel_param *kp);

/*
 * param_find() - the parameter whose full name (MODULE.NAME, or NAME for a
 * plain one) is name, '-' and '_' counting as the same character as on the
 * command line; NULL if none.
 */
const struct kernel_param *param_find(const char *name);

/*
 * param_full_name() - MODULE.NAME or NAME into buf; returns buf.
 */
const char *param_full_name(const struct kernel_param *kp, char *buf, size_t size);

#endif
