/*
 * params.c - reading, storing and showing kernel parameters (see
 * include/lib/params.h): the one place that decides what text a parameter
 * accepts, for the boot command line (kernel/cmdline.c) and for
 * /sys/module/MODULE/parameters/ (views/sysfs_params.c) alike.
 */
#include <lib/errno.h>
#include <lib/kstrtox.h>
#include <lib/params.h>
#include <lib/string.h>

/* Read the number in buf by kp's type, before the range check. */
static int parse_number(const struct kernel_param *kp, const char *buf, size_t len, u64 *v)
{
	unsigned long long n;
	int err = kp->type == PARAM_SIZE ? memparse(buf, len, &n) : kstrtoull(buf, len, &n);

	if (err)
		return err;
	*v = n;
	return 0;
}

/* Contract in include/lib/params.h. */
int param_store(const struct kernel_param *kp, u64 v)
{
	switch (kp->type) {
	case PARAM_BOOL:
		if (v > 1)
			return -EINVAL;
		break;
	case PARAM_UINT:
	case PARAM_SIZE:
		if (v < kp->min || v > kp->max)
			return -ERANGE;
		break;
	case PARAM_ENUM:
		if (v >= kp->nr_names)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if (kp->set)
		return kp->set(v);
	switch (kp->type) {
	case PARAM_BOOL:
		*(bool *)kp->value = v;
		break;
	case PARAM_UINT:
		*(unsigned int *)kp->value = (unsigned int)v;
		break;
	case PARAM_SIZE:
		*(u64 *)kp->value = v;
		break;
	case PARAM_ENUM:
		*(int *)kp->value = (int)v;
		break;
	}
	return 0;
}

int param_set(const struct kernel_param *kp, const char *buf, size_t len)
{
	bool b;
	u64 v;
	int err;

	switch (kp->type) {
	case PARAM_BOOL:
		err = kstrtobool(buf, len, &b);
		if (err)
			return err;
		return param_store(kp, b);
	case PARAM_UINT:
	case PARAM_SIZE:
		err = parse_number(kp, buf, len, &v);
		if (err)
			return err;
		return param_store(kp, v);
	case PARAM_ENUM:
		for (unsigned i = 0; i < kp->nr_names; i++)
			if (sysfs_streq(buf, len, kp->names[i]))
				return param_store(kp, i);
		return -EINVAL;
	}
	return -EINVAL;
}

u64 param_get(const struct kernel_param *kp)
{
	if (kp->get)
		return kp->get();
	switch (kp->type) {
	case PARAM_BOOL:
		return *(const bool *)kp->value;
	case PARAM_UINT:
		return *(const unsigned int *)kp->value;
	case PARAM_ENUM:
		return (u64)*(const int *)kp->value;
	case PARAM_SIZE:
		return *(const u64 *)kp->value;
	}
	return 0;
}

void param_show_value(const struct kernel_param *kp, struct printer *p, u64 v)
{
	switch (kp->type) {
	case PARAM_BOOL:
		pr_printf(p, "%c", v ? 'Y' : 'N');
		break;
	case PARAM_ENUM:
		pr_printf(p, "%s", v < kp->nr_names ? kp->names[v] : "?");
		break;
	case PARAM_UINT:
	case PARAM_SIZE:
		pr_printf(p, "%llu", (unsigned long long)v);
		break;
	}
}

void param_show(const struct kernel_param *kp, struct printer *p)
{
	param_show_value(kp, p, param_get(kp));
	pr_printf(p, "\n");
}

const char *param_type_name(const struct kernel_param *kp)
{
	static const char *const names[] = {
		[PARAM_BOOL] = "bool", [PARAM_UINT] = "uint",
		[PARAM_ENUM] = "enum", [PARAM_SIZE] = "size",
	};

	return (unsigned)kp->type < ARRAY_SIZE(names) ? names[kp->type] : "?";
}

const char *param_error(const struct kernel_param *kp, int err, char *buf, size_t size)
{
	struct buf_printer bp;
	struct printer *p = &bp.p;

	buf_printer_init(&bp, buf, size);
	if (err == -ERANGE) {
		pr_printf(p, "out of range [%llu, %llu]", (unsigned long long)kp->min,
			  (unsigned long long)kp->max);
		return buf;
	}
	switch (kp->type) {
	case PARAM_BOOL:
		pr_printf(p, "not a boolean (1/0, y/n, Y/N, on/off)");
		break;
	case PARAM_UINT:
		pr_printf(p, "not an unsigned number");
		break;
	case PARAM_SIZE:
		pr_printf(p, "not a size (a number with an optional K, M, G or T)");
		break;
	case PARAM_ENUM:
		pr_printf(p, "not one of");
		for (unsigned i = 0; i < kp->nr_names; i++)
			pr_printf(p, "%s%s", i ? "/" : " ", kp->names[i]);
		break;
	}
	return buf;
}

const char *param_full_name(const struct kernel_param *kp, char *buf, size_t size)
{
	struct buf_printer bp;

	buf_printer_init(&bp, buf, size);
	if (kp->module)
		pr_printf(&bp.p, "%s.", kp->module);
	pr_printf(&bp.p, "%s", kp->name);
	return buf;
}

/* Does name[0, len) equal s, with '-' and '_' the same? */
static bool name_eq(const char *name, size_t len, const char *s)
{
	for (size_t i = 0; i < len; i++, s++) {
		char a = name[i] == '-' ? '_' : name[i];
		char b = *s == '-' ? '_' : *s;

		if (!*s || a != b)
			return false;
	}
	return *s == '\0';
}

const struct kernel_param *param_find(const char *name)
{
	const char *dot = strchr(name, '.');

	for_each_kernel_param(kp) {
		if (kp->module) {
			if (dot && name_eq(name, (size_t)(dot - name), kp->module) &&
			    name_eq(dot + 1, strlen(dot + 1), kp->name))
				return kp;
		} else if (!dot && name_eq(name, strlen(name), kp->name)) {
			return kp;
		}
	}
	return NULL;
}
