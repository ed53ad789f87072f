#!/usr/bin/env python3
"""Compare the variants of a same-run A/B (tools/ab_gemv.sh): per point, each variant's
median over the passes of fastmv's median time per call (every pass in brackets), the
vendor's median over all of them, each variant's time over the first's and over the
vendor's; then per element type the geometric mean of those ratios and how many points
moved by more than 1 %. Any point that did not match the reference is reported.

    ab_gemv.py OUTDIR LABEL...     # reads OUTDIR/LABEL_<pass>.csv
"""
import collections
import csv
import glob
import math
import statistics
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, labels = sys.argv[1], sys.argv[2:]
    fastmv = {label: collections.defaultdict(list) for label in labels}
    vendor = collections.defaultdict(list)
    for label in labels:
        files = sorted(glob.glob(f"{out}/{label}_[0-9]*.csv"))
        if not files:
            sys.exit(f"ab_gemv.py: no {out}/{label}_<pass>.csv")
        for name in files:
            for row in csv.DictReader(open(name)):
                key = (row["dtype"], row["layout"][:3], row["op"], int(row["m"]), int(row["n"]))
                if row["correct"] != "true":
                    print(f"NOT CORRECT: {name} {key} {row['implementation']} {row.get('error', '')}")
                seconds = float(row["median_s"]) * 1e6
                (fastmv[label] if row["implementation"] == "fastmv" else vendor)[key].append(seconds)
    points = sorted(set.intersection(*(set(fastmv[label]) for label in labels)))
    print("us per call, median of the passes [each pass]; ratios: time over the first variant's, then over the vendor's")
    moved = collections.defaultdict(list)
    for key in points:
        times = [statistics.median(fastmv[label][key]) for label in labels]
        theirs = statistics.median(vendor[key]) if vendor[key] else float("nan")
        cells = [f"{label} {t:.2f} [{'/'.join(f'{x:.2f}' for x in fastmv[label][key])}]" for label, t in zip(labels, times)]
        for i, t in enumerate(times[1:], 1):
            moved[(key[0], labels[i])].append(t / times[0])
        print(f"{key[0]:5} {key[1]} {key[2]} {key[3]:>7} x {key[4]:<7} " + "  ".join(cells) +
              f"  vendor {theirs:.2f}  /first " + " ".join(f"{t / times[0]:.3f}" for t in times[1:]) +
              "  /vendor " + " ".join(f"{t / theirs:.3f}" for t in times))
    for (dtype, label), ratios in sorted(moved.items()):
        mean = math.exp(sum(map(math.log, ratios)) / len(ratios))
        print(f"{dtype} {label}: geometric mean {mean:.4f} of {labels[0]}'s time over {len(ratios)} points; "
              f"{sum(r < 0.99 for r in ratios)} faster and {sum(r > 1.01 for r in ratios)} slower by more than 1 %")


if __name__ == "__main__":
    main()
