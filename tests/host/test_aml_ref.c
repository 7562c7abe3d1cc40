/*
 * test_aml_ref.c - memlab's AML interpreter against ACPICA's acpiexec, the
 * reference: for each ASL table of tests/host/aml/ that lists evaluations
 * ("//! eval PATH [ARGS]", in order, in one namespace; "//! tables A B" for
 * a set of tables), acpiexec runs them in batch mode on the same compiled
 * tables (build/aml/, by the Makefile), and memlab's printed result must be
 * the same text: acpiexec's lines after "Evaluation of ..." (its own
 * result dump), or its "No object was returned" line, or its failure.
 * acpiexec runs with -di (no _INI at load: memlab's test does not run
 * them either) and -dr (no repair of predefined names' results).
 */
#include "htest.h"
#include "aml_fake.h"
#include <dirent.h>
#include <stdlib.h>

#define MAX_EVALS 256
#define OUT_BYTES 65536

struct ref_case {
	char tables[8][160];	/* paths of the .aml/.dat files */
	unsigned ntables;
	char path[MAX_EVALS][64];
	u64 args[MAX_EVALS][7];
	unsigned nargs[MAX_EVALS];
	unsigned nevals;
};

/* Read the //! lines of one .asl file. */
static bool read_case(const char *asl, const char *base, struct ref_case *rc)
{
	FILE *f = fopen(asl, "r");
	char line[512];

	memset(rc, 0, sizeof(*rc));
	if (!f)
		return false;
	while (fgets(line, sizeof(line), f)) {
		char *tok, *save;
		if (strncmp(line, "//! ", 4))
			continue;
		tok = strtok_r(line + 4, " \t\n", &save);
		if (tok && !strcmp(tok, "tables")) {
			while ((tok = strtok_r(NULL, " \t\n", &save)) && rc->ntables < 8)
				snprintf(rc->tables[rc->ntables++], 160, "build/aml/%s.aml", tok);
		} else if (tok && !strcmp(tok, "eval") && rc->nevals < MAX_EVALS) {
			unsigned i = rc->nevals++;
			tok = strtok_r(NULL, " \t\n", &save);
			snprintf(rc->path[i], 64, "%s", tok ? tok : "");
			while ((tok = strtok_r(NULL, " \t\n", &save)) && rc->nargs[i] < 7)
				rc->args[i][rc->nargs[i]++] = strtoull(tok, NULL, 0);
		}
	}
	fclose(f);
	if (!rc->ntables)
		snprintf(rc->tables[rc->ntables++], 160, "build/aml/%s.aml", base);
	return true;
}

/*
 * acpiexec's result text for evaluations [first, last) into out[], one
 * acpiexec run.  Its batch line holds about 500 characters, so
 * run_acpiexec() splits longer lists into several runs.
 */
static bool run_batch(const struct ref_case *rc, unsigned first, unsigned last, char **out)
{
	static char cmd[8192];
	char line[1024];
	size_t len = 0;
	int cur = (int)first - 1;
	bool in_result = false;

	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "acpiexec -di -dr -b \"");
	for (unsigned i = first; i < last; i++) {
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "evaluate %s", rc->path[i]);
		for (unsigned k = 0; k < rc->nargs[i]; k++)
			len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %llu",
						(unsigned long long)rc->args[i][k]);
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "; ");
	}
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "\"");
	for (unsigned t = 0; t < rc->ntables; t++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %s", rc->tables[t]);
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " 2>&1");
	FILE *f = popen(cmd, "r");
	if (!f)
		return false;
	for (unsigned i = first; i < last; i++)
		out[i][0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Evaluating ", 11)) {
			cur++;
			in_result = true;
			continue;
		}
		if (cur < (int)first || cur >= (int)last || !in_result)
			continue;
		if (line[0] == '\n' || !strncmp(line, "ACPI: ", 6) || !strncmp(line, "ACPI Error", 10)) {
			in_result = line[0] != '\n' && in_result;
			if (line[0] == '\n')
				in_result = false;
			continue;
		}
		if (!strncmp(line, "Evaluation of ", 14) && strstr(line, "returned object"))
			continue;
		if (strstr(line, "Outstanding allocations after evaluation"))
			continue;
		if (!strncmp(line, "Evaluation of ", 14) && strstr(line, "failed")) {
			snprintf(out[cur], OUT_BYTES, "FAILED\n");
			in_result = false;
			continue;
		}
		strncat(out[cur], line, OUT_BYTES - 1 - strlen(out[cur]));
	}
	int rc_ = pclose(f);
	if (rc_)
		printf("  acpiexec: exit status %d, %zu bytes of command line\n", rc_, len);
	return rc_ == 0;
}

static bool run_acpiexec(const struct ref_case *rc, char **out)
{
	unsigned first = 0;

	while (first < rc->nevals) {
		unsigned last = first;
		size_t chars = 0;
		while (last < rc->nevals && (last == first || chars + strlen(rc->path[last]) + 40 < 480))
			chars += strlen(rc->path[last++]) + 40;
		if (!run_batch(rc, first, last, out))
			return false;
		first = last;
	}
	return true;
}

/* The shell quotes: a path's backslash must reach acpiexec as one. */
static void escape_paths(struct ref_case *rc)
{
	for (unsigned i = 0; i < rc->nevals; i++) {
		char tmp[64];
		size_t k = 0;
		for (const char *p = rc->path[i]; *p && k + 2 < sizeof(tmp); p++) {
			if (*p == '\\')
				tmp[k++] = '\\';
			tmp[k++] = *p;
		}
		tmp[k] = 0;
		snprintf(rc->path[i], 64, "%s", tmp);
	}
}

