/*
 * vfs.h - a small read-mostly virtual file tree for the Linux-style views.
 *
 * Files are produced on demand: reading a file calls its show() to print the
 * current contents into a printer, so /proc/meminfo is always up to date and
 * nothing is stored.  Writing (the shell's `echo VALUE > FILE`) calls store()
 * with the bytes Linux would pass, "VALUE\n"; a file without store() is
 * read-only: as in Linux, a write to a read-only sysfs file is refused at
 * open with -EACCES ("Permission denied"), while a read-only /proc file
 * opens and its write() fails with -EIO ("Input/output error").
 *
 * A symbolic link is a node whose ops has readlink(): it names another
 * path, relative to the link's directory ("../../node/node0") or absolute.
 * Lookups follow links (up to 8 in a path, then -ELOOP), except the last
 * component for vfs_lstat(), vfs_readlink() and vfs_remove(), which act on
 * the link itself.
 *
 * Files come from two places:
 *  - VFS_FILE() entries placed in the "vfs_files" link section, for files
 *    that exist for the whole boot (/proc/cmdline, /proc/meminfo);
 *  - vfs_create()/vfs_remove() at run time, for files that come and go with
 *    the objects they show (/sys/devices/system/memory/memoryN/state).
 * Directories are implied by the paths of the files below them.
 *
 * Paths are absolute, '/'-separated, without "." or ".." components
 * (lookups normalise repeated and trailing slashes).  For the shell, which
 * has no working directory, the lookup functions (read, write, list, stat,
 * remove) also accept a path without the leading '/' as relative to the
 * root, and "." and ".." components; vfs_create() does not.  Any lookup
 * may also fail with -ENOTDIR (a component above is a file) or
 * -ENAMETOOLONG (a path or component too long).
 *
 * Storage: nodes (files and directories, the root included) are 72 bytes
 * each with the name inline, in chunks of VFS_CHUNK_NODES.  The first
 * VFS_STATIC_CHUNKS chunks are static (25480 nodes, 1.75 MiB of .bss), so
 * the tree works before any allocator does; that holds about 2800 memory
 * blocks (9 nodes a block: the directory, 6 files, its nodeM link and the
 * node's memoryN link back).  Past that the tree grows a chunk at a time
 * (256 KiB) from the source given to vfs_set_chunk_source().  The table of
 * chunks starts in .bss with VFS_STATIC_TABLE entries (349440 nodes, about
 * 38000 blocks) and then moves into a chunk of its own with room for
 * VFS_MAX_CHUNKS (119 million nodes, 8 GiB: more than any machine's
 * blocks need), and the name hash moves from 16384 buckets in .bss into a
 * chunk of 65536 once it holds four nodes a bucket: the tree is sized by
 * what it holds, not by a pool fixed in advance.  When no
 * chunk can be had vfs_create() fails with -ENOSPC, nothing else changes,
 * and the log says once how full the table is and why it cannot grow.
 * Directory entries are kept in plain strcmp() order, as
 * `ls` shows them in the C locale: "memory10" comes before "memory2".  A
 * name lookup is a hash-table probe, so a directory of thousands of entries
 * is as quick to search as a small one.
 *
 * Context: main loop only (no locking).  show(), store() and vfs_list()'s
 * emit callback may look paths up (which may make a source's entries)
 * but must not create or remove any themselves.
 */
#ifndef VIEWS_VFS_H
#define VIEWS_VFS_H

#include <lib/types.h>
#include <lib/printer.h>

#define VFS_PATH_MAX	128	/* bytes in a path, NUL included */
#define VFS_NAME_MAX	32	/* bytes in one component, NUL included */
#define VFS_NODE_BYTES	72	/* one node: name, ops, data, six links */
#define VFS_CHUNK_BYTES	(256u * 1024)	/* what the chunk source hands out */
#define VFS_CHUNK_NODES	3640	/* nodes in a chunk: VFS_CHUNK_BYTES / 72 */
#define VFS_STATIC_CHUNKS 7	/* chunks in .bss */
#define VFS_STATIC_TABLE 96	/* chunk-table entries in .bss, then a chunk holds it */
#define VFS_MAX_CHUNKS	(VFS_CHUNK_BYTES / 8)	/* chunks at most (32768): one chunk's pointers */

