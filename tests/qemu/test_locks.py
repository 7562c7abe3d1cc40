"""mm's locks, seen through `locks`: which lock each operation takes.

memlab runs on one CPU, so its locks never wait: each checks that nobody
holds it, and counts (include/lib/lock.h).  The counts are the test: an
order-10 allocation takes its zone's zone->lock, an order-0 one its CPU's
pcp lock; a block offlined or onlined through sysfs takes its memory block
lock and mem_hotplug_lock for writing exactly once, whether it succeeds or
not; reading /proc/zoneinfo or `memory` takes mem_hotplug_lock for
reading.  At the prompt no lock is held.
"""

import re

from hotplug import MEMDIR, write

ROW = re.compile(r"(.{28}) (\S+)\s+(no|yes|read|write|\d+ of \d+)\s+(.*)")


def locks(m):
    """`locks` as {name: (kind, held, taken)}, checking its frame."""
    out = m.run("locks")
    lines = out.rstrip("\n").split("\n")
    assert lines[0].split() == ["LOCK", "KIND", "HELD", "TAKEN"], out
    assert lines[-1] == "held now: 0", out      # nothing is held at the prompt
    rows = {}
    for line in lines[1:-1]:
        r = ROW.fullmatch(line)
        assert r, (line, out)
        rows[r.group(1).strip()] = (r.group(2), r.group(3), r.group(4))
    return rows


def hotplug_counts(rows):
    kind, held, taken = rows["mem_hotplug_lock"]
    assert (kind, held) == ("rwsem", "no"), rows
    r = re.fullmatch(r"read (\d+), write (\d+)", taken)
    return int(r.group(1)), int(r.group(2))


def block_taken(rows):
    kind, held, taken = rows["memory block lock"]
    assert kind == "mutex" and held.startswith("0 of "), rows
    return int(taken.split()[0])


def test_locks_count_what_each_operation_takes(machine):
    m = machine
    rows = locks(m)
    for name in ["mem_resize_lock", "wmark_lock"]:
        assert rows[name][:2] == ("spinlock", "no"), rows
    zones = [n for n in rows if n.endswith("zone->lock")]
    assert "node 0 DMA32 zone->lock" in zones, rows
    for name in zones:
        assert rows[name][:2] == ("spinlock", "no"), rows
        assert rows[name.replace("zone->lock", "cpu 0 pcp")][:2] == ("spinlock", "no"), rows

    # an order-10 block comes from the buddy under zone->lock
    out = m.run("alloc 10")
    zone = re.search(r"node (\d+) zone (\w+)", out)
    assert zone, out
    name = f"node {zone.group(1)} {zone.group(2)} zone->lock"
    after = locks(m)
    assert int(after[name][2]) > int(rows[name][2]), (rows[name], after[name])
    # an order-0 page comes from the CPU's pcp list, under the pcp lock
    pcp = name.replace("zone->lock", "cpu 0 pcp")
    m.run("alloc 0")
    later = locks(m)
    assert int(later[pcp][2]) > int(after[pcp][2]), (after[pcp], later[pcp])
    m.run("free all")

    # a sysfs offline and online each take the block lock and the hotplug
    # lock for writing once, failed or not
    reads, writes = hotplug_counts(later)
    blocks = block_taken(later)
    for state in ["offline", "online"]:
        wm = int(locks(m)["wmark_lock"][2])
        write(m, f"{MEMDIR}/memory8/state", state)
        now = locks(m)
        # a change that happened recomputed the watermarks under wmark_lock
        if m.run(f"cat {MEMDIR}/memory8/state") == state + "\n":
            assert int(now["wmark_lock"][2]) > wm, (state, now)
        assert hotplug_counts(now)[1] == writes + 1, (state, hotplug_counts(now), writes)
        assert block_taken(now) == blocks + 1, (state, block_taken(now), blocks)
        reads, writes = hotplug_counts(now)
        blocks = block_taken(now)
    assert m.run(f"cat {MEMDIR}/memory8/state") == "online\n"

    # readers: /proc/zoneinfo and `memory` walk zones and blocks under the read lock
    for cmd in ["cat /proc/zoneinfo", "memory"]:
        m.run(cmd)
        now = hotplug_counts(locks(m))
        assert now == (reads + 1, writes), (cmd, now, reads, writes)
        reads = now[0]


def test_locks_usage(machine):
    assert machine.run("locks now").startswith("usage: locks")
