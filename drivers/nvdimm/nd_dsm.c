/*
 * nd_dsm.c - label access through an NVDIMM's _DSM (include/drivers/nd_dsm.h):
 * the arguments built as AML objects, the method run by the interpreter,
 * the reply checked before any byte of it is used.
 */
#include <drivers/nd_dsm.h>
#include <drivers/nd_label.h>
#include <lib/errno.h>
#include <lib/printk.h>
#include <lib/string.h>

/* 4309ac30-0d11-11e4-9191-0800200c9a66 as ToUUID lays it out. */
static const u8 intel_dsm_uuid[16] = {
	0x30, 0xac, 0x09, 0x43, 0x11, 0x0d, 0xe4, 0x11,
	0x91, 0x91, 0x08, 0x00, 0x20, 0x0c, 0x9a, 0x66,
};

static const char *status_name(u32 st)
{
	static const char *const names[] = {
		"success", "not supported", "no such memory device", "invalid input",
		"hardware error", "retry suggested", "unknown failure", "function-specific error",
	};

	return st < ARRAY_SIZE(names) ? names[st] : "undefined status";
}

struct find_arg { u32 handle; char root[96]; size_t root_len; struct aml_node *found; };

/* A child of the root (its path the root's and one more name) with _ADR
 * == the handle and a _DSM. */
static int find_dimm(struct aml_ns *ns, struct aml_node *dev, void *arg)
{
	struct find_arg *fa = arg;
	char path[96];
	u64 adr;

	aml_node_path(dev, path, sizeof(path));
	if (strncmp(path, fa->root, fa->root_len) || path[fa->root_len] != '.' ||
	    strchr(path + fa->root_len + 1, '.'))
		return 0;
	if (!aml_child(dev, "_DSM") || aml_eval_integer(ns, dev, "_ADR", &adr))
		return 0;
	if (adr == fa->handle) {
		fa->found = dev;
		return 1;
	}
	return 0;
}

static int find_root(struct aml_ns *ns, struct aml_node *root, void *arg)
{
	struct find_arg *fa = arg;

	aml_node_path(root, fa->root, sizeof(fa->root));
	fa->root_len = strlen(fa->root);
	return aml_walk_devices(ns, find_dimm, fa);
}

struct aml_node *nd_dsm_find(struct aml_ns *ns, u32 handle)
{
	struct find_arg fa = { .handle = handle };

	if (!ns)
		return NULL;
	aml_walk_hid(ns, "ACPI0012", find_root, &fa);
	return fa.found;
}

static u32 rd32(const u8 *p)
{
	return (u32)p[0] | (u32)p[1] << 8 | (u32)p[2] << 16 | (u32)p[3] << 24;
}

static void wr32(u8 *p, u32 v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (u8)v;
}

/*
 * One _DSM call: function fn with input in[0, inlen) (none if inlen is 0);
 * the output after the status into out[0, outmax), its length in *outlen.
 * The status word must be there and 0.
 */
static int dsm_call(struct aml_ns *ns, struct aml_node *dev, u32 fn, const void *in, u32 inlen,
		    u8 *out, u32 outmax, u32 *outlen, char *why, size_t why_size)
{
	struct aml_obj *args[4] = { 0 }, *inbuf = NULL, *res = NULL;
	u8 ibytes[8];
	const u8 *data;
	u32 len, st;
	int err, ret = 0;

	args[0] = aml_new_buffer_of(ns, intel_dsm_uuid, 16);
	args[1] = aml_new_integer(ns, 1);
	args[2] = aml_new_integer(ns, fn);
	if (inlen)
		inbuf = aml_new_buffer_of(ns, in, inlen);
	args[3] = aml_new_package_of(ns, &inbuf, inbuf ? 1 : 0);
	if (!args[0] || !args[1] || !args[2] || !args[3] || (inlen && !inbuf)) {
		ksnprintf(why, why_size, "_DSM function %u: AML arena exhausted", fn);
		ret = -ENOMEM;
		goto out;
	}
	err = aml_eval_at(ns, dev, "_DSM", args, 4, &res);
	if (err) {
		ksnprintf(why, why_size, "_DSM function %u failed: %s", fn,
			  aml_last_error(ns)->reason);
		ret = -EIO;
		goto out;
	}
	if (res && res->type == AML_INTEGER) {	/* a reply of exactly 8 bytes */
		u64 v = res->integer;

		for (int i = 0; i < 8; i++, v >>= 8)
			ibytes[i] = (u8)v;
		data = ibytes;
		len = 8;
	} else if (res && res->type == AML_BUFFER) {
		data = res->buf.data;
		len = res->buf.len;
	} else {
		ksnprintf(why, why_size, "_DSM function %u returned %s, not a buffer", fn,
			  res ? "an object of another type" : "nothing");
		ret = -EIO;
		goto out;
	}
	if (len < 4) {
		ksnprintf(why, why_size, "_DSM function %u: a reply of %u bytes, no status "
			  "(function not supported)", fn, len);
		ret = -EIO;
		goto out;
	}
	st = rd32(data);
	if (st) {
		ksnprintf(why, why_size, "_DSM function %u: status %u (%s)", fn, st,
			  status_name(st));
		ret = st == 1 ? -ENODEV : -EIO;
		goto out;
	}
	*outlen = len - 4 < outmax ? len - 4 : outmax;
	if (*outlen)
		memcpy(out, data + 4, *outlen);
out:
	for (int i = 0; i < 4; i++)
		if (args[i])
			aml_put(ns, args[i]);
	if (inbuf)
		aml_put(ns, inbuf);
	if (res)
		aml_put(ns, res);
	return ret;
}

