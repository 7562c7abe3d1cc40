/*
 * aml.h - memlab's AML interpreter (ACPI 6.5 chapters 19-20).
 *
 * One struct aml_ns holds a namespace built from the DSDT and every SSDT,
 * the objects in it, and the arena they come from.  aml_create() builds it
 * inside a caller-given block of memory; nothing is allocated anywhere else
 * and no global state exists, so several namespaces may live side by side
 * (the host tests build one per table set).
 *
 * Every evaluation is bounded by struct aml_limits: loop iterations per
 * While, method call depth, nesting of the interpreter's own recursion,
 * opcodes executed, and wall time.  An evaluation that breaks a limit, meets
 * a malformed byte or runs out of arena fails with AML_E* and leaves a
 * struct aml_error (method path, AML offset, reason) in ns->err; the
 * namespace stays usable.
 *
 * Objects are refcounted: a result handed out by aml_eval() belongs to the
 * caller, who drops it with aml_put().
 *
 * Context: one caller at a time per namespace (the kernel: boot, then the
 * main loop).
 */
#ifndef DRIVERS_AML_H
#define DRIVERS_AML_H

#include <lib/types.h>
#include <lib/printer.h>
#include <drivers/aml_platform.h>

/* Object types, numbered as ObjectType() returns them. */
enum aml_type {
	AML_UNINIT = 0, AML_INTEGER = 1, AML_STRING = 2, AML_BUFFER = 3,
	AML_PACKAGE = 4, AML_FIELD_UNIT = 5, AML_DEVICE = 6, AML_EVENT = 7,
	AML_METHOD = 8, AML_MUTEX = 9, AML_REGION = 10, AML_POWER = 11,
	AML_PROCESSOR = 12, AML_THERMAL = 13, AML_BUFFER_FIELD = 14,
	AML_DDB = 15, AML_DEBUG = 16,
	AML_REFERENCE = 20,	/* RefOf, Index, a name in a package */
	AML_SCOPE = 21,		/* \_SB, \_GPE, ...: ObjectType() says 0 */
};

/* Errors (negative). */
enum {
	AML_OK = 0,
	AML_EPARSE = -1,	/* malformed or unknown byte code */
	AML_ENOENT = -2,	/* a name that does not exist */
	AML_ETYPE = -3,		/* an operand of the wrong type */
	AML_ENOMEM = -4,	/* arena exhausted */
	AML_ELIMIT = -5,	/* a limit of struct aml_limits */
	AML_EIO = -6,		/* a region access the platform refused */
	AML_EFATAL = -7,	/* Fatal() executed, or a bad argument */
};

struct aml_limits {
	u32 max_loop_iters;	/* per While, per evaluation of it */
	u32 max_call_depth;	/* nested method calls */
	u32 max_nesting;	/* the interpreter's C recursion (terms in terms) */
	u64 max_ops;		/* opcodes per aml_eval() */
	u64 max_time_ns;	/* wall time per aml_eval() (platform time_ns) */
	u32 max_sleep_ms;	/* one Sleep() at most; Stall() is capped at 100 us */
};

/* aml_default_limits - what boot and the shell use. */
extern const struct aml_limits aml_default_limits;

struct aml_node;
struct aml_ns;

