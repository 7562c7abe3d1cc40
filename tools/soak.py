#!/usr/bin/env python3
"""soak.py - a seeded random storm of memory operations against the booted
ISO, with the memory invariants checked after every operation.

    python3 tools/soak.py [--ops N] [--seed S[,S...]] [--replay FILE] [-v]
    make soak SOAK_OPS=200 SOAK_SEED=1,2,3

One machine: q35, -m 2G,slots=8,maxmem=64G, the kernel booted with cma=64M,
a pcie-root-port with a cold-plugged virtio-mem-pci (8 GiB
memory-backend-ram, reserve=off, requested-size 0) and eight DIMM slots.
Each operation is drawn from a random.Random(seed) given the model of the
machine (live handles, DIMMs, offline blocks, devmem ranges, CMA pages):

  dimm-add      object-add memory-backend-ram + device_add pc-dimm, wait
                for the Device Check _OST
  dimm-del      device_del, wait for DEVICE_DELETED or the eject refusal
  vmem-resize   qom-set vmem1 requested-size, wait until the driver
                converged or stopped short (with its reason)
  alloc/fill/check/move/free     the shell's handle commands
  block-state   echo online|online_movable|online_kernel|offline > memoryN/state
  mech, drain, devmem-create, devmem-destroy, cma-alloc, cma-release
  reboot        release everything, compare with just after boot, reboot
                (QEMU runs with -no-reboot, so a fresh QEMU boots)

The invariants (docs/testing.md, "Soak", says the same):

  I1 alive      QEMU runs and the shell answers every command in time
  I2 MemTotal   = boot MemTotal + sum of QEMU's DIMM sizes + QEMU's
                virtio-mem size - the memory of offline blocks (a boot
                block: its present pages; a DIMM block: 128 MiB; a
                virtio-mem block: its plugged sub-blocks)
  I3 zones      per zone: pages free = buddyinfo sum + its pending free
                pages (nr_free_pending of /sys/kernel/mm/memlab/zoneinfo:
                a lazily onlined section's pages are free before they
                reach the buddy) (Linux's NR_FREE_PAGES: pcp pages count
                as allocated); the
                zones' free pages sum to MemFree, their managed pages to
                MemTotal
  I4 patterns   `check all` finds every filled handle intact
  I5 plugged    the guest's plugged virtio-mem size (the sum of its
                sub-block bitmaps) equals QEMU's size; every live handle
                and every devmem range lies in memory QEMU backs (boot
                RAM, a DIMM QEMU lists, or a sub-block the guest holds
                as plugged); every memory block the guest has lies in
                boot RAM, a QEMU DIMM or the virtio-mem region, and every
                QEMU DIMM's blocks exist in the guest
  I6 release    after releasing everything (end of run, before a reboot):
                MemTotal equals the boot value; the page tables are back
                to their boot count exactly (`pagetables`: pool pages in
                use and pages from the page allocator; unmapping frees the
                PT, PD and PDPT pages it empties); and MemFree and the
                buddy sum are the boot values exactly (docs/hotplug.md,
                "What stays after removal"): section roots of hot-added
                windows go back with their last block (mm/sparse.c), PDPT
                pages with the last mapping of their 512 GiB

Refusals the kernel is right to make (offlining memory in use, ejecting
a DIMM with unmovable pages, a devmem range that is not offline...) are
not violations; they are counted per kind.  A refusal without a message,
or a `usage:` answer to a well-formed command, is a violation.

Each run writes build/soak/seed-S.ops.json (the operations as run);
--replay FILE runs exactly those operations again.  A violation prints
the operations since the last boot, which reproduce it with --replay.
"""

import argparse
import collections
import json
import os
import random
import re
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "qemu"))
import memlab  # noqa: E402
from memlab import Machine, MachineError, QMPError, QMPTimeout, SCALE  # noqa: E402

MiB = 1 << 20
GiB = 1 << 30
BLOCK = 128 * MiB
PAGE = 4096
SUB = 2 * MiB                       # virtio-mem device block size
VMEM_BASE = 4 * GiB
VMEM_SIZE = 8 * GiB
MEMDIR = "/sys/devices/system/memory"
CMDLINE = "cma=64M"
OST_DEVICE_CHECK, OST_EJECT_REQUEST = 0x1, 0x3
OST_SUCCESS, OST_IN_PROGRESS = 0x0, 0x84
OP_TIMEOUT = 60.0 * SCALE           # one settle (eject, resize)
SETTLE = 0.1                        # quiet serial after a DIMM event: its log lines are out
POLL_FIRST, POLL_MAX = 0.02, 0.3    # virtio-mem convergence polls: quick first, then slower
LOG_PREFIX = re.compile(r"^\[\s*\d+\.\d+\] ", re.M)
LOG_LINE = re.compile(r"^\[\s*\d+\.\d+\] .*\n?", re.M)
MECHS = {"contig_check": ("old", "new"), "memmap_init": ("old", "new", "template-nt"),
         "contig_free": ("old", "new"), "auto_movable_stats": ("old", "new")}
LIVE_BYTES_MAX = 32 * MiB           # live handles, so `check all` stays quick
DIMM_BYTES_MAX = 4 * GiB

