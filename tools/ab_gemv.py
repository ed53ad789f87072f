#!/usr/bin/env python3
"""Compare the variants of a same-run A/B (tools/ab_gemv.sh): per point, each variant's
median over the passes of fastmv's median time per call (every pass in brackets), the
vendor's median over all of them, each variant's time over the first's and over the
vendor's; then per element type the geometric mean of those ratios and how many points
moved by more than 1 %. Any point that did not match the reference is reported.

Each variant runs in its own processes, and at calls of a few microseconds the instance
can move every time by 10-25 % from one process to the next. So, per type and pass, the
vendor's time in each variant's process over its time in the first's (the drift; the
vendor's code is the same in both), and the geometric mean of each variant's time over
the vendor's in the same process, over the first variant's (the same ratio with the
drift divided out, at the cost of the vendor's own noise).

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
    # Per pass, fastmv's and the vendor's times in each variant's process (its pass's CSV).
    by_pass = {}  # (label, pass) -> key -> (fastmv, vendor)
    for label in labels:
        files = sorted(glob.glob(f"{out}/{label}_[0-9]*.csv"))
        if not files:
            sys.exit(f"ab_gemv.py: no {out}/{label}_<pass>.csv")
        for name in files:
            rows = collections.defaultdict(dict)
            for row in csv.DictReader(open(name)):
                if row["implementation"].startswith("fastmv:"):
                    continue  # a --variant of the bench's own: not this A/B's
                key = (row["dtype"], row["layout"][:3], row["op"], int(row["m"]), int(row["n"]))
                if row["correct"] != "true":
                    print(f"NOT CORRECT: {name} {key} {row['implementation']} {row.get('error', '')}")
                seconds = float(row["median_s"]) * 1e6
                ours = row["implementation"] == "fastmv"
                (fastmv[label] if ours else vendor)[key].append(seconds)
                rows[key]["fastmv" if ours else "vendor"] = seconds
            run = name[len(f"{out}/{label}_"):-len(".csv")]
            by_pass[(label, run)] = {k: (v["fastmv"], v["vendor"]) for k, v in rows.items() if len(v) == 2}
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
        drift, normalised = [], []
        for (first, run), base in sorted(by_pass.items()):
            mine = by_pass.get((label, run)) if first == labels[0] else None
            if not mine:
                continue
            keys = [k for k in base if k in mine and k[0] == dtype]
            if keys:
                drift.append(f"{gmean([mine[k][1] / base[k][1] for k in keys]):.3f}")
                normalised.append(gmean([(mine[k][0] / mine[k][1]) / (base[k][0] / base[k][1]) for k in keys]))
        if drift:
            print(f"{dtype} {label}: vendor's time in {label}'s processes over {labels[0]}'s, pass by pass: "
                  f"{' '.join(drift)}; {label}'s time over the vendor's, over {labels[0]}'s: geometric mean "
                  f"{gmean(normalised):.4f} of the passes' [{' '.join(f'{x:.3f}' for x in normalised)}]")


def gmean(values):
    return math.exp(sum(map(math.log, values)) / len(values))


if __name__ == "__main__":
    main()
