"""The ISO itself: tools/mkiso.sh builds a hybrid image for BIOS and UEFI
when grub-efi-amd64-bin is installed and a BIOS-only one when it is not,
and both boot.

A machine without grub-efi-amd64-bin is faked with MKISO_FAKE_MISSING, the
way deps.sh's DEPS_FAKE_MISSING fakes missing packages (tools/deps.sh test
installs the real package, so both cases run here).  Whether an image
carries UEFI is read from the image itself: xorriso lists the EFI system
partition image (/efi.img) and the platform directories.
"""

import subprocess

import pytest

import memlab

EFI_DIR = "/usr/lib/grub/x86_64-efi/moddep.lst"


def mkiso(kernel, out, env_extra=None):
    import os
    env = dict(os.environ, **(env_extra or {}))
    return subprocess.run(["sh", str(memlab.MKISO), str(kernel), str(out), ""],
                          cwd=memlab.REPO, env=env, text=True,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def iso_files(iso):
    p = subprocess.run(["xorriso", "-indev", str(iso), "-find", "/",
                        "-maxdepth", "3"], text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    assert p.returncode == 0, f"xorriso could not read {iso}"
    return {line.strip().strip("'") for line in p.stdout.splitlines()}


@pytest.fixture(scope="module")
def isos(kernel, tmp_path_factory):
    import os
    if not os.path.exists(EFI_DIR):
        pytest.fail("grub-efi-amd64-bin is not installed: run tools/deps.sh test",
                    pytrace=False)
    d = tmp_path_factory.mktemp("iso")
    hybrid, bios = d / "hybrid.iso", d / "bios.iso"
    r1 = mkiso(kernel, hybrid)
    r2 = mkiso(kernel, bios, {"MKISO_FAKE_MISSING": "grub-efi-amd64-bin"})
    return {"hybrid": (hybrid, r1), "bios": (bios, r2)}


def test_mkiso_with_efi_builds_both_platforms(isos):
    iso, r = isos["hybrid"]
    assert r.returncode == 0, r.stdout
    assert r.stdout == "", f"a full build prints nothing: {r.stdout!r}"
    files = iso_files(iso)
    for f in ("/efi.img", "/boot/grub/i386-pc", "/boot/grub/x86_64-efi",
              "/boot/memlab.elf", "/boot/grub/grub.cfg"):
        assert f in files, f"{f} missing from the hybrid ISO"


def test_mkiso_without_efi_says_bios_only(isos):
    iso, r = isos["bios"]
    assert r.returncode == 0, r.stdout
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 1 and "BIOS only" in lines[0] \
        and "grub-efi-amd64-bin" in lines[0], r.stdout
    files = iso_files(iso)
    assert "/boot/grub/i386-pc" in files
    assert "/efi.img" not in files and "/boot/grub/x86_64-efi" not in files


def test_mkiso_refuses_a_two_line_cmdline(kernel, tmp_path):
    p = subprocess.run(["sh", str(memlab.MKISO), str(kernel),
                        str(tmp_path / "x.iso"), "a\nb"], text=True,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    assert p.returncode != 0 and "one line" in p.stdout
    assert not (tmp_path / "x.iso").exists()


@pytest.mark.parametrize("which,firmware", [("bios", "bios"),
                                            ("hybrid", "bios"),
                                            ("hybrid", "uefi")])
def test_iso_boots(isos, which, firmware, request):
    iso, r = isos[which]
    assert r.returncode == 0, r.stdout
    m = memlab.Machine(iso, name=request.node.name, firmware=firmware)
    try:
        m.start()
        m.wait_prompt()
        assert "memlab" in m.run("version")
    finally:
        m.kill()
