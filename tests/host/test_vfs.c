/*
 * test_vfs.c - the virtual file tree: paths, order, removal, the pool bound.
 *
 * Each test starts from vfs_init(), which leaves only the VFS_FILE()
 * entries (here, /htest/static/hello).
 */
#include "htest.h"
#include <stdlib.h>
#include <views/vfs.h>
#include <lib/errno.h>
#include <lib/string.h>

static int show_name(struct printer *p, void *data)
{
	pr_printf(p, "%s\n", (const char *)data);
	return 0;
}

static int store_check(const char *buf, size_t len, void *data)
{
	(void)data;
	if (len == 2 && memcmp(buf, "1\n", 2) == 0)
		return 0;
	return len == 2 && buf[0] == 'b' ? -EBUSY : -EINVAL;
}

static int show_fails(struct printer *p, void *data)
{
	(void)p;
	(void)data;
	return -ENODATA;
}

static const struct vfs_file_ops ro_ops = { .show = show_name };
static const struct vfs_file_ops rw_ops = { .show = show_name, .store = store_check };
static const struct vfs_file_ops fail_ops = { .show = show_fails };
static const struct vfs_file_ops wo_ops = { .store = store_check };

VFS_FILE(htest_hello, "/htest/static/hello", &ro_ops, "hello from the section");

/* Collect a directory listing as "name name/ ..." */
struct listing {
	char text[4096];
	int n;
};

static void collect(const char *name, bool is_dir, void *ctx)
{
	struct listing *l = ctx;
	size_t len = strlen(l->text);

	snprintf(l->text + len, sizeof(l->text) - len, "%s%s%s",
		 l->n ? " " : "", name, is_dir ? "/" : "");
	l->n++;
}

static const char *list(const char *path, int *ret)
{
	static struct listing l;

	memset(&l, 0, sizeof(l));
	*ret = vfs_list(path, collect, &l);
	return l.text;
}

static const char *read_file(const char *path, int *ret)
{
	static char buf[256];
	struct buf_printer bp;

	buf_printer_init(&bp, buf, sizeof(buf));
	*ret = vfs_read(path, &bp.p);
	return buf;
}

HTEST(vfs_static_files_and_reinit)
{
	int ret;

	vfs_init();
	CHECK_STREQ(read_file("/htest/static/hello", &ret), "hello from the section\n");
	CHECK_EQ(ret, 0);
	CHECK_EQ(vfs_create("/tmp/x", &ro_ops, "x"), 0);
	vfs_init();				/* starts afresh */
	CHECK_EQ(vfs_stat("/tmp/x", NULL, NULL), -ENOENT);
	CHECK_EQ(vfs_stat("/htest/static/hello", NULL, NULL), 0);
	/* The root lists the implied directory. */
	CHECK_STREQ(list("/", &ret), "htest/");
}

HTEST(vfs_create_lookup_stat)
{
	bool is_dir = true, writable = true;
	int ret;

	vfs_init();
	CHECK_EQ(vfs_create("/a/b/c", &rw_ops, "c"), 0);
	CHECK_EQ(vfs_create("/a/d", &ro_ops, "d"), 0);
	CHECK_EQ(vfs_stat("/a/b/c", &is_dir, &writable), 0);
	CHECK(!is_dir && writable);
	CHECK_EQ(vfs_stat("/a/d", &is_dir, &writable), 0);
	CHECK(!is_dir && !writable);
	CHECK_EQ(vfs_stat("/a/b", &is_dir, &writable), 0);
	CHECK(is_dir && !writable);
	CHECK_EQ(vfs_stat("/", &is_dir, NULL), 0);
	CHECK(is_dir);
	CHECK_STREQ(read_file("/a/b/c", &ret), "c\n");
	CHECK_EQ(ret, 0);

	CHECK_EQ(vfs_stat("/a/x", NULL, NULL), -ENOENT);
	CHECK_EQ(vfs_stat("/a/d/x", NULL, NULL), -ENOTDIR);
	CHECK_EQ(vfs_stat(NULL, NULL, NULL), -EINVAL);
}

