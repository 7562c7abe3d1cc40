"""seeds_virtio_mem.py - the fuzz_virtio_mem seeds of make_seeds.py: the
encoder of a device, a program and the device's replies (mirroring
tests/fuzz/fuzz_virtio_mem.c), the named scenarios, and the --check that
the kernel log holds what each scenario expects (fuzz_pci's seeds are
checked the same way).  Standard library only.
"""
import os
import subprocess


# ============================================================================
# fuzz_virtio_mem: a device, a program, and the device's replies
# ============================================================================
#
# From the front: the device (block size, region, usable, requested and
# plugged size, proximity domain, transport features, auto_online_blocks and
# the online policy), then a program of at most 64 operations, each an op
# byte (op % 16 chooses) and an argument byte a, some with more.  From the
# BACK, one byte per request the device answers: < 0x80 honest (QEMU's
# behaviour), else 0x80 | enum fvm_lie (tests/host/virtio_mem_fake.h).
#
# A seed here is: device + program padded with polls to 64 operations (so
# the program never runs into the replies) + the replies, reversed, padded
# with honest ones (so the replies never eat the program).
#
# The machine: 128 MiB of boot RAM on node 0; the device region in QEMU's
# device-memory window at 4 GiB, 2 MiB device blocks, 128 MiB memory blocks.

VM_MAX_OPS = 64
VM_HONEST_PAD = 100

# enum fvm_lie
LIE = {name: 0x80 | i for i, name in enumerate([
    "ACK_NOOP", "NACK", "BUSY", "ERROR", "BAD_TYPE", "SHORT", "STILL_PLUGGED", "BAD_ID",
    "BAD_LEN", "IDX_JUMP", "LOST", "LATE", "SLOW", "GARBAGE_STATE", "DONE_BUT_BUSY",
    "RESIZE_UNDER"])}

MMOP = {"offline": 0, "online": 1, "online_kernel": 2, "online_movable": 3}


def vm_size_128m(n):
    """pick_size(): n * 128 MiB (n <= 16)."""
    return bytes([n, 0])


def vm_size_blocks(n):
    """pick_size(): n device blocks (n < 64)."""
    return bytes([n, 3])


