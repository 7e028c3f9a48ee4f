#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host-side unit test of harness/images/check-debian-config.py, as KTAP on
stdout: on canned configs, an option with Debian's value passes, a
difference the list does not explain fails, one it explains for every
variant or for the variant being built passes (and only for that variant), a
written-down difference that is not one any more fails, and the real list
parses."""
import importlib.util
import os
import sys

CDC = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "images",
                   "check-debian-config.py")
spec = importlib.util.spec_from_file_location("cdc", CDC)
cdc = importlib.util.module_from_spec(spec)
spec.loader.exec_module(cdc)

DEBIAN = cdc.parse_config("CONFIG_A=y\n# CONFIG_B is not set\nCONFIG_HZ=250\nCONFIG_C=m\n")
LIST = cdc.parse_list("# comment\nCONFIG_A\nCONFIG_B\nCONFIG_HZ\n"
                      "CONFIG_C differs: built in, no modules here\n"
                      "CONFIG_D differs(debug): debug only\n")
CASES = []


def case(name):
    def add(fn):
        CASES.append((name, fn))
        return fn
    return add


def problems(variant, built):
    return cdc.check(variant, cdc.parse_config(built), DEBIAN, LIST)[0]


@case("same_values_pass")
def _():
    p = problems("default", "CONFIG_A=y\nCONFIG_HZ=250\nCONFIG_C=y\n")
    return not p, p


@case("unset_equals_not_set")
def _():
    # CONFIG_B absent from ours, "is not set" in Debian's: the same
    p = problems("default", "CONFIG_A=y\nCONFIG_HZ=250\nCONFIG_C=y\n")
    return not any("CONFIG_B" in x for x in p), p


@case("unexplained_difference_fails")
def _():
    p = problems("default", "CONFIG_A=y\nCONFIG_HZ=1000\nCONFIG_C=y\n")
    return any("CONFIG_HZ=1000, Debian has 250" in x for x in p), p


@case("stale_reason_fails")
def _():
    p = problems("default", "CONFIG_A=y\nCONFIG_HZ=250\nCONFIG_C=m\n")
    return any("CONFIG_C=m as Debian" in x for x in p), p


@case("variant_reason_only_for_its_variant")
def _():
    ok_debug = not problems("debug", "CONFIG_A=y\nCONFIG_HZ=250\nCONFIG_C=y\nCONFIG_D=y\n")
    p = problems("default", "CONFIG_A=y\nCONFIG_HZ=250\nCONFIG_C=y\nCONFIG_D=y\n")
    return ok_debug and any("CONFIG_D=y, Debian has n" in x for x in p), p


@case("bad_list_line_refused")
def _():
    try:
        cdc.parse_list("CONFIG_X differs\n")
    except ValueError as e:
        return True, str(e)
    return False, "accepted"


@case("real_lists_parse")
def _():
    import glob
    names = []
    for path in sorted(glob.glob(os.path.join(cdc.HERE, "debian-config*.list"))):
        with open(path) as f:
            entries = cdc.parse_list(f.read())
        if path.endswith("debian-config.list"):
            names = [e[0] for e in entries]
    want = {"CONFIG_PREEMPT_DYNAMIC", "CONFIG_PREEMPT_RCU", "CONFIG_HZ", "CONFIG_THP_SWAP",
            "CONFIG_ZSWAP", "CONFIG_NUMA", "CONFIG_LRU_GEN", "CONFIG_MEMCG"}
    return want <= set(names) and len(names) == len(set(names)), sorted(want - set(names))


def main():
    print("KTAP version 1")
    print("1..%d" % len(CASES))
    bad = 0
    for i, (name, fn) in enumerate(CASES, 1):
        good, why = fn()
        if good:
            print("ok %d %s" % (i, name))
        else:
            bad += 1
            print("not ok %d %s # %s" % (i, name, why))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
