# Makefile - build, run and test memlab.
#
#   make            build/memlab.elf            make run     boot it in QEMU
#   make iso        build/memlab.iso            make debug   same, halted for gdb
#   make view       make run + the live memory page (docs/view.md)
#   make test       every test tier             make clean
#   make test-host  host tests (ASan, TSan)     make test-qemu   pytest scenarios
#   make test-fuzz  short libFuzzer runs        make deps        install packages
#   make test-view  the page's JavaScript logic (node --test)
#
# Variables: CROSS_COMPILE=x86_64-elf- (a cross toolchain), CMDLINE="..."
# (kernel command line), QEMU_EXTRA="..." (more QEMU arguments), MEM, CPU,
# ACCEL (tcg by default; kvm if you have it), PYTEST_ARGS="-k boot",
# FIRMWARE=uefi (OVMF instead of SeaBIOS, for run and debug), DISPLAY=gtk
# (or sdl: a window with a VGA screen and the PS/2 keyboard, next to the
# serial console; only taken from the make command line, never from the
# environment's X11 DISPLAY).
#
# One flat Makefile with explicit object lists, one per folder (see
# docs/architecture.md).  Objects go
# to build/ mirroring the source tree; -MD keeps header dependencies.

CROSS_COMPILE ?=
CC      := $(CROSS_COMPILE)gcc
LD      := $(CROSS_COMPILE)ld
NM      := $(CROSS_COMPILE)nm
OBJDUMP := $(CROSS_COMPILE)objdump
NASM    ?= nasm
HOSTCC  ?= gcc
FUZZCC  ?= clang
PYTHON  ?= /usr/bin/python3
QEMU    ?= qemu-system-x86_64

B := build

CMDLINE    ?=
QEMU_EXTRA ?=
MEM        ?= 2G,slots=8,maxmem=64G
CPU        ?= max
ACCEL      ?= tcg
PYTEST_ARGS ?=

# Packages are checked (and installed as root, tools/deps.sh) by the commands
# a user starts on a fresh machine: make run, make debug, make test and its
# tiers, make soak, make bench, make deps.  A plain build (make, make iso)
# does not run dpkg-query.  DEPS_FIRST is the check the goals ask for; every
# object waits for it (order-only), so nothing compiles before the packages
# are there.  A sub-make of a checked command skips it (DEPS_CHECKED=1).
DEPS_FIRST := $(if $(filter run view debug,$(MAKECMDGOALS)),deps-run,$(if \
	$(filter bench,$(MAKECMDGOALS)),deps-bench,$(if \
	$(filter test test-host test-fuzz test-qemu test-view soak deps,$(MAKECMDGOALS)),deps-test)))
FUZZ_SECONDS ?= 15

# --- the kernel ------------------------------------------------------------

BOOT_OBJS := \
	boot/header.o \
	boot/entry.o

ARCH_OBJS := \
	arch/x86_64/cpu.o \
	arch/x86_64/gdt.o \
	arch/x86_64/idt.o \
	arch/x86_64/isr.o \
	arch/x86_64/kthread_switch.o \
	arch/x86_64/traps.o \
	arch/x86_64/kallsyms.o \
	arch/x86_64/pic.o \
	arch/x86_64/tsc.o \
	arch/x86_64/paging.o \
	arch/x86_64/power.o \
	arch/x86_64/multiboot2.o \
	arch/x86_64/mm_platform.o \
	arch/x86_64/apic.o \
	arch/x86_64/trampoline.o \
	arch/x86_64/boot_tables.o \
	arch/x86_64/smp_trampoline.o \
	arch/x86_64/smp.o \
	arch/x86_64/smp_call.o \
	arch/x86_64/cpu_work.o

# The virtio-mem driver, one file per job (drivers/virtio/virtio_mem_internal.h).
VIRTIO_MEM_OBJS := \
	drivers/virtio/virtio_mem.o \
	drivers/virtio/virtio_mem_proto.o \
	drivers/virtio/virtio_mem_sb.o \
	drivers/virtio/virtio_mem_plug.o \
	drivers/virtio/virtio_mem_dump.o

# The AML interpreter (drivers/acpi/aml/, docs/aml.md): freestanding, its
# host needs in include/drivers/aml_platform.h.
AML_OBJS := \
	drivers/acpi/aml/aml_object.o \
	drivers/acpi/aml/aml_parse.o \
	drivers/acpi/aml/aml_namespace.o \
	drivers/acpi/aml/aml_exec.o \
	drivers/acpi/aml/aml_ops.o \
	drivers/acpi/aml/aml_convert.o \
	drivers/acpi/aml/aml_store.o \
	drivers/acpi/aml/aml_sync.o \
	drivers/acpi/aml/aml_region.o \
	drivers/acpi/aml/aml_eval.o \
	drivers/acpi/aml/aml_print.o \
	drivers/acpi/aml_kernel.o
# the portable part, for the host tests and fuzz targets
AML_SRCS := $(filter-out drivers/acpi/aml_kernel.c,$(AML_OBJS:.o=.c))

DRIVER_OBJS := \
	drivers/serial/uart16550.o \
	drivers/video/font8x8.o \
	drivers/video/vtcon.o \
	drivers/video/fbcon.o \
	drivers/input/scancode.o \
	drivers/input/i8042.o \
	drivers/acpi/tables.o \
	drivers/acpi/srat.o \
	drivers/acpi/madt.o \
	drivers/acpi/events.o \
	drivers/acpi/memhp.o \
	drivers/acpi/memhp_aml.o \
	drivers/acpi/decode.o \
	drivers/acpi/sleep.o \
	drivers/acpi/resources.o \
	drivers/acpi/crs.o \
	drivers/acpi/numa_cpus.o \
	drivers/acpi/nfit.o \
	drivers/acpi/acpidump.o \
	$(AML_OBJS) \
	drivers/nvdimm/nd.o \
	drivers/nvdimm/label.o \
	drivers/nvdimm/info.o \
	drivers/nvdimm/nd_media.o \
	drivers/nvdimm/nd_dsm.o \
	drivers/nvdimm/nd_acpi.o \
	drivers/pci/config.o \
	drivers/pci/resource.o \
	drivers/pci/probe.o \
	drivers/pci/bus.o \
	drivers/pci/dump.o \
	drivers/pci/hotplug.o \
	drivers/pci/hotplug_acpi.o \
	drivers/pci/hotplug_native.o \
	drivers/pci/acpi.o \
	drivers/pci/iomem.o \
	drivers/virtio/virtio_pci.o \
	$(VIRTIO_MEM_OBJS)

