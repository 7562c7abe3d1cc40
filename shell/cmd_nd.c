/*
 * cmd_nd.c - the `nd` command: persistent memory regions, namespaces and
 * dax devices (drivers/nvdimm/nd.c), in the manner of ndctl and daxctl:
 *   nd list                 ndctl list -RN (regions with their namespaces)
 *   nd list -D              ndctl list -D (the DIMMs)
 *   nd create-namespace     ndctl create-namespace --mode=devdax|raw --align=A
 *                           [-s SIZE] [-e namespaceN.M]
 *   nd destroy-namespace    ndctl destroy-namespace namespaceN.M
 *   nd dax                  daxctl list
 *   nd rebind               echo daxN.0 > /sys/bus/dax/drivers/device_dax/unbind,
 *                           then bind: the memmap initialised again, timed
 *   nd reconfigure          daxctl reconfigure-device --mode=system-ram|devdax
 *   nd floor                a rebind's floor: its memmap bytes streamed, timed
 * The command parses and prints; the model decides and refuses.
 */
#include <shell/shell.h>
#include <drivers/nd.h>
#include <mm/memremap.h>
#include <mm/mechanisms.h>
#include <mm/memory_hotplug.h>
#include <lib/errno.h>
#include <lib/kstrtox.h>
#include <lib/string.h>

/* "regionN", "namespaceN.M", "daxN.M" or "N[.M]" (prefix the word's
 * kind): N into *region and M (0 if not given; -1 for "regionN") into *ns;
 * false if it is not one. */
static bool parse_dev(const char *word, const char *prefix, int *region, int *ns)
{
	size_t n = strlen(prefix);
	unsigned long long v = 0, w = 0;
	char buf[24], *dot;

	if (!strncmp(word, prefix, n))
		word += n;
	strlcpy(buf, word, sizeof(buf));
	dot = strchr(buf, '.');
	if (dot) {
		*dot++ = '\0';
		if (!strcmp(prefix, "region") || !*dot || kstrtoull(dot, strlen(dot), &w) ||
		    w >= ND_MAX_NS)
			return false;
	}
	if (!buf[0] || kstrtoull(buf, strlen(buf), &v) || v >= ND_MAX_REGIONS)
		return false;
	*region = (int)v;
	*ns = strcmp(prefix, "region") ? (int)w : -1;
	return true;
}

/* A --name=value or -x value option at argv[*i]; its value, or NULL. */
static const char *opt(int argc, char **argv, int *i, const char *lng, const char *shrt)
{
	size_t n = strlen(lng);

	if (!strncmp(argv[*i], lng, n) && argv[*i][n] == '=')
		return argv[*i] + n + 1;
	if (!strcmp(argv[*i], shrt) && *i + 1 < argc)
		return argv[++*i];
	return NULL;
}

/* A byte count: digits, or with K/M/G (binary, as ndctl reads -s); 0 if not. */
static u64 parse_bytes(const char *v)
{
	char buf[24];
	size_t n = strlen(v);
	unsigned long long x;
	unsigned shift = 0;

	if (!n || n >= sizeof(buf))
		return 0;
	strlcpy(buf, v, sizeof(buf));
	switch (buf[n - 1]) {
	case 'k': case 'K': shift = 10; break;
	case 'm': case 'M': shift = 20; break;
	case 'g': case 'G': shift = 30; break;
	case 't': case 'T': shift = 40; break;
	}
	if (shift)
		buf[--n] = '\0';
	if (!n || kstrtoull(buf, n, &x) || (x << shift) >> shift != x)
		return 0;
	return x << shift;
}

