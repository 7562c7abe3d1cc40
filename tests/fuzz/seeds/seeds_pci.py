"""seeds_pci.py - the fuzz_pci seeds of make_seeds.py: a q35-like machine
booted, then hotplug events, encoded as tests/fuzz/fuzz_pci.c and
tests/fuzz/pci_hotplug_events.c read them.  Standard library only.
"""


# ============================================================================
# fuzz_pci: a q35-like machine booted, then hotplug events
# ============================================================================
#
# Hotplug mode (header[3] bit 5): header, the record count, 12-byte records
# (one function each), two setup bytes (DSDT shape, register block,
# selector order), then 4-byte events (see "Hotplug events" in
# tests/fuzz/pci_hotplug_events.c).  Every seed boots the same machine: 00:00.0 a host bridge,
# 00:02.0 root port A (buses 1-1, memory window at c4000000, a slot) with a
# function behind it at 01:00.0, 00:03.0 root port B (buses 2-2, window at
# c8000000, an empty slot).

PCI_HP_MODE = 0x20
PCI_EV = {"acpi_plug": 0, "acpi_down": 1, "gpe": 2, "raw_bit": 3, "slot_plug": 4,
          "attention": 5, "power_fault": 6, "surprise": 7, "presence": 8,
          "poll": 9, "rescan": 10, "views": 11}
THEN = 0x80                          # event byte 0 bit 7: GPE (or poll) right after


def pci_record(parent, dev, fn=0, flags=0, vendor=0x80, *rest):
    r = [parent, (dev << 3) | fn, flags, vendor] + list(rest)
    return bytes(r + [0] * (12 - len(r)))


PCI_MACHINE = [
    pci_record(0, 0, 0, 0x00, 0x80),                           # 00:00.0
    pci_record(0, 2, 0, 0x03, 0x0c, 1, 1, 0x10, 0x01),         # port A, slot
    pci_record(2, 0, 0, 0x00, 0x58, 0x00, 12, 0x10),           # 01:00.0 behind A
    pci_record(0, 3, 0, 0x03, 0x0c, 2, 2, 0x20, 0x01),         # port B, slot
]


def pci_ev(kind, a=0, b=0, c=0, then=False):
    return bytes([PCI_EV[kind] | (THEN if then else 0), a, b, c])


def pci_input(setup, events, records=PCI_MACHINE):
    return (bytes([0, 0, 0xff, PCI_HP_MODE, len(records)]) + b"".join(records) +
            bytes(setup) + b"".join(events))


class PciSeed:
    def __init__(self, data, expect):
        self.data = data
        self.expect = expect


# setup[0]: shape (0 DSDT with BSELs, 1 none, 2 without BSEL: native, 3
# hostile), bit 4 newest bridge first (B is bsel 0, A bsel 1, as QEMU)
PCI_SCENARIOS = {
    "acpi_plug_down_eject": PciSeed(pci_input([0x10, 0], [
        pci_ev("acpi_plug", 1, 0, 0x00, then=True),            # leaf behind B
        pci_ev("acpi_plug", 1, 5, 0x01, then=True),            # multi-function, slot 5
        pci_ev("acpi_down", 2, 0, 0, then=True),               # A's boot function
        pci_ev("views"),
        pci_ev("acpi_plug", 0, 7, 0x02, then=True),            # a bridge, leaf behind, on A
        pci_ev("acpi_down", 4, 1, 0, then=True),               # RMV cleared: refused
        pci_ev("acpi_down", 4, 2, 0, then=True),               # RMV set again
        pci_ev("raw_bit", 0, 9, 1), pci_ev("raw_bit", 1, 3, 0), pci_ev("gpe"),
    ]), ["pci-hotplug: device added on bus 02 (bsel 0, slots 1)",
         "pci-hotplug: device added on bus 02 (bsel 0, slots 20)",
         "pci-hotplug: remove request for 01:00 (bsel 1): 1 function(s) released",
         "pci-hotplug: remove request for 02:00 (bsel 0): 1 function(s) released",
         "refused: the slot is not removable", "bound to fuzz-vmem"]),
    "acpi_guessed_map": PciSeed(pci_input([0x11, 0], [
        pci_ev("acpi_plug", 1, 0, 0x01, then=True),
        pci_ev("acpi_down", 4, 0, 0, then=True),
        pci_ev("rescan"), pci_ev("views"),
    ]), ["pci-hotplug: no DSDT; guessing QEMU's bus selector order",
         "pci-hotplug: device added on bus 02 (bsel 0, slots 1)",
         "pci-hotplug: remove request for 02:00 (bsel 0): 2 function(s) released"]),
    "acpi_hostile_dsdt": PciSeed(pci_input([0x13, 0x10], [
        bytes([9, 0x0a, 10, 0xff]),                            # two patch pairs
        pci_ev("acpi_plug", 1, 0, 0x00, then=True),
        pci_ev("acpi_down", 2, 0, 0, then=True),
        pci_ev("gpe"),
    ]), ["pci-hotplug: "]),
    "native_slots": PciSeed(pci_input([0x12, 0], [
        pci_ev("slot_plug", 1, 0, 0x01, then=True),            # into B: multi-function
        pci_ev("attention", 1), pci_ev("poll"),
        pci_ev("slot_plug", 1, 0, 0x00), pci_ev("power_fault", 0), pci_ev("poll"),
        pci_ev("surprise", 1), pci_ev("poll"),
        pci_ev("presence", 0), pci_ev("poll"),
        pci_ev("attention", 0), pci_ev("poll"),                # A's boot function
        pci_ev("slot_plug", 0, 0, 0x02, then=True),            # a bridge into A
        pci_ev("views"),
    ]), ["pci-hotplug: native PCIe hotplug on 2 slot(s)",
         "pci-hotplug: native: removal requested behind 00:03.0",
         "pci-hotplug: native: power fault on the slot of 00:02.0",
         "is gone; 1 function(s) released"]),
}


def pci_seeds():
    return {name: (seed.data, seed.expect) for name, seed in PCI_SCENARIOS.items()}