# kmain: the table of contents of the boot (init/main.c).
INIT_OBJS := \
	init/main.o

# Core services every driver and view may use: the log, the main loop's
# pollers and work, the self-test framework, the command line.
KERNEL_OBJS := \
	kernel/printk.o \
	kernel/console.o \
	kernel/ktest.o \
	kernel/cmdline.o \
	kernel/params.o \
	kernel/workqueue.o \
	kernel/longop.o \
	kernel/kthread.o \
	kernel/meminit_work.o \
	kernel/meminit_cpus.o \
	kernel/memmap_cpus.o \
	kernel/resource.o \
	kernel/resource_boot.o

# The C library pieces every folder may use.
LIB_OBJS := \
	lib/string.o \
	lib/strlcpy.o \
	lib/vsnprintf.o \
	lib/printer.o \
	lib/json.o \
	lib/asciiplot.o \
	lib/errno.o \
	lib/kstrtox.o \
	lib/params.o \
	lib/lock.o \
	lib/fw_memmap.o \
	lib/hexdump.o

# The shell, its line editor and every command.
SHELL_OBJS := \
	shell/line_edit.o \
	shell/shell.o \
	shell/args.o \
	shell/shell_run.o \
	shell/shell_job.o \
	shell/cmd_fs.o \
	shell/cmd_sys.o \
	shell/cmd_arch.o \
	shell/cmd_smp.o \
	shell/cmd_stress.o \
	shell/cmd_acpi.o \
	shell/cmd_aml.o \
	shell/cmd_kernel.o \
	shell/cmd_memmap.o \
	shell/cmd_mech.o \
	shell/cmd_bench.o \
	shell/cmd_devmem.o \
	shell/cmd_nd.o \
	shell/cmd_contig.o \
	shell/cmd_hotplug.o \
	shell/cmd_handles.o \
	shell/cmd_locks.o \
	shell/cmd_mm.o \
	shell/cmd_buddy.o \
	shell/cmd_params.o \
	shell/cmd_pci.o \
	shell/cmd_virtio_mem.o \
	shell/view_channel.o

# The virtual file tree and its /proc and /sys files.
VIEWS_OBJS := \
	views/vfs.o \
	views/iomem.o \
	views/sysfs_memory.o \
	views/sysfs_cpu.o \
	views/sysfs_params.o \
	views/proc_mm.o \
	views/proc_sys.o \
	views/proc_interrupts.o \
	views/mech.o \
	views/cma.o \
	views/sysfs_nd.o \
	views/sysfs_acpi.o \
	views/sysfs_acpi_devices.o \
	views/sysfs_pci.o \
	views/proc_vmstat.o \
	views/view_proto.o \
	views/view_detail.o \
	views/pageblock_map.o \
	views/memmap_cpus.o

MM_OBJS := \
	mm/debug.o \
	mm/mechanisms.o \
	mm/deferred_init.o \
	mm/deferred_hotplug.o \
	mm/memblock.o \
	mm/sparse.o \
	mm/memmap_init.o \
	mm/memmap_cpus.o \
	mm/mech_bench.o \
	mm/zone_contig.o \
	mm/buddy.o \
	mm/pcp.o \
	mm/page_alloc.o \
	mm/page_isolation.o \
	mm/migrate.o \
	mm/contig_alloc.o \
	mm/contig_free.o \
	mm/cma.o \
	mm/memory_block.o \
	mm/memory_hotplug.o \
	mm/memory_removal.o \
	mm/hotplug_memmap.o \
	mm/memory_hotplug_params.o \
	mm/memory_online.o \
	mm/online_policy.o \
	mm/memremap.o \
	mm/vmemmap_shared.o \
	mm/range_claim.o \
	mm/numa_cpu.o \
	mm/mm_init.o

# In-kernel self-test suites (KTAP), run by the `selftest` command.
KTEST_OBJS := \
	tests/kernel/ktest_lib.o \
	tests/kernel/ktest_shell.o \
	tests/kernel/ktest_memmap.o \
	tests/kernel/ktest_mm.o \
	tests/kernel/ktest_isolation.o \
	tests/kernel/ktest_mech.o \
	tests/kernel/ktest_deferred.o \
	tests/kernel/ktest_smp.o

KOBJS := $(addprefix $(B)/,$(BOOT_OBJS) $(INIT_OBJS) $(ARCH_OBJS) $(DRIVER_OBJS) \
	$(KERNEL_OBJS) $(LIB_OBJS) $(SHELL_OBJS) $(VIEWS_OBJS) $(MM_OBJS) $(KTEST_OBJS))

# What C itself forbids and gcc 12 only warns about (gcc 14 refuses it too):
# a call to an undeclared function, a missing type, pointers of unrelated
# types mixed, integers and pointers converted silently.  An undeclared
# macro used as a function would otherwise fail only at link time.
C_ERRORS := -Werror=implicit-function-declaration -Werror=implicit-int \
	-Werror=incompatible-pointer-types -Werror=int-conversion

KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter $(C_ERRORS) \
	-ffreestanding -fno-builtin-printf -fno-pie -fno-pic -mno-red-zone \
	-mgeneral-regs-only -mno-sse -mno-mmx -mno-sse2 -fno-stack-protector \
	-fcf-protection=none -mcmodel=kernel -fno-omit-frame-pointer \
	-mno-omit-leaf-frame-pointer -fno-asynchronous-unwind-tables \
	-fno-strict-aliasing -Iinclude -Iarch/x86_64/include -MD -MP
KERNEL_LDFLAGS := -nostdlib -static -z max-page-size=0x1000 --build-id=none \
	-z noexecstack -T linker.ld