int nd_dsm_label_size(struct aml_ns *ns, struct aml_node *dev, u32 *size, u32 *xfer,
		      char *why, size_t why_size)
{
	u8 out[8];
	u32 n;
	int err = dsm_call(ns, dev, 4, NULL, 0, out, sizeof(out), &n, why, why_size);

	if (err)
		return err;
	if (n < 8) {
		ksnprintf(why, why_size, "_DSM function 4: a short reply (%u bytes of output, "
			  "8 needed)", n);
		return -EIO;
	}
	*size = rd32(out);
	*xfer = rd32(out + 4);
	if (!*size) {
		ksnprintf(why, why_size, "no label area (size 0)");
		return -ENODEV;
	}
	if (*size < ND_LABEL_MIN_AREA || *size > ND_LABEL_MAX_AREA || *size % 256) {
		ksnprintf(why, why_size, "label area of %u bytes: memlab takes %u to %u, "
			  "a multiple of 256", *size, ND_LABEL_MIN_AREA, ND_LABEL_MAX_AREA);
		return -EINVAL;
	}
	if (!*xfer) {
		ksnprintf(why, why_size, "label area: a max transfer of 0 bytes");
		return -EINVAL;
	}
	if (*xfer > ND_DSM_MAX_XFER)
		*xfer = ND_DSM_MAX_XFER;
	return 0;
}

int nd_dsm_label_read(struct aml_ns *ns, struct aml_node *dev, u32 off, void *buf, u32 len,
		      u32 xfer, char *why, size_t why_size)
{
	u8 in[8], *p = buf;

	if (!xfer)
		return -EINVAL;
	while (len) {
		/* a piece of 4 bytes comes back as an 8-byte Integer: dsm_call() takes it */
		u32 n = len < xfer ? len : xfer, got;
		int err;

		wr32(in, off);
		wr32(in + 4, n);
		err = dsm_call(ns, dev, 5, in, 8, p, n, &got, why, why_size);
		if (err)
			return err;
		if (got < n) {
			ksnprintf(why, why_size, "_DSM function 5 at %u: a short reply (%u of %u "
				  "bytes)", off, got, n);
			return -EIO;
		}
		off += n;
		p += n;
		len -= n;
	}
	return 0;
}

int nd_dsm_label_write(struct aml_ns *ns, struct aml_node *dev, u32 off, const void *buf,
		       u32 len, u32 xfer, char *why, size_t why_size)
{
	static u8 in[8 + ND_DSM_MAX_XFER];	/* context: one AML caller at a time */
	const u8 *p = buf;

	if (!xfer)
		return -EINVAL;
	if (xfer > ND_DSM_MAX_XFER)
		xfer = ND_DSM_MAX_XFER;
	while (len) {
		u32 n = len < xfer ? len : xfer, got;
		int err;

		wr32(in, off);
		wr32(in + 4, n);
		memcpy(in + 8, p, n);
		err = dsm_call(ns, dev, 6, in, 8 + n, NULL, 0, &got, why, why_size);
		if (err)
			return err;
		off += n;
		p += n;
		len -= n;
	}
	return 0;
}
