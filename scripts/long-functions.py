#!/usr/bin/env python3
"""Lists C functions over a line limit and source files over a file limit (a crude brace scan:
a function is a line at column 0 ending a signature, up to the '}' at column 0 that closes it).
Exit 1 when any is over, so it can run as a test.
usage: long-functions.py [--function-limit N] [--file-limit N] DIR..."""
import argparse
import os
import re
import sys

SIG = re.compile(r"^[A-Za-z_][\w \*]*?\b([A-Za-z_]\w*)\s*\(")


def functions(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    name, start = None, 0
    for i, line in enumerate(lines):
        if name is None:
            m = SIG.match(line)
            if m and not line.rstrip().endswith(";") and not line.startswith(("typedef", "struct")):
                # the body opens on this line or a following one at column 0
                j = i
                while j < len(lines) and not lines[j].startswith("{") and not lines[j].rstrip().endswith("{"):
                    if lines[j].rstrip().endswith(";"):
                        break
                    j += 1
                if j < len(lines) and (lines[j].startswith("{") or lines[j].rstrip().endswith("{")) \
                        and not lines[j].rstrip().endswith(";"):
                    name, start = m.group(1), i
        elif line.startswith("}"):
            yield name, start + 1, i - start + 1
            name = None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--function-limit", type=int, default=200)
    ap.add_argument("--file-limit", type=int, default=600)
    ap.add_argument("dirs", nargs="+")
    o = ap.parse_args()
    over = 0
    for d in o.dirs:
        for root, _, files in sorted(os.walk(d)):
            for fn in sorted(files):
                if not fn.endswith((".c", ".h")):
                    continue
                p = os.path.join(root, fn)
                with open(p, encoding="utf-8", errors="replace") as f:
                    n = f.read().count("\n")
                if n > o.file_limit:
                    print(f"{p}: {n} lines (limit {o.file_limit})")
                    over += 1
                if fn.endswith(".c"):
                    for name, line, length in functions(p):
                        if length > o.function_limit:
                            print(f"{p}:{line}: {name}: {length} lines (limit {o.function_limit})")
                            over += 1
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