LIBGCC := $(shell $(CC) -print-libgcc-file-name 2>/dev/null)

.PHONY: all iso run view debug test test-host test-view test-qemu test-big test-fuzz check-tree bench bench-run bench-docs bench-aml-insns clean \
	deps deps-run deps-test deps-bench soak fuzz-long FORCE
.DELETE_ON_ERROR:

all: $(B)/memlab.elf

$(KOBJS): | $(DEPS_FIRST)

$(B)/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(KERNEL_CFLAGS) -c $< -o $@

$(B)/%.o: %.asm
	@mkdir -p $(dir $@)
	$(NASM) -f elf64 -g -F dwarf -MD $(@:.o=.d) -MP $< -o $@

$(B)/%.o: $(B)/%.S
	$(CC) -c $< -o $@

# Two links: the first gives the function addresses, the second carries
# their names in .kallsyms (last in .rodata, so no function moves).  The
# check after the second link proves that.
$(B)/kallsyms-empty.S: tools/kallsyms.sh
	@mkdir -p $(B)
	sh tools/kallsyms.sh $(NM) --empty > $@

$(B)/memlab.stage1.elf: $(KOBJS) $(B)/kallsyms-empty.o linker.ld Makefile
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KOBJS) $(B)/kallsyms-empty.o $(LIBGCC)

$(B)/kallsyms.S: $(B)/memlab.stage1.elf tools/kallsyms.sh
	sh tools/kallsyms.sh $(NM) $< > $@

$(B)/memlab.elf: $(KOBJS) $(B)/kallsyms.o linker.ld
	$(LD) $(KERNEL_LDFLAGS) -o $@ $(KOBJS) $(B)/kallsyms.o $(LIBGCC)
	@$(NM) -n --defined-only $(B)/memlab.stage1.elf | awk '$$2 ~ /^[tTwW]$$/' > $(B)/syms.stage1
	@$(NM) -n --defined-only $@ | awk '$$2 ~ /^[tTwW]$$/' > $(B)/syms.final
	@cmp -s $(B)/syms.stage1 $(B)/syms.final || \
		{ echo "*** kallsyms: function addresses moved between the two links"; rm -f $@; exit 1; }
	@$(NM) -n $@ > $(B)/memlab.sym
	@if command -v grub-file >/dev/null 2>&1; then grub-file --is-x86-multiboot2 $@ || \
		{ echo "*** $@ is not a multiboot2 kernel (grub-file)"; rm -f $@; exit 1; }; fi

# --- the ISO ---------------------------------------------------------------

# The command line is part of the ISO (grub.cfg); rebuild when it changes.
$(B)/cmdline.txt: FORCE
	@mkdir -p $(B)
	@printf '%s' '$(CMDLINE)' | cmp -s - $@ 2>/dev/null || printf '%s' '$(CMDLINE)' > $@

$(B)/memlab.iso: $(B)/memlab.elf $(B)/cmdline.txt iso/grub.cfg tools/mkiso.sh
	sh tools/mkiso.sh $(B)/memlab.elf $@ "$$(cat $(B)/cmdline.txt)"

iso: | $(DEPS_FIRST)
	@$(MAKE) --no-print-directory $(B)/memlab.iso

# FIRMWARE=uefi: OVMF's code read-only, its variable store a private copy
# under build/ (OVMF writes to it).  Debian's ovmf package has one of the
# two file name pairs.
FIRMWARE ?= bios
OVMF_CODE := $(firstword $(wildcard /usr/share/OVMF/OVMF_CODE_4M.fd /usr/share/OVMF/OVMF_CODE.fd))
OVMF_VARS := $(patsubst %CODE_4M.fd,%VARS_4M.fd,$(patsubst %CODE.fd,%VARS.fd,$(OVMF_CODE)))
ifeq ($(FIRMWARE),uefi)
FIRMWARE_ARGS = -drive if=pflash,format=raw,readonly=on,file=$(OVMF_CODE) \
	-drive if=pflash,format=raw,file=$(B)/OVMF_VARS.fd
FIRMWARE_DEPS = $(B)/OVMF_VARS.fd
else ifeq ($(FIRMWARE),bios)
FIRMWARE_ARGS =
FIRMWARE_DEPS =
else
$(error FIRMWARE=$(FIRMWARE): bios or uefi)
endif

$(B)/OVMF_VARS.fd:
	@[ -n "$(OVMF_CODE)" ] || { echo "*** FIRMWARE=uefi needs OVMF: apt-get install ovmf (tools/deps.sh test installs it)"; exit 1; }
	@mkdir -p $(B)
	cp $(OVMF_VARS) $@

ifeq ($(origin DISPLAY),command line)
DISPLAY_ARGS = -display $(DISPLAY) -device VGA
else
DISPLAY_ARGS = -display none
endif

QEMU_ARGS = -machine q35 -accel $(ACCEL) -cpu $(CPU) -m $(MEM) -smp 1 \
	-nodefaults $(DISPLAY_ARGS) -serial mon:stdio $(FIRMWARE_ARGS) \
	-qmp unix:$(B)/qmp.sock,server=on,wait=off \
	-device isa-debug-exit,iobase=0xf4,iosize=0x04 \
	-device pcie-root-port,id=port1,bus=pcie.0,slot=1 \
	-cdrom $(B)/memlab.iso -boot d $(QEMU_EXTRA)

run: deps-run iso $(FIRMWARE_DEPS)
	@echo "memlab: $(FIRMWARE) firmware; serial console on this terminal; Ctrl-A X quits QEMU, Ctrl-A C toggles the monitor."
	@echo "memlab: QMP socket $(B)/qmp.sock; from a second terminal, e.g.:"
	@echo "          tools/qmp.py $(B)/qmp.sock query-status"
	@echo "          tools/qmp.py $(B)/qmp.sock object-add qom-type=memory-backend-ram id=m1 size=1G"
	@echo "          tools/qmp.py $(B)/qmp.sock device_add driver=pc-dimm id=d1 memdev=m1"
	@echo "        a virtio-mem device behind the root port port1:"
	@echo "          tools/qmp.py $(B)/qmp.sock object-add qom-type=memory-backend-ram id=vm0 size=8G reserve=false"
	@echo "          tools/qmp.py $(B)/qmp.sock device_add driver=virtio-mem-pci id=vmem1 memdev=vm0 bus=port1"
	@echo "          tools/qmp.py $(B)/qmp.sock qom-set path=vmem1 property=requested-size value=1G"
	$(QEMU) $(QEMU_ARGS)

