/*
 * vfs.c - the virtual file tree behind /proc and /sys (see vfs.h).
 *
 * Every file and directory is a struct vfs_node with a number; links between
 * nodes are these numbers, and node 0, the root, doubles as "none" (the
 * root is nobody's child, sibling or hash neighbour).
 *
 *   node 0  "/"        first_child -> proc
 *   node 1  "proc"     parent 0, next -> sys,  first_child -> meminfo
 *   node 2  "meminfo"  parent 1, ops = &meminfo_ops
 *   node 3  "sys"      parent 0, prev -> proc, ...
 *
 * Node n lives in chunk n / VFS_CHUNK_NODES at slot n % VFS_CHUNK_NODES
 * (VN(n)).  The first VFS_STATIC_CHUNKS chunks are static arrays, enough for
 * a machine of up to about 2800 memory blocks; past them vfs_grow() takes
 * further chunks from the chunk source the kernel set once the page
 * allocator runs (vfs_set_chunk_source()), so a 512 GiB machine's 4096
 * blocks get their files as well.  A chunk once taken is never given back:
 * nodes freed by vfs_remove() are reused first.
 *
 * A node is a directory exactly when its ops is NULL, and a symbolic link
 * when its ops has readlink().  Each directory keeps
 * its children on a doubly linked list in strcmp() order, which is what
 * vfs_list() walks.  Finding one child by name goes through a hash table
 * keyed by (parent index, name) instead, so the 2000-entry memory-block
 * directory is as fast to search as a small one.  Inserting into the sorted
 * list starts from the child inserted last (the directory's `hint`) when the
 * new name sorts after it, which makes the usual creation pattern (memory0,
 * memory1, ...) cost a step or two instead of a walk of the whole list.
 *
 * A directory may also have a source (vfs_set_dir_source(), kept in its
 * node's `data`, which a directory does not otherwise use): entries that
 * exist without nodes until somebody looks at them.  A lookup that misses
 * in such a directory asks the source to make the entry (make()), then
 * looks again; a listing merges the directory's nodes with the source's
 * names (next()), both in strcmp() order, so every entry is listed once,
 * made or not.  /sys/devices/system/memory uses this for its memoryN
 * directories: a 4 TiB machine's 32768 blocks would be some 300000 nodes.
 *
 * Unused nodes above `vfs_hwm` have never been handed out; freed nodes are
 * chained through hash_next on vfs_free_head.  Nothing here recurses: the
 * removal of a directory walks its subtree with a loop (vfs_remove()).
 */
#include <views/vfs.h>
#include <lib/errno.h>
#include <lib/string.h>
#include <lib/printk.h>

#define VFS_HASH_STATIC	16384	/* lookup buckets in .bss, a power of two */
#define VFS_HASH_GROWN	(VFS_CHUNK_BYTES / sizeof(u32))	/* buckets in one chunk: 65536 */
#define VFS_HASH_LOAD	4	/* nodes per bucket past which the hash grows */
#define VFS_ROOT	0	/* the root's index, also "no node" in links */
#define VFS_MAX_HOPS	8	/* symlinks followed in one lookup, then -ELOOP */
#define VFS_SYSFS_FILE_SIZE 4096	/* st_size of every sysfs attribute (a page); procfs: 0 */

_Static_assert((VFS_HASH_STATIC & (VFS_HASH_STATIC - 1)) == 0, "hash size must be a power of two");
_Static_assert((VFS_HASH_GROWN & (VFS_HASH_GROWN - 1)) == 0, "hash size must be a power of two");
_Static_assert(VFS_MAX_CHUNKS * sizeof(struct vfs_node *) <= VFS_CHUNK_BYTES,
	       "the grown chunk table is one chunk");

struct vfs_node {
	char name[VFS_NAME_MAX];	/* component, NUL-terminated; "" for the root */
	const struct vfs_file_ops *ops;	/* file operations; NULL for a directory */
	void *data;			/* passed to show()/store() */
	u32 parent;			/* containing directory (root: itself) */
	u32 first_child;		/* directory: smallest name, or none */
	u32 next, prev;			/* siblings in strcmp() order, or none */
	u32 hash_next;			/* bucket chain; the free list when unused */
	u32 hint;			/* directory: child inserted last, or none */
};