struct vfs_file_ops {
	/* show() - print the contents to p. Returns 0 or -errno. */
	int (*show)(struct printer *p, void *data);
	/* store() - take a write of buf[0, len). Returns 0 or -errno.
	 * NULL means the file is read-only. */
	int (*store)(const char *buf, size_t len, void *data);
	/* readlink() - a symlink: put its target, NUL-terminated, into
	 * buf[0, size).  Returns 0 or -errno.  Set only for links, with
	 * show and store NULL. */
	int (*readlink)(char *buf, size_t size, void *data);
	/* size() - set for a binary file (Linux's bin_attribute, such as
	 * /sys/firmware/acpi/tables/DSDT): show() writes raw bytes, and
	 * this returns how many, which is the file's st_size. */
	unsigned long (*size)(void *data);
};

struct vfs_static_file {
	const char *path;		/* absolute path */
	const struct vfs_file_ops *ops;	/* show/store */
	void *data;			/* passed to show/store */
};

#define VFS_FILE(ident, path_, ops_, data_)				\
	static const struct vfs_static_file vfs_file_##ident		\
	__used __section("vfs_files") __aligned(8) =			\
	{ .path = (path_), .ops = (ops_), .data = (data_) }

extern const struct vfs_static_file __start_vfs_files[];
extern const struct vfs_static_file __stop_vfs_files[];

/*
 * vfs_init() - empty the tree, then add every VFS_FILE() of the "vfs_files"
 * section (a failure is logged and the file skipped).  Called once at boot
 * before any other vfs_*(); host tests call it again to start afresh.  The
 * tree goes back to its static chunks (directory sources go with their nodes): chunks
 * taken from a chunk source are forgotten, not given back (a test frees
 * its own).
 */
void vfs_init(void);

/*
 * vfs_set_chunk_source() - where the tree gets more nodes once its static
 * chunks are used up: alloc_chunk() returns VFS_CHUNK_BYTES of memory
 * (any contents, aligned for pointers) that stays the tree's for good, or
 * NULL when there is none.  NULL as alloc_chunk means "no source": the
 * tree stops at what it has.  The kernel sets it once the page allocator
 * is up; host tests set malloc-backed sources.  Context: main loop.
 */
void vfs_set_chunk_source(void *(*alloc_chunk)(void));

/* vfs_get_stats() - how big the tree is: nodes in use, nodes the chunks
 * hold, chunks, chunk-table entries, hash buckets.  Context: main loop. */
struct vfs_stats {
	unsigned int nodes, capacity, chunks, table_slots, buckets;
};
void vfs_get_stats(struct vfs_stats *st);

/*
 * A directory's source: entries that exist without nodes until looked at
 * (vfs_set_dir_source()).
 *  next() - the source's first entry whose name sorts after `after` in
 *    strcmp() order ("" for the first of all): its name into
 *    name[VFS_NAME_MAX], whether it is a directory into *is_dir; false
 *    when there is none.  It must not create or remove files.
 *  make() - create the entry called `name` (and what is below it) with
 *    vfs_create(); 0, -ENOENT when the source has no such entry, or
 *    vfs_create()'s error.  The files it makes are ordinary nodes from
 *    then on: vfs_remove() removes them, and next() must still name them.
 *  data - for both.
 */
struct vfs_dir_source {
	bool (*next)(const char *after, char name[VFS_NAME_MAX], bool *is_dir, void *data);
	int (*make)(const char *name, void *data);
	void *data;
};

/*
 * vfs_set_dir_source() - directory `path` (made, with the directories
 * above it, if missing) gets its entries from src as well as from its
 * nodes (NULL: from its nodes only).  src must outlive the directory.  A
 * reader's lookup (read, write, open, stat, lstat, readlink, list of a
 * path below it) that finds no node for a name asks src->make() first;
 * vfs_list() merges src->next()'s names with the nodes, each name once;
 * vfs_remove() and vfs_create() see only nodes.  Returns 0, -EINVAL,
 * -ENOTDIR, -ENAMETOOLONG or -ENOSPC.  Context: main loop.
 */