/* An object.  Readable by callers; changed only by the interpreter. */
struct aml_obj {
	u8 type;		/* enum aml_type */
	u8 flags;
	u16 pad;
	u32 refs;
	struct aml_obj *dead_next;	/* interpreter's: the list aml_put() frees */
	union {
		u64 integer;
		struct { u32 len; u8 *data; } buf;	/* String: NUL-terminated, len without it */
		struct { u32 count; struct aml_obj **elems; } pkg;
		struct { const u8 *code; u32 len; u8 flags; u32 table; } method;
		struct { u8 space; u64 base, len; struct aml_node *node; } region;
		struct {
			u8 kind;	/* AML_FIELD_NORMAL, _INDEX, _BANK */
			u8 flags;	/* FieldFlags: access type, lock, update rule */
			u8 attrib;
			struct aml_obj *region;		/* normal, bank */
			struct aml_obj *index, *data;	/* index field */
			struct aml_obj *bank;		/* bank field: its bank register */
			u64 bank_value;
			u64 bit_off;
			u32 bit_len;
		} field;
		struct { struct aml_obj *buf; u64 bit_off; u32 bit_len; } bfield;
		struct { u8 sync; u16 depth; u32 owner; } mutex;
		struct { u32 count; } event;
		struct {
			u8 kind;	/* AML_REF_NODE, _ELEM, _OBJ */
			struct aml_node *node;
			struct aml_obj *target;	/* package, buffer or string (ELEM), object (OBJ) */
			u32 index;
		} ref;
		struct { u32 proc_id; u32 pblk; u8 pblk_len; } proc;
		struct { u8 level; u16 order; } power;
	};
};

enum { AML_FIELD_NORMAL, AML_FIELD_INDEX, AML_FIELD_BANK };
enum { AML_REF_NODE, AML_REF_ELEM, AML_REF_OBJ };

/* Region spaces this interpreter serves. */
enum { AML_SPACE_MEMORY = 0, AML_SPACE_IO = 1, AML_SPACE_PCI = 2 };

struct aml_error {
	int code;		/* AML_E* */
	char path[96];		/* the method (or table) being executed */
	u32 offset;		/* of the failing opcode, in its table */
	char reason[128];
};

/* What the _STA/_INI walk and the loads did (aml_init_devices()), and
 * what every evaluation since aml_create() cost: the opcodes executed,
 * the method calls, and the region accesses made through the platform
 * (port I/O, SystemMemory, PCI config: each one instruction of the
 * machine's) with the time they took (plat.io_clock_ns; 0 without it). */
struct aml_stats {
	u32 tables, objects, methods, devices;
	u32 ini_run, sta_run, failures;
	u64 load_ns, init_ns;
	u64 ops, calls, io_accesses, io_ns;
};

/*
 * aml_create() - a namespace in [arena, arena + size), with the predefined
 * scopes (\_GPE \_PR \_SB \_SI \_TZ), \_OS, \_REV, \_OSI and \_GL.  The
 * platform and limits are copied.  NULL if the arena is too small (the
 * namespace's own block, with its cache of resolved names, takes 16 KiB;
 * QEMU's tables need about 256 KiB).
 */
struct aml_ns *aml_create(void *arena, size_t size, const struct aml_platform *plat,
			  const struct aml_limits *lim);

/* aml_destroy() - free every object and node; returns the arena bytes still
 * in use afterwards (0 unless a refcount is wrong). */
size_t aml_destroy(struct aml_ns *ns);

/*
 * aml_load_table() - execute a DSDT or SSDT (its whole image, header
 * included) at the root: named objects enter the namespace, method bodies
 * are kept for later.  The DSDT's revision < 2 makes integers 32-bit.  A
 * malformed table stops at the bad byte with ns->err set; what it created
 * before stays.  Names a table refers to are looked up when used, so
 * External references resolve once every table is loaded.
 */
int aml_load_table(struct aml_ns *ns, const void *table, size_t len);

/*
 * aml_eval() - evaluate the object at `path` (absolute, or relative to the
 * root: "\\_SB.PCI0._CRS", "_S5"): a method is run with args[0..nargs)
 * (borrowed), any other object is returned as is.  *result (may be NULL)
 * receives a reference the caller puts, or NULL when nothing was returned.
 * AML_ENOENT when the path does not exist.
 */
int aml_eval(struct aml_ns *ns, const char *path, struct aml_obj *const *args,
	     unsigned nargs, struct aml_obj **result);