_Static_assert(sizeof(struct vfs_node) == VFS_NODE_BYTES, "vfs.h quotes the node size");
_Static_assert(VFS_CHUNK_NODES * sizeof(struct vfs_node) <= VFS_CHUNK_BYTES,
	       "a chunk's nodes fit in the chunk source's block");

static struct vfs_node vfs_static_chunks[VFS_STATIC_CHUNKS][VFS_CHUNK_NODES];
static struct vfs_node *vfs_static_table[VFS_STATIC_TABLE];
static struct vfs_node **vfs_chunks = vfs_static_table;	/* [0, vfs_nr_chunks) usable */
static unsigned int vfs_table_slots = VFS_STATIC_TABLE;	/* entries vfs_chunks has room for */
static unsigned int vfs_nr_chunks;	/* chunks in vfs_chunks[] */
static void *(*vfs_chunk_source)(void);	/* further chunks, or NULL */
static bool vfs_full_warned;		/* "node table full" said once */
static u32 vfs_static_buckets[VFS_HASH_STATIC];
static u32 *vfs_buckets = vfs_static_buckets;	/* first node of each chain, or none */
static u32 vfs_nr_buckets = VFS_HASH_STATIC;	/* a power of two */
static unsigned int vfs_hwm = 1;	/* nodes [vfs_hwm, capacity) were never used */
static u32 vfs_free_head;		/* freed nodes, chained by hash_next */
static unsigned int vfs_nr_used = 1;	/* nodes in the tree, root included */

/* Node n; n below vfs_nr_chunks * VFS_CHUNK_NODES. */
#define VN(n)	(&vfs_chunks[(n) / VFS_CHUNK_NODES][(n) % VFS_CHUNK_NODES])

/*
 * The static files: declared weak here so a build without any VFS_FILE()
 * (a test binary, say) still links, with an empty table.
 */
extern const struct vfs_static_file __start_vfs_files[] __attribute__((weak));
extern const struct vfs_static_file __stop_vfs_files[] __attribute__((weak));

static bool node_is_dir(unsigned int n)
{
	return VN(n)->ops == NULL;
}

static bool node_is_link(unsigned int n)
{
	return VN(n)->ops && VN(n)->ops->readlink;
}

/* Is n in /proc (procfs in Linux) rather than /sys (sysfs)? */
static bool node_in_proc(unsigned int n)
{
	while (n != VFS_ROOT && VN(n)->parent != VFS_ROOT)
		n = VN(n)->parent;
	return n != VFS_ROOT && strcmp(VN(n)->name, "proc") == 0;
}

/* FNV-1a over the name, seeded with the parent so equal names in different
 * directories land in different buckets. */
static unsigned int name_hash(unsigned int parent, const char *name)
{
	u32 h = 2166136261u ^ (parent * 0x9e3779b1u);

	for (; *name; name++) {
		h ^= (u8)*name;
		h *= 16777619u;
	}
	return h & (vfs_nr_buckets - 1);
}

/* The child of dir called name, or VFS_ROOT when there is none. */
static unsigned int find_child(unsigned int dir, const char *name)
{
	unsigned int n = vfs_buckets[name_hash(dir, name)];

	for (; n != VFS_ROOT; n = VN(n)->hash_next)
		if (VN(n)->parent == dir && strcmp(VN(n)->name, name) == 0)
			return n;
	return VFS_ROOT;
}

/*
 * Copy the next component of *pathp into name and step past it, skipping
 * any slashes before it.  Returns the component's length, 0 at the end of
 * the path, or -ENAMETOOLONG if it does not fit in VFS_NAME_MAX.
 */
static int next_component(const char **pathp, char name[VFS_NAME_MAX])
{
	const char *p = *pathp;
	size_t len = 0;

	while (*p == '/')
		p++;
	while (p[len] && p[len] != '/')
		len++;
	if (len >= VFS_NAME_MAX)
		return -ENAMETOOLONG;
	memcpy(name, p, len);
	name[len] = '\0';
	*pathp = p + len;
	return (int)len;
}

