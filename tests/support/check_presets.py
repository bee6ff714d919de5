#!/usr/bin/env python3
"""support.presets_filters: every test filter of CMakePresets.json must compile in CTest.

CTest's regular expressions (cmsys::RegularExpression) hold at most nine parenthesized groups;
a pattern with ten or more fails to compile and CTest then filters nothing, silently: a
sanitizer tier's exclusions were lost that way. Exit 1 naming each such pattern."""
import json
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
sys.exit(1 if bad else 0)