# make view: make run plus the view channel (memlab's COM2 on build/view.sock,
# docs/view.md) and tools/memview.py serving the page; VIEW_PORT=0 picks a
# free port.  The serial console stays on this terminal; memview's URL and
# messages go to build/memview.log as well.
VIEW_PORT ?= 8000
# VIEW_VMEM: the size of the virtio-mem device `make view` adds on the root
# port port1 (requested size 0: the page's Resize plugs it); empty for none.
VIEW_VMEM ?= 4G
VIEW_VMEM_ARGS = -object memory-backend-ram,id=viewmem0,size=$(VIEW_VMEM),share=on,reserve=off \
	-device virtio-mem-pci,id=vmem0,memdev=viewmem0,bus=port1,requested-size=0
VIEW_ARGS = -chardev socket,id=view,path=$(B)/view.sock,server=on,wait=off -serial chardev:view \
	$(if $(VIEW_VMEM),$(VIEW_VMEM_ARGS))

view: deps-run iso $(FIRMWARE_DEPS)
	@rm -f $(B)/view.sock
	@$(PYTHON) tools/memview.py --view $(B)/view.sock --qmp $(B)/qmp.sock --port $(VIEW_PORT) \
		> $(B)/memview.log 2>&1 & echo $$! > $(B)/memview.pid; \
	for i in 1 2 3 4 5 6 7 8 9 10; do grep -q '^memview: http' $(B)/memview.log && break; sleep 0.2; done; \
	url=$$(sed -n 's/^memview: //p' $(B)/memview.log); \
	[ -n "$$url" ] || { cat $(B)/memview.log; kill $$(cat $(B)/memview.pid); exit 1; }; \
	echo "memlab: open $$url in a browser (memview.py, log in $(B)/memview.log)"; \
	echo "memlab: serial console on this terminal; Ctrl-A X quits QEMU (and memview)."; \
	$(QEMU) $(QEMU_ARGS) $(VIEW_ARGS); rc=$$?; kill $$(cat $(B)/memview.pid) 2>/dev/null; exit $$rc

debug: deps-run iso $(FIRMWARE_DEPS)
	@echo "memlab: QEMU waits for gdb on localhost:1234. In a second terminal:"
	@echo "          gdb -x tools/gdbinit"
	$(QEMU) $(QEMU_ARGS) -s -S

# --- tests -----------------------------------------------------------------

# Portable sources that the host tests compile with ASan and UBSan.
HOST_SRCS := \
	lib/vsnprintf.c \
	lib/printer.c \
	lib/json.c \
	lib/asciiplot.c \
	lib/errno.c \
	lib/strlcpy.c \
	lib/kstrtox.c \
	lib/params.c \
	lib/lock.c \
	kernel/cmdline.c \
	kernel/params.c \
	kernel/resource.c \
	lib/fw_memmap.c \
	lib/hexdump.c \
	shell/cmd_memmap.c \
	shell/line_edit.c \
	shell/shell.c \
	shell/args.c \
	views/vfs.c \
	views/sysfs_params.c \
	views/view_proto.c \
	shell/cmd_fs.c \
	arch/x86_64/multiboot2.c \
	drivers/video/font8x8.c \
	drivers/video/vtcon.c \
	drivers/input/scancode.c \
	drivers/nvdimm/nd.c \
	drivers/nvdimm/label.c \
	drivers/nvdimm/info.c \
	$(addsuffix .c,$(basename $(MM_OBJS)))

HOST_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Wno-unused-parameter $(C_ERRORS) \
	-fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer -Iinclude -Itests/host -idirafter arch/x86_64/include -DHOST_TEST

# Host test suites.  A suite is one binary, build/host-tests-NAME: the
# portable sources (HOST_SRCS), the shared test support (HOST_COMMON), and
# the suite's own files, HOST_SUITE_NAME: its test files, the real sources
# of the kernel it tests beyond HOST_SRCS (a driver, shell commands), and
# the fakes those need (a PCI function, a model PIT).  A test gets a suite
# of its own when its fakes would clash with another suite's real code in
# one binary; tests never #include a .c file.  The suite `main` holds every
# tests/host/*.c that neither HOST_COMMON nor another suite names.
# `build/host-tests-NAME SUBSTRING` runs the tests whose name contains it.
HOST_COMMON := tests/host/main.c tests/host/platform_stub.c \
	tests/host/mm_platform_host.c tests/host/buddy_fixture.c \
	tests/host/hotplug_check.c tests/host/test_owner.c
HOST_SUITES := main
# PCI: the real drivers/pci and its commands against a model of ECAM, the
# hotplug registers and the platform (tests/host/pci_model.c).
PCI_SRCS := $(patsubst %.o,%.c,$(filter drivers/pci/%,$(DRIVER_OBJS))) shell/cmd_pci.c
HOST_SUITES += pci
HOST_SUITE_pci := tests/host/test_pci.c tests/host/test_pci_placement.c \
	tests/host/test_pci_hotplug.c tests/host/test_pci_hotplug_dsdt.c \
	tests/host/test_pci_hotplug_native.c tests/host/test_pci_windows.c \
	tests/host/test_pci_hotplug_aml.c tests/host/test_pci_numa.c views/sysfs_pci.c \
	tests/host/pci_machine.c tests/host/pcihp_machine.c tests/host/pci_model.c \
	$(PCI_SRCS) drivers/acpi/crs.c $(AML_SRCS)