/* Is the rest of a path empty but for trailing slashes? */
static bool only_slashes(const char *p)
{
	while (*p == '/')
		p++;
	return *p == '\0';
}

static bool is_dot_or_dotdot(const char *name)
{
	return strcmp(name, ".") == 0 || strcmp(name, "..") == 0;
}

static int check_path(const char *path)
{
	if (!path)
		return -EINVAL;
	if (strnlen(path, VFS_PATH_MAX) >= VFS_PATH_MAX)
		return -ENAMETOOLONG;
	return 0;
}

/*
 * Resolve path (absolute, or relative to the root) to a node index in *out.
 * "." stays, ".." goes up (the root's parent is the root).  A symlink met
 * on the way is replaced by its target, relative to the link's directory
 * unless absolute: the rest of the path is appended to the target and the
 * walk goes on, up to VFS_MAX_HOPS links (then -ELOOP).  A symlink as the
 * last component is followed only when follow_last (or a '/' follows it).
 */
/* The source of directory n, or NULL. */
static const struct vfs_dir_source *dir_source(unsigned int n)
{
	return node_is_dir(n) ? VN(n)->data : NULL;
}

/*
 * The child of dir called name; when there is no node for it and make,
 * the directory's source may make it first.  VFS_ROOT when there is
 * none; *err the source's error other than -ENOENT.
 */
static unsigned int lookup_child(unsigned int dir, const char *name, bool make, int *err)
{
	unsigned int c = find_child(dir, name);
	const struct vfs_dir_source *src;

	*err = 0;
	if (c != VFS_ROOT || !make || !(src = dir_source(dir)))
		return c;
	*err = src->make(name, src->data);
	if (*err == -ENOENT)
		*err = 0;
	return *err ? VFS_ROOT : find_child(dir, name);
}

static int vfs_walk_links(const char *path, unsigned int *out, bool follow_last, bool make)
{
	char buf[2][VFS_PATH_MAX];	/* rewritten paths, used in turn */
	char name[VFS_NAME_MAX];
	unsigned int n = VFS_ROOT, hops = 0;
	int len, ret;

	ret = check_path(path);
	if (ret)
		return ret;
	while ((len = next_component(&path, name)) > 0) {
		unsigned int c;

		if (!node_is_dir(n))
			return -ENOTDIR;
		if (strcmp(name, ".") == 0)
			continue;
		if (strcmp(name, "..") == 0) {
			n = VN(n)->parent;
			continue;
		}
		c = lookup_child(n, name, make, &ret);
		if (ret)
			return ret;
		if (c == VFS_ROOT)
			return -ENOENT;
		if (node_is_link(c) && (follow_last || *path != '\0')) {
			char target[VFS_PATH_MAX];
			char *next = buf[hops & 1];
			size_t used;

			if (++hops > VFS_MAX_HOPS)
				return -ELOOP;
			ret = VN(c)->ops->readlink(target, sizeof(target), VN(c)->data);
			if (ret)
				return ret;
			used = ksnprintf(next, VFS_PATH_MAX, "%s%s", target, path);
			if (used >= VFS_PATH_MAX)
				return -ENAMETOOLONG;
			path = next;
			if (target[0] == '/')
				n = VFS_ROOT;
			continue;	/* n stays the link's directory */
		}
		n = c;
	}
	if (len < 0)
		return len;
	*out = n;
	return 0;
}

/* vfs_walk() for a reader (read, write, list, stat): sources make what is looked up. */
static int vfs_walk(const char *path, unsigned int *out)
{
	return vfs_walk_links(path, out, true, true);
}

/* Nodes the chunks taken so far can hold. */
static unsigned int vfs_capacity(void)
{
	return vfs_nr_chunks * VFS_CHUNK_NODES;
}

/*
 * The chunk table is full: move it into a chunk of its own, which holds
 * VFS_MAX_CHUNKS entries (the static table's VFS_STATIC_TABLE stay unused).
 * Returns false when the source has no chunk for it.  Context: main loop.
 */
