"""Boot scenarios: boot to the serial shell, the shell's contracts, the
first /proc files, the memory map against QEMU's size, faults and power off.

Contracts used (kernel side): serial 115200 on COM1; boot log lines
"[    0.012345] message"; prompt "memlab> " without newline; \\r\\n line ends;
typed characters are echoed; errors are "NAME: ..." lines; a fatal exception
writes 0x20 + vector to isa-debug-exit (port 0xf4).
"""

import random
import re
import time

from memlab import exception_exit_status, CMD_TIMEOUT, SCALE

MiB = 1 << 20
GiB = 1 << 30

COMMANDS = ["help", "ls", "cat", "grep", "echo", "memmap", "cpuinfo",
            "uptime", "poweroff", "reboot", "selftest", "crash"]

BOOT_LINE = re.compile(r"^\[\s*\d+\.\d{6}\] ", re.M)
SYMBOL = re.compile(r"\b[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-fA-F]+")

# SeaBIOS on q35 keeps the 0x9fc00-0x100000 hole and a few pages below the
# top of low RAM; page trimming may take a few KiB more.
FIRMWARE_SLACK = 4 * MiB


# -- helpers -------------------------------------------------------------

def iomem_ram_bytes(text):
    """Total of the top-level "System RAM" lines of /proc/iomem
    ("00100000-7ffdffff : System RAM", inclusive end, as Linux)."""
    total = 0
    for m in re.finditer(r"^([0-9a-fA-F]+)-([0-9a-fA-F]+) : System RAM\s*$",
                         text, re.M):
        total += int(m.group(2), 16) - int(m.group(1), 16) + 1
    return total


_UNITS = {"": 1, "b": 1, "byte": 1, "bytes": 1, "kib": 1 << 10,
          "mib": MiB, "gib": GiB}


def memmap_ram_bytes(text):
    """The total `memmap` prints on its summary line,
    "System RAM: 2096628 KiB in 2 ranges (524157 pages)".  None if absent."""
    m = re.search(r"^System RAM:\s*(\d+)\s*(KiB|MiB|GiB|bytes?)?", text,
                  re.M | re.I)
    if not m:
        return None
    total = int(m.group(1)) * _UNITS[(m.group(2) or "").lower()]
    pages = re.search(r"\((\d+) pages\)", text[m.start():].split("\n")[0])
    if pages:
        assert int(pages.group(1)) * 4096 == total, \
            f"memmap summary disagrees with itself: {m.group(0)!r}"
    return total


def memmap_table_ram_bytes(text):
    """Total of the sanitized map's System RAM rows
    ("[mem 0x...-0x...]  1.9 GiB  System RAM", inclusive end, as Linux)."""
    total = 0
    for m in re.finditer(r"\[mem (0x[0-9a-fA-F]+)-(0x[0-9a-fA-F]+)\].*System RAM",
                         text):
        total += int(m.group(2), 16) - int(m.group(1), 16) + 1
    return total


def seconds(text):
    """The first time in text, in seconds: "12.34", "0:01:02", or "12"."""
    m = re.search(r"\d+\.\d+", text)
    if m:
        return float(m.group())
    m = re.search(r"(\d+):(\d\d):(\d\d)", text)
    if m:
        h, mi, s = map(int, m.groups())
        return h * 3600 + mi * 60 + s
    m = re.search(r"\d+", text)
    assert m, f"no number of seconds in {text!r}"
    return float(m.group())


def assert_ram_matches(m, out_memmap, out_iomem):
    base = m.qmp().cmd("query-memory-size-summary")["base-memory"]
    ram = memmap_ram_bytes(out_memmap)
    assert ram is not None, \
        f"memmap prints no 'System RAM: N KiB' summary line:\n{out_memmap}"
    table = memmap_table_ram_bytes(out_memmap)
    assert table == ram, \
        (f"memmap's System RAM rows add up to {table:#x}, its summary says "
         f"{ram:#x}")
    assert base - FIRMWARE_SLACK <= ram <= base, \
        (f"memmap System RAM total {ram:#x} ({ram / MiB:.1f} MiB) does not "
         f"match QEMU base memory {base:#x} ({base / MiB:.0f} MiB)")
    iomem = iomem_ram_bytes(out_iomem)
    assert base - FIRMWARE_SLACK <= iomem <= base, \
        (f"/proc/iomem System RAM adds up to {iomem:#x} "
         f"({iomem / MiB:.1f} MiB), QEMU base memory is {base:#x}")


