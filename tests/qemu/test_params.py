"""The one parameter table: the boot command line and
/sys/module/memory_hotplug/parameters/ accept the same values, refuse the
rest with the reason, and agree with each other and with `params`.
"""

import re

PARAMS = "/sys/module/memory_hotplug/parameters"


def test_cmdline_sets_what_sysfs_shows(boot):
    m = boot("memory_hotplug.online_policy=auto-movable "
             "memory_hotplug.auto_movable_ratio=0x1f4 "
             "memory_hotplug.auto_movable_numa_aware=off "
             "memory-hotplug.memmap-on-memory memhp_default_state=offline")
    assert m.run(f"cat {PARAMS}/online_policy").strip() == "auto-movable"
    assert m.run(f"cat {PARAMS}/auto_movable_ratio").strip() == "500"
    assert m.run(f"cat {PARAMS}/auto_movable_numa_aware").strip() == "N"
    assert m.run(f"cat {PARAMS}/memmap_on_memory").strip() == "Y"
    assert m.run("cat /sys/devices/system/memory/auto_online_blocks").strip() == "offline"
    out = m.run("params memory_hotplug.auto_movable_ratio")
    assert re.search(r"^value:\s+500$", out, re.M), out
    assert re.search(r"^default:\s+301$", out, re.M), out


def test_refused_values_say_why_and_keep_the_default(boot):
    m = boot("memory_hotplug.auto_movable_ratio=4294967296 "
             "memory_hotplug.online_policy=sideways page_poison=maybe cma=12x")
    log = m.boot_log
    assert ("memory_hotplug.auto_movable_ratio=4294967296: out of range "
            "[0, 4294967295]; keeping 301") in log, log
    assert ("memory_hotplug.online_policy=sideways: not one of "
            "contig-zones/auto-movable; keeping contig-zones") in log
    assert "page_poison=maybe: not a boolean" in log
    assert "cma=12x: not a size" in log
    assert m.run(f"cat {PARAMS}/auto_movable_ratio").strip() == "301"
    # the sysfs file refuses the same value with the same errno
    out = m.run(f"echo 4294967296 > {PARAMS}/auto_movable_ratio")
    assert "Numerical result out of range" in out, out
    out = m.run(f"echo sideways > {PARAMS}/online_policy")
    assert "Invalid argument" in out, out


def test_params_lists_the_table(shell):
    out = shell.run("params")
    lines = out.strip().splitlines()
    assert lines[0].split()[:5] == ["NAME", "TYPE", "VALUE", "DEFAULT", "SET", ]
    names = {l.split()[0] for l in lines[1:]}
    for n in ("cma", "page_poison", "memmap_poison", "memhp_default_state",
              "memory_hotplug.online_policy", "memory_hotplug.auto_movable_ratio",
              "memory_hotplug.auto_movable_numa_aware",
              "memory_hotplug.memmap_on_memory"):
        assert n in names, out
    assert "no such parameter" in shell.run("params nope")