static bool vfs_grow_table(void)
{
	struct vfs_node **table = vfs_chunk_source ? vfs_chunk_source() : NULL;

	if (!table)
		return false;
	memcpy(table, vfs_chunks, vfs_nr_chunks * sizeof(*table));
	vfs_chunks = table;
	vfs_table_slots = VFS_MAX_CHUNKS;
	return true;
}

/*
 * More than VFS_HASH_LOAD nodes a bucket: move the hash into a chunk of
 * VFS_HASH_GROWN buckets and put every node of the tree (a non-empty name;
 * the root is never hashed) on its new chain, in a loop over the nodes
 * ever handed out.  When the source has no chunk the hash stays as it is,
 * only slower.  Context: main loop.
 */
static void vfs_grow_hash(void)
{
	u32 *buckets = vfs_chunk_source ? vfs_chunk_source() : NULL;

	if (!buckets)
		return;
	memset(buckets, 0, VFS_HASH_GROWN * sizeof(u32));
	vfs_buckets = buckets;
	vfs_nr_buckets = VFS_HASH_GROWN;
	for (unsigned int n = 1; n < vfs_hwm; n++) {
		struct vfs_node *node = VN(n);
		unsigned int b;

		if (!node->name[0])
			continue;	/* on the free list */
		b = name_hash(node->parent, node->name);
		node->hash_next = vfs_buckets[b];
		vfs_buckets[b] = n;
	}
}

/*
 * Make room for `missing` more nodes, taking chunks from the chunk source
 * while there are too few free ones: for nodes, for a bigger chunk table
 * when the static one is full, and once for a bigger hash.  Returns 0, or
 * -ENOSPC (logged once a boot, with the size reached) when the chunk table
 * is at VFS_MAX_CHUNKS (119 million nodes), there is no source yet, or the
 * source has no memory.  Chunks taken before a failure stay: they are in
 * the table and will be used.  Context: main loop.
 */
static int vfs_grow(unsigned int missing)
{
	while (missing > vfs_capacity() - vfs_nr_used) {
		struct vfs_node *chunk = NULL;

		if (vfs_nr_chunks == vfs_table_slots && vfs_table_slots < VFS_MAX_CHUNKS)
			vfs_grow_table();
		if (vfs_nr_chunks < vfs_table_slots && vfs_chunk_source)
			chunk = vfs_chunk_source();
		if (!chunk) {
			if (!vfs_full_warned)
				pr_warn("vfs: node table full at %u nodes (%u KiB in %u chunks%s); "
					"further files are not created",
					vfs_nr_used,
					(unsigned int)(vfs_capacity() * sizeof(struct vfs_node) / 1024),
					vfs_nr_chunks,
					vfs_nr_chunks == VFS_MAX_CHUNKS ? ", the most there can be" :
					vfs_chunk_source ? ", no memory for another" :
					", no page allocator yet");
			vfs_full_warned = true;
			return -ENOSPC;
		}
		memset(chunk, 0, VFS_CHUNK_NODES * sizeof(*chunk));
		vfs_chunks[vfs_nr_chunks++] = chunk;
	}
	if (vfs_nr_buckets == VFS_HASH_STATIC &&
	    vfs_nr_used + missing > VFS_HASH_LOAD * VFS_HASH_STATIC)
		vfs_grow_hash();
	return 0;
}

void vfs_get_stats(struct vfs_stats *st)
{
	st->nodes = vfs_nr_used;
	st->capacity = vfs_capacity();
	st->chunks = vfs_nr_chunks;
	st->table_slots = vfs_table_slots;
	st->buckets = vfs_nr_buckets;
}

void vfs_set_chunk_source(void *(*alloc_chunk)(void))
{
	vfs_chunk_source = alloc_chunk;
	vfs_full_warned = false;	/* a new source may hold what the old did not */
}

