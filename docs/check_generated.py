#!/usr/bin/env python3
"""A generated page is in sync with what generates it: run COMMAND..., compare its output with PAGE.

usage: check_generated.py PAGE COMMAND...
On a difference, prints a unified diff and how to regenerate the page, and exits 1.
"""
import difflib
import subprocess
import sys

page, cmd = sys.argv[1], sys.argv[2:]
want = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
with open(page, encoding="utf-8") as f:
    have = f.read()
if have != want:
    sys.stdout.writelines(difflib.unified_diff(have.splitlines(True), want.splitlines(True), page, "generated"))
    print(f"\n{page} is out of date: regenerate it with\n  {' '.join(cmd)} > {page}")
    sys.exit(1)
print(f"{page} is in sync with `{' '.join(cmd)}`")
