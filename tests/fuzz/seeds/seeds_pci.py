"""seeds_pci.py - the fuzz_pci seeds of make_seeds.py: a q35-like machine
booted, then hotplug events, encoded as tests/fuzz/fuzz_pci.c and
tests/fuzz/pci_hotplug_events.c read them.  Standard library only.
"""


# ============================================================================
# fuzz_pci: a q35-like machine booted, then hotplug events
# ============================================================================
#
# Hotplug mode (header[3] bit 5): header, the record count, 12-byte records
# (one function each), two setup bytes (the firmware: QEMU's bridges DSDT
# whole, cut or patched, or none; register block; GPE 1), then 4-byte
# events (see "Hotplug events" in tests/fuzz/pci_hotplug_events.c).  Every
# seed boots the machine of the DSDT (tests/host/fixtures/acpi/bridges):
# 00:00.0 a host bridge, 00:01.0 root port 1 (bus 1, memory window at
# c4000000, a slot; QEMU's bus selector 2) with a function behind it at
# 01:00.0, 00:02.0 root port 2 (buses 2-3, window at c8000000, a slot;
# selector 0) with a PCI bridge at 02:00.0 (bus 3, window at c8000000;
# selector 1).

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
    pci_record(0, 1, 0, 0x03, 0x0c, 1, 1, 0x10, 0x01),         # root port 1, slot
    pci_record(2, 0, 0, 0x00, 0x58, 0x00, 12, 0x10),           # 01:00.0 behind it
    pci_record(0, 2, 0, 0x03, 0x0c, 2, 3, 0x20, 0x03),         # root port 2, slot
    pci_record(4, 0, 0, 0x01, 0x0c, 3, 3, 0x20, 0x01),         # 02:00.0 PCI bridge
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


# setup[0]: shape (0 QEMU's DSDT, 1 cut at setup[1] / 256, 2 none: native,
# 3 patched: setup[1] >> 3 triples of position lo, hi, value first)
BSEL_PORT1 = 0x249a                  # the 2 of root port 1's Name (BSEL, 2)
PCI_SCENARIOS = {
    "acpi_plug_down_eject": PciSeed(pci_input([0x00, 0], [
        pci_ev("acpi_down", 2, 0, 0, then=True),               # 01:00.0
        pci_ev("acpi_plug", 0, 0, 0x00, then=True),            # the same slot again
        pci_ev("acpi_plug", 0x80, 5, 0x01, then=True),         # multi-function behind the bridge
        pci_ev("views"),
        pci_ev("acpi_plug", 0x80, 7, 0x02, then=True),         # a bridge, leaf behind
        pci_ev("raw_bit", 1, 3, 0), pci_ev("gpe"),             # an eject of an empty slot
    ]), ["pci-hotplug: ACPI PCI hotplug through the AML: \\_GPE._E01",
         "pci-hotplug: eject request for \\_SB_.PCI0.S08_.S00_ (01:00): 1 function(s) released",
         "pci-hotplug: \\_SB_.PCI0.S08_.S00_ ejected (_EJ0)",
         "pci-hotplug: Notify (\\_SB_.PCI0.S08_.S00_, 1): device check",
         "pci-hotplug: Notify (\\_SB_.PCI0.S10_.S00_.S28_, 1): device check",
         "pci-hotplug: Notify (\\_SB_.PCI0.S10_.S00_.S38_, 1): device check",
         "pci-hotplug: eject request for \\_SB_.PCI0.S10_.S00_.S18_ (03:03): 0 function(s) released",
         "bound to fuzz-vmem"]),
    "acpi_cut_dsdt": PciSeed(pci_input([0x01, 0x80], [
        pci_ev("acpi_plug", 1, 0, 0x01, then=True),
        pci_ev("acpi_down", 2, 0, 0, then=True),
        pci_ev("rescan"), pci_ev("views"),
    ]), ["pci-hotplug: no ACPI PCI hotplug: the namespace has no \\_GPE._E01 or _L01",
         "pci-hotplug: native PCIe hotplug on 2 slot(s)"]),
    "acpi_hostile_dsdt": PciSeed(pci_input([0x03, 0x10], [
        bytes([BSEL_PORT1 & 0xff, BSEL_PORT1 >> 8, 0x00, 0x00]),   # BSEL 0, twice; then
        bytes([0x30, 0x33, 0xff, 0]),                          # a byte of _E01 patched
        pci_ev("acpi_down", 2, 0, 0, then=True),
        pci_ev("acpi_plug", 1, 0, 0x00, then=True),
        pci_ev("gpe"),
    ]), ["pci-hotplug: "]),
    "native_slots": PciSeed(pci_input([0x02, 0], [
        pci_ev("slot_plug", 1, 0, 0x01, then=True),            # port 2 is taken: nothing
        pci_ev("attention", 1), pci_ev("poll"),                # the bridge in port 2
        pci_ev("slot_plug", 1, 0, 0x00), pci_ev("power_fault", 0), pci_ev("poll"),
        pci_ev("surprise", 1), pci_ev("poll"),
        pci_ev("presence", 0), pci_ev("poll"),
        pci_ev("attention", 0), pci_ev("poll"),                # 01:00.0
        pci_ev("slot_plug", 0, 0, 0x02, then=True),            # a bridge into port 1
        pci_ev("views"),
    ]), ["pci-hotplug: no ACPI PCI hotplug: no AML namespace",
         "pci-hotplug: native PCIe hotplug on 2 slot(s)",
         "pci-hotplug: native: removal requested behind 00:02.0",
         "pci-hotplug: native: power fault on the slot of 00:01.0",
         "is gone; 1 function(s) released"]),
}


def pci_seeds():
    return {name: (seed.data, seed.expect) for name, seed in PCI_SCENARIOS.items()}
