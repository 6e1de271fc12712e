#!/usr/bin/env python3
"""Rewrites the bad-input tables of docs/reliability.md from what the commands print.

Runs the catalog test with ACMESIM_CATALOG_DUMP (tests/app/bad_inputs_test.cpp writes one table
row per case: input, command, exit code, stderr) and replaces everything from "### Traces" on.
Run after changing a case or a message:  scripts/reliability_table.py [BUILD_DIR]
"""
import os
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
build = sys.argv[1] if len(sys.argv) > 1 else os.path.join(root, "build")
docs = os.path.join(root, "docs", "reliability.md")
groups = [("Traces", "Every malformed trace*"), ("Scenarios", "Every malformed scenario*"),
          ("Command lines", "Every bad command line*")]
header = "| input | command | exit | what acmesim says (stderr) |\n|---|---|---|---|\n"

sections = []
for title, test in groups:
    with tempfile.NamedTemporaryFile("r", suffix=".md") as dump:
        env = dict(os.environ, ACMESIM_CATALOG_DUMP=dump.name)
        # The test fails on rows missing from the docs: that is what this script fixes.
        subprocess.run([os.path.join(build, "tests", "acmesim_tests"), test], env=env,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
        rows = dump.read()
    if not rows:
        sys.exit(f"reliability_table.py: the test '{test}' wrote no rows (is {build} built?)")
    sections.append(f"### {title}\n\n{header}{rows}")

text = open(docs, encoding="utf-8").read()
cut = text.index("### Traces")
open(docs, "w", encoding="utf-8").write(text[:cut] + "\n".join(sections))
print(f"reliability_table.py: rewrote the tables of {docs}")