# -- boot ----------------------------------------------------------------

def test_boot_to_prompt(machine):
    print(f"boot to prompt: {machine.boot_time:.2f} s")
    log = machine.boot_log.replace("\r", "")
    assert BOOT_LINE.search(log), \
        "no boot log line like '[    0.012345] message' before the prompt"
    assert machine.boot_time < 20 * SCALE, \
        f"boot to prompt took {machine.boot_time:.1f} s under TCG"


def test_boot_icelake(boot):
    m = boot(cpu="Icelake-Server")
    out = m.run("cpuinfo")
    assert "GenuineIntel" in out, out


def test_boot_8g(boot):
    m = boot(mem="8G")
    assert_ram_matches(m, m.run("memmap"), m.run("cat /proc/iomem"))
    assert memmap_ram_bytes(m.run("memmap")) > 8 * GiB - 16 * MiB


# -- shell ---------------------------------------------------------------

def test_help_lists_commands(shell):
    out = shell.run("help")
    missing = [c for c in COMMANDS
               if not re.search(rf"^\s*{re.escape(c)}\b", out, re.M)]
    assert not missing, f"help does not list {missing}:\n{out}"


def test_help_cmd_shows_usage(shell):
    out = shell.run("help cat")
    assert re.search(r"usage", out, re.I) and "cat" in out, out


def test_unknown_command(shell):
    out = shell.run("nosuch")
    assert "nosuch: command not found" in out, out


def test_wrong_arguments_usage(shell):
    out = shell.run("cat")
    assert re.search(r"usage:.*cat", out, re.I), out


def test_cat_missing_file(shell):
    out = shell.run("cat /proc/nosuch")
    assert "cat: /proc/nosuch: No such file or directory" in out, out


def test_line_editor_backspace(shell):
    out = shell.run_keys(b"help caz\x7ft\r")         # DEL erases the z
    assert "usage: cat" in out, out


def test_line_editor_ctrl_u(shell):
    out = shell.run_keys(b"nosuch\x15help cat\r")    # Ctrl-U kills the line
    assert "command not found" not in out and "usage: cat" in out, out


def test_line_editor_ctrl_c(shell):
    shell.send_bytes(b"nosuch\x03")                  # Ctrl-C cancels
    out = shell.wait_prompt()
    assert "command not found" not in out, out


def test_line_editor_history(shell):
    shell.run("help cat")
    out = shell.run_keys(b"\x1b[A\r")                 # Up, Enter
    assert "usage: cat" in out, out


def test_unknown_escape_sequence_swallowed(shell):
    out = shell.run_keys(b"\x1b[12;34$~help cat\r")
    assert "usage: cat" in out, out


def test_overlong_line(machine):
    machine.send_line("x" * 300)
    out = machine.wait_prompt()
    out += machine.quiesce(0.5)
    assert "too long" in out, out[-500:]
    assert machine.alive()
    help_out = machine.run("help")
    assert re.search(r"^\s*poweroff\b", help_out, re.M), help_out


def test_random_bytes_then_help(machine):
    rng = random.Random(0x6d656d6c)          # fixed seed: reproducible
    junk = bytes(rng.randrange(256) for _ in range(4096))
    for i in range(0, len(junk), 512):
        machine.send_bytes(junk[i:i + 512])
    machine.send_bytes(b"\x03\r")
    machine.quiesce(1.0, timeout=60 * SCALE)
    assert machine.alive(), "QEMU exited after random input"
    machine.send_bytes(b"\x03\r")
    machine.wait_prompt()
    machine.quiesce(0.3)
    out = machine.run("help")
    assert re.search(r"^\s*poweroff\b", out, re.M), out