class VmSeed:
    def __init__(self, region_128m=4, usable_128m=None, requested_blocks=0, plugged_128m=None,
                 unplugged_inaccessible=False, online="online_movable", auto_movable=False,
                 expect=()):
        d = bytearray()
        d += bytes([0])                         # block size: 2 MiB, QEMU's
        d += bytes([0, 0])                      # region at the window, 4 GiB
        d += vm_size_128m(region_128m)
        d += vm_size_128m(region_128m if usable_128m is None else usable_128m)
        d += vm_size_blocks(requested_blocks)
        if plugged_128m is None:
            d += bytes([1])                     # plugged_size 0 at probe
        else:
            d += bytes([0]) + vm_size_128m(plugged_128m)
        d += bytes([0])                         # proximity domain 0
        d += bytes([0x80 if unplugged_inaccessible else 0])    # features, 64-entry queue
        d += bytes([MMOP[online] | (4 if auto_movable else 0)])
        self.head = bytes(d)
        self.ops = []
        self.replies = []
        self.expect = list(expect)              # strings the kernel log must contain

    def op(self, *b):
        self.ops.append(bytes(b))
        return self

    # the host
    def request(self, n_blocks, grow_usable=False):
        """requested_size := n 2 MiB blocks (n < 256)."""
        return self.op(0, 0x80 if grow_usable else 0, n_blocks)

    def request_128m(self, n):
        return self.op(0, 3, n)

    def poll(self, n=1):
        """the poller, 100 ms later"""
        for _ in range(n):
            self.op(2, 0)
        return self

    def poll_seconds(self, n):
        """n (1-8) polls a second apart: retries come due"""
        return self.op(5, n - 1)

    def lie_plugged(self, n_blocks):
        return self.op(6, 0, n_blocks)

    def usable_shrink(self, n_blocks):
        return self.op(7, 1, n_blocks)

    def usable_grow(self, n_blocks):
        return self.op(7, 0, n_blocks)

    def move_region(self, n2m):
        """the region's address moves (a real device never does)"""
        return self.op(8, 1, n2m)

    # the shell
    def state(self, first_block, n_blocks):
        return self.op(9, 0, first_block, n_blocks - 1)

    def view(self):
        return self.op(10, 0)

    def retry(self):
        return self.op(10, 1)

    def inject(self, what, n):
        return self.op(10, {"nack": 3, "busy": 4, "error": 5}[what], n - 1)

    def inject_off(self):
        return self.op(10, 2)

    # the rest of the kernel
    def alloc(self, slot, order, movable):
        return self.op(11, order | (0x10 if movable else 0), slot)

    def free(self, slot):
        return self.op(13, slot)

    def hog(self):
        """take (or give back) every free 2 MiB block"""
        return self.op(13, 0x80)

    def sysfs_toggle(self, nth_block, online="online_movable"):
        """offline the device's nth memory block, or online it"""
        return self.op(14, MMOP[online] - 1, nth_block)

    def going_online_error(self, on):
        return self.op(15, 0x10 | (0x40 if on else 0))

    def going_offline_error(self, on):
        return self.op(15, 0x30 | (0x40 if on else 0))

    def auto_online(self, online):
        return self.op(15, MMOP[online])

    # the device's answers, in order
    def reply(self, *bs):
        self.replies += bs
        return self

    def honest(self, n):
        return self.reply(*([0] * n))

    def data(self):
        assert len(self.ops) <= VM_MAX_OPS
        prog = b"".join(self.ops) + bytes([2, 0]) * (VM_MAX_OPS - len(self.ops))
        return self.head + prog + bytes(reversed(self.replies + [0] * VM_HONEST_PAD))


VM_SCENARIOS = {}


def vm_scenario(name, seed):
    VM_SCENARIOS[name] = seed

# Plugged to three memory blocks, used by movable and kernel allocations,
# then asked to shrink to nothing: unplugging under allocations (movable
# pages migrate, kernel ones keep their block), retried seconds later once
# the kernel pages are freed.
vm_scenario("plug3_unplug_under_alloc", VmSeed(region_128m=4, online="online", expect=[
    "plugged 0 -> 384 MiB", "384 -> 2 MiB (requested 0 MiB)", "is in use",
    "unplugged 2 -> 0 MiB (requested 0 MiB)"])
    .request(192).poll(4)
    .alloc(0, 3, movable=True).alloc(1, 0, movable=True).alloc(2, 2, movable=False)
    .alloc(3, 3, movable=True).alloc(4, 1, movable=False)
    .view().state(0, 64)
    .request(0).poll(3)
    .view()
    .free(2).free(4).poll_seconds(4).poll(2)
    .view())

# Plug, then lies while unplugging: ACK without doing it, an UNPLUG the
# device goes on counting as plugged, BUSY, a late reply past the timeout;
# the host resizes in between.
vm_scenario("unplug_with_lies", VmSeed(region_128m=4, expect=[
    "0x86 (a lie)", "device BUSY, retrying", "device marked broken"])
    .request(128).poll(4)
    .alloc(0, 3, movable=True).alloc(1, 2, movable=True)
    .request(32).poll(2).poll_seconds(3)
    .request(96).poll(3)
    .request(0).poll(3).poll_seconds(8).poll(2)
    .view()
    .honest(4).reply(LIE["ACK_NOOP"], LIE["STILL_PLUGGED"], LIE["BUSY"], LIE["LATE"], 0x10,
                     LIE["DONE_BUT_BUSY"]))