HTEST(vfs_create_errors)
{
	char name[64], path[256];

	vfs_init();
	CHECK_EQ(vfs_create("/a/f", &ro_ops, NULL), 0);
	CHECK_EQ(vfs_create("/a/f", &ro_ops, NULL), -EEXIST);
	CHECK_EQ(vfs_create("//a//f/", &ro_ops, NULL), -EEXIST);
	CHECK_EQ(vfs_create("/a", &ro_ops, NULL), -EEXIST);	/* a directory */
	CHECK_EQ(vfs_create("/", &ro_ops, NULL), -EINVAL);
	CHECK_EQ(vfs_create("", &ro_ops, NULL), -EINVAL);
	CHECK_EQ(vfs_create("a/g", &ro_ops, NULL), -EINVAL);	/* relative */
	CHECK_EQ(vfs_create("/a/./g", &ro_ops, NULL), -EINVAL);
	CHECK_EQ(vfs_create("/a/../g", &ro_ops, NULL), -EINVAL);
	CHECK_EQ(vfs_create("/a/g", NULL, NULL), -EINVAL);
	CHECK_EQ(vfs_create(NULL, &ro_ops, NULL), -EINVAL);
	CHECK_EQ(vfs_create("/a/f/g", &ro_ops, NULL), -ENOTDIR);

	/* A component holds VFS_NAME_MAX - 1 bytes. */
	memset(name, 'n', VFS_NAME_MAX - 1);
	name[VFS_NAME_MAX - 1] = '\0';
	snprintf(path, sizeof(path), "/a/%s", name);
	CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
	CHECK_EQ(vfs_stat(path, NULL, NULL), 0);
	strcat(path, "n");
	CHECK_EQ(vfs_create(path, &ro_ops, NULL), -ENAMETOOLONG);
	CHECK_EQ(vfs_stat(path, NULL, NULL), -ENAMETOOLONG);

	/* A path holds VFS_PATH_MAX - 1 bytes. */
	memset(path, 'p', sizeof(path));
	for (int i = 0; i < VFS_PATH_MAX; i += 16)
		path[i] = '/';
	path[VFS_PATH_MAX - 1] = '\0';
	CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
	path[VFS_PATH_MAX - 1] = 'p';
	path[VFS_PATH_MAX] = '\0';
	CHECK_EQ(vfs_create(path, &ro_ops, NULL), -ENAMETOOLONG);
	CHECK_EQ(vfs_stat(path, NULL, NULL), -ENAMETOOLONG);
	/* Nothing half-made was left by the failures. */
	CHECK_EQ(vfs_stat("/a/g", NULL, NULL), -ENOENT);
}

HTEST(vfs_path_normalisation)
{
	int ret;

	vfs_init();
	CHECK_EQ(vfs_create("//sys///devices/system//", &ro_ops, "sys"), 0);
	CHECK_STREQ(read_file("/sys/devices/system", &ret), "sys\n");
	CHECK_STREQ(read_file("sys/devices/system/", &ret), "sys\n");
	CHECK_EQ(ret, 0);
	CHECK_STREQ(read_file("/sys/./devices/../devices/system", &ret), "sys\n");
	CHECK_EQ(ret, 0);
	CHECK_STREQ(read_file("/../../sys/devices/system", &ret), "sys\n");
	CHECK_EQ(ret, 0);
	CHECK_STREQ(list("//sys//", &ret), "devices/");
	CHECK_EQ(ret, 0);
	CHECK_STREQ(list("/sys/..", &ret), "htest/ sys/");
	CHECK_STREQ(list("", &ret), "htest/ sys/");
	CHECK_EQ(ret, 0);
	CHECK_EQ(vfs_stat("/sys/devices/system/.", NULL, NULL), -ENOTDIR);
}

HTEST(vfs_list_order)
{
	static const char *const names[] = {
		"memory10", "zeta", "memory2", "Alpha", "memory1", "memory0", "memory", "b",
	};
	char path[64];
	int ret;

	vfs_init();
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		snprintf(path, sizeof(path), "/d/%s", names[i]);
		CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
	}
	CHECK_EQ(vfs_create("/d/dir/x", &ro_ops, NULL), 0);
	CHECK_STREQ(list("/d", &ret),
		    "Alpha b dir/ memory memory0 memory1 memory10 memory2 zeta");
	CHECK_EQ(ret, 0);
	CHECK_EQ(vfs_list("/d/zeta", collect, &(struct listing){ 0 }), -ENOTDIR);
	CHECK_EQ(vfs_list("/nope", collect, &(struct listing){ 0 }), -ENOENT);
}

