#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Product code does not stand on test code.

The crates under tools/testing/ (test clips and oracles, the VM's emulated
H1) may be dev-dependencies only: no other workspace crate reaches one
through its normal or build dependencies, however indirectly. Prints each
product crate with the test crates it reaches; exits 1 if any does.
"""

import json
import os
import subprocess
import sys

here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
meta = json.loads(
    subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=here,
        check=True,
        capture_output=True,
    ).stdout
)
testing = os.path.join(here, "tools", "testing") + os.sep
packages = {p["id"]: p for p in meta["packages"]}
members = set(meta["workspace_members"])
test_ids = {i for i in members if packages[i]["manifest_path"].startswith(testing)}
if not test_ids:
    sys.exit("check-product-deps: no crate under tools/testing/: is the layout what this check thinks?")

# Normal and build edges only: a dev-dependency does not ship.
edges = {}
for node in meta["resolve"]["nodes"]:
    edges[node["id"]] = [
        d["pkg"]
        for d in node["deps"]
        if any(k["kind"] in (None, "build") for k in d["dep_kinds"])
    ]

bad = 0
for pid in sorted(members - test_ids, key=lambda i: packages[i]["name"]):
    seen, todo = set(), [pid]
    while todo:
        for d in edges.get(todo.pop(), []):
            if d not in seen:
                seen.add(d)
                todo.append(d)
    reached = sorted(packages[i]["name"] for i in seen & test_ids)
    name = packages[pid]["name"]
    if reached:
        bad += 1
        print(f"{name}: depends on test crates {', '.join(reached)}")
    else:
        print(f"{name}: no test crate among its {len(seen)} dependencies")
if bad:
    sys.exit(f"check-product-deps: {bad} product crate(s) stand on test code")