static void unescape(char *dst, const char *src)
{
	for (; *src; src++)
		if (!(src[0] == '\\' && src[1] == '\\'))
			*dst++ = *src;
	*dst = 0;
}

/* Evaluate rc's paths in memlab on the same tables and compare each with
 * acpiexec's text; returns the number compared. */
static unsigned compare_case(const char *name, struct ref_case *rc)
{
	static char *want[MAX_EVALS];
	static char got[OUT_BYTES];
	static struct aml_fake fake;
	const char *files[8];
	unsigned evals = 0;

	for (unsigned i = 0; i < MAX_EVALS; i++)
		if (!want[i])
			want[i] = malloc(OUT_BYTES);
	escape_paths(rc);
	if (!run_acpiexec(rc, want)) {
		printf("  acpiexec failed on %s\n", name);
		htest_failures++;
		return 0;
	}
	for (unsigned t = 0; t < rc->ntables; t++)
		files[t] = rc->tables[t];
	memset(&fake, 0, sizeof(fake));
	struct aml_ns *ns = aml_fake_ns(&fake, files, rc->ntables, NULL);
	CHECK(ns != NULL);
	if (!ns)
		return 0;
	for (unsigned i = 0; i < rc->nevals; i++) {
		char path[64];
		unescape(path, rc->path[i]);
		if (aml_fake_eval_text(ns, path, rc->args[i], rc->nargs[i], got, sizeof(got)))
			snprintf(got, sizeof(got), "FAILED\n");
		if (strcmp(got, want[i])) {
			htest_failures++;
			printf("  %s: %s differs from acpiexec:\n--- acpiexec\n%.2000s--- memlab\n%.2000s",
			       name, path, want[i], got);
		}
		evals++;
	}
	CHECK(aml_fake_done(ns));
	return evals;
}

HTEST(aml_reference_acpiexec)
{
	DIR *d = opendir("tests/host/aml");
	struct dirent *e;
	unsigned cases = 0, evals = 0;
	static struct ref_case rc;

	CHECK(d != NULL);
	if (!d)
		return;
	while ((e = readdir(d))) {
		char asl[300], base[64];
		size_t n = strlen(e->d_name);
		if (n < 5 || strcmp(e->d_name + n - 4, ".asl"))
			continue;
		snprintf(base, sizeof(base), "%.*s", (int)(n - 4), e->d_name);
		snprintf(asl, sizeof(asl), "tests/host/aml/%s", e->d_name);
		if (!read_case(asl, base, &rc) || !rc.nevals)
			continue;
		evals += compare_case(base, &rc);
		cases++;
	}
	closedir(d);
	printf("  %u tables, %u evaluations compared with acpiexec\n", cases, evals);
	CHECK(cases >= 8);
}

/* The objects memlab evaluates on a device, when it has them.  Not _PRT:
 * QEMU's is larger than acpiexec's 16 KiB result buffer (AE_BUFFER_OVERFLOW). */
static const char *const device_names[] = {
	"_HID", "_CID", "_UID", "_ADR", "_STA", "_CRS", "_PXM", "_BBN", "_SEG", "_PRS",
};

/*
 * QEMU's own tables (tests/host/fixtures/acpi/<config>/: the DSDT and
 * SSDTs of a booted q35 guest with DIMM slots, NUMA, PCI bridges, NVDIMMs,
 * four CPUs): \_S5 and, on every device, each of device_names that it has
 * (as a name or a method without arguments), in memlab and in acpiexec.
 */
HTEST(aml_reference_qemu_tables)
{
	static const char *const configs[] = { "dimms", "numa", "bridges", "nvdimm", "smp4" };
	static struct ref_case rc;
	static struct aml_fake fake;
	unsigned total = 0;

	for (unsigned k = 0; k < ARRAY_SIZE(configs); k++) {
		char dir[128];
		memset(&rc, 0, sizeof(rc));
		snprintf(dir, sizeof(dir), "tests/host/fixtures/acpi/%s", configs[k]);
		snprintf(rc.tables[rc.ntables++], 160, "%s/dsdt.dat", dir);
		DIR *d = opendir(dir);
		struct dirent *e;
		CHECK(d != NULL);
		if (!d)
			continue;
		while ((e = readdir(d)) && rc.ntables < 8)
			if (!strncmp(e->d_name, "ssdt", 4))
				snprintf(rc.tables[rc.ntables++], 160, "%s/%.20s", dir, e->d_name);
		closedir(d);
		/* the paths: found by walking memlab's namespace */
		const char *files[8];
		for (unsigned t = 0; t < rc.ntables; t++)
			files[t] = rc.tables[t];
		memset(&fake, 0, sizeof(fake));
		struct aml_ns *ns = aml_fake_ns(&fake, files, rc.ntables, NULL);
		CHECK(ns != NULL);
		if (!ns)
			continue;
		snprintf(rc.path[rc.nevals++], 64, "\\_S5");
		aml_collect_paths(ns, device_names, ARRAY_SIZE(device_names), rc.path, &rc.nevals,
				  MAX_EVALS);
		CHECK(aml_fake_done(ns));
		total += compare_case(configs[k], &rc);
	}
	printf("  %u evaluations on QEMU's tables compared with acpiexec\n", total);
	CHECK(total > 100);
}