/* aml_eval_at() - the same, `path` relative to `scope` (a node, or NULL). */
int aml_eval_at(struct aml_ns *ns, struct aml_node *scope, const char *path,
		struct aml_obj *const *args, unsigned nargs, struct aml_obj **result);
/* aml_eval_integer() - a path that must yield an Integer (or a Buffer or
 * String converted as ToInteger does). */
int aml_eval_integer(struct aml_ns *ns, struct aml_node *scope, const char *path, u64 *out);

/* aml_device_status() - _STA of a device, 0xF when it has none. */
int aml_device_status(struct aml_ns *ns, struct aml_node *dev, u64 *sta);

/*
 * aml_init_devices() - \_PIC(1) if present, then \_SB._INI, then every
 * device depth-first: _STA, and _INI when present or functional; children
 * are skipped when neither.  A failing method is logged with its path and
 * counted; the walk goes on.  Fills *st (may be NULL).
 */
void aml_init_devices(struct aml_ns *ns, struct aml_stats *st);

/* aml_device_hid() - the device's _HID as text ("PNP0C80"; an EisaId
 * decoded) into buf; 0, or -1 if it has none or it is not an Integer or a
 * String. */
int aml_device_hid(struct aml_ns *ns, struct aml_node *dev, char *buf, size_t size);

/* aml_walk_hid() - each device whose _HID or _CID is `hid` ("PNP0C80", or
 * an EisaId decoded to that form), in namespace order; fn's non-zero
 * return stops the walk and is returned. */
int aml_walk_hid(struct aml_ns *ns, const char *hid,
		 int (*fn)(struct aml_ns *ns, struct aml_node *dev, void *arg), void *arg);

/* aml_walk_devices() - each Device, Processor and ThermalZone in namespace
 * order (depth first, children in table order); fn's non-zero return
 * stops the walk and is returned. */
int aml_walk_devices(struct aml_ns *ns,
		     int (*fn)(struct aml_ns *ns, struct aml_node *dev, void *arg), void *arg);
/* aml_child() - n's child called name ("_CRS"; no search upward), or NULL. */
struct aml_node *aml_child(struct aml_node *n, const char *name);
/* aml_node_object() - the object a node holds (NULL for a bare scope). */
struct aml_obj *aml_node_object(const struct aml_node *n);

/* Values for args, owned by the caller (aml_put()).  NULL when out of arena. */
struct aml_obj *aml_new_integer(struct aml_ns *ns, u64 v);
struct aml_obj *aml_new_string(struct aml_ns *ns, const char *s);
struct aml_obj *aml_new_buffer_of(struct aml_ns *ns, const void *data, u32 len);
/* a Package of elems[0, n), each referenced anew (the caller keeps its own) */
struct aml_obj *aml_new_package_of(struct aml_ns *ns, struct aml_obj *const *elems, u32 n);
void aml_put(struct aml_ns *ns, struct aml_obj *o);

/* Nodes. */
struct aml_node *aml_lookup(struct aml_ns *ns, struct aml_node *scope, const char *path);
/* aml_node_path() - the absolute path ("\\_SB_.PCI0") into buf. */
void aml_node_path(const struct aml_node *n, char *buf, size_t size);

/* Output in acpiexec's formats: an evaluation result ("  [Integer] = ...",
 * as `evaluate` prints it) and the namespace from a node down. */
void aml_print_result(struct printer *p, const char *path, const struct aml_obj *o);
void aml_dump_ns(struct aml_ns *ns, struct aml_node *from, struct printer *p);
void aml_print_stats(struct aml_ns *ns, struct printer *p);

/* The last failure; tracing of every method entered (with args and result)
 * to the platform's log. */
const struct aml_error *aml_last_error(const struct aml_ns *ns);
void aml_set_trace(struct aml_ns *ns, bool on);
bool aml_trace(const struct aml_ns *ns);
/* aml_stats() - what the loads and the last aml_init_devices() counted. */
const struct aml_stats *aml_get_stats(const struct aml_ns *ns);

#endif
