"""QEMU's ACPI tables as kept fixtures (tests/host/fixtures/acpi/, written
by tools/acpi_capture.py): each configuration booted, its `acpidump`
parsed, and every table compared byte for byte with the committed files,
so a QEMU that builds other tables is noticed; /sys/firmware/acpi/tables
read back against the same bytes; and, without a machine, every fixture
DSDT and SSDT through ACPICA's own tools (`iasl -d` disassembles it,
`acpiexec` evaluates \\_S5 to a Package of 4), so a fixture the AML
interpreter's tests rely on is one ACPICA accepts.

Refresh the fixtures with tools/acpi_capture.py (its header says how)."""

import re
import shutil
import subprocess

import pytest

import memlab  # noqa: F401  (puts tools/ on sys.path)
import acpi_capture
from acpi_capture import CONFIGS, fixture_names, parse_acpidump, read_fixtures

REFRESH = "refresh with /usr/bin/python3 tools/acpi_capture.py {config} (see its header)"


def boot_config(boot, config):
    mem, extra, _ = CONFIGS[config]
    return boot(mem=mem, extra=extra)


def first_difference(a, b):
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i
    return min(len(a), len(b))


@pytest.mark.parametrize("config", list(CONFIGS))
def test_qemu_tables_match_the_fixtures(boot, config):
    m = boot_config(boot, config)
    live = fixture_names(parse_acpidump(m.run("acpidump")))
    kept = read_fixtures(config)
    assert kept, f"no fixtures in {acpi_capture.FIXTURES / config}: " + \
        REFRESH.format(config=config)
    problems = []
    for name in sorted(set(live) | set(kept)):
        if name not in kept:
            problems.append(f"{name}: QEMU gives it, no fixture has it")
        elif name not in live:
            problems.append(f"{name}: a fixture, but QEMU no longer gives it")
        elif live[name] != kept[name]:
            problems.append(f"{name}: {len(live[name])} bytes live, {len(kept[name])} kept, "
                            f"first difference at offset {first_difference(live[name], kept[name]):#x}")
    assert not problems, f"{config}: QEMU's tables changed:\n  " + "\n  ".join(problems) + \
        "\n" + REFRESH.format(config=config)


def hexdump_bytes(text):
    """The bytes of `hexdump -C` output (rows and "*" repeats)."""
    data = bytearray()
    last = b""
    squeezed = False
    for line in text.splitlines():
        if line == "*":
            squeezed = True
            continue
        r = re.match(r"^([0-9a-f]{8})  ((?:[0-9a-f]{2}  ?){1,16})", line)
        if r:
            at = int(r.group(1), 16)
            if squeezed:
                while len(data) < at:
                    data += last
                squeezed = False
            assert at == len(data), line
            last = bytes.fromhex(r.group(2))
            data += last
    return bytes(data)


def test_sysfs_tables_as_linux_shows_them(boot):
    """The nvdimm machine (it has an SSDT): one file per table, named as
    Linux names them, ls -l giving each table's length, hexdump -C giving
    its bytes; cat refuses the binary."""
    m = boot_config(boot, "nvdimm")
    kept = read_fixtures("nvdimm")
    out = m.run("ls -l /sys/firmware/acpi/tables")
    listed = {name: int(size) for size, name in
              re.findall(r"^-r-------- +(\d+) (\S+)$", out, re.M)}
    want = {n[:-4].upper(): len(d) for n, d in kept.items() if n != "rsdt.dat"}
    assert listed == want, out
    dump = m.run("hexdump -C /sys/firmware/acpi/tables/SSDT")
    assert hexdump_bytes(dump) == kept["ssdt.dat"], dump[-300:]
    out = m.run("cat /sys/firmware/acpi/tables/NFIT")
    assert out.strip() == ("cat: /sys/firmware/acpi/tables/NFIT: binary file of 224 bytes; "
                           "see it with `hexdump -C /sys/firmware/acpi/tables/NFIT`"), out
    out = m.run("acpidump nfit")
    assert fixture_names(parse_acpidump(out)) == {"nfit.dat": kept["nfit.dat"]}, out
    assert m.run("acpidump XXXX").strip() == "acpidump: no XXXX table (`acpi tables` lists them)"


def acpica(tool):
    path = shutil.which(tool)
    assert path, f"{tool} not found: install acpica-tools (tools/deps.sh test does)"
    return path


def aml_tables(config):
    d = acpi_capture.FIXTURES / config
    return [d / "dsdt.dat"] + sorted(d.glob("ssdt*.dat"))


@pytest.mark.parametrize("config", list(CONFIGS))
def test_iasl_disassembles_every_fixture(tmp_path, config):
    for t in aml_tables(config):
        shutil.copy(t, tmp_path / t.name)
        p = subprocess.run([acpica("iasl"), "-d", t.name], cwd=tmp_path,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        dsl = tmp_path / (t.stem + ".dsl")
        assert p.returncode == 0 and dsl.exists(), f"iasl -d {t}:\n{p.stdout}"
        assert "DefinitionBlock" in dsl.read_text(), dsl


@pytest.mark.parametrize("config", list(CONFIGS))
def test_acpiexec_evaluates_s5(tmp_path, config):
    p = subprocess.run([acpica("acpiexec"), "-b", "evaluate \\_S5"] +
                       [str(t) for t in aml_tables(config)], cwd=tmp_path,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                       timeout=60)
    assert p.returncode == 0, p.stdout
    assert "[Package] Contains 4 Elements:" in p.stdout, p.stdout
    assert "Evaluation of \\_S5 returned object" in p.stdout, p.stdout