# -- files ---------------------------------------------------------------

def test_proc_cmdline(boot):
    m = boot(cmdline="memlab.test=1 foo=bar")
    out = m.run("cat /proc/cmdline")
    assert "memlab.test=1 foo=bar" in out, out


def test_ls_proc(shell):
    out = shell.run("ls /proc")
    names = set(re.split(r"[\s/]+", out))
    missing = {"cmdline", "version", "uptime", "iomem"} - names
    assert not missing, f"ls /proc lacks {sorted(missing)}:\n{out}"


# /proc/iomem of this machine (q35, SeaBIOS, 2 GiB, no extra devices) as
# Linux 6.1 prints it: r_show() in kernel/resource.c writes
# "%*s%0*llx-%0*llx : %s\n" (two spaces per level, 8 hex digits at least),
# the names are Linux's: e820's ("System RAM", "Reserved"; page 0 Reserved
# by trim_bios_range()), probe_roms()'s "System ROM", the kernel image's
# four parts, pci_mmcfg's "PCI MMCONFIG %04x [bus %02x-%02x]" around the
# firmware's Reserved range, the root bus windows "PCI Bus 0000:00" of the
# host bridge's _CRS (the VGA window, the 32-bit hole on either side of
# MMCONFIG, the 64-bit hole above the hotplug area, which maxmem places) with
# the BARs named by pci_name(), "IOAPIC %u", "HPET %u" and "Local APIC".
# Regular expressions stand for the kernel image's and the SATA BAR's
# addresses, and for the option ROMs probe_roms() finds (under TCG SeaBIOS
# leaves QEMU's kvmvapic.bin at 0xc0000, which Linux's rule, the first ROM
# below 0xc8000, names "Video ROM").
IOMEM_Q35_2G = r"""00000000-00000fff : Reserved
00001000-0009efff : System RAM
  000[0-9a-f]{5}-000[0-9a-f]{5} : SMP trampoline
0009fc00-0009ffff : Reserved
000a0000-000bffff : PCI Bus 0000:00
(?:000[c-e][0-9a-f]{4}-000[c-e][0-9a-f]{4} : (?:Video|Adapter|Extension) ROM
)*000f0000-000fffff : Reserved
  000f0000-000fffff : System ROM
00100000-7ffdefff : System RAM
  00[0-9a-f]{6}-00[0-9a-f]{6} : Kernel code
  00[0-9a-f]{6}-00[0-9a-f]{6} : Kernel rodata
  00[0-9a-f]{6}-00[0-9a-f]{6} : Kernel data
  00[0-9a-f]{6}-00[0-9a-f]{6} : Kernel bss
7ffdf000-7fffffff : Reserved
80000000-afffffff : PCI Bus 0000:00
b0000000-bfffffff : PCI MMCONFIG 0000 \[bus 00-ff\]
  b0000000-bfffffff : Reserved
c0000000-febfffff : PCI Bus 0000:00
  fe[0-9a-f]{6}-fe[0-9a-f]{6} : 0000:00:1f\.2
fec00000-fec003ff : IOAPIC 0
fed00000-fed003ff : HPET 0
fed1c000-fed1ffff : Reserved
fee00000-fee00fff : Local APIC
fffc0000-ffffffff : Reserved
[1-9a-f][0-9a-f]{8,}-[0-9a-f]{9,} : PCI Bus 0000:00
fd00000000-ffffffffff : Reserved
"""

