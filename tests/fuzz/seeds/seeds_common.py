"""seeds_common.py - what the seed encoders of make_seeds.py share: where
the tree is, and byte and size helpers.  Standard library only.
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", "..", ".."))
FUZZ_SRC = os.path.join(ROOT, "tests", "fuzz")

MiB = 1 << 20
GiB = 1 << 30


def u64le(v):
    return bytes((v >> (8 * i)) & 0xFF for i in range(8))