/* Checks that a listing comes in strictly increasing strcmp() order. */
struct order_ctx {
	char prev[VFS_NAME_MAX];	/* the entry before */
	int n;				/* entries seen */
	int bad;			/* entries out of order */
};

static void order_cb(const char *name, bool is_dir, void *ctx)
{
	struct order_ctx *o = ctx;

	(void)is_dir;
	if (o->n && strcmp(o->prev, name) >= 0)
		o->bad++;
	snprintf(o->prev, sizeof(o->prev), "%s", name);
	o->n++;
}

/* Order holds for many entries created in numeric, reverse and mixed order. */
HTEST(vfs_list_order_many)
{
	static const char *const dirs[] = { "/sys/devices/system/memory", "/rev", "/mix" };
	char path[64];

	vfs_init();
	for (int i = 0; i < 2000; i++) {
		snprintf(path, sizeof(path), "/sys/devices/system/memory/memory%d", i);
		CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
		snprintf(path, sizeof(path), "/rev/n%d", 1999 - i);
		CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
		snprintf(path, sizeof(path), "/mix/n%d", (i * 7919) % 2000);
		CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
	}
	for (size_t d = 0; d < ARRAY_SIZE(dirs); d++) {
		struct order_ctx oc = { "", 0, 0 };

		CHECK_EQ(vfs_list(dirs[d], order_cb, &oc), 0);
		CHECK_EQ(oc.n, 2000);
		CHECK_EQ(oc.bad, 0);
	}
	/* Removing every other entry keeps the rest in order. */
	for (int i = 0; i < 2000; i += 2) {
		snprintf(path, sizeof(path), "/mix/n%d", i);
		CHECK_EQ(vfs_remove(path), 0);
	}
	for (int i = 0; i < 2000; i += 4) {
		snprintf(path, sizeof(path), "/mix/n%d", i);
		CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
	}
	{
		struct order_ctx oc = { "", 0, 0 };

		CHECK_EQ(vfs_list("/mix", order_cb, &oc), 0);
		CHECK_EQ(oc.n, 1500);
		CHECK_EQ(oc.bad, 0);
	}
	vfs_init();
}

HTEST(vfs_read_write_errors)
{
	int ret;

	vfs_init();
	CHECK_EQ(vfs_create("/f/rw", &rw_ops, "rw"), 0);
	CHECK_EQ(vfs_create("/f/ro", &ro_ops, "ro"), 0);
	CHECK_EQ(vfs_create("/f/fail", &fail_ops, NULL), 0);
	CHECK_EQ(vfs_create("/f/wo", &wo_ops, NULL), 0);

	CHECK_EQ(vfs_write("/f/rw", "1\n", 2), 0);
	CHECK_EQ(vfs_write("/f/rw", "2\n", 2), -EINVAL);	/* store()'s verdict */
	CHECK_EQ(vfs_write("/f/rw", "b\n", 2), -EBUSY);
	CHECK_EQ(vfs_write("/f/ro", "1\n", 2), -EACCES);
	CHECK_EQ(vfs_write("/f", "1\n", 2), -EISDIR);
	CHECK_EQ(vfs_write("/f/none", "1\n", 2), -ENOENT);
	CHECK_EQ(vfs_write("/f/wo", "1\n", 2), 0);

	read_file("/f", &ret);
	CHECK_EQ(ret, -EISDIR);
	read_file("/f/none", &ret);
	CHECK_EQ(ret, -ENOENT);
	read_file("/f/fail", &ret);
	CHECK_EQ(ret, -ENODATA);
	read_file("/f/wo", &ret);
	CHECK_EQ(ret, -EACCES);
	read_file("/f/ro/x", &ret);
	CHECK_EQ(ret, -ENOTDIR);
}