WEIGHTS = {
    "alloc": 12, "fill": 8, "check": 4, "move": 5, "free": 8,
    "block-state": 10, "dimm-add": 5, "dimm-del": 5, "vmem-resize": 7,
    "mech": 3, "drain": 3, "devmem-create": 4, "devmem-destroy": 3,
    "cma-alloc": 4, "cma-release": 3, "reboot": 1,
}


def vm_args():
    return ["-device", "pcie-root-port,id=port1,bus=pcie.0,slot=1",
            "-object", f"memory-backend-ram,id=hotmem0,size={VMEM_SIZE},share=on,reserve=off",
            "-device", "virtio-mem-pci,id=vmem1,memdev=hotmem0,bus=port1,requested-size=0"]


class Violation(Exception):
    pass


class Soak:
    """One seed's run: the machine, the model, the counters."""

    def __init__(self, seed, nops, replay=None, verbose=False, out=sys.stdout,
                 stop_at_violation=False):
        self.seed = seed
        self.stop_at_violation = stop_at_violation
        self.nops = nops
        self.replay = replay
        self.rng = random.Random(seed)
        self.verbose = verbose
        self.out = out
        self.iso = memlab.make_iso(memlab.build_kernel(), CMDLINE)
        self.m = None
        self.boots = 0
        self.ops_done = []              # every op as run (the replay file)
        self.since_boot = []            # ops since the last boot
        self.op_counts = collections.Counter()
        self.refusals = collections.Counter()
        self.violations = []            # (text, ops since boot)
        self.crashes = self.hangs = self.lost_pages = 0
        self.t_ops = 0.0

    # -- output ----------------------------------------------------------

    def log(self, text):
        print(text, file=self.out, flush=True)

    def violation(self, text):
        self.violations.append((text, list(self.since_boot)))
        if self.stop_at_violation:
            raise _Stop(text)
        self.log(f"soak: seed {self.seed}: VIOLATION after op {len(self.ops_done)}: {text}")
        self.log("  operations since boot (replay them with --replay):")
        for op in self.since_boot:
            self.log(f"    {json.dumps(op)}")

    # -- the machine -----------------------------------------------------

    def boot(self):
        if self.m is not None:
            self.m.kill()
        self.boots += 1
        self.__dict__.pop("base", None)     # I2 compares with this boot's value
        self.m = Machine(self.iso, name=f"soak-{self.seed}-{self.boots}",
                         mem="2G,slots=8,maxmem=64G", extra=vm_args()).start()
        self.m.wait_boot()
        self.m.qmp()
        self.m.quiesce(0.3)
        self.handles = {}           # handle -> (pfn, order, movable)
        self.filled = set()
        self.dimms = {}             # id -> size
        self.next_dimm = 0
        self.devmem = {}            # id -> (start, size)
        self.cma_pages = 0
        self.since_boot = []
        self.boot_present = {}      # boot block -> present pages
        for nr, pages in re.findall(r"^(\d+)\s+\[\S+\)\s+\d+\s+(\d+) ", self.sh("sections"), re.M):
            self.boot_present[int(nr)] = int(pages)
        self.mechs = {}
        self.sh("drain")
        st = self.read_state()
        self.check(st)
        self.base = st
        self.base_pt = self.page_tables()

    def sh(self, cmd, timeout=None):
        """Run a shell command; its output without kernel log lines."""
        try:
            out = self.m.run(cmd, timeout=timeout or memlab.CMD_TIMEOUT)
        except MachineError as e:
            raise _dead(self.m, e) from None
        return LOG_LINE.sub("", out)

    def q(self):
        return self.m.qmp()

    # -- reading the state -------------------------------------------------

    def qemu_devices(self):
        dimms, vmem = {}, None
        for d in self.q().cmd("query-memory-devices"):
            if d["type"] == "dimm":
                dimms[d["data"]["id"]] = (d["data"]["addr"], d["data"]["size"])
            elif d["type"] == "virtio-mem":
                vmem = d["data"]
        return dimms, vmem

    def read_state(self):
        """Guest and QEMU state, read with QEMU's side unchanged around it
        (an asynchronous virtio-mem round may run between commands)."""
        # hot-added memory goes online before its memmap is written
        # (deferred_init_hotplug=1), counted in MemTotal and free at once,
        # its free pages outside the buddy until then (nr_free_pending):
        # the pending memmaps are finished first, for the finished picture
        # (the operations in between still meet pending sections), and a
        # virtio-mem round that onlines more meanwhile is read with its
        # pending free pages
        self.sh("meminit finish")
        for _ in range(5):
            before = self.qemu_devices()
            st = {"qemu_dimms": before[0], "qemu_vmem": before[1]}
            text = self.sh("cat /proc/meminfo /proc/zoneinfo /proc/buddyinfo "
                           "/sys/kernel/mm/memlab/zoneinfo")
            st.update(parse_mm(text))
            st["vmem_text"] = self.sh("virtio-mem")
            st["vmem_plugged"], st["vmem_blocks"] = parse_vmem(st["vmem_text"])
            st["blocks"] = parse_lsmem(self.sh("lsmem"))
            st["handles"] = parse_handles(self.sh("handles"))
            st["devmem"] = parse_devmem(self.sh("devmem list"))
            if self.qemu_devices() == before:
                return st
            time.sleep(0.5)
        raise Violation("QEMU's memory devices never stood still for one read of the guest")

    def page_tables(self):
        """`pagetables`: {"pool": pool pages in use, "mm": pages from the
        page allocator in use, "pdpt": PDPT pages in use (freed when empty)}."""
        text = self.sh("pagetables")
        mt = re.search(r"(\d+) of \d+ used \(pool in \.bss\), (\d+) from the page allocator", text)
        up = re.search(r"(\d+) PDPT pages in use", text)
        if not mt or not up:
            raise Violation(f"`pagetables` lacks its table counts: {text.strip()!r}")
        return {"pool": int(mt.group(1)), "mm": int(mt.group(2)), "pdpt": int(up.group(1))}

    # -- invariants --------------------------------------------------------

    def check(self, st):
        errs = []
        # I2: MemTotal
        qv = st["qemu_vmem"]["size"]
        offline = 0
        for b, state in st["blocks"].items():
            if state != "offline":
                continue
            if b in self.boot_present:
                offline += self.boot_present[b] * PAGE
            elif b in st["vmem_blocks"]:
                offline += st["vmem_blocks"][b] * SUB
            else:
                offline += BLOCK
        base_kb = self.base["MemTotal"] if hasattr(self, "base") else st["MemTotal"]
        want = base_kb + (sum(s for _, s in st["qemu_dimms"].values()) + qv - offline) // 1024
        if hasattr(self, "base") and st["MemTotal"] != want:
            errs.append(f"I2 MemTotal {st['MemTotal']} kB, want {want} kB (boot {base_kb} kB"
                        f" + DIMMs + virtio-mem {qv >> 20} MiB - offline {offline >> 20} MiB)")
        # I3: zones
        free_sum = managed_sum = 0
        for key, z in st["zones"].items():
            free_sum += z["free"]
            managed_sum += z["managed"]
            bud = st["buddy"].get(key, 0)
            want, how = zone_free_want(bud, z["pcp"], st["pending"].get(key, 0))
            if z["free"] != want:
                errs.append(f"I3 zone {key}: pages free {z['free']} != {how}")
        if free_sum * 4 != st["MemFree"]:
            errs.append(f"I3 zones' free pages {free_sum} ({free_sum * 4} kB) != MemFree {st['MemFree']} kB")
        if managed_sum * 4 != st["MemTotal"]:
            errs.append(f"I3 zones' managed pages {managed_sum} != MemTotal {st['MemTotal']} kB")
        # I5: plugged ranges
        guest_plugged = sum(st["vmem_blocks"].values()) * SUB
        if guest_plugged != qv or st["vmem_plugged"] != qv:
            errs.append(f"I5 virtio-mem: guest bitmaps {guest_plugged >> 20} MiB, guest view "
                        f"{st['vmem_plugged'] >> 20} MiB, QEMU size {qv >> 20} MiB")
        backed = self.backed(st)
        for h, (pfn, order, _zone) in st["handles"].items():
            if not backed(pfn * PAGE, (pfn + (1 << order)) * PAGE):
                errs.append(f"I5 handle {h} [{pfn * PAGE:#x}+{(PAGE << order):#x}) is in memory QEMU does not back")
        for d, (start, end) in st["devmem"].items():
            if not backed(start, end):
                errs.append(f"I5 devmem{d} [{start:#x}-{end:#x}) is in memory QEMU does not back"
                            " (unplugged or removed under it)")
        dimm_blocks = {a // BLOCK + i for a, s in st["qemu_dimms"].values() for i in range(s // BLOCK)}
        for b in st["blocks"]:
            if b not in self.boot_present and b not in dimm_blocks and \
                    not VMEM_BASE // BLOCK <= b < (VMEM_BASE + VMEM_SIZE) // BLOCK:
                errs.append(f"I5 memory{b} exists but no QEMU device backs it")
        for b in sorted(dimm_blocks):
            if b not in st["blocks"]:
                errs.append(f"I5 QEMU's DIMM block memory{b} is missing in the guest")
        if errs:
            raise Violation("; ".join(errs))

    def backed(self, st):
        ranges = [(b * BLOCK, (b + 1) * BLOCK) for b in self.boot_present]
        ranges += [(a, a + s) for a, s in st["qemu_dimms"].values()]
        plugged = set()
        for line in re.findall(r"^  memory(\d+)\s+\S+\s+\S+\s+\d+/\d+ ([#.]+)$", st["vmem_text"], re.M):
            for i, c in enumerate(line[1]):
                if c == "#":
                    plugged.add(int(line[0]) * BLOCK + i * SUB)

        def ok(start, end):
            a = start
            while a < end:
                r = next(((s, e) for s, e in ranges if s <= a < e), None)
                if r:
                    a = r[1]
                elif (a & ~(SUB - 1)) in plugged:
                    a = (a & ~(SUB - 1)) + SUB
                else:
                    return False
            return True
        return ok

    def check_patterns(self):
        if not self.filled:
            return
        out = self.sh("check all", timeout=memlab.CMD_TIMEOUT * 2)
        if not re.search(r"^ok: ", out, re.M):
            raise Violation(f"I4 check all: {out.strip()}")

    # -- generating operations ---------------------------------------------

    def gen(self, st):
        r = self.rng
        kinds = list(WEIGHTS)
        while True:
            kind = r.choices(kinds, [WEIGHTS[k] for k in kinds])[0]
            op = self.gen_one(kind, st)
            if op is not None:
                return op

    def gen_one(self, kind, st):
        r = self.rng
        hs = sorted(self.handles)
        if kind == "alloc":
            live = sum(PAGE << o for _, o, _ in self.handles.values())
            order = r.choice([0, 0, 1, 2, 3, 4, 6, 8, 9, 10])
            count = r.randint(1, 4)
            if live + count * (PAGE << order) > LIVE_BYTES_MAX:
                return None
            return {"op": "alloc", "order": order, "count": count,
                    "type": r.choice(["movable", "movable", "unmovable"])}
        if kind in ("fill", "check", "move") and hs:
            return {"op": kind, "handle": r.choice(hs),
                    **({"pattern": r.randrange(1 << 32)} if kind == "fill" else {})}
        if kind == "free" and hs:
            return {"op": "free", "handle": "all" if r.random() < 0.1 else r.choice(hs)}
        if kind == "block-state":
            blocks = sorted(st["blocks"])
            if not blocks:
                return None
            return {"op": "block-state", "block": r.choice(blocks),
                    "state": r.choice(["offline", "offline", "online", "online_movable",
                                       "online_kernel"])}
        if kind == "dimm-add":
            if len(self.dimms) >= 8 or sum(self.dimms.values()) >= DIMM_BYTES_MAX:
                return None
            self.next_dimm += 1
            return {"op": "dimm-add", "id": f"sd{self.next_dimm}",
                    "size": r.choice([128, 256, 256, 512, 1024]) * MiB}
        if kind == "dimm-del" and self.dimms:
            return {"op": "dimm-del", "id": r.choice(sorted(self.dimms))}
        if kind == "vmem-resize":
            return {"op": "vmem-resize",
                    "size": r.choice([0, r.randint(0, 64), r.randint(0, 512), r.randint(0, 1024)]) * SUB}
        if kind == "mech":
            name = r.choice(sorted(MECHS))
            return {"op": "mech", "name": name, "design": r.choice(MECHS[name])}
        if kind == "drain":
            return {"op": "drain"}
        if kind == "devmem-create":
            off = [b for b, s in st["blocks"].items() if s == "offline"]
            if not off:
                return None
            b = r.choice(sorted(off))
            n = 2 if b + 1 in off and r.random() < 0.3 else 1
            return {"op": "devmem-create", "start": b * BLOCK, "size": n * BLOCK,
                    "pages": r.choice(["4k", "2m"])}
        if kind == "devmem-destroy" and self.devmem:
            return {"op": "devmem-destroy", "id": r.choice(sorted(self.devmem))}
        if kind == "cma-alloc":
            return {"op": "cma-alloc", "pages": r.choice([1, 8, 100, 512, 2048])}
        if kind == "cma-release" and self.cma_pages:
            return {"op": "cma-release", "pages": r.choice(["all", r.randint(1, self.cma_pages)])}
        if kind == "reboot" and len(self.since_boot) > 20:
            return {"op": "reboot"}
        return None

    # -- running operations ------------------------------------------------

    def refused(self, kind, msg):
        """An expected refusal: counted by kind; it must say why."""
        msg = LOG_PREFIX.sub("", msg.strip())
        if not msg or msg.startswith("usage:"):
            raise Violation(f"{kind}: refused without a clear error: {msg!r}")
        key = re.sub(r"0x[0-9a-f]+|\d+", "N", msg.splitlines()[-1])[:160]
        self.refusals[f"{kind}: {key}"] += 1

    def run_op(self, op):
        k = op["op"]
        if k == "alloc":
            out = self.sh(f"alloc {op['order']} {op['count']} {op['type']}")
            for h, pfn, order in re.findall(r"^handle (\d+): pfn 0x([0-9a-f]+) order (\d+)", out, re.M):
                self.handles[int(h)] = (int(pfn, 16), int(order), op["type"])
            if not re.search(r"^handle \d+: pfn", out, re.M) or "alloc:" in out and "failed" in out:
                if "handle" not in out:
                    self.refused(k, out)
        elif k == "fill":
            out = self.sh(f"fill {op['handle']} {op['pattern']}")
            if op["handle"] in self.handles and "error" not in out.lower() and "no handle" not in out:
                self.filled.add(op["handle"])
            elif op["handle"] in self.handles:
                self.refused(k, out)
        elif k == "check":
            out = self.sh(f"check {op['handle']}")
            if op["handle"] in self.filled and not re.search(r"^(ok|handle \d+: ok)", out, re.M):
                if "mismatch" in out or "differs" in out or "expected" in out:
                    raise Violation(f"I4 check {op['handle']}: {out.strip()}")
        elif k == "move":
            out = self.sh(f"move {op['handle']}")
            mt = re.search(r"moved from pfn 0x[0-9a-f]+ to pfn 0x([0-9a-f]+)", out)
            if mt and op["handle"] in self.handles:
                pfn, order, t = self.handles[op["handle"]]
                self.handles[op["handle"]] = (int(mt.group(1), 16), order, t)
            else:
                self.refused(k, out)
        elif k == "free":
            out = self.sh(f"free {op['handle']}")
            if op["handle"] == "all":
                self.handles.clear()
                self.filled.clear()
            elif "freed" in out:
                self.handles.pop(op["handle"], None)
                self.filled.discard(op["handle"])
            else:
                self.refused(k, out)
        elif k == "block-state":
            path = f"{MEMDIR}/memory{op['block']}/state"
            before = self.sh(f"cat {path}").strip()
            out = self.sh(f"echo {op['state']} > {path}")
            after = self.sh(f"cat {path}").strip()
            want = "offline" if op["state"] == "offline" else "online"
            if out.strip():
                if after != before:
                    raise Violation(f"block-state: error {out.strip()!r} but state {before} -> {after}")
                self.refused(f"{k} {before} -> {op['state']}", out)
            elif after != want:
                raise Violation(f"block-state: echo {op['state']} accepted silently, state is {after}")
        elif k == "dimm-add":
            self.dimm_add(op)
        elif k == "dimm-del":
            self.dimm_del(op)
        elif k == "vmem-resize":
            self.vmem_resize(op)
        elif k == "mech":
            out = self.sh(f"mech {op['name']} {op['design']}")
            if out.strip() != f"{op['name']}: {op['design']}":
                raise Violation(f"mech {op['name']} {op['design']}: {out.strip()!r}")
        elif k == "drain":
            out = self.sh("drain")
            if not out.startswith("drain: "):
                raise Violation(f"drain: {out.strip()!r}")
        elif k == "devmem-create":
            out = self.sh(f"devmem create {op['start']:#x} {op['size'] >> 20}M {op['pages']}",
                          timeout=memlab.CMD_TIMEOUT * 2)
            mt = re.search(r"^devmem(\d+): created", out, re.M)
            if mt:
                self.devmem[int(mt.group(1))] = (op["start"], op["size"])
            else:
                self.refused(k, out)
        elif k == "devmem-destroy":
            out = self.sh(f"devmem destroy {op['id']}")
            if "destroyed" in out:
                self.devmem.pop(op["id"], None)
            else:
                self.refused(k, out)
        elif k == "cma-alloc":
            out = self.sh(f"cma alloc {op['pages']}", timeout=memlab.CMD_TIMEOUT * 2)
            mt = re.search(r"used (\d+) of", out)
            if "allocated" in out and mt:
                self.cma_pages = int(mt.group(1))
            else:
                self.refused(k, out)
        elif k == "cma-release":
            out = self.sh(f"cma release {op['pages']}")
            mt = re.search(r"used (\d+) of", out)
            if "released" in out and mt:
                self.cma_pages = int(mt.group(1))
            else:
                self.refused(k, out)
        elif k == "reboot":
            self.release_all()
            self.m.send_line("reboot")
            try:
                self.m.wait_exit()
            except MachineError as e:
                raise Violation(f"reboot: QEMU did not exit: {e}") from None
            self.boot()
        else:
            raise ValueError(f"unknown op {op}")

    def dimm_add(self, op):
        q = self.q()
        try:
            q.cmd("object-add", **{"qom-type": "memory-backend-ram", "id": f"mem-{op['id']}",
                                   "size": op["size"], "reserve": False})
            q.cmd("device_add", {"driver": "pc-dimm", "id": op["id"], "memdev": f"mem-{op['id']}"})
        except QMPError as e:
            self._qmp_undo(op["id"])
            self.refused("dimm-add (QEMU)", str(e))
            return
        info = self.wait_ost(op["id"], OST_DEVICE_CHECK)
        self.m.quiesce(SETTLE)
        self.dimms[op["id"]] = op["size"]
        if info["status"] != OST_SUCCESS:
            self.refused("dimm-add", f"_OST status {info['status']:#x} " + self.sh("hotplug"))

    def _qmp_undo(self, dimm):
        try:
            self.q().cmd("object-del", id=f"mem-{dimm}")
        except QMPError:
            pass

    def wait_ost(self, dimm, source):
        q = self.q()
        deadline = time.monotonic() + OP_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Violation(f"{dimm}: no _OST for event {source:#x} within {OP_TIMEOUT:g} s")
            try:
                ev = q.wait_event("ACPI_DEVICE_OST", timeout=left)
            except QMPTimeout:
                continue
            info = ev["data"]["info"]
            if info.get("device") == dimm and info["source"] == source and \
                    info["status"] != OST_IN_PROGRESS:
                return info

    def dimm_del(self, op):
        q = self.q()
        dimm = op["id"]
        try:
            q.cmd("device_del", id=dimm)
        except QMPError as e:       # a replayed op whose DIMM was never added
            self.refused("dimm-del (QEMU)", str(e))
            return
        deadline = time.monotonic() + OP_TIMEOUT
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise Violation(f"dimm-del {dimm}: neither DEVICE_DELETED nor a refusal within "
                                f"{OP_TIMEOUT:g} s")
            try:
                ev = q.wait_event(None, timeout=left)
            except QMPTimeout:
                continue
            if ev["event"] == "DEVICE_DELETED" and ev["data"].get("device") == dimm:
                q.cmd("object-del", id=f"mem-{dimm}")
                del self.dimms[dimm]
                self.m.quiesce(SETTLE)
                return
            info = ev["data"].get("info", {}) if ev["event"] == "ACPI_DEVICE_OST" else {}
            if info.get("device") == dimm and info.get("source") == OST_EJECT_REQUEST and \
                    info.get("status") not in (OST_SUCCESS, OST_IN_PROGRESS):
                log = self.m.quiesce(SETTLE)
                why = [ln for ln in log.replace("\r", "").splitlines() if "acpi-memhp" in ln
                       or "offline" in ln]
                self.refused("dimm-del", why[-1] if why else "")
                return

    def vmem_resize(self, op, retry=False):
        """qom-set requested-size, then wait until the driver saw the new
        request (its view's `requested`) and converged or stopped short.
        retry: also run a round now (`virtio-mem retry`), for a request
        that stopped short before something was released."""
        self.q().cmd("qom-set", path="vmem1", property="requested-size", value=op["size"])
        if retry:
            time.sleep(0.3)
            self.sh("virtio-mem retry", timeout=OP_TIMEOUT)
        deadline = time.monotonic() + OP_TIMEOUT
        poll = POLL_FIRST
        while True:
            time.sleep(poll)
            poll = min(poll * 1.5, POLL_MAX)
            dev = self.qemu_devices()[1]
            view = self.sh("virtio-mem")
            status = re.search(r"^  status:\s+(.*)$", view, re.M)
            status = status.group(1) if status else ""
            req = re.search(r"^  requested:\s+(\d+) MiB", view, re.M)
            seen = req is not None and int(req.group(1)) == op["size"] >> 20
            if dev["size"] == op["size"] and status == "converged":
                return
            if seen and status.startswith("stopped short"):
                self.refused("vmem-resize", status)
                return
            if time.monotonic() > deadline:
                raise Violation(f"vmem-resize {op['size'] >> 20} MiB: not settled in "
                                f"{OP_TIMEOUT:g} s: QEMU size {dev['size'] >> 20} MiB, status {status!r}")

    def release_all(self):
        """Give everything back, then I6: compare with just after boot."""
        self.sh("free all")
        self.handles.clear()
        self.filled.clear()
        self.sh("cma release all")
        self.cma_pages = 0
        for d in sorted(parse_devmem(self.sh("devmem list"))):
            self.sh(f"devmem destroy {d}")
        self.devmem.clear()
        for b, s in sorted(parse_lsmem(self.sh("lsmem")).items()):
            if s == "offline":
                self.sh(f"echo online > {MEMDIR}/memory{b}/state")
        # A block's memmap may live in another device's memory (a DIMM's
        # in virtio-mem memory or the other way round): unplug in rounds.
        for i in range(3):
            self.vmem_resize({"op": "vmem-resize", "size": 0}, retry=i > 0)
            for dimm in sorted(self.dimms):
                self.dimm_del({"op": "dimm-del", "id": dimm})
            if not self.dimms and not self.qemu_devices()[1]["size"]:
                break
        self.sh("drain")
        st = self.read_state()
        self.check(st)
        if self.dimms or st["qemu_vmem"]["size"]:
            status = re.search(r"^  status:\s+(.*)$", st["vmem_text"], re.M)
            pfn = re.search(r"check at pfn (0x[0-9a-f]+)", status.group(1) if status else "")
            if pfn:             # what holds it, for the report
                self.log("  " + self.sh(f"page {pfn.group(1)}").strip().replace("\n", "\n  "))
            raise Violation(f"I6 release: still plugged after everything was freed: DIMMs "
                            f"{sorted(self.dimms)}, virtio-mem {st['qemu_vmem']['size'] >> 20} MiB"
                            f" ({status.group(1) if status else '?'})")
        errs = []
        # a root taken for hot-added memory goes back when its window has no
        # memory left (mm/sparse.c), and everything hot-added is gone now
        roots = 0
        pt, pt0 = self.page_tables(), self.base_pt
        pdpt = pt["pdpt"] - pt0["pdpt"]
        # a new PDPT page came from the pool while it had room, else from mm
        pdpt_mm = max(0, pdpt - max(0, memlab_pool_room(pt0)))
        if (pt["pool"] - pt0["pool"]) + (pt["mm"] - pt0["mm"]) != pdpt or pt["mm"] - pt0["mm"] != pdpt_mm:
            errs.append(f"I6 page tables: pool {pt['pool']}, page allocator {pt['mm']}, PDPT "
                        f"{pt['pdpt']}; at boot {pt0['pool']}, {pt0['mm']}, {pt0['pdpt']}: "
                        "tables of removed memory were not freed")
        keep = roots + pdpt_mm
        if st["MemTotal"] != self.base["MemTotal"]:
            errs.append(f"I6 MemTotal {st['MemTotal']} kB, boot {self.base['MemTotal']} kB")
        # MemFree is the buddy only (NR_FREE_PAGES): pages the pcp lists hold
        # now and did not hold at boot are missing from it, not lost.
        pcp_more = (sum(z["pcp"] for z in st["zones"].values())
                    - sum(z["pcp"] for z in self.base["zones"].values()))
        lost = (self.base["MemFree"] - st["MemFree"]) // 4 - keep - pcp_more
        if lost:
            self.lost_pages += abs(lost)
            errs.append(f"I6 MemFree {st['MemFree']} kB, boot {self.base['MemFree']} kB: "
                        f"{lost} pages lost beyond the permanent {roots} section roots + "
                        f"{pdpt_mm} PDPT pages")
        bud0, bud1 = sum(self.base["buddy"].values()), sum(st["buddy"].values())
        if bud0 - bud1 != keep + pcp_more:
            errs.append(f"I6 buddyinfo sum {bud1} pages, boot {bud0}, permanent {keep}")
        self.last_release = (roots, pdpt)
        if errs:
            raise Violation("; ".join(errs))

    # -- the loop ----------------------------------------------------------

    def step(self, op):
        self.ops_done.append(op)
        self.since_boot.append(op)
        self.op_counts[op["op"]] += 1
        if self.verbose:
            self.log(f"  {len(self.ops_done):5d} {json.dumps(op)}")
        t0 = time.monotonic()
        try:
            self.run_op(op)
            st = self.read_state()
            self.check(st)
            self.check_patterns()
            return st
        except Violation as e:
            self.violation(str(e))
        except _Dead as e:
            if e.crashed:
                self.crashes += 1
                self.violation(f"crash: {e}")
            else:
                self.hangs += 1
                self.violation(f"hang: {e}")
        except QMPError as e:
            self.violation(f"QMP error: {e}")
        except (QMPTimeout, OSError) as e:     # QMP gone: QEMU died or hangs
            if self.m.alive():
                self.hangs += 1
            else:
                self.crashes += 1
            self.violation(f"{'hang' if self.m.alive() else 'crash'}: QMP: {e}")
        finally:
            self.t_ops += time.monotonic() - t0
        # after a violation, start again from a clean machine
        self.boot()
        return self.read_state()

    def run(self):
        t0 = time.monotonic()
        self.boot()
        st = self.read_state()
        ops = self.replay if self.replay is not None else None
        n = len(ops) if ops is not None else self.nops
        try:
            for i in range(n):
                op = ops[i] if ops is not None else self.gen(st)
                st = self.step(op)
            try:
                self.release_all()
            except Violation as e:
                self.violation(str(e))
            except _Dead as e:
                self.crashes += e.crashed
                self.hangs += not e.crashed
                self.violation(str(e))
        except _Stop:
            pass
        self.m.kill()
        self.elapsed = time.monotonic() - t0
        return self

    def summary(self):
        n = len(self.ops_done)
        lines = [f"soak: seed {self.seed}: {n} operations, {self.crashes} crashes, "
                 f"{self.hangs} hangs, {self.lost_pages} lost pages, "
                 f"{len(self.violations)} invariant violations",
                 f"  {self.elapsed:.0f} s, {self.t_ops / max(n, 1):.2f} s per operation, "
                 f"{self.boots} boots; ops: " + ", ".join(
                     f"{k} {v}" for k, v in sorted(self.op_counts.items()))]
        if getattr(self, "last_release", None):
            lines.append(f"  permanent at the end: {self.last_release[0]} section roots, "
                         f"{self.last_release[1]} PDPT pages; every other page table freed")
        for k, v in sorted(collections.Counter(kind_of(t) for t, _ in self.violations).items()):
            lines.append(f"  violations x{v}: {k}")
        for k, v in sorted(self.refusals.items()):
            lines.append(f"  refused x{v}: {k}")
        return "\n".join(lines)


class _Stop(Exception):
    pass


def kind_of(text):
    """A violation's kind: its first words with the numbers taken out
    ("I5 devmemN", "I2 MemTotal", "crash")."""
    return re.sub(r"(?<=[a-z])\d+", "N", " ".join(text.split(":")[0].split()[:2]))


def shrink(seed, ops, kind, out=sys.stdout):
    """The shortest sub-sequence of ops (removing chunks, then single ops,
    as delta debugging does) whose replay still shows a violation of that
    kind; each try boots a fresh machine."""
    quiet = open(os.devnull, "w")

    def shows(cand):
        s = Soak(seed, 0, replay=cand, out=quiet, stop_at_violation=True).run()
        return any(kind_of(t) == kind for t, _ in s.violations)

    if not shows(ops):
        print(f"soak: seed {seed}: {kind} does not reproduce on replay", file=out)
        return None
    n = 2
    while len(ops) >= 2:
        chunk = max(1, len(ops) // n)
        removed = False
        for i in range(0, len(ops), chunk):
            cand = ops[:i] + ops[i + chunk:]
            if cand and shows(cand):
                ops, removed = cand, True
                n = max(n - 1, 2)
                break
        if not removed:
            if chunk == 1:
                break
            n = min(n * 2, len(ops))
    return ops


class _Dead(Exception):
    def __init__(self, text, crashed):
        super().__init__(text)
        self.crashed = crashed


def _dead(m, e):
    return _Dead(str(e).splitlines()[0], crashed=not m.alive())


def zone_free_want(buddy, pcp, pending=0):
    """What a zone's `pages free` (and so MemFree) must be given its
    buddyinfo sum, its pcp count and its pending free pages, and how that
    reads in a violation.  The views count the buddy, as Linux's
    NR_FREE_PAGES does (pages on the per-CPU lists are allocated as far as
    MemFree is concerned), plus the free pages of lazily onlined sections
    whose memmap is still pending (nr_free_pending)."""
    if pending:
        return buddy + pending, f"buddy {buddy} + pending {pending} (pcp {pcp} not counted)"
    return buddy, f"buddy {buddy} (pcp {pcp} not counted)"


def memlab_pool_room(pt):
    """Free pages left in the .bss table pool (512 pages, `pagetables`)."""
    return 512 - pt["pool"]


# -- parsers ---------------------------------------------------------------

def parse_mm(text):
    st = {}
    for name in ("MemTotal", "MemFree"):
        st[name] = int(re.search(rf"^{name}:\s+(\d+) kB$", text, re.M).group(1))
    zones, buddy, pending = {}, {}, {}
    for sect in re.split(r"(?m)^(?=Node \d+, zone)", text):
        h = re.match(r"Node (\d+), zone\s+(\w+)\s*\n", sect)
        p = re.search(r"^  nr_free_pending:\s+(\d+)$", sect, re.M)
        if h and p:         # /sys/kernel/mm/memlab/zoneinfo
            pending[(int(h.group(1)), h.group(2))] = int(p.group(1))
        if h and "pages free" in sect:
            pcp = sum(int(c) for c in re.findall(r"^\s+count:\s+(\d+)$", sect, re.M))
            zones[(int(h.group(1)), h.group(2))] = {
                "free": int(re.search(r"pages free\s+(\d+)", sect).group(1)),
                "managed": int(re.search(r"^\s+managed\s+(\d+)$", sect, re.M).group(1)),
                "pcp": pcp}
    for nid, zone, counts in re.findall(r"^Node (\d+), zone\s+(\w+)((?:\s+\d+){11})\s*$", text, re.M):
        buddy[(int(nid), zone)] = sum(int(c) << o for o, c in enumerate(counts.split()))
    st["zones"], st["buddy"], st["pending"] = zones, buddy, pending
    return st


def parse_vmem(text):
    mt = re.search(r"^  plugged:\s+(\d+) MiB", text, re.M)
    blocks = {int(b): int(n) for b, n in
              re.findall(r"^  memory(\d+)\s+\S+\s+\S+\s+(\d+)/\d+ [#.]+$", text, re.M)}
    return (int(mt.group(1)) * MiB if mt else 0), blocks


def parse_lsmem(text):
    out = {}
    for state, blocks in re.findall(r"^0x[0-9a-f]+-0x[0-9a-f]+\s+\S+\s+(\S+)\s+(?:\S+\s+)?(\d+(?:-\d+)?)$",
                                    text, re.M):
        lo, _, hi = blocks.partition("-")
        for b in range(int(lo), int(hi or lo) + 1):
            out[b] = state
    return out


def parse_handles(text):
    return {int(h): (int(pfn, 16), int(order), zone) for h, pfn, order, zone in
            re.findall(r"^\s*(\d+) 0x([0-9a-f]+)\s+(\d+)\s+\d+\s+\d+ (\S+)", text, re.M)}


def parse_devmem(text):
    return {int(d): (int(s, 16), int(e, 16) + 1) for d, s, e in
            re.findall(r"^\s*(\d+) \[mem 0x([0-9a-f]+)-0x([0-9a-f]+)\]", text, re.M)}


# -- command line ----------------------------------------------------------

def write_ops(path, seed, ops):
    """The replay file: the seed and one operation a line."""
    path.write_text(f'{{"seed": {seed}, "ops": [\n' +
                    ",\n".join(json.dumps(op) for op in ops) + "\n]}\n")


def run_seed(seed, nops, replay=None, verbose=False, out=sys.stdout):
    s = Soak(seed, nops, replay=replay, verbose=verbose, out=out).run()
    d = memlab.BUILD / "soak"
    d.mkdir(parents=True, exist_ok=True)
    write_ops(d / f"seed-{seed}.ops.json", seed, s.ops_done)
    return s


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ops", type=int, default=int(os.environ.get("SOAK_OPS") or 200))
    ap.add_argument("--seed", default=os.environ.get("SOAK_SEED") or "1,2,3",
                    help="one seed or a comma-separated list")
    ap.add_argument("--replay", help="a build/soak/seed-S.ops.json to run again, op by op")
    ap.add_argument("--shrink", action="store_true",
                    help="after a violation, find the shortest operation sequence that shows it")
    ap.add_argument("-v", "--verbose", action="store_true", help="print every operation")
    a = ap.parse_args(argv)
    if a.replay:
        data = json.loads(Path(a.replay).read_text())
        runs = [(data["seed"], data["ops"])]
    else:
        runs = [(int(s), None) for s in a.seed.split(",") if s.strip()]
    bad = 0
    results = []
    for seed, ops in runs:
        print(f"soak: seed {seed}: {len(ops) if ops else a.ops} operations"
              f"{' (replay)' if ops else ''}", flush=True)
        s = run_seed(seed, a.ops, replay=ops, verbose=a.verbose)
        results.append(s)
        print(s.summary(), flush=True)
        bad += bool(s.violations)
        if a.shrink:
            seen = set()
            for text, since in s.violations:
                k = kind_of(text)
                if k in seen:
                    continue
                seen.add(k)
                short = shrink(seed, since, k)
                if short is not None:
                    path = memlab.BUILD / "soak" / f"seed-{seed}-{re.sub(r'[^A-Za-z0-9]+', '_', k)}.ops.json"
                    write_ops(path, seed, short)
                    print(f"soak: seed {seed}: shortest sequence showing {k} ({len(short)} ops, "
                          f"replay with --replay {path.relative_to(REPO)}):", flush=True)
                    for op in short:
                        print(f"    {json.dumps(op)}", flush=True)
    print("soak: " + "; ".join(f"seed {s.seed}: {len(s.ops_done)} operations, {s.crashes} crashes, "
                               f"{s.hangs} hangs, {s.lost_pages} lost pages, "
                               f"{len(s.violations)} invariant violations" for s in results))
    return 1 if bad else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        memlab.kill_all()