static int nd_cmd_create(struct printer *out, int argc, char **argv)
{
	const char *mode = "devdax", *v;
	u64 align = 2ULL << 20, size = 0, offset = ND_OFFSET_ANY;
	int region = 0, ns = -1, m;
	enum nd_mode md;
	char why[192];

	for (int i = 2; i < argc; i++) {
		if ((v = opt(argc, argv, &i, "--region", "-r"))) {
			int dummy;

			if (!parse_dev(v, "region", &region, &dummy)) {
				pr_printf(out, "nd: %s: not a region (region0, region1, ...)\n", v);
				return -EINVAL;
			}
		} else if ((v = opt(argc, argv, &i, "--reconfig", "-e"))) {
			if (!parse_dev(v, "namespace", &region, &ns)) {
				pr_printf(out, "nd: %s: not a namespace (namespace0.0, ...)\n", v);
				return -EINVAL;
			}
		} else if ((v = opt(argc, argv, &i, "--mode", "-m"))) {
			mode = v;
		} else if ((v = opt(argc, argv, &i, "--align", "-a"))) {
			if (!(align = nd_parse_align(v))) {
				pr_printf(out, "nd: align %s: devdax aligns to 4K, 2M or 1G\n", v);
				return -EINVAL;
			}
		} else if ((v = opt(argc, argv, &i, "--size", "-s"))) {
			if (!(size = parse_bytes(v))) {
				pr_printf(out, "nd: size %s: a number of bytes (K, M, G: binary)\n", v);
				return -EINVAL;
			}
		} else if ((v = opt(argc, argv, &i, "--offset", "-o"))) {
			if (!(offset = parse_bytes(v)) && strcmp(v, "0")) {
				pr_printf(out, "nd: offset %s: a number of bytes (K, M, G: binary)\n", v);
				return -EINVAL;
			}
		} else if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force")) {
			continue;	/* ndctl's -f with -e: memlab never asks */
		} else {
			return shell_usage(out, shell_find("nd"));
		}
	}
	if (!strcmp(mode, "raw")) {
		md = ND_MODE_RAW;
	} else if (!strcmp(mode, "devdax")) {
		md = ND_MODE_DEVDAX;
	} else {
		pr_printf(out, "nd: mode %s: memlab has raw and devdax (no fsdax, sector or system-ram)\n",
			  mode);
		return -EINVAL;
	}
	m = nd_create(region, ns, md, align, size, offset, why, sizeof(why));
	if (m < 0) {
		pr_printf(out, "nd: create-namespace: %s; nothing changed\n", why);
		return m;
	}
	{
		const struct nd_region *r = nd_region(region);
		const struct nd_namespace *n = nd_namespace(region, m);
		const struct dev_pagemap *pgmap;
		char uuid[37];

		if (md == ND_MODE_RAW) {
			if (r->labels) {
				nd_uuid_format(n->uuid, uuid);
				pr_printf(out, "namespace%d.%d: raw, %llu bytes at offset 0x%llx, uuid %s\n",
					  region, m, (unsigned long long)n->size,
					  (unsigned long long)(n->start - r->start), uuid);
			} else {
				pr_printf(out, "namespace%d.%d: raw\n", region, m);
			}
			return 0;
		}
		pgmap = devmem_find(n->devmem_id);
		pr_printf(out, "namespace%d.%d: devdax, align %llu KiB, dax%d.%d (devmem%d): "
			  "%llu struct pages initialised (%s) in %llu cycles\n", region, m,
			  (unsigned long long)(align >> 10), region, m, n->devmem_id,
			  (unsigned long long)pgmap->last_init_pages,
			  devmem_design_name(pgmap->last_design),
			  (unsigned long long)pgmap->last_init_cycles);
	}
	return 0;
}