HTEST(vfs_remove_file_and_tree)
{
	char path[VFS_PATH_MAX];
	int ret;

	vfs_init();
	CHECK_EQ(vfs_create("/r/keep", &ro_ops, NULL), 0);
	for (int d = 0; d < 10; d++)
		for (int f = 0; f < 50; f++) {
			snprintf(path, sizeof(path), "/r/tree/d%d/f%d", d, f);
			CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);
		}
	/* A deep chain: /r/tree/deep/a/a/a/... */
	strcpy(path, "/r/tree/deep");
	while (strlen(path) + 3 < VFS_PATH_MAX)
		strcat(path, "/a");
	CHECK_EQ(vfs_create(path, &ro_ops, NULL), 0);

	CHECK_EQ(vfs_remove("/r/tree/d3/f7"), 0);
	CHECK_EQ(vfs_stat("/r/tree/d3/f7", NULL, NULL), -ENOENT);
	CHECK_EQ(vfs_remove("/r/tree/d3/f7"), -ENOENT);
	CHECK_EQ(vfs_stat("/r/tree/d3/f8", NULL, NULL), 0);

	CHECK_EQ(vfs_remove("/r/tree"), 0);
	CHECK_EQ(vfs_stat("/r/tree", NULL, NULL), -ENOENT);
	CHECK_EQ(vfs_stat("/r/tree/deep/a", NULL, NULL), -ENOENT);
	CHECK_STREQ(list("/r", &ret), "keep");
	CHECK_EQ(vfs_remove("/"), -EINVAL);
	CHECK_EQ(vfs_remove("/nope"), -ENOENT);

	/* The names can be used again. */
	CHECK_EQ(vfs_create("/r/tree/d3/f7", &ro_ops, NULL), 0);
	CHECK_STREQ(list("/r/tree", &ret), "d3/");
}

/* Fill the pool with files below /p; returns how many fit. */
static int fill_pool(int *last_err)
{
	char path[64];
	int n = 0, ret;

	for (;;) {
		snprintf(path, sizeof(path), "/p/f%d", n);
		ret = vfs_create(path, &ro_ops, NULL);
		if (ret) {
			*last_err = ret;
			return n;
		}
		n++;
		if (n > (VFS_STATIC_TABLE + 64) * VFS_CHUNK_NODES) {
			*last_err = 0;
			return n;	/* the bound does not hold */
		}
	}
}

HTEST(vfs_pool_exhaustion)
{
	int err = 0, n, again;

	vfs_init();
	CHECK_EQ(vfs_remove("/htest"), 0);	/* only the root is in use now */
	n = fill_pool(&err);
	CHECK_EQ(err, -ENOSPC);
	/* no chunk source: the static chunks; root and /p take one node each */
	CHECK_EQ(n, VFS_STATIC_CHUNKS * VFS_CHUNK_NODES - 2);

	/* A file needing two new nodes fails without leaving its directory. */
	CHECK_EQ(vfs_create("/q/x", &ro_ops, NULL), -ENOSPC);
	CHECK_EQ(vfs_stat("/q", NULL, NULL), -ENOENT);

	/* One removal makes room for exactly one file. */
	CHECK_EQ(vfs_remove("/p/f100"), 0);
	CHECK_EQ(vfs_create("/p/new", &ro_ops, NULL), 0);
	CHECK_EQ(vfs_create("/p/new2", &ro_ops, NULL), -ENOSPC);

	/* Removing the whole directory gives every node back. */
	CHECK_EQ(vfs_remove("/p"), 0);
	again = fill_pool(&err);
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(again, n);
	vfs_init();
}

/* A malloc-backed chunk source that can be told to run dry. */
static void *test_chunks[VFS_STATIC_TABLE + 64];
static unsigned int test_nr_chunks, test_chunk_limit;

static void *test_chunk_alloc(void)
{
	void *c;

	if (test_nr_chunks >= test_chunk_limit)
		return NULL;
	c = malloc(VFS_CHUNK_BYTES);
	memset(c, 0xa5, VFS_CHUNK_BYTES);	/* the tree must not trust the contents */
	test_chunks[test_nr_chunks++] = c;
	return c;
}

static void test_chunks_free(void)
{
	vfs_set_chunk_source(NULL);
	vfs_init();				/* forgets the chunks ... */
	while (test_nr_chunks)			/* ... so they can go */
		free(test_chunks[--test_nr_chunks]);
}

/*
 * Past the static chunks the tree grows from its chunk source, every node
 * stays reachable across chunk boundaries, and a source that runs dry gives
 * -ENOSPC without losing anything.
 */