/* A never-used or freed node; vfs_grow() made room for it. */
static unsigned int node_alloc(void)
{
	unsigned int n;

	if (vfs_free_head != VFS_ROOT) {
		n = vfs_free_head;
		vfs_free_head = VN(n)->hash_next;
	} else {
		n = vfs_hwm++;
	}
	BUG_ON(n == VFS_ROOT || n >= vfs_capacity());	/* vfs_create() checked the room */
	vfs_nr_used++;
	return n;
}

/*
 * Link the new node n into dir's sorted child list and the hash table.
 * Invariant of the walk: every child from the list head up to `after` sorts
 * before n, and `c` is the one right after `after`.
 */
static void link_child(unsigned int dir, unsigned int n)
{
	struct vfs_node *d = VN(dir), *node = VN(n);
	unsigned int after = VFS_ROOT, c = d->first_child;
	unsigned int bucket = name_hash(dir, node->name);

	if (d->hint != VFS_ROOT && strcmp(VN(d->hint)->name, node->name) < 0) {
		after = d->hint;
		c = VN(after)->next;
	}
	while (c != VFS_ROOT && strcmp(VN(c)->name, node->name) < 0) {
		after = c;
		c = VN(c)->next;
	}
	node->prev = after;
	node->next = c;
	if (after != VFS_ROOT)
		VN(after)->next = n;
	else
		d->first_child = n;
	if (c != VFS_ROOT)
		VN(c)->prev = n;
	d->hint = n;

	node->hash_next = vfs_buckets[bucket];
	vfs_buckets[bucket] = n;
}

/* Make a node called name (fits VFS_NAME_MAX) under dir; ops NULL makes a directory. */
static unsigned int node_create(unsigned int dir, const char *name,
				const struct vfs_file_ops *ops, void *data)
{
	unsigned int n = node_alloc();
	struct vfs_node *node = VN(n);

	memset(node, 0, sizeof(*node));
	strlcpy(node->name, name, sizeof(node->name));
	node->ops = ops;
	node->data = data;
	node->parent = dir;
	link_child(dir, n);
	return n;
}

/* Unlink the childless node n from its directory and the hash table, and free it. */
static void node_destroy(unsigned int n)
{
	struct vfs_node *node = VN(n);
	struct vfs_node *d = VN(node->parent);
	u32 *link = &vfs_buckets[name_hash(node->parent, node->name)];

	if (node->prev != VFS_ROOT)
		VN(node->prev)->next = node->next;
	else
		d->first_child = node->next;
	if (node->next != VFS_ROOT)
		VN(node->next)->prev = node->prev;
	if (d->hint == n)
		d->hint = node->prev;

	while (*link != n)
		link = &VN(*link)->hash_next;
	*link = node->hash_next;

	memset(node, 0, sizeof(*node));
	node->hash_next = vfs_free_head;
	vfs_free_head = n;
	vfs_nr_used--;
}

void vfs_init(void)
{
	vfs_chunks = vfs_static_table;	/* a grown table and hash are forgotten too */
	vfs_table_slots = VFS_STATIC_TABLE;
	for (unsigned int i = 0; i < VFS_STATIC_CHUNKS; i++)
		vfs_chunks[i] = vfs_static_chunks[i];
	for (unsigned int i = VFS_STATIC_CHUNKS; i < VFS_STATIC_TABLE; i++)
		vfs_chunks[i] = NULL;	/* forgotten: see vfs_init() in vfs.h */
	vfs_nr_chunks = VFS_STATIC_CHUNKS;
	memset(vfs_static_chunks, 0, MIN(vfs_hwm, VFS_STATIC_CHUNKS * VFS_CHUNK_NODES) *
	       sizeof(struct vfs_node));
	vfs_buckets = vfs_static_buckets;
	vfs_nr_buckets = VFS_HASH_STATIC;
	memset(vfs_static_buckets, 0, sizeof(vfs_static_buckets));
	vfs_hwm = 1;
	vfs_free_head = VFS_ROOT;
	vfs_nr_used = 1;
	vfs_full_warned = false;

	for (const struct vfs_static_file *f = __start_vfs_files; f < __stop_vfs_files; f++) {
		int ret = vfs_create(f->path, f->ops, f->data);

		if (ret)
			pr_warn("vfs: cannot add %s: %s", f->path, err_text(ret));
	}
}

