#!/usr/bin/env python3
"""Print the inventory of docs/architecture.md: one table per folder of src/, one row per source file
with the first sentence of its header comment. With --write, replace the page's inventory (from its
"## Inventory" heading to the end) with it. tests/cli-docs.sh checks the rows against the tree."""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
DOC = os.path.join(ROOT, "docs", "architecture.md")
HEAD = """## Inventory

Every source file under `src/`, one row each, with the first sentence of its own header comment (a
file says what it is in its first lines). `tests/cli-docs.sh` checks that this table and the tree
agree both ways; `python3 scripts/architecture-inventory.py --write` writes it again from the tree.
"""


def first_sentence(path):
    with open(path, encoding="utf-8") as f:
        text = f.read(4096)
    m = re.match(r"\s*/\*(.*?)\*/", text, re.S) or re.match(r"\s*((?://[^\n]*\n)+)", text)
    if not m:
        return ""
    t = re.sub(r"\n\s*\*\s?", " ", m.group(1)).replace("//", " ")
    t = " ".join(t.split())
    s = re.match(r"(.+?\.)(\s|$)", t)
    t = s.group(1) if s else t
    if len(t) > 190:
        t = t[:187].rsplit(" ", 1)[0] + " ..."
    return t.replace("|", "\\|")


def inventory():
    src = os.path.join(ROOT, "src")
    files = sorted(os.path.relpath(p, src) for ext in ("c", "cpp")
                   for p in glob.glob(os.path.join(src, "**", "*." + ext), recursive=True))
    out, wing = [HEAD], None
    for rel in files:
        if rel.split("/")[0] != wing:
            wing = rel.split("/")[0]
            out.append("\n| `src/%s` | |\n| --- | --- |\n" % wing)
        out.append("| `%s` | %s |\n" % (rel, first_sentence(os.path.join(src, rel))))
    return "".join(out)


def main():
    inv = inventory()
    if sys.argv[1:] == ["--write"]:
        with open(DOC, encoding="utf-8") as f:
            page = f.read()
        at = page.find("## Inventory")
        if at < 0:
            sys.exit("architecture-inventory: %s has no '## Inventory' heading" % DOC)
        with open(DOC + ".tmp", "w", encoding="utf-8") as f:
            f.write(page[:at] + inv)
        os.replace(DOC + ".tmp", DOC)
    elif sys.argv[1:]:
        sys.exit("usage: architecture-inventory.py [--write]")
    else:
        sys.stdout.write(inv)


if __name__ == "__main__":
    main()
