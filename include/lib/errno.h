/*
 * errno.h - error numbers, Linux's values, and their texts.
 *
 * Every fallible memlab function returns 0 or a negative errno.  The shell
 * turns -errno into the words Linux prints (strerror), so a rejected write
 * reads "write error: Invalid argument" exactly as on Linux.
 */
#ifndef LIB_ERRNO_H
#define LIB_ERRNO_H

#define EPERM		1	/* Operation not permitted */
#define ENOENT		2	/* No such file or directory */
#define ESRCH		3	/* No such process */
#define EINTR		4	/* Interrupted system call */
#define EIO		5	/* Input/output error */
#define E2BIG		7	/* Argument list too long */
#define ENOEXEC		8	/* Exec format error */
#define EAGAIN		11	/* Resource temporarily unavailable */
#define ENOMEM		12	/* Cannot allocate memory */
#define EACCES		13	/* Permission denied */
#define EFAULT		14	/* Bad address */
#define EBUSY		16	/* Device or resource busy */
#define EEXIST		17	/* File exists */
#define ENODEV		19	/* No such device */
#define ENOTDIR		20	/* Not a directory */
#define EISDIR		21	/* Is a directory */
#define EINVAL		22	/* Invalid argument */
#define ENOSPC		28	/* No space left on device */
#define ERANGE		34	/* Numerical result out of range */
#define ENAMETOOLONG	36	/* File name too long */
#define ENOSYS		38	/* Function not implemented */
#define ELOOP		40	/* Too many levels of symbolic links */
#define ENODATA		61	/* No data available */
#define EOVERFLOW	75	/* Value too large for defined data type */
#define EOPNOTSUPP	95	/* Operation not supported */
#define ETIMEDOUT	110	/* Connection timed out */

/*
 * err_text() - the Linux text for an errno value (positive or negative).
 * Unknown values give "Unknown error".  Never returns NULL.
 */
const char *err_text(int err);

#endif