/*
 * Two passes over the path.  The first checks every component and counts
 * the nodes that will be new (all those after the deepest existing prefix),
 * so that room for all of them is made (or refused) before anything
 * changes.  The second creates them.
 */
int vfs_create(const char *path, const struct vfs_file_ops *ops, void *data)
{
	char name[VFS_NAME_MAX];
	const char *p = path;
	unsigned int n = VFS_ROOT, missing = 0, components = 0;
	int len, ret;

	ret = check_path(path);
	if (ret)
		return ret;
	if (path[0] != '/' || !ops)
		return -EINVAL;

	while ((len = next_component(&p, name)) > 0) {
		if (is_dot_or_dotdot(name))
			return -EINVAL;
		components++;
		if (missing == 0) {
			unsigned int c;

			if (!node_is_dir(n))
				return -ENOTDIR;
			c = find_child(n, name);
			if (c != VFS_ROOT) {
				n = c;
				continue;
			}
		}
		missing++;
	}
	if (len < 0)
		return len;
	if (components == 0)
		return -EINVAL;
	if (missing == 0)
		return -EEXIST;
	ret = vfs_grow(missing);
	if (ret)
		return ret;

	/* Second pass: continue below n, creating the missing tail. */
	p = path;
	n = VFS_ROOT;
	while (next_component(&p, name) > 0) {
		unsigned int c = find_child(n, name);

		if (c == VFS_ROOT) {
			bool last = only_slashes(p);

			c = node_create(n, name, last ? ops : NULL, last ? data : NULL);
		}
		n = c;
	}
	return 0;
}

/*
 * Remove the subtree at n without recursion: go down first children until
 * a leaf, free it, go back to its parent, repeat.  Each node is freed once
 * all its children are gone, and the loop ends when the top node is freed.
 */
int vfs_remove(const char *path)
{
	unsigned int top, n;
	int ret;

	ret = vfs_walk_links(path, &top, false, false);	/* what is not made stays unmade */
	if (ret)
		return ret;
	if (top == VFS_ROOT)
		return -EINVAL;

	n = top;
	for (;;) {
		unsigned int parent;

		while (VN(n)->first_child != VFS_ROOT)
			n = VN(n)->first_child;
		parent = VN(n)->parent;
		node_destroy(n);
		if (n == top)
			break;
		n = parent;
	}
	return 0;
}

int vfs_read(const char *path, struct printer *p)
{
	unsigned int n;
	int ret;

	ret = vfs_walk(path, &n);
	if (ret)
		return ret;
	if (node_is_dir(n))
		return -EISDIR;
	if (!VN(n)->ops->show)
		return -EACCES;
	return VN(n)->ops->show(p, VN(n)->data);
}

int vfs_write(const char *path, const char *buf, size_t len)
{
	unsigned int n;
	int ret;

	ret = vfs_walk(path, &n);
	if (ret)
		return ret;
	if (node_is_dir(n))
		return -EISDIR;
	if (!VN(n)->ops->store)
		return node_in_proc(n) ? -EIO : -EACCES;
	return VN(n)->ops->store(buf, len, VN(n)->data);
}

int vfs_open_write(const char *path)
{
	unsigned int n;
	int ret;

	ret = vfs_walk(path, &n);
	if (ret)
		return ret;
	if (node_is_dir(n))
		return -EISDIR;
	if (!VN(n)->ops->store && !node_in_proc(n))
		return -EACCES;
	return 0;
}

/*
 * The listing of directory n with a source: its nodes and the source's
 * names merged, in strcmp() order, each name once.  emit() may look paths
 * up, and a lookup may make one of the source's entries into nodes of
 * this very directory (`ls -l` stats each entry it is given): so the walk
 * keeps the last name emitted, not a place in the list, and steps the
 * node cursor past it each time; a node made meanwhile is one of the
 * source's names, which next() gives once, after the last one emitted.
 */