HTEST(vfs_pool_grows)
{
	const int statics = VFS_STATIC_CHUNKS * VFS_CHUNK_NODES;
	int err = 0, n, i;
	char path[64];

	vfs_init();
	CHECK_EQ(vfs_remove("/htest"), 0);
	test_chunk_limit = 3;
	vfs_set_chunk_source(test_chunk_alloc);
	n = fill_pool(&err);
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(test_nr_chunks, 3u);
	CHECK_EQ(n, statics + 3 * VFS_CHUNK_NODES - 2);

	/* every file, in static and taken chunks alike, is found by name and in order */
	for (i = 0; i < n; i += 997) {
		bool is_dir = true;

		snprintf(path, sizeof(path), "/p/f%d", i);
		CHECK_EQ(vfs_stat(path, &is_dir, NULL), 0);
		CHECK(!is_dir);
	}
	snprintf(path, sizeof(path), "/p/f%d", n - 1);
	CHECK_EQ(vfs_stat(path, NULL, NULL), 0);
	snprintf(path, sizeof(path), "/p/f%d", n);
	CHECK_EQ(vfs_stat(path, NULL, NULL), -ENOENT);

	/* a source with memory again: growth resumes where it stopped */
	test_chunk_limit = 4;
	CHECK_EQ(vfs_create(path, &ro_ops, "x"), 0);
	CHECK_EQ(test_nr_chunks, 4u);

	/* removing everything and filling again reuses the chunks, takes none */
	CHECK_EQ(vfs_remove("/p"), 0);
	CHECK_EQ(fill_pool(&err), statics + 4 * VFS_CHUNK_NODES - 2);
	CHECK_EQ(test_nr_chunks, 4u);
	test_chunks_free();

	test_chunks_free();
}

/*
 * Past the static chunk table (VFS_STATIC_TABLE chunks, about 38000 memory
 * blocks' files) the table moves into a chunk of its own, and past four
 * nodes a bucket the name hash moves into one: a tree of 120 source chunks
 * holds every node it has room for, each found by name after the rehash,
 * and the source running dry is still -ENOSPC with nothing lost.
 */
HTEST(vfs_table_and_hash_grow)
{
	const unsigned int limit = VFS_STATIC_TABLE + 24;
	struct vfs_stats st;
	int err = 0, n, i;
	char path[64];

	vfs_init();
	CHECK_EQ(vfs_remove("/htest"), 0);
	vfs_get_stats(&st);
	CHECK_EQ(st.table_slots, VFS_STATIC_TABLE);
	CHECK_EQ(st.buckets, 16384u);
	test_chunk_limit = limit;
	vfs_set_chunk_source(test_chunk_alloc);
	n = fill_pool(&err);
	CHECK_EQ(err, -ENOSPC);
	CHECK_EQ(test_nr_chunks, limit);
	/* two of the source's chunks went to the table and the hash */
	CHECK_EQ(n, (int)((VFS_STATIC_CHUNKS + limit - 2) * VFS_CHUNK_NODES) - 2);
	vfs_get_stats(&st);
	CHECK_EQ(st.table_slots, VFS_MAX_CHUNKS);
	CHECK_EQ(st.buckets, 65536u);
	CHECK_EQ(st.chunks, VFS_STATIC_CHUNKS + limit - 2);
	CHECK_EQ(st.nodes, st.capacity);
	for (i = 0; i < n; i += 4999) {
		snprintf(path, sizeof(path), "/p/f%d", i);
		CHECK_EQ(vfs_stat(path, NULL, NULL), 0);
	}
	snprintf(path, sizeof(path), "/p/f%d", n - 1);
	CHECK_EQ(vfs_stat(path, NULL, NULL), 0);
	/* removal and refill after the growth: the same count, no new chunk */
	CHECK_EQ(vfs_remove("/p"), 0);
	CHECK_EQ(fill_pool(&err), n);
	CHECK_EQ(test_nr_chunks, limit);
	test_chunks_free();
	vfs_get_stats(&st);
	CHECK_EQ(st.table_slots, VFS_STATIC_TABLE);
	CHECK_EQ(st.buckets, 16384u);
}

/* A link's target is the string in its data. */
static int link_target(char *buf, size_t size, void *data)
{
	strlcpy(buf, data, size);
	return 0;
}