static int nd_cmd_destroy(struct printer *out, int argc, char **argv)
{
	const struct nd_region *r;
	char why[192];
	int id, ns, err;

	if (argc != 3)
		return shell_usage(out, shell_find("nd"));
	if (!parse_dev(argv[2], "namespace", &id, &ns)) {
		pr_printf(out, "nd: %s: not a namespace (namespace0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	err = nd_destroy(id, ns, why, sizeof(why));
	if (err) {
		pr_printf(out, "nd: destroy-namespace: %s; nothing changed\n", why);
		return err;
	}
	r = nd_region(id);
	if (r->labels) {
		int left = 0;

		for (int k = 0; k < ND_MAX_NS; k++)
			left += nd_namespace(id, k) != NULL;
		if (left)
			pr_printf(out, "namespace%d.%d: label deleted; region%d has %d namespace%s left\n",
				  id, ns, id, left, left == 1 ? "" : "s");
		else
			pr_printf(out, "namespace%d.%d: label deleted; region%d has no namespace\n",
				  id, ns, id);
	} else {
		pr_printf(out, "namespace%d.%d: raw\n", id, ns);
	}
	return 0;
}

static int nd_cmd_rebind(struct printer *out, int argc, char **argv)
{
	const struct dev_pagemap *pgmap;
	int id, ns, d = -1, err;
	char why[192];

	if (argc != 3 && argc != 4)
		return shell_usage(out, shell_find("nd"));
	if (!parse_dev(argv[2], "dax", &id, &ns)) {
		pr_printf(out, "nd: %s: not a dax device (dax0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	if (argc == 4) {
		const char *w = !strcmp(argv[3], "template") ? "new" : argv[3];

		if ((d = devmem_parse_design(w)) < 0) {
			pr_printf(out, "nd: %s: the design is old, head-template, new, "
				  "template-nt or shared\n", argv[3]);
			return -EINVAL;
		}
	}
	err = nd_rebind(id, ns, d, why, sizeof(why));
	if (err) {
		pr_printf(out, "nd: rebind: %s; nothing changed\n", why);
		return err;
	}
	pgmap = devmem_find(nd_namespace(id, ns)->devmem_id);
	pr_printf(out, "dax%d.%d: rebind (%s): %llu struct pages in %llu cycles (%llu cycles/page), %llu KiB of memmap written\n",
		  id, ns, devmem_design_name(pgmap->last_design),
		  (unsigned long long)pgmap->last_init_pages,
		  (unsigned long long)pgmap->last_init_cycles,
		  (unsigned long long)(pgmap->last_init_cycles / pgmap->last_init_pages),
		  (unsigned long long)(pgmap->last_init_bytes >> 10));
	return 0;
}

/* nd reconfigure daxN.0 system-ram|devdax (or --mode=...), daxctl's
 * reconfigure-device. */
static int nd_cmd_reconfigure(struct printer *out, int argc, char **argv)
{
	const struct nd_namespace *n;
	const char *mode;
	char why[192];
	int id, ns, err;

	if (argc != 4)
		return shell_usage(out, shell_find("nd"));
	if (!parse_dev(argv[2], "dax", &id, &ns)) {
		pr_printf(out, "nd: %s: not a dax device (dax0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	mode = !strncmp(argv[3], "--mode=", 7) ? argv[3] + 7 : argv[3];
	if (strcmp(mode, "system-ram") && strcmp(mode, "devdax")) {
		pr_printf(out, "nd: mode %s: system-ram or devdax\n", mode);
		return -EINVAL;
	}
	err = nd_reconfigure(id, ns, !strcmp(mode, "system-ram"), why, sizeof(why));
	if (err) {
		pr_printf(out, "nd: reconfigure: %s; nothing changed\n", why);
		return err;
	}
	n = nd_namespace(id, ns);
	if (n->kmem)
		pr_printf(out, "dax%d.%d: system-ram, memory group %d (auto_online_blocks %s)\n", id,
			  ns, n->mgid, mmop_name(memhp_get_default_online_type()));
	else
		pr_printf(out, "dax%d.%d: devdax (devmem%d)\n", id, ns, n->devmem_id);
	return 0;
}

/* nd floor daxN.0: the floor a rebind is measured against. */
static int nd_cmd_floor(struct printer *out, int argc, char **argv)
{
	const struct nd_namespace *n;
	u64 cycles, bytes;
	int id, ns, err;

	if (argc != 3)
		return shell_usage(out, shell_find("nd"));
	if (!parse_dev(argv[2], "dax", &id, &ns) || !(n = nd_namespace(id, ns)) ||
	    n->mode != ND_MODE_DEVDAX || n->kmem) {
		pr_printf(out, "nd: %s: not a devdax device (dax0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	err = devmem_floor(n->devmem_id, &cycles, &bytes);
	if (err) {
		pr_printf(out, "nd: floor: %s\n", err_text(err));
		return err;
	}
	pr_printf(out, "dax%d.%d: floor: %llu KiB of memmap streamed (non-temporal stores) in %llu cycles\n",
		  id, ns, (unsigned long long)(bytes >> 10), (unsigned long long)cycles);
	return 0;
}

static int cmd_nd(struct printer *out, int argc, char **argv)
{
	if (argc == 1 || !strcmp(argv[1], "list")) {
		if (argc == 3 && !strcmp(argv[2], "-D")) {
			nd_dimms_dump(out);
			return 0;
		}
		if (argc > 2 && !(argc == 3 && !strcmp(argv[2], "-RN")))
			return shell_usage(out, shell_find("nd"));
		nd_list_dump(out);
		return 0;
	}
	if (!strcmp(argv[1], "dax") && argc == 2) {
		nd_dax_dump(out);
		return 0;
	}
	if (!strcmp(argv[1], "create-namespace"))
		return nd_cmd_create(out, argc, argv);
	if (!strcmp(argv[1], "destroy-namespace"))
		return nd_cmd_destroy(out, argc, argv);
	if (!strcmp(argv[1], "rebind"))
		return nd_cmd_rebind(out, argc, argv);
	if (!strcmp(argv[1], "reconfigure"))
		return nd_cmd_reconfigure(out, argc, argv);
	if (!strcmp(argv[1], "floor"))
		return nd_cmd_floor(out, argc, argv);
	return shell_usage(out, shell_find("nd"));
}

/* Binding a devdax namespace initialises its memmap: that grows with it. */
static bool nd_runs_long(int argc, char **argv)
{
	return argc >= 2 && (!strcmp(argv[1], "create-namespace") || !strcmp(argv[1], "rebind") ||
			     !strcmp(argv[1], "reconfigure") || !strcmp(argv[1], "floor"));
}

SHELL_COMMAND(nd, .name = "nd",
	      .usage = "nd [list [-D] | dax | create-namespace [-r regionN | -e namespaceN.M] "
		       "[--mode=devdax|raw] [--align=4K|2M|1G] [--size=BYTES] [--offset=BYTES] | "
		       "destroy-namespace namespaceN.M | "
		       "rebind daxN.M [old|head-template|new|template-nt|shared] | "
		       "reconfigure daxN.M system-ram|devdax | floor daxN.M]",
	      .summary = "NVDIMM regions, namespaces and dax devices (ndctl, daxctl)",
	      .help = "The persistent memory of the NFIT, as Linux's libnvdimm shows it.\n"
		      "A label-less region has one namespace covering it, namespaceN.0;\n"
		      "a region whose DIMM has a label area (read through its _DSM) has\n"
		      "one namespace per label, namespaceN.M.\n"
		      "list: ndctl list -RN.  list -D: the DIMMs (ndctl list -D).\n"
		      "dax: daxctl list.\n"
		      "create-namespace --mode=devdax --align=2M: on a label-less region\n"
		      "  its namespace becomes daxN.0, a ZONE_DEVICE range with 2 MiB\n"
		      "  compound pages (4K: base pages; 1G: compounds over 8 of the 128\n"
		      "  MiB sections), its memmap initialised with\n"
		      "  /sys/kernel/mm/memlab/memmap_init's design and timed, and an info\n"
		      "  block written 4 KiB into it so that the next boot finds it devdax\n"
		      "  (the dax device is the namespace less the first 8 KiB rounded up\n"
		      "  to the align).  On a labelled region: a new namespace with its own\n"
		      "  label, --size bytes (default: the largest free extent) at --offset\n"
		      "  into the region (default: the first free place; memlab's option),\n"
		      "  whole 128 MiB sections; --mode=raw makes a raw one.\n"
		      "  -e namespaceN.M reconfigures that namespace instead (ndctl's\n"
		      "  --reconfig; -f is accepted).  --mode=raw on a label-less region, or\n"
		      "  destroy-namespace, undoes devdax; on a labelled region\n"
		      "  destroy-namespace also deletes the namespace's label.\n"
		      "rebind: unbind and bind daxN.M (the memmap poisoned, initialised\n"
		      "  again with the design given, else the switch's), timed.\n"
		      "  head-template: heads from a template, tails field by field (the\n"
		      "  seed's first step; new has tail templates too).  shared\n"
		      "  (align 2M or 1G): the vmemmap of each compound maps the head's page\n"
		      "  and one page of tails, its other pages map that one again, and\n"
		      "  only 128 struct pages of each compound are written (of 512 or\n"
		      "  262144).\n"
		      "reconfigure daxN.M system-ram: daxctl reconfigure-device: the memory\n"
		      "  after the info block, whole 128 MiB blocks, hot-added (group\n"
		      "  daxN.M), onlined by auto_online_blocks; devdax: offlined, removed,\n"
		      "  bound again.\n"
		      "floor daxN.M: streaming stores of the memmap bytes a rebind of its\n"
		      "  layout writes, timed: what a rebind is measured against.\n"
		      "`devmem compare ID` checks the live memmap of a dax device.\n"
		      "A refused request says why and changes nothing.",
	      .fn = cmd_nd,
	      .runs_long = nd_runs_long);