static int list_with_source(unsigned int n,
			    void (*emit)(const char *name, bool is_dir, void *ctx), void *ctx)
{
	const struct vfs_dir_source *src = dir_source(n);
	char last[VFS_NAME_MAX] = "", name[VFS_NAME_MAX];
	unsigned int c = VN(n)->first_child;
	bool started = false;

	for (;;) {
		bool have, is_dir = false, src_dir = false;

		have = src->next(last, name, &src_dir, src->data);
		while (started && c != VFS_ROOT && strcmp(VN(c)->name, last) <= 0)
			c = VN(c)->next;
		if (c == VFS_ROOT && !have)
			return 0;
		if (c != VFS_ROOT && (!have || strcmp(VN(c)->name, name) <= 0)) {
			strlcpy(last, VN(c)->name, sizeof(last));
			is_dir = node_is_dir(c);
		} else {
			strlcpy(last, name, sizeof(last));
			is_dir = src_dir;
		}
		started = true;
		emit(last, is_dir, ctx);
	}
}

int vfs_set_dir_source(const char *path, const struct vfs_dir_source *src)
{
	char name[VFS_NAME_MAX];
	const char *p = path;
	unsigned int n = VFS_ROOT, missing = 0;
	int len, ret = check_path(path);

	if (ret)
		return ret;
	if (path[0] != '/' || (src && (!src->next || !src->make)))
		return -EINVAL;
	/* count the directories to make, then make them (as vfs_create()) */
	while ((len = next_component(&p, name)) > 0) {
		unsigned int c;

		if (is_dot_or_dotdot(name))
			return -EINVAL;
		if (missing) {
			missing++;
			continue;
		}
		if (!node_is_dir(n))
			return -ENOTDIR;
		c = find_child(n, name);
		if (c == VFS_ROOT)
			missing++;
		else
			n = c;
	}
	if (len < 0)
		return len;
	if (!node_is_dir(n))
		return -ENOTDIR;
	if (missing) {
		ret = vfs_grow(missing);
		if (ret)
			return ret;
		p = path;
		n = VFS_ROOT;
		while (next_component(&p, name) > 0) {
			unsigned int c = find_child(n, name);

			n = c != VFS_ROOT ? c : node_create(n, name, NULL, NULL);
		}
	}
	if (n == VFS_ROOT)
		return -EINVAL;
	VN(n)->data = (void *)src;
	return 0;
}

/* The value of a string of digits, saturated at max + 1. */
static u64 digits_value(const char *s, size_t len, u64 max)
{
	u64 v = 0;

	for (size_t i = 0; i < len; i++) {
		if (v > max / 10)
			return max + 1;
		v = v * 10 + (u64)(s[i] - '0');
	}
	return v > max ? max + 1 : v;
}

struct numbered {
	u64 max;
	bool (*any)(u64 lo, u64 hi, void *ctx);
	bool (*member)(u64 n, void *ctx);
	void *ctx;
};

/* Might a number of the set begin with the digits of p (p <= max)? */
static bool subtree_any(const struct numbered *q, u64 p)
{
	u64 lo = p, hi = p;

	if (p == 0)
		return q->any(0, 0, q->ctx);
	for (;;) {
		if (q->any(lo, MIN(hi, q->max), q->ctx))
			return true;
		if (lo > q->max / 10)
			return false;
		lo *= 10;
		hi = hi > (~0ULL - 9) / 10 ? ~0ULL : hi * 10 + 9;
	}
}

/* The first member, in strcmp order of its digits, of p's subtree. */
static bool subtree_first(const struct numbered *q, u64 p, u64 *out)
{
	if (p > q->max || !subtree_any(q, p))
		return false;
	if (q->member(p, q->ctx)) {
		*out = p;
		return true;
	}
	if (p == 0 || p > q->max / 10)
		return false;
	for (u64 d = 0; d <= 9; d++)
		if (subtree_first(q, p * 10 + d, out))
			return true;
	return false;
}

/* The first member after the digits D[0, len) (not D itself), its
 * subtree skipped too when skip_children. */
