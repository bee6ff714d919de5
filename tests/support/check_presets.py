#!/usr/bin/env python3
"""support.presets_filters: every test filter of CMakePresets.json must compile in CTest.

CTest's regular expressions (cmsys::RegularExpression) hold at most nine parenthesized groups;
a pattern with ten or more fails to compile and CTest then filters nothing, silently: a
sanitizer tier's exclusions were lost that way. And a configure preset that compiles only some
files of tests/sim (RAGGED_SIM_TEST_FILES) must compile every file with a test its test preset's
filter would run: a test added to another file would otherwise never run there, silently (the
test names are approximated from TEST, TEST_F, TEST_P and INSTANTIATE_TEST_SUITE_P). Exit 1
naming each such pattern or file."""
import glob
import json
import os
import re
import sys

presets = json.load(open(sys.argv[1]))
bad = 0
for preset in presets.get("testPresets", []):
    for kind in ("include", "exclude"):
        pattern = preset.get("filter", {}).get(kind, {}).get("name")
        if pattern is None:
            continue
        groups = len(re.findall(r"(?<!\\)\(", pattern))
        if groups > 9:
            print(f"test preset '{preset['name']}', {kind}: {groups} groups, CTest compiles at most 9")
            bad += 1
        try:
            re.compile(pattern)
        except re.error as e:
            print(f"test preset '{preset['name']}', {kind}: {e}")
            bad += 1

sim_dir = os.path.join(os.path.dirname(os.path.abspath(sys.argv[1])), "tests", "sim")


def sim_test_names(path):
    """sim.<Suite>.<Name> and sim.<Prefix>/<Suite>.<Name> for the tests a file defines."""
    text = open(path).read()
    names = ["sim.%s.%s " % m for m in re.findall(r"^(?:TEST|TEST_F)\((\w+),\s*(\w+)\)", text, re.M)]
    param = re.findall(r"^TEST_P\((\w+),\s*(\w+)\)", text, re.M)
    for prefix, suite in re.findall(r"INSTANTIATE_TEST_SUITE_P\(\s*(\w+),\s*(\w+)", text):
        names += ["sim.%s/%s.%s/x " % (prefix, s, n) for s, n in param if s == suite]
    return names


for configure in presets.get("configurePresets", []):
    files = configure.get("cacheVariables", {}).get("RAGGED_SIM_TEST_FILES")
    if not files:
        continue
    compiled = set(files.split(";"))
    for name in compiled:
        if not os.path.exists(os.path.join(sim_dir, name + ".cpp")):
            print(f"configure preset '{configure['name']}': RAGGED_SIM_TEST_FILES names no tests/sim/{name}.cpp")
            bad += 1
    for preset in presets.get("testPresets", []):
        if preset.get("configurePreset") != configure["name"]:
            continue
        include = preset.get("filter", {}).get("include", {}).get("name")
        exclude = preset.get("filter", {}).get("exclude", {}).get("name")
        for path in sorted(glob.glob(os.path.join(sim_dir, "*.cpp"))):
            if os.path.basename(path)[:-4] in compiled:
                continue
            for test in sim_test_names(path):
                if (include is None or re.search(include, test)) and not (exclude and re.search(exclude, test)):
                    print(f"test preset '{preset['name']}' would run {test.strip()}, but its configure preset does "
                          f"not compile tests/sim/{os.path.basename(path)} (RAGGED_SIM_TEST_FILES)")
                    bad += 1
                    break
sys.exit(1 if bad else 0)