int vfs_set_dir_source(const char *path, const struct vfs_dir_source *src);

/*
 * vfs_numbered_next() - for a source whose entries are `prefix` followed
 * by a number of a set (memory0, memory1, ..., memory10, ...): the number
 * of the entry that comes right after `after` in strcmp() order ("": the
 * first), into *n; false when none.  The set is known through member(n)
 * and any(lo, hi), "may the set have a number in [lo, hi]" (true when
 * unsure is fine: it only prunes the search), up to max.  A walk of the
 * decimal trie in preorder: a few dozen any() calls for each entry.
 */
bool vfs_numbered_next(const char *prefix, const char *after, u64 max,
		       bool (*any)(u64 lo, u64 hi, void *ctx), bool (*member)(u64 n, void *ctx),
		       void *ctx, u64 *n);

/*
 * vfs_create() - add a file at path with ops (not NULL) and data, creating
 * the missing directories above it.
 * Returns 0, -EEXIST if the path is taken, -EINVAL for a malformed path
 * (relative, "." or "..", the root) or NULL ops, -ENOTDIR if a component
 * above is a file, -ENAMETOOLONG, or -ENOSPC when the node pool cannot hold
 * the file and its new directories (then nothing is created).
 */
int vfs_create(const char *path, const struct vfs_file_ops *ops, void *data);

/*
 * vfs_remove() - remove the file at path, or the directory at path and
 * everything below it.  Returns 0, -ENOENT, or -EINVAL for the root.
 * The removed files' data is not touched (the caller owns it).
 */
int vfs_remove(const char *path);

/* vfs_read() - print the file at path into p. -ENOENT, -EISDIR, -EACCES
 * (no show()), or show()'s result. */
int vfs_read(const char *path, struct printer *p);

/* vfs_write() - store buf[0,len) into the file at path. -ENOENT, -EISDIR, -EACCES or store()'s result. */
int vfs_write(const char *path, const char *buf, size_t len);

/*
 * vfs_list() - call emit(name, is_dir, ctx) for every entry of the directory
 * at path, in name order.  Returns 0, -ENOENT, or -ENOTDIR.
 */
int vfs_list(const char *path,
	     void (*emit)(const char *name, bool is_dir, void *ctx), void *ctx);

/* vfs_stat() - 0 and *is_dir, *writable (file with store()) for an
 * existing path (links followed), -ENOENT otherwise.  Either pointer may
 * be NULL. */
int vfs_stat(const char *path, bool *is_dir, bool *writable);

/*
 * vfs_open_write() - may the shell open path for writing (bash's `>`)?
 * 0 for a file with store() and for a read-only /proc file (whose write
 * then fails with -EIO, as Linux's procfs), -EACCES for a read-only sysfs
 * file, -EISDIR, -ENOENT.
 */
int vfs_open_write(const char *path);

enum vfs_type { VFS_REG, VFS_DIR, VFS_LINK };

/* What `ls -l` shows of an entry: type, mode, and st_size as Linux has it
 * (sysfs attributes 4096, a binary file its size(), procfs files,
 * directories and links 0). */
struct vfs_attr {
	enum vfs_type type;
	bool writable;		/* a file with store() */
	bool binary;		/* a file with size(): its contents are raw bytes */
	unsigned long size;
};

/* vfs_lstat() - *attr of path, a link at the end not followed.  0 or the
 * lookup's error. */
int vfs_lstat(const char *path, struct vfs_attr *attr);

/* vfs_stat_attr() - the same for path with every link followed: what
 * vfs_read() would read.  0 or the lookup's error. */
int vfs_stat_attr(const char *path, struct vfs_attr *attr);

/* vfs_readlink() - the target of the link at path into buf[0, size).
 * 0, -EINVAL (not a link) or the lookup's error. */
int vfs_readlink(const char *path, char *buf, size_t size);

#endif
