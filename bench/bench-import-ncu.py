#!/usr/bin/env python3
"""Peer for bench-import-ncu: a straightforward csv-module aggregation of a raw `ncu --csv` file.

Prints one JSON line: kernels, launches, total time (authors' aggregation), so the driver can check
that both did the same work.
"""
import csv
import json
import sys

SCALE = {"byte": 1, "Kbyte": 1e3, "Mbyte": 1e6, "Gbyte": 1e9, "cycle/nsecond": 1e9,
         "cycle/usecond": 1e6, "cycle/msecond": 1e3, "cycle/second": 1, "hz": 1, "Khz": 1e3,
         "Mhz": 1e6, "Ghz": 1e9, "inst": 1, "cycle": 1}


def main(path):
    per_kernel = {}  # name -> {metric: sum}
    launches = {}    # name -> set of (pid, id)
    with open(path, newline="") as f:
        for line in f:  # the program's own output comes first
            if line.startswith('"ID","Process ID"'):
                header = next(csv.reader([line]))
                break
        col = {name: i for i, name in enumerate(header)}
        ci, cp, ck = col["ID"], col["Process ID"], col["Kernel Name"]
        cm, cu, cv = col["Metric Name"], col["Metric Unit"], col["Metric Value"]
        for row in csv.reader(f):
            name = row[ck]
            value = float(row[cv].replace(",", "")) * SCALE[row[cu]]
            sums = per_kernel.setdefault(name, {})
            sums[row[cm]] = sums.get(row[cm], 0.0) + value
            launches.setdefault(name, set()).add((row[cp], row[ci]))
    total_time = 0.0
    for name, sums in per_kernel.items():
        n = len(launches[name])
        total_time += sums["sm__cycles_elapsed.avg"] / (sums["sm__cycles_elapsed.avg.per_second"] / n)
    print(json.dumps({"kernels": len(per_kernel),
                      "launches": sum(len(s) for s in launches.values()),
                      "total_time": total_time}))


if __name__ == "__main__":
    main(sys.argv[1])