static const struct vfs_file_ops link_ops = { .readlink = link_target };

/* Relative and absolute links, links inside paths, loops, removal of the link only. */
HTEST(vfs_symlinks)
{
	static const struct vfs_file_ops ro_ops = { .show = show_name };
	struct vfs_attr a;
	char buf[VFS_PATH_MAX];
	bool is_dir = false;

	vfs_init();
	CHECK_EQ(vfs_create("/sys/node/node0/meminfo", &ro_ops, "n0"), 0);
	CHECK_EQ(vfs_create("/proc/pm", &ro_ops, "pm"), 0);
	CHECK_EQ(vfs_create("/sys/memory/memory0/node0", &link_ops, "../../node/node0"), 0);
	CHECK_EQ(vfs_create("/sys/abs", &link_ops, "/proc/pm"), 0);
	CHECK_EQ(vfs_create("/sys/loop", &link_ops, "loop"), 0);
	CHECK_EQ(vfs_create("/sys/dangling", &link_ops, "nowhere"), 0);

	{
		char out[16];
		struct buf_printer bp;

		buf_printer_init(&bp, out, sizeof(out));
		CHECK_EQ(vfs_read("/sys/memory/memory0/node0/meminfo", &bp.p), 0);
		CHECK_STREQ(out, "n0\n");
	}
	CHECK_EQ(vfs_stat("/sys/memory/memory0/node0", &is_dir, NULL), 0);
	CHECK(is_dir);
	CHECK_EQ(vfs_lstat("/sys/memory/memory0/node0", &a), 0);
	CHECK_EQ(a.type, VFS_LINK);
	CHECK_EQ(a.size, 0);
	CHECK_EQ(vfs_lstat("/sys/memory/memory0/node0/", &a), 0);	/* trailing '/': followed */
	CHECK_EQ(a.type, VFS_DIR);
	CHECK_EQ(vfs_lstat("/sys/node/node0/meminfo", &a), 0);
	CHECK_EQ(a.type, VFS_REG);
	CHECK_EQ(a.size, 4096);
	CHECK_EQ(vfs_lstat("/proc/pm", &a), 0);
	CHECK_EQ(a.size, 0);
	CHECK_EQ(vfs_readlink("/sys/memory/memory0/node0", buf, sizeof(buf)), 0);
	CHECK_STREQ(buf, "../../node/node0");
	CHECK_EQ(vfs_readlink("/proc/pm", buf, sizeof(buf)), -EINVAL);
	CHECK_EQ(vfs_stat("/sys/abs", &is_dir, NULL), 0);
	CHECK(!is_dir);
	CHECK_EQ(vfs_stat("/sys/loop", NULL, NULL), -ELOOP);
	CHECK_EQ(vfs_stat("/sys/dangling", NULL, NULL), -ENOENT);
	CHECK_EQ(vfs_lstat("/sys/dangling", &a), 0);

	/* write errors: procfs EIO at write, sysfs EACCES at open */
	CHECK_EQ(vfs_open_write("/proc/pm"), 0);
	CHECK_EQ(vfs_write("/proc/pm", "1\n", 2), -EIO);
	CHECK_EQ(vfs_open_write("/sys/node/node0/meminfo"), -EACCES);
	CHECK_EQ(vfs_write("/sys/node/node0/meminfo", "1\n", 2), -EACCES);

	/* removing a link leaves its target */
	CHECK_EQ(vfs_remove("/sys/memory/memory0/node0"), 0);
	CHECK_EQ(vfs_stat("/sys/node/node0/meminfo", NULL, NULL), 0);
	vfs_init();
}

/* ---- directory sources and vfs_numbered_next() -------------------------- */

/* A set of numbers as a bitmap, for vfs_numbered_next() and a source. */
#define SET_MAX	20000
static unsigned char set_bits[SET_MAX / 8 + 1];

static bool set_has(u64 n)
{
	return n < SET_MAX && (set_bits[n / 8] >> (n % 8) & 1);
}

static bool set_member(u64 n, void *ctx)
{
	(void)ctx;
	return set_has(n);
}

static bool set_any(u64 lo, u64 hi, void *ctx)
{
	(void)ctx;
	for (u64 n = lo; n <= hi && n < SET_MAX; n++)
		if (set_has(n))
			return true;
	return false;
}