HOST_SUITES += tsc
HOST_SUITE_tsc := tests/host/test_tsc.c arch/x86_64/tsc.c
HOST_SUITES += uart
HOST_SUITE_uart := tests/host/test_uart.c drivers/serial/uart16550.c
HOST_SUITES += power
HOST_SUITE_power := tests/host/test_power.c arch/x86_64/power.c drivers/acpi/sleep.c $(AML_SRCS)
HOST_SUITES += apic
HOST_SUITE_apic := tests/host/test_apic.c tests/host/test_apic_lapic.c tests/host/apic_machine.c \
	arch/x86_64/apic.c drivers/acpi/madt.c
HOST_SUITES += smp
HOST_SUITE_smp := tests/host/test_smp.c arch/x86_64/trampoline.c
HOST_SUITES += boot_tables
HOST_SUITE_boot_tables := tests/host/test_boot_tables.c arch/x86_64/boot_tables.c
HOST_SUITES += acpi
HOST_SUITE_acpi := tests/host/test_acpi.c drivers/acpi/tables.c drivers/acpi/srat.c \
	drivers/acpi/acpidump.c views/sysfs_acpi.c \
	drivers/acpi/madt.c drivers/acpi/decode.c drivers/acpi/events.c drivers/acpi/memhp.c \
	drivers/acpi/memhp_aml.c $(AML_SRCS) \
	kernel/longop.c \
	drivers/acpi/numa_cpus.c
HOST_SUITES += nd_label
HOST_SUITE_nd_label := tests/host/test_nd_label.c tests/host/test_nd_dsm.c \
	drivers/nvdimm/nd_dsm.c $(AML_SRCS)
# Memory hotplug through the AML: QEMU's DSDT in the real interpreter, the
# real memhp driver and mm, QEMU's device emulated by the test.
HOST_SUITES += memhp_aml
HOST_SUITE_memhp_aml := tests/host/test_memhp_aml.c tests/host/memhp_qemu.c tests/host/hotplug_fixture.c \
	drivers/acpi/memhp.c drivers/acpi/memhp_aml.c $(AML_SRCS) kernel/longop.c
HOST_SUITES += nfit
HOST_SUITE_nfit := tests/host/test_nfit.c drivers/acpi/tables.c drivers/acpi/srat.c \
	drivers/acpi/nfit.c
HOST_SUITES += topology
HOST_SUITE_topology := tests/host/test_topology.c drivers/acpi/srat.c drivers/acpi/madt.c \
	drivers/acpi/decode.c drivers/acpi/numa_cpus.c
HOST_SUITES += views
HOST_SUITE_views := tests/host/test_views.c views/proc_mm.c
HOST_SUITES += sysfs_memory
HOST_SUITE_sysfs_memory := tests/host/test_sysfs_memory.c views/sysfs_memory.c kernel/longop.c
# The virtio-mem driver against its fake device (suite virtio), and the mm
# shell commands on a simulated machine with one (suite mm_cmds; when files
# of shell/ or views/ are added, moved or renamed, update these lists).
VIRTIO_MEM_SRCS := drivers/virtio/virtio_pci.c $(addsuffix .c,$(basename $(VIRTIO_MEM_OBJS))) \
	kernel/longop.c
# (the commands' tables are shared with the tests through shell/internal.h)
MM_CMDS_SRCS := shell/cmd_buddy.c shell/cmd_contig.c shell/cmd_handles.c shell/cmd_devmem.c shell/cmd_hotplug.c shell/cmd_mm.c shell/cmd_mech.c \
	shell/cmd_bench.c shell/cmd_virtio_mem.c views/sysfs_memory.c views/mech.c views/cma.c \
	views/pageblock_map.c \
	kernel/meminit_work.c arch/x86_64/trampoline.c
HOST_SUITES += virtio
HOST_SUITE_virtio := tests/host/test_virtio.c tests/host/virtio_mem_fake.c $(VIRTIO_MEM_SRCS) \
	shell/cmd_virtio_mem.c
HOST_SUITES += mm_cmds
HOST_SUITE_mm_cmds := tests/host/test_mm_cmds.c tests/host/virtio_mem_fake.c $(VIRTIO_MEM_SRCS) \
	$(MM_CMDS_SRCS)
