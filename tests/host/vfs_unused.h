/*
 * vfs_unused.h - for a test that #includes a kernel file defining
 * VFS_FILE()s: each entry becomes an unused static instead of a member of
 * the vfs_files link section, so the file's paths stay out of the file
 * tree every other host test sees.  Include after <views/vfs.h> and before
 * the kernel file.
 */
#undef VFS_FILE
#define VFS_FILE(ident, path_, ops_, data_)					\
	static const struct vfs_static_file vfs_file_##ident __attribute__((unused)) = \
	{ .path = (path_), .ops = (ops_), .data = (data_) }