/* Like set_any but unsure everywhere: the search must still be right. */
static bool set_any_unsure(u64 lo, u64 hi, void *ctx)
{
	(void)lo;
	(void)hi;
	(void)ctx;
	return true;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * For random sets, walking vfs_numbered_next() from "" gives exactly the
 * set's names in strcmp() order, with an exact any() and with one that
 * always says "maybe"; and from names not in the set (other prefixes,
 * leading zeros, a letter after the digits) it gives the first name of
 * the set that sorts after them.
 */
HTEST(vfs_numbered_next_walks_strcmp_order)
{
	static char names[SET_MAX][24];
	static char *sorted[SET_MAX];

	for (unsigned seed = 1; seed <= 6; seed++) {
		unsigned n = 0, max = seed <= 3 ? 1200 : SET_MAX - 1;

		srand(seed);
		memset(set_bits, 0, sizeof(set_bits));
		for (unsigned i = 0; i <= max; i++)
			if (rand() % (seed % 2 ? 2 : 40) == 0 || i == max) {
				set_bits[i / 8] |= 1 << (i % 8);
				snprintf(names[n], sizeof(names[n]), "memory%u", i);
				sorted[n] = names[n];
				n++;
			}
		qsort(sorted, n, sizeof(sorted[0]), cmp_str);
		for (int pass = 0; pass < 2; pass++) {
			char after[32] = "";
			unsigned k = 0;
			u64 id;

			while (vfs_numbered_next("memory", after, max, pass ? set_any_unsure : set_any,
						 set_member, NULL, &id)) {
				snprintf(after, sizeof(after), "memory%llu", (unsigned long long)id);
				CHECK(k < n);
				if (k >= n)
					break;
				CHECK_STREQ(after, sorted[k]);
				k++;
				if (pass && k > 300)	/* "maybe" everywhere is slow: a prefix will do */
					break;
			}
			if (!pass)
				CHECK_EQ(k, n);
		}
		/* odd starting points, checked against the sorted names */
		static const char *const probes[] = { "", "a", "memor", "memory", "memory-",
			"memory0", "memory00", "memory1", "memory10x", "memory1x", "memory123456789012345678901",
			"memoryz", "n", "memory9", "memory99999" };
		for (size_t p = 0; p < sizeof(probes) / sizeof(probes[0]); p++) {
			const char *want = NULL;
			char got[32] = "";
			u64 id;

			for (unsigned k = 0; k < n && !want; k++)
				if (strcmp(sorted[k], probes[p]) > 0)
					want = sorted[k];
			if (vfs_numbered_next("memory", probes[p], max, set_any, set_member, NULL, &id))
				snprintf(got, sizeof(got), "memory%llu", (unsigned long long)id);
			CHECK_STREQ(got, want ? want : "");
		}
	}
}

/* A source over the set: "itemN" directories, each with a file "v". */
static unsigned source_makes;

static int show_item(struct printer *p, void *data)
{
	pr_printf(p, "%lu\n", (unsigned long)(uintptr_t)data);
	return 0;
}

static const struct vfs_file_ops item_ops = { .show = show_item };

static bool items_next(const char *after, char name[VFS_NAME_MAX], bool *is_dir, void *data)
{
	u64 id;

	(void)data;
	*is_dir = true;
	if (!vfs_numbered_next("item", after, SET_MAX - 1, set_any, set_member, NULL, &id))
		return false;
	snprintf(name, VFS_NAME_MAX, "item%llu", (unsigned long long)id);
	return true;
}

static int items_make(const char *name, void *data)
{
	char path[VFS_PATH_MAX], again[VFS_NAME_MAX];
	unsigned long id;
	char extra;

	(void)data;
	if (sscanf(name, "item%lu%c", &id, &extra) != 1 || !set_has(id))
		return -ENOENT;
	snprintf(again, sizeof(again), "item%lu", id);
	if (strcmp(again, name))	/* "item01" is not item1's name */
		return -ENOENT;
	snprintf(path, sizeof(path), "/src/items/item%lu/v", id);
	source_makes++;
	return vfs_create(path, &item_ops, (void *)(uintptr_t)id);
}

static const struct vfs_dir_source items_source = { .next = items_next, .make = items_make };

/* An `ls -l`-like emit: stats every entry it is given, which makes it. */
static void collect_and_stat(const char *name, bool is_dir, void *ctx)
{
	char path[VFS_PATH_MAX];
	struct vfs_attr a;

	snprintf(path, sizeof(path), "/src/items/%s", name);
	CHECK_EQ(vfs_lstat(path, &a), 0);
	CHECK_EQ(a.type == VFS_DIR, is_dir);
	collect(name, is_dir, ctx);
}

/*
 * Entries of a source exist without nodes: listed in order among the
 * directory's own nodes, made (once) by the first lookup below them, left
 * unmade by vfs_remove() and by a listing; an emit that makes entries while
 * the directory is listed still sees every name once.  A name the source
 * does not have is -ENOENT; a removed entry can be made again.
 */
HTEST(vfs_dir_source_makes_entries_when_looked_at)
{
	struct vfs_stats st0, st;
	struct listing l;
	int ret;

	vfs_init();
	memset(set_bits, 0, sizeof(set_bits));
	for (unsigned i = 0; i < 12; i++)
		set_bits[i / 8] |= 1 << (i % 8);	/* item0 .. item11 */
	CHECK_EQ(vfs_create("/src/items/info", &ro_ops, "i"), 0);
	CHECK_EQ(vfs_create("/src/items/itemz", &ro_ops, "z"), 0);	/* after every itemN */
	CHECK_EQ(vfs_create("/src/file", &ro_ops, "f"), 0);
	CHECK_EQ(vfs_set_dir_source("/src/file", &items_source), -ENOTDIR);
	CHECK_EQ(vfs_set_dir_source("/src/items", &items_source), 0);
	source_makes = 0;
	vfs_get_stats(&st0);
	CHECK_STREQ(list("/src/items", &ret),
		    "info item0/ item1/ item10/ item11/ item2/ item3/ item4/ item5/ item6/ item7/ "
		    "item8/ item9/ itemz");
	CHECK_EQ(ret, 0);
	vfs_get_stats(&st);
	CHECK_EQ(st.nodes, st0.nodes);		/* a listing makes nothing */
	CHECK_EQ(source_makes, 0);

	CHECK_STREQ(read_file("/src/items/item10/v", &ret), "10\n");
	CHECK_EQ(ret, 0);
	CHECK_STREQ(read_file("/src/items/item10/v", &ret), "10\n");
	CHECK_EQ(source_makes, 1);
	vfs_get_stats(&st);
	CHECK_EQ(st.nodes, st0.nodes + 2);	/* item10/ and v */
	CHECK_STREQ(list("/src/items/item3", &ret), "v");
	CHECK_EQ(source_makes, 2);
	read_file("/src/items/item12/v", &ret);
	CHECK_EQ(ret, -ENOENT);
	read_file("/src/items/item01/v", &ret);
	CHECK_EQ(ret, -ENOENT);
	CHECK_EQ(vfs_remove("/src/items/item4"), -ENOENT);	/* not made: nothing to remove */
	CHECK_EQ(source_makes, 2);

	/* listing while the emit makes each entry */
	memset(&l, 0, sizeof(l));
	CHECK_EQ(vfs_list("/src/items", collect_and_stat, &l), 0);
	CHECK_STREQ(l.text, "info item0/ item1/ item10/ item11/ item2/ item3/ item4/ item5/ "
		    "item6/ item7/ item8/ item9/ itemz");
	CHECK_EQ(source_makes, 12);
	CHECK_STREQ(list("/src/items", &ret), l.text);

	/* an entry removed, then gone from the set, then back */
	CHECK_EQ(vfs_remove("/src/items/item5"), 0);
	set_bits[0] &= ~(1 << 5);
	CHECK_STREQ(list("/src/items", &ret), "info item0/ item1/ item10/ item11/ item2/ item3/ "
		    "item4/ item6/ item7/ item8/ item9/ itemz");
	read_file("/src/items/item5/v", &ret);
	CHECK_EQ(ret, -ENOENT);
	set_bits[0] |= 1 << 5;
	CHECK_STREQ(read_file("/src/items/item5/v", &ret), "5\n");
	vfs_init();
}
