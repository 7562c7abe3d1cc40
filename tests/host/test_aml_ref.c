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

#define MAX_EVALS 32

struct ref_case {
	char tables[8][64];
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
				snprintf(rc->tables[rc->ntables++], 64, "%s", tok);
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
		snprintf(rc->tables[rc->ntables++], 64, "%s", base);
	return true;
}

/* acpiexec's result text for each evaluation, into out[i]. */
static bool run_acpiexec(const struct ref_case *rc, char out[][2048])
{
	char cmd[4096], line[1024];
	size_t len = 0;
	int cur = -1;
	bool in_result = false;

	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "acpiexec -di -dr -b \"");
	for (unsigned i = 0; i < rc->nevals; i++) {
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "evaluate %s", rc->path[i]);
		for (unsigned k = 0; k < rc->nargs[i]; k++)
			len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " %llu",
						(unsigned long long)rc->args[i][k]);
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "; ");
	}
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, "\"");
	for (unsigned t = 0; t < rc->ntables; t++)
		len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " build/aml/%s.aml", rc->tables[t]);
	len += (size_t)snprintf(cmd + len, sizeof(cmd) - len, " 2>&1");
	FILE *f = popen(cmd, "r");
	if (!f)
		return false;
	for (unsigned i = 0; i < rc->nevals; i++)
		out[i][0] = 0;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Evaluating ", 11)) {
			cur++;
			in_result = true;
			continue;
		}
		if (cur < 0 || cur >= (int)rc->nevals || !in_result)
			continue;
		if (line[0] == '\n' || !strncmp(line, "ACPI: ", 6)) {
			in_result = false;
			continue;
		}
		if (!strncmp(line, "Evaluation of ", 14) && strstr(line, "returned object"))
			continue;
		if (strstr(line, "Outstanding allocations after evaluation"))
			continue;
		if (!strncmp(line, "Evaluation of ", 14) && strstr(line, "failed")) {
			snprintf(out[cur], 2048, "FAILED\n");
			in_result = false;
			continue;
		}
		strncat(out[cur], line, 2047 - strlen(out[cur]));
	}
	int rc_ = pclose(f);
	return rc_ == 0;
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

HTEST(aml_reference_acpiexec)
{
	DIR *d = opendir("tests/host/aml");
	struct dirent *e;
	unsigned cases = 0, evals = 0;
	static char want[MAX_EVALS][2048];
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
		escape_paths(&rc);
		if (!run_acpiexec(&rc, want)) {
			printf("  acpiexec failed on %s\n", asl);
			htest_failures++;
			continue;
		}
		const char *files[8];
		char paths[8][128];
		for (unsigned t = 0; t < rc.ntables; t++) {
			snprintf(paths[t], sizeof(paths[t]), "build/aml/%s.aml", rc.tables[t]);
			files[t] = paths[t];
		}
		static struct aml_fake fake;
		memset(&fake, 0, sizeof(fake));
		struct aml_ns *ns = aml_fake_ns(&fake, files, rc.ntables, NULL);
		CHECK(ns != NULL);
		if (!ns)
			continue;
		for (unsigned i = 0; i < rc.nevals; i++) {
			char got[2048], path[64];
			unescape(path, rc.path[i]);
			if (aml_fake_eval_text(ns, path, rc.args[i], rc.nargs[i], got, sizeof(got)))
				snprintf(got, sizeof(got), "FAILED\n");
			if (strcmp(got, want[i])) {
				htest_failures++;
				printf("  %s: %s differs from acpiexec:\n--- acpiexec\n%s--- memlab\n%s",
				       base, path, want[i], got);
			}
			evals++;
		}
		CHECK(aml_fake_done(ns));
		cases++;
	}
	closedir(d);
	printf("  %u tables, %u evaluations compared with acpiexec\n", cases, evals);
	CHECK(cases >= 8);
}