# Its blocks offlined and onlined behind the driver's back through sysfs,
# offlining refused by a notifier while it shrinks, auto_online_blocks
# changed between plugs.
vm_scenario("sysfs_behind_its_back", VmSeed(region_128m=4, expect=[
    "plugged 0 -> 256 MiB", "unplugged"])
    .request(128).poll(3)
    .sysfs_toggle(1).alloc(0, 3, movable=True)
    .request(64).poll(2)
    .sysfs_toggle(1, "online_kernel").alloc(1, 1, movable=False)
    .going_offline_error(True).request(0).poll(2).poll_seconds(2)
    .going_offline_error(False).free(1).poll_seconds(3)
    .auto_online("offline").request(128).poll(2)
    .sysfs_toggle(0, "online_movable").sysfs_toggle(1, "online").view()
    .going_online_error(True).auto_online("online").request(192).poll(2)
    .going_online_error(False).poll_seconds(2).view())

# No memory for a memmap: every free 2 MiB block taken before it plugs, so
# adding a memory block fails; given back, a retry plugs.
vm_scenario("no_memmap_then_retry", VmSeed(region_128m=4, expect=[
    "no memory for its 2 MiB memmap", "plugged 0 -> 258 MiB"])
    .hog().request(128).poll(3).view()
    .hog().poll_seconds(4).request(129).poll(2).view()
    .hog().request(0).poll(2).hog().poll_seconds(2))

# The shell's injected replies (nack, busy, error), `retry`, `state` of
# plugged and unplugged ranges, then the device lying about plugged_size
# and the usable size shrinking under plugged memory.
vm_scenario("inject_state_and_size_lies", VmSeed(region_128m=4, expect=[
    "injected", "plugged 0 ->"])
    .inject("nack", 2).request(96).poll(3).retry().poll(2)
    .inject("busy", 1).request(160).poll(2).poll_seconds(2)
    .inject("error", 3).request(32).poll(2).inject_off().poll_seconds(2)
    .state(0, 16).state(60, 64).state(200, 8).view()
    .lie_plugged(7).poll(2).usable_shrink(40).request(40).poll(2).poll_seconds(2)
    .usable_grow(100).request(100).poll(2).view())

# UNPLUGGED_INACCESSIBLE offered, the auto-movable online policy, plugged
# memory at probe (UNPLUG_ALL), a request that grows usable as QEMU does.
vm_scenario("plugged_at_probe_auto_movable", VmSeed(
    region_128m=4, usable_128m=2, plugged_128m=1, requested_blocks=10,
    unplugged_inaccessible=True, online="online", auto_movable=True,
    expect=["plugged at probe: UNPLUG_ALL", "plugged 0 ->"])
    .poll(2).request(150, grow_usable=True).poll(3)
    .alloc(0, 2, movable=True).alloc(1, 0, movable=False).view()
    .request(20).poll(3).free(1).poll_seconds(3).view())

# Lies while plugging: NACK, ERROR, a response type outside the enum, a
# short reply, a wrong used id: the driver marks the device broken at the
# first malformed reply and keeps what it has.
vm_scenario("plug_with_lies", VmSeed(region_128m=4, expect=[
    "NACK (beyond requested size)", "ERROR reply", "malformed response", "removed"])
    .request(64).poll(2).request(128).poll(2).request(160).poll(2).request(192).poll(2)
    .view().request(32).poll(2).poll_seconds(3).view()
    .honest(1).reply(LIE["NACK"], LIE["ERROR"], LIE["BAD_TYPE"], 1))


def vm_seeds():
    return {name: (seed.data(), seed.expect) for name, seed in VM_SCENARIOS.items()}


def vm_check(binary, path, expect):
    p = subprocess.run([binary, path], env=dict(os.environ, FUZZ_VERBOSE="1"),
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    errors = []
    if p.returncode != 0:
        errors.append("the target failed (exit %d):\n%s" % (p.returncode, p.stdout[-3000:]))
    for e in expect:
        if e not in p.stdout:
            errors.append("the log lacks '%s'" % e)
    return errors, p.stdout
