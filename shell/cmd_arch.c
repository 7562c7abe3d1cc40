/*
 * cmd_arch.c - the shell commands that show the CPU and the page tables:
 * `cpuinfo` (arch/x86_64/cpu.c's cpu_dump()) and `pagetables` (the
 * direct-map summary of paging_dump(), or one address translated by
 * paging_translate()).  They parse arguments and format; the state stays
 * in arch/.
 */
#include <shell/args.h>
#include <shell/shell.h>
#include <arch/cpu.h>
#include <arch/paging.h>
#include <lib/printk.h>
#include <lib/string.h>
#include <lib/errno.h>

static int cmd_cpuinfo(struct printer *out, int argc, char **argv)
{
	(void)argv;
	if (argc != 1)
		return shell_usage(out, shell_find("cpuinfo"));
	cpu_dump(out);
	return 0;
}

SHELL_COMMAND(cpuinfo, .name = "cpuinfo", .usage = "cpuinfo",
	      .summary = "show the CPU: vendor, model, TSC frequency, features",
	      .help = "Prints what CPUID says about the boot CPU, in the layout of\n"
		      "Linux's /proc/cpuinfo, and the TSC frequency measured at boot.\n"
		      "The flags listed are those memlab uses or a reader may want\n"
		      "(pdpe1gb decides 1 GiB pages in the direct map).",
	      .fn = cmd_cpuinfo);

static int cmd_pagetables(struct printer *out, int argc, char **argv)
{
	u64 va, pa, size, flags;
	int err;

	if (argc == 1) {
		paging_dump(out);
		return 0;
	}
	if (argc != 2)
		return shell_usage(out, shell_find("pagetables"));
	err = shell_arg_u64(out, "pagetables", "address", argv[1], 0, ~0ULL, NULL, &va);
	if (err)
		return err;
	err = paging_translate(va, &pa, &size, &flags);
	if (err) {
		pr_printf(out, "pagetables: %#llx is not mapped\n", (unsigned long long)va);
		return err;
	}
	pr_printf(out, "%#llx -> phys %#llx, %s page, %s%s%s\n", (unsigned long long)va,
		  (unsigned long long)pa,
		  size == SZ_1G ? "1G" : size == SZ_2M ? "2M" : "4K",
		  flags & PTE_W ? "RW" : "RO", flags & PTE_NX ? " NX" : " X",
		  flags & PTE_PCD ? " uncached" : "");
	return 0;
}

SHELL_COMMAND(pagetables, .name = "pagetables", .usage = "pagetables [VIRT-ADDR]",
	      .summary = "show the page tables, or translate one virtual address",
	      .help = "Without an argument: how the direct map is built (page counts\n"
		      "per size), the kernel image range and the table-page pool.\n"
		      "With an address: walk the live tables and print the physical\n"
		      "address, page size and permissions, e.g.\n"
		      "  pagetables 0xffff888000100000",
	      .fn = cmd_pagetables);
