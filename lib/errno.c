/*
 * errno.c - the words for an errno, as Linux's C library prints them
 * (named err_text, not strerror, so the host tests can include both this
 * and the C library's string.h).
 */
#include <lib/errno.h>

const char *err_text(int err)
{
	if (err < 0)
		err = -err;
	switch (err) {
	case 0: return "Success";
	case EPERM: return "Operation not permitted";
	case ENOENT: return "No such file or directory";
	case ESRCH: return "No such process";
	case EINTR: return "Interrupted system call";
	case EIO: return "Input/output error";
	case E2BIG: return "Argument list too long";
	case ENOEXEC: return "Exec format error";
	case EAGAIN: return "Resource temporarily unavailable";
	case ENOMEM: return "Cannot allocate memory";
	case EACCES: return "Permission denied";
	case EFAULT: return "Bad address";
	case EBUSY: return "Device or resource busy";
	case EEXIST: return "File exists";
	case ENODEV: return "No such device";
	case ENOTDIR: return "Not a directory";
	case EISDIR: return "Is a directory";
	case EINVAL: return "Invalid argument";
	case ENOSPC: return "No space left on device";
	case ERANGE: return "Numerical result out of range";
	case ENAMETOOLONG: return "File name too long";
	case ENOSYS: return "Function not implemented";
	case ELOOP: return "Too many levels of symbolic links";
	case ENODATA: return "No data available";
	case EOVERFLOW: return "Value too large for defined data type";
	case EOPNOTSUPP: return "Operation not supported";
	case ETIMEDOUT: return "Connection timed out";
	default: return "Unknown error";
	}
}