# /proc/ioports: the same r_show() with 4 digits (the root ends at 0xffff);
# the host bridge's two I/O windows from its _CRS, which adopt what lies in
# them: reserve_standard_io_resources()'s PC ports, COM1, the FADT's blocks
# under Linux's names, the I/O BARs (memory hotplug's registers are the AML's).
# (Linux also shows "0cf8-0cff : PCI conf1", the config ports it uses;
# memlab reaches config space through MMCONFIG only.)
IOPORTS_Q35 = r"""0000-0cf7 : PCI Bus 0000:00
  0000-001f : dma1
  0020-0021 : pic1
  0040-0043 : timer0
  0050-0053 : timer1
  0060-0060 : keyboard
  0064-0064 : keyboard
  0080-008f : dma page reg
  00a0-00a1 : pic2
  00c0-00df : dma2
  00f0-00ff : fpu
  03f8-03ff : serial
  0600-0603 : ACPI PM1a_EVT_BLK
  0604-0605 : ACPI PM1a_CNT_BLK
  0608-060b : ACPI PM_TMR
  0620-062f : ACPI GPE0_BLK
  0700-073f : 0000:00:1f\.3
0d00-ffff : PCI Bus 0000:00
  [0-9a-f]{4}-[0-9a-f]{4} : 0000:00:1f\.2
"""


def test_proc_iomem(shell):
    out = shell.run("cat /proc/iomem")
    assert re.fullmatch(IOMEM_Q35_2G, out), out


def test_proc_ioports(shell):
    out = shell.run("cat /proc/ioports")
    assert re.fullmatch(IOPORTS_Q35, out), out


def test_grep(shell):
    out = shell.run('grep "System RAM" /proc/iomem')
    lines = [ln for ln in out.splitlines() if ln.strip()]
    assert len(lines) >= 2 and all("System RAM" in ln for ln in lines), out


def test_proc_version_and_echo(shell):
    assert "memlab" in shell.run("cat /proc/version")
    assert shell.run("echo hello world").strip() == "hello world"


def test_write_readonly_file(shell):
    # Linux: a read-only procfs file opens, then write() fails with EIO;
    # a read-only sysfs attribute is refused at open with EACCES
    out = shell.run("echo 1 > /proc/cmdline")
    assert out.strip() == "echo: write error: Input/output error", out
    out = shell.run("echo 1 > /sys/devices/system/memory/block_size_bytes")
    assert "Permission denied" in out, out


def test_memmap_matches_qemu(shell):
    assert_ram_matches(shell, shell.run("memmap"), shell.run("cat /proc/iomem"))


def test_uptime_increases(shell):
    t1 = time.monotonic()
    u1, p1 = shell.run("uptime"), shell.run("cat /proc/uptime")
    time.sleep(1.2)
    u2, p2 = shell.run("uptime"), shell.run("cat /proc/uptime")
    t2 = time.monotonic()
    assert seconds(u2) > seconds(u1), (u1, u2)
    assert seconds(p2) > seconds(p1), (p1, p2)
    # TCG's clocks follow the host's: the guest's seconds should too.
    host, guest = t2 - t1, seconds(p2) - seconds(p1)
    assert 0.5 * host < guest < 1.5 * host, \
        f"guest uptime advanced {guest:.2f} s while {host:.2f} s passed"


def test_selftest_ktap(shell):
    out = shell.run("selftest", timeout=max(CMD_TIMEOUT, 120 * SCALE))
    assert "KTAP version 1" in out, out
    assert re.search(r"^\s*1\.\.\d+", out, re.M), f"no KTAP plan line:\n{out}"
    failed = [ln for ln in out.splitlines() if re.match(r"\s*not ok\b", ln)]
    assert not failed, "self-tests failed:\n" + "\n".join(failed) + \
        "\n--- full output ---\n" + out
    assert re.search(r"^\s*ok \d+", out, re.M), out


# -- faults and power ----------------------------------------------------

def test_crash_pagefault(machine):
    machine.send_line("crash pagefault")
    status = machine.wait_exit()
    out = machine.unread().replace("\r", "")
    assert "CR2" in out, out
    assert "Call Trace" in out, out
    trace = out[out.index("Call Trace"):]
    assert SYMBOL.search(trace), f"no 'symbol+0xoffset' in the trace:\n{trace}"
    assert status == exception_exit_status(14) == 93, \
        f"QEMU exit status {status}, expected 93 (page fault via isa-debug-exit)"


def test_poweroff(machine):
    machine.send_line("poweroff")
    assert machine.wait_exit() == 0


def test_reboot_with_no_reboot_exits(machine):
    machine.send_line("reboot")
    assert machine.wait_exit() == 0