static bool digits_next(const struct numbered *q, const char *D, size_t len, bool skip_children,
			u64 *out)
{
	u64 p = digits_value(D, len, q->max);

	if (D[0] == '0')	/* "0" has no children; "0..." none at all */
		len = 1, p = 0, skip_children = true;
	if (!skip_children && p != 0 && p <= q->max / 10)
		for (u64 d = 0; d <= 9; d++)
			if (subtree_first(q, p * 10 + d, out))
				return true;
	for (size_t i = len; i >= 1; i--) {
		u64 parent = digits_value(D, i - 1, q->max);

		for (u64 d = (u64)(D[i - 1] - '0') + 1; d <= 9; d++) {
			if (i > 1 && parent > q->max / 10)
				break;
			if (subtree_first(q, i > 1 ? parent * 10 + d : d, out))
				return true;
		}
	}
	return false;
}

/* The first member of all, in strcmp order. */
static bool first_member(const struct numbered *q, u64 *out)
{
	for (u64 d = 0; d <= 9; d++)
		if (subtree_first(q, d, out))
			return true;
	return false;
}

bool vfs_numbered_next(const char *prefix, const char *after, u64 max,
		       bool (*any)(u64 lo, u64 hi, void *ctx), bool (*member)(u64 n, void *ctx),
		       void *ctx, u64 *n)
{
	const struct numbered q = { max, any, member, ctx };
	size_t pl = strlen(prefix), digits = 0;
	int c = strncmp(after, prefix, pl);
	const char *s = after + pl;

	if (!after[0] || c < 0)
		return first_member(&q, n);
	if (c > 0)
		return false;
	while (s[digits] >= '0' && s[digits] <= '9')
		digits++;
	if (!digits) {
		if (s[0] && (u8)s[0] > '9')
			return false;
		return first_member(&q, n);
	}
	return digits_next(&q, s, digits, s[digits] && (u8)s[digits] > '9', n);
}

int vfs_list(const char *path,
	     void (*emit)(const char *name, bool is_dir, void *ctx), void *ctx)
{
	unsigned int n, c;
	int ret;

	ret = vfs_walk(path, &n);
	if (ret)
		return ret;
	if (!node_is_dir(n))
		return -ENOTDIR;
	if (dir_source(n))
		return list_with_source(n, emit, ctx);
	for (c = VN(n)->first_child; c != VFS_ROOT; c = VN(c)->next)
		emit(VN(c)->name, node_is_dir(c), ctx);
	return 0;
}

int vfs_stat(const char *path, bool *is_dir, bool *writable)
{
	unsigned int n;
	int ret;

	ret = vfs_walk(path, &n);
	if (ret)
		return ret;
	if (is_dir)
		*is_dir = node_is_dir(n);
	if (writable)
		*writable = !node_is_dir(n) && VN(n)->ops->store != NULL;
	return 0;
}

/* *attr of path; follow: the last component's link too. */
static int stat_attr(const char *path, struct vfs_attr *attr, bool follow)
{
	unsigned int n;
	int ret;

	ret = vfs_walk_links(path, &n, follow, true);
	if (ret)
		return ret;
	memset(attr, 0, sizeof(*attr));
	if (node_is_dir(n)) {
		attr->type = VFS_DIR;
	} else if (node_is_link(n)) {
		attr->type = VFS_LINK;
	} else {
		attr->type = VFS_REG;
		attr->writable = VN(n)->ops->store != NULL;
		attr->binary = VN(n)->ops->size != NULL;
		if (attr->binary)
			attr->size = VN(n)->ops->size(VN(n)->data);
		else
			attr->size = node_in_proc(n) ? 0 : VFS_SYSFS_FILE_SIZE;
	}
	return 0;
}

int vfs_lstat(const char *path, struct vfs_attr *attr)
{
	return stat_attr(path, attr, false);
}

int vfs_stat_attr(const char *path, struct vfs_attr *attr)
{
	return stat_attr(path, attr, true);
}

int vfs_readlink(const char *path, char *buf, size_t size)
{
	unsigned int n;
	int ret;

	ret = vfs_walk_links(path, &n, false, true);
	if (ret)
		return ret;
	if (!node_is_link(n))
		return -EINVAL;
	return VN(n)->ops->readlink(buf, size, VN(n)->data);
}