# ThreadSanitizer: the locks and the real mm sources with pthreads as CPUs
# (tests/host/test_tsan_mm.c).  Built with -fsanitize=thread instead of ASan
# and UBSan, which cannot share a binary with it: its own objects
# (build/host-tsan-obj/) and rule below.  A race TSan sees fails the run.
# The AML interpreter over a fake machine (tests/host/aml_fake.c), with the
# ASL tables of tests/host/aml/ compiled by iasl into build/aml/, and
# each result compared with ACPICA's acpiexec on the same tables.
AML_ASL := $(sort $(wildcard tests/host/aml/*.asl))
AML_AML := $(patsubst tests/host/aml/%.asl,$(B)/aml/%.aml,$(AML_ASL))
$(B)/aml/%.aml: tests/host/aml/%.asl
	@mkdir -p $(B)/aml
	iasl -vs -vw 3144 -vw 3145 -p $(B)/aml/$* $< > $(B)/aml/$*.log 2>&1 || { cat $(B)/aml/$*.log; exit 1; }
HOST_SUITES += aml
HOST_SUITE_aml := tests/host/test_aml.c tests/host/test_aml_ref.c tests/host/aml_fake.c $(AML_SRCS)
$(B)/host-tests-aml: | $(AML_AML)
$(B)/host-tests-pci: | $(AML_AML)
HOST_SUITES += tsan
HOST_SUITE_tsan := tests/host/test_tsan_mm.c tests/host/test_memmap_cpus.c tests/host/hotplug_fixture.c
HOST_CLAIMED = $(foreach s,$(filter-out main,$(HOST_SUITES)),$(HOST_SUITE_$(s)))
# Fixtures that suite main links and another suite names too (claimed
# there, so added back here).
HOST_SHARED_FIXTURES := tests/host/hotplug_fixture.c tests/host/test_memmap_cpus.c
HOST_SUITE_main = $(filter-out $(HOST_CLAIMED) $(HOST_COMMON),$(sort $(wildcard tests/host/*.c))) \
	$(HOST_SHARED_FIXTURES)

# Each source is compiled once (build/host-obj/, with its .d file) and
# linked into every suite that names it.
HOST_OBJ = $(patsubst %.c,$(B)/host-obj/%.o,$(1))
$(B)/host-obj/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@
define host_suite
$(B)/host-tests-$(1): $$(call HOST_OBJ,$$(HOST_COMMON) $$(HOST_SRCS) $$(HOST_SUITE_$(1)))
	$$(HOSTCC) $$(HOST_CFLAGS) $$^ -o $$@
endef
$(foreach s,$(filter-out tsan,$(HOST_SUITES)),$(eval $(call host_suite,$(s))))
-include $(shell find $(B)/host-obj -name '*.d' 2>/dev/null)

HOST_TSAN_CFLAGS = $(filter-out -fsanitize=address$(comma)undefined -fno-sanitize-recover=all,\
	$(HOST_CFLAGS)) -fsanitize=thread
HOST_TSAN_OBJ = $(patsubst %.c,$(B)/host-tsan-obj/%.o,$(1))
$(B)/host-tsan-obj/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_TSAN_CFLAGS) -MMD -MP -c $< -o $@
$(B)/host-tests-tsan: $(call HOST_TSAN_OBJ,$(HOST_COMMON) $(HOST_SRCS) $(HOST_SUITE_tsan))
	$(HOSTCC) $(HOST_TSAN_CFLAGS) $^ -o $@ -lpthread
-include $(shell find $(B)/host-tsan-obj -name '*.d' 2>/dev/null)

# Every suite (its failures and log lines shown, its ok lines in its log),
# then one line with the totals.  Each suite runs as its own goal,
# build/host-tests-NAME.result (its exit status and last line), so that
# `make -j2 test-host` (as `make test` runs it) runs two at a time; the
# lines are printed in the order of HOST_SUITES once all have run.
HOST_RESULTS := $(patsubst %,$(B)/host-tests-%.result,$(HOST_SUITES))
$(B)/host-tests-%.result: $(B)/host-tests-% FORCE
	@ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
		TSAN_OPTIONS=halt_on_error=1:exitcode=66 \
		./$< > $<.log 2>&1; echo "$$? $$(tail -1 $<.log)" > $@
test-host: deps-test $(HOST_RESULTS)
	@tp=0; tf=0; for s in $(HOST_SUITES); do \
		log=$(B)/host-tests-$$s.log; \
		read rc line < $(B)/host-tests-$$s.result; \
		p=$$(echo "$$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$$/\1/p'); \
		f=$$(echo "$$line" | sed -n 's/^\([0-9]*\) passed, \([0-9]*\) failed$$/\2/p'); \
		if [ -z "$$p" ] || [ $$rc != 0 ]; then grep -v '^ok ' $$log | tail -60; \
			echo "*** host-tests-$$s failed (exit $$rc; log: $$log)"; exit 1; fi; \
		echo "host-tests-$$s: $$line"; tp=$$((tp + p)); tf=$$((tf + f)); \
	done; echo "host-tests: $$tp passed, $$tf failed in $(words $(HOST_SUITES)) suites"

comma := ,
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,%,$(sort $(wildcard tests/fuzz/fuzz_*.c)))
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(C_ERRORS) -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=all -Iinclude -Itests/host -idirafter arch/x86_64/include -DHOST_TEST

FUZZ_SUPPORT := tests/host/platform_stub.c tests/host/mm_platform_host.c
FUZZ_SRCS_fuzz_pci := tests/fuzz/pci_hotplug_events.c tests/host/pci_model.c $(PCI_SRCS) \
	drivers/acpi/crs.c $(AML_SRCS)
FUZZ_SRCS_fuzz_aml := tests/host/aml_fake.c $(AML_SRCS)
FUZZ_SRCS_fuzz_acpi := tests/fuzz/acpi_harness.c drivers/acpi/tables.c drivers/acpi/srat.c \
	drivers/acpi/madt.c drivers/acpi/decode.c drivers/acpi/events.c drivers/acpi/memhp.c drivers/acpi/sleep.c \
	drivers/acpi/numa_cpus.c drivers/acpi/nfit.c arch/x86_64/apic.c arch/x86_64/power.c shell/cmd_acpi.c kernel/longop.c \
	drivers/acpi/acpidump.c drivers/acpi/memhp_aml.c shell/cmd_aml.c $(AML_SRCS)
FUZZ_SRCS_fuzz_virtio_mem := tests/host/virtio_mem_fake.c tests/host/hotplug_check.c \
	tests/host/test_owner.c $(VIRTIO_MEM_SRCS) shell/cmd_virtio_mem.c
FUZZ_SRCS_fuzz_mm_cmds := tests/host/virtio_mem_fake.c tests/host/hotplug_check.c \
	tests/host/test_owner.c $(VIRTIO_MEM_SRCS) $(MM_CMDS_SRCS)

# A target links, beyond HOST_SRCS and FUZZ_SUPPORT, the real sources and
# fakes it names in FUZZ_SRCS_<target> (as a host suite does), and its own
# support files from tests/fuzz/ (not named fuzz_*: each fuzz_*.c is one
# target with one LLVMFuzzerTestOneInput).  Each source
# is compiled once (build/fuzz-obj/, -fsanitize=fuzzer-no-link, with its .d
# file) and linked into every target that names it.
FUZZ_OBJ_CFLAGS := $(subst -fsanitize=fuzzer$(comma),-fsanitize=fuzzer-no-link$(comma),$(FUZZ_CFLAGS))
FUZZ_OBJ = $(patsubst %.c,$(B)/fuzz-obj/%.o,$(1))
$(B)/fuzz-obj/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(FUZZCC) $(FUZZ_OBJ_CFLAGS) -MMD -MP -c $< -o $@
.SECONDEXPANSION:
$(B)/fuzz/%: $$(call FUZZ_OBJ,tests/fuzz/%.c $$(HOST_SRCS) $$(FUZZ_SUPPORT) $$(FUZZ_SRCS_$$*)) | $(DEPS_FIRST)
	@mkdir -p $(B)/fuzz
	$(FUZZCC) $(FUZZ_CFLAGS) $^ -o $@
-include $(shell find $(B)/fuzz-obj -name '*.d' 2>/dev/null)

# make test's fuzz runs are bounded by time and by a number of runs: with
# -seed=1 and the committed seeds a target walks the same inputs in the
# same order on every machine, so the cap makes the run a fixed prefix of
# that walk (about FUZZ_SECONDS on this 2-core machine) and a slow or fast
# CI machine sees the same inputs, never more.  Longer runs: make fuzz-long.
FUZZ_RUNS_fuzz_acpi := 20000
FUZZ_RUNS_fuzz_aml := 50000
FUZZ_RUNS_fuzz_memblock := 4000
FUZZ_RUNS_fuzz_mm_cmds := 25
FUZZ_RUNS_fuzz_multiboot2 := 20000
FUZZ_RUNS_fuzz_nd := 10000
FUZZ_RUNS_fuzz_pci := 20000
FUZZ_RUNS_fuzz_shell := 50000
FUZZ_RUNS_fuzz_virtio_mem := 50
FUZZ_RUNS_fuzz_view_request := 1000000
# One goal per target, build/fuzz/TARGET.ran, so that `make -j2 test-fuzz`
# (as `make test` runs it) runs two targets at a time; a failure prints
# the end of its log and stops the tier.
FUZZ_RAN := $(patsubst %,$(B)/fuzz/%.ran,$(FUZZ_TARGETS))
$(B)/fuzz/%.ran: $(B)/fuzz/% FORCE
	@mkdir -p $(B)/fuzz/corpus-$*
	@seeds=; [ -d tests/fuzz/seeds/$* ] && seeds=tests/fuzz/seeds/$*; \
		runs=$(FUZZ_RUNS_$*); \
		echo "fuzz: $* for $(FUZZ_SECONDS) s or $${runs:-unlimited} runs"; \
		./$< -max_total_time=$(FUZZ_SECONDS) -runs=$${runs:--1} -seed=1 -print_final_stats=0 \
			-artifact_prefix=$(B)/fuzz/$*- \
			$(B)/fuzz/corpus-$* $$seeds > $(B)/fuzz/$*.log 2>&1 \
			|| { tail -40 $(B)/fuzz/$*.log; echo "*** fuzz target $* found a bug (log: $(B)/fuzz/$*.log)"; exit 1; }
	@touch $@
test-fuzz: deps-test $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS)) $(FUZZ_RAN)

# Each fuzz target for FUZZ_LONG_SECONDS (default 1800: millions of runs),
# growing its corpus in build/fuzz/corpus-<target> (kept between runs).
# A crash leaves build/fuzz/<target>-crash-*; docs/testing.md says how it
# becomes a seed in tests/fuzz/seeds/<target>/.
FUZZ_LONG_SECONDS ?= 1800
fuzz-long: $(addprefix $(B)/fuzz/,$(FUZZ_TARGETS))
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(B)/fuzz/corpus-$$t; \
		seeds=; [ -d tests/fuzz/seeds/$$t ] && seeds=tests/fuzz/seeds/$$t; \
		echo "fuzz-long: $$t for $(FUZZ_LONG_SECONDS) s"; \
		./$(B)/fuzz/$$t -max_total_time=$(FUZZ_LONG_SECONDS) -print_final_stats=1 \
			-artifact_prefix=$(B)/fuzz/$$t- \
			$(B)/fuzz/corpus-$$t $$seeds > $(B)/fuzz/$$t-long.log 2>&1 \
			|| { tail -40 $(B)/fuzz/$$t-long.log; echo "*** fuzz target $$t found a bug (log: $(B)/fuzz/$$t-long.log)"; exit 1; }; \
		grep -h '^stat::number_of_executed_units' $(B)/fuzz/$$t-long.log | \
			sed "s/^stat::number_of_executed_units: */fuzz-long: $$t: /; s/$$/ executions, corpus $$(ls $(B)/fuzz/corpus-$$t | wc -l) files/"; \
	done

# The soak (docs/testing.md, "Soak"; never part of `make test`): a seeded
# random storm of hotplug, allocation and state operations, the memory
# invariants checked after each.  SOAK_OPS operations on each of SOAK_SEED.
SOAK_OPS ?= 10000
SOAK_SEED ?= 1,2,3
soak: deps-test $(B)/memlab.elf
	MEMLAB_NO_BUILD=1 SOAK_OPS=$(SOAK_OPS) SOAK_SEED=$(SOAK_SEED) $(PYTHON) tools/soak.py $(SOAK_ARGS)

# The layout rules (docs/architecture.md): homes of commands and views, the
# folder import graph, paths named in comments and docs, unused functions.
check-tree: $(B)/memlab.elf
	$(PYTHON) tools/check_tree.py

test-qemu: deps-test $(B)/memlab.elf
	MEMLAB_NO_BUILD=1 $(PYTHON) -m pytest tests/qemu $(PYTEST_ARGS)

# The plugs too big for `make test`: a 1 TiB virtio-mem plug into a 2 GiB
# guest and its unplug to 0 (16 GiB of memmap that the host backs; a
# couple of minutes under TCG).
test-big: deps-test $(B)/memlab.elf
	MEMLAB_NO_BUILD=1 MEMLAB_TIB_PLUG=1 $(PYTHON) -m pytest tests/qemu/test_virtio_mem.py \
		-k "large_sparse_plug and 1024" -s $(PYTEST_ARGS)

# Benchmarks: never part of `make test`.  Old vs new measured in one run,
# beside the physical limit (see each benchmark's header comment).
BENCH_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Wno-unused-parameter $(C_ERRORS) \
	-Iinclude -Itests/host -idirafter arch/x86_64/include -DHOST_TEST

# The kernel's sources are built for the benchmarks with the kernel's own
# code generation (general registers only: no SSE/AVX stores that the
# kernel could not use), so the host measures the instructions QEMU runs.
BENCH_LIB_OBJS := $(patsubst %.c,$(B)/bench-obj/%.o,$(HOST_SRCS))
$(B)/bench-obj/%.o: %.c | $(DEPS_FIRST)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(BENCH_CFLAGS) -mgeneral-regs-only -MMD -MP -c $< -o $@
-include $(BENCH_LIB_OBJS:.o=.d)

BENCHES := $(addprefix $(B)/,bench-memory_core bench-zone_contig bench-memmap_init \
	bench-free_contig_range bench-automovable bench-pmem_init)
$(BENCHES): $(B)/bench-%: tests/bench/bench_%.c $(BENCH_LIB_OBJS) $(FUZZ_SUPPORT) | $(DEPS_FIRST)
	@mkdir -p $(B)
	$(HOSTCC) $(BENCH_CFLAGS) $< $(BENCH_LIB_OBJS) $(FUZZ_SUPPORT) -o $@

# The AML interpreter's cost of one DIMM add (QEMU's DSDT, memhp_aml.c's
# calls, QEMU's registers modelled): its own figures, and under callgrind
# its instructions per add and per opcode (make bench-aml-insns; the
# same count on every run).
BENCH_AML_SRCS := tests/host/memhp_qemu.c drivers/acpi/memhp_aml.c $(AML_SRCS)
BENCH_AML_OBJS := $(patsubst %.c,$(B)/bench-obj/%.o,$(BENCH_AML_SRCS))
-include $(BENCH_AML_OBJS:.o=.d)
BENCHES += $(B)/bench-memhp_aml
$(B)/bench-memhp_aml: tests/bench/bench_memhp_aml.c $(BENCH_AML_OBJS) $(BENCH_LIB_OBJS) \
		$(FUZZ_SUPPORT) | $(DEPS_FIRST)
	$(HOSTCC) $(BENCH_CFLAGS) $< $(BENCH_AML_OBJS) $(BENCH_LIB_OBJS) $(FUZZ_SUPPORT) -o $@
bench-aml-insns: $(B)/bench-memhp_aml
	$(PYTHON) tests/bench/aml_insns.py $(B)/bench-memhp_aml

# The QEMU half boots the ISO and runs the in-kernel bench commands.
# Every benchmark also writes its figures and per-block series as CSV into
# build/bench (BENCH_OUT), drawn as SVG at the end (tools/bench_plot.py,
# python3-matplotlib); `make bench-docs` then copies them into docs/bench
# and regenerates the docs' tables from them.
BENCH_OUT := $(B)/bench
bench: deps-bench $(BENCHES) $(B)/memlab.elf
	@rm -rf $(BENCH_OUT) && mkdir -p $(BENCH_OUT)
	@{ date -u '+%Y-%m-%d %H:%M UTC'; git describe --always --dirty 2>/dev/null || echo "(not a git checkout)"; \
	  echo "$$(nproc) CPUs: $$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)"; } \
		> $(BENCH_OUT)/run.txt
	@( $(MAKE) --no-print-directory bench-run; echo $$? > $(BENCH_OUT)/rc ) 2>&1 | tee $(BENCH_OUT)/bench.log
	@exit $$(cat $(BENCH_OUT)/rc)
	$(PYTHON) tools/bench_plot.py plot $(BENCH_OUT)

# The benchmarks themselves (make bench runs this, its output kept in
# build/bench/bench.log).
bench-run:
	BENCH_OUT=$(BENCH_OUT) ./$(B)/bench-memory_core
	BENCH_OUT=$(BENCH_OUT) ./$(B)/bench-zone_contig
	BENCH_OUT=$(BENCH_OUT) ./$(B)/bench-memmap_init
	BENCH_OUT=$(BENCH_OUT) ./$(B)/bench-free_contig_range
	BENCH_OUT=$(BENCH_OUT) ./$(B)/bench-automovable
	BENCH_OUT=$(BENCH_OUT) ./$(B)/bench-pmem_init
	./$(B)/bench-memhp_aml
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/qemu_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/vmem_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/memhp_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/lazyplug_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/pmem_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/boot_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/bigboot_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/smp_bench.py
	BENCH_OUT=$(BENCH_OUT) MEMLAB_NO_BUILD=1 $(PYTHON) tests/bench/view_bench.py

bench-docs:
	$(PYTHON) tools/bench_plot.py docs $(BENCH_OUT)

# The memory page's JavaScript logic (tools/view/logic.js) under node's
# own test runner; a failing test fails the target.
test-view: deps-test
	node --test tests/view/

# Every tier; the last line printed is pytest's summary.  Each tier uses
# TEST_JOBS CPUs (the machine's; CI has 2): the builds and the host suites
# and fuzz runs with make -j, the QEMU scenarios with pytest-xdist, two
# machines at a time, the speed-sensitive ones in one serial group
# (tests/qemu/conftest.py, docs/testing.md "make test").  TEST_JOBS=1
# runs everything one at a time, as before.
TEST_JOBS ?= $(shell nproc 2>/dev/null || echo 1)
PYTEST_JOBS = $(if $(filter-out 0 1,$(TEST_JOBS)),-n $(TEST_JOBS) --dist loadgroup)
test: deps-test
	@$(MAKE) --no-print-directory DEPS_CHECKED=1 -j$(TEST_JOBS) test-host
	@$(MAKE) --no-print-directory DEPS_CHECKED=1 test-view
	@$(MAKE) --no-print-directory DEPS_CHECKED=1 -j$(TEST_JOBS) test-fuzz
	@$(MAKE) --no-print-directory DEPS_CHECKED=1 -j$(TEST_JOBS) $(B)/memlab.elf
	$(PYTHON) tools/check_tree.py
	MEMLAB_NO_BUILD=1 $(PYTHON) -m pytest tests/qemu $(PYTEST_JOBS) $(PYTEST_ARGS)

# --- packages and housekeeping ---------------------------------------------

deps: deps-test
deps-bench:
	@[ -n "$(DEPS_CHECKED)" ] || bash tools/deps.sh bench
deps-run:
	@[ -n "$(DEPS_CHECKED)" ] || bash tools/deps.sh run
deps-test:
	@[ -n "$(DEPS_CHECKED)" ] || bash tools/deps.sh test

clean:
	rm -rf $(B)

FORCE:

-include $(KOBJS:.o=.d)
