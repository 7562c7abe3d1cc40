/*
 * cmd_nd.c - the `nd` command: persistent memory regions, namespaces and
 * dax devices (drivers/nvdimm/nd.c), in the manner of ndctl and daxctl:
 *   nd list                 ndctl list -RN (regions with their namespaces)
 *   nd create-namespace     ndctl create-namespace --mode=devdax|raw --align=A
 *   nd destroy-namespace    ndctl destroy-namespace namespaceN.0
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

/* "regionN", "namespaceN.0", "daxN.0" or "N": N, or -1. */
static int parse_dev(const char *word, const char *prefix)
{
	size_t n = strlen(prefix);
	unsigned long long v = 0;
	char buf[24];

	if (!strncmp(word, prefix, n))
		word += n;
	strlcpy(buf, word, sizeof(buf));
	if (strcmp(prefix, "region") && strlen(buf) > 2 && !strcmp(buf + strlen(buf) - 2, ".0"))
		buf[strlen(buf) - 2] = '\0';
	if (!buf[0] || kstrtoull(buf, strlen(buf), &v) || v >= ND_MAX_REGIONS)
		return -1;
	return (int)v;
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

static int nd_cmd_create(struct printer *out, int argc, char **argv)
{
	const char *mode = "devdax", *v;
	u64 align = 2ULL << 20, size = 0;
	int region = 0, err;
	char why[160];

	for (int i = 2; i < argc; i++) {
		if ((v = opt(argc, argv, &i, "--region", "-r"))) {
			if ((region = parse_dev(v, "region")) < 0) {
				pr_printf(out, "nd: %s: not a region (region0, region1, ...)\n", v);
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
			unsigned long long sz;

			if (kstrtoull(v, strlen(v), &sz) || !sz) {
				pr_printf(out, "nd: size %s: a number of bytes\n", v);
				return -EINVAL;
			}
			size = sz;
		} else {
			return shell_usage(out, shell_find("nd"));
		}
	}
	if (!strcmp(mode, "raw")) {
		err = nd_destroy(region, why, sizeof(why));
		if (!err)
			pr_printf(out, "namespace%d.0: raw\n", region);
	} else if (!strcmp(mode, "devdax")) {
		err = nd_create_devdax(region, align, size, why, sizeof(why));
		if (!err) {
			const struct nd_region *r = nd_region(region);
			const struct dev_pagemap *pgmap = devmem_find(r->ns.devmem_id);

			pr_printf(out, "namespace%d.0: devdax, align %llu KiB, dax%d.0 (devmem%d): "
				  "%llu struct pages initialised (%s) in %llu cycles\n", region,
				  (unsigned long long)(align >> 10), region, r->ns.devmem_id,
				  (unsigned long long)pgmap->last_init_pages,
				  devmem_design_name(pgmap->last_design),
				  (unsigned long long)pgmap->last_init_cycles);
		}
	} else {
		pr_printf(out, "nd: mode %s: memlab has raw and devdax (no fsdax, sector or system-ram)\n",
			  mode);
		return -EINVAL;
	}
	if (err)
		pr_printf(out, "nd: create-namespace: %s; nothing changed\n", why);
	return err;
}

static int nd_cmd_destroy(struct printer *out, int argc, char **argv)
{
	char why[160];
	int id, err;

	if (argc != 3)
		return shell_usage(out, shell_find("nd"));
	if ((id = parse_dev(argv[2], "namespace")) < 0) {
		pr_printf(out, "nd: %s: not a namespace (namespace0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	err = nd_destroy(id, why, sizeof(why));
	if (err) {
		pr_printf(out, "nd: destroy-namespace: %s; nothing changed\n", why);
		return err;
	}
	if (nd_region(id)->labels)
		pr_printf(out, "namespace%d.0: label deleted; region%d has no namespace\n", id, id);
	else
		pr_printf(out, "namespace%d.0: raw\n", id);
	return 0;
}

static int nd_cmd_rebind(struct printer *out, int argc, char **argv)
{
	const struct dev_pagemap *pgmap;
	int id, d = -1, err;
	char why[160];

	if (argc != 3 && argc != 4)
		return shell_usage(out, shell_find("nd"));
	if ((id = parse_dev(argv[2], "dax")) < 0) {
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
	err = nd_rebind(id, d, why, sizeof(why));
	if (err) {
		pr_printf(out, "nd: rebind: %s; nothing changed\n", why);
		return err;
	}
	pgmap = devmem_find(nd_region(id)->ns.devmem_id);
	pr_printf(out, "dax%d.0: rebind (%s): %llu struct pages in %llu cycles (%llu cycles/page), %llu KiB of memmap written\n",
		  id, devmem_design_name(pgmap->last_design),
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
	const char *mode;
	char why[160];
	int id, err;

	if (argc != 4)
		return shell_usage(out, shell_find("nd"));
	if ((id = parse_dev(argv[2], "dax")) < 0) {
		pr_printf(out, "nd: %s: not a dax device (dax0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	mode = !strncmp(argv[3], "--mode=", 7) ? argv[3] + 7 : argv[3];
	if (strcmp(mode, "system-ram") && strcmp(mode, "devdax")) {
		pr_printf(out, "nd: mode %s: system-ram or devdax\n", mode);
		return -EINVAL;
	}
	err = nd_reconfigure(id, !strcmp(mode, "system-ram"), why, sizeof(why));
	if (err) {
		pr_printf(out, "nd: reconfigure: %s; nothing changed\n", why);
		return err;
	}
	if (nd_region(id)->ns.kmem)
		pr_printf(out, "dax%d.0: system-ram, memory group %d (auto_online_blocks %s)\n", id,
			  nd_region(id)->ns.mgid, mmop_name(memhp_get_default_online_type()));
	else
		pr_printf(out, "dax%d.0: devdax (devmem%d)\n", id, nd_region(id)->ns.devmem_id);
	return 0;
}

/* nd floor daxN.0: the floor a rebind is measured against. */
static int nd_cmd_floor(struct printer *out, int argc, char **argv)
{
	const struct nd_region *r;
	u64 cycles, bytes;
	int id, err;

	if (argc != 3)
		return shell_usage(out, shell_find("nd"));
	if ((id = parse_dev(argv[2], "dax")) < 0 || !(r = nd_region(id)) ||
	    r->ns.mode != ND_MODE_DEVDAX || r->ns.kmem) {
		pr_printf(out, "nd: %s: not a devdax device (dax0.0, ...)\n", argv[2]);
		return -EINVAL;
	}
	err = devmem_floor(r->ns.devmem_id, &cycles, &bytes);
	if (err) {
		pr_printf(out, "nd: floor: %s\n", err_text(err));
		return err;
	}
	pr_printf(out, "dax%d.0: floor: %llu KiB of memmap streamed (non-temporal stores) in %llu cycles\n",
		  id, (unsigned long long)(bytes >> 10), (unsigned long long)cycles);
	return 0;
}

static int cmd_nd(struct printer *out, int argc, char **argv)
{
	if (argc == 1 || !strcmp(argv[1], "list")) {
		if (argc > 2)
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
	      .usage = "nd [list | dax | create-namespace [-r regionN] [--mode=devdax|raw] "
		       "[--align=4K|2M|1G] [--size=BYTES] | destroy-namespace namespaceN.0 | "
		       "rebind daxN.0 [old|head-template|new|template-nt|shared] | "
		       "reconfigure daxN.0 system-ram|devdax | floor daxN.0]",
	      .summary = "NVDIMM regions, namespaces and dax devices (ndctl, daxctl)",
	      .help = "The persistent memory of the NFIT, as Linux's libnvdimm shows it.\n"
		      "Each region is label-less (labels need the DIMM's _DSM, AML) and\n"
		      "has one namespace covering it, raw at boot.\n"
		      "list: ndctl list -RN.  dax: daxctl list.\n"
		      "create-namespace --mode=devdax --align=2M: the namespace becomes\n"
		      "  dax N.0, a ZONE_DEVICE range with 2 MiB compound pages (4K: base\n"
		      "  pages; 1G: compounds over 8 of the 128 MiB sections); its\n"
		      "  memmap is initialised with /sys/kernel/mm/memlab/memmap_init's\n"
		      "  design and timed.  --mode=raw, or destroy-namespace, undoes it.\n"
		      "rebind: unbind and bind daxN.0 (the memmap poisoned, initialised\n"
		      "  again with the design given, else the switch's), timed.\n"
		      "  head-template: heads from a template, tails field by field (the\n"
		      "  seed's first step; new has tail templates too).  shared\n"
		      "  (align 2M or 1G): the vmemmap of each compound maps the head's page\n"
		      "  and one page of tails, its other pages map that one again, and\n"
		      "  only 128 struct pages of each compound are written (of 512 or\n"
		      "  262144).\n"
		      "reconfigure daxN.0 system-ram: daxctl reconfigure-device: the memory\n"
		      "  hot-added as memory blocks (group daxN.0), onlined by\n"
		      "  auto_online_blocks; devdax: offlined, removed, bound again.\n"
		      "floor daxN.0: streaming stores of the memmap bytes a rebind of its\n"
		      "  layout writes, timed: what a rebind is measured against.\n"
		      "`devmem compare ID` checks the live memmap of a dax device.\n"
		      "A refused request says why and changes nothing.",
	      .fn = cmd_nd,
	      .runs_long = nd_runs_long);
