#!/usr/bin/env python3
"""Break a `fastmv bench gemv --csv` run (fastmv against a vendor) down by class: the
points behind issue 3's acceptance criteria, by form (Dot: row-major N and column-major
T; Axpy: the other two), element type and size, and, given a second run of the same
points, how fastmv's and the vendor's times moved between the two.

    sweep_classes.py run.csv                   # criteria 1-3 by class
    sweep_classes.py run.csv --ceiling 4584    # criterion 1 against another run's ceiling
    sweep_classes.py new.csv --against old.csv # time ratios new / old and cliff pairs by class

The criteria are counted as `fastmv bench gemv --acceptance` counts them: fp32 and bf16
points with at least 64 MiB of matrix under 92 % of the read ceiling; points where
fastmv's GB/s is under the vendor's; square orders n >= 2048, n % 256 == 0, whose n + 1
or n + 8 neighbour's GB/s differs from n's by more than 5 %. Where the run timed the read
floor (the GPU benchmark's `read_floor_s`: a read of A alone launched per call as
fastmv's kernels are), criterion 1's points are also counted against it: the floor's own
fraction of the ceiling and fastmv's and the vendor's GB/s over the floor's, by size, and
fastmv's points under 92 % of the floor by form, type and alignment; and criterion 5's
points (bf16 decode shapes from 32 MiB at 2800 GB/s) with the floor's own GB/s beside them.
"""
import argparse
import collections
import csv
import math
import statistics

SIZES = {"float": 4, "double": 8, "bf16": 2, "fp16": 2}
BANDS = [(0, "< 8 MiB"), (8 << 20, "8-64 MiB"), (64 << 20, "64-256 MiB"), (256 << 20, ">= 256 MiB")]


def load(path):
    """{(dtype, layout, op, m, n, lda): {implementation: row}}"""
    points = collections.defaultdict(dict)
    with open(path, newline="") as file:
        for row in csv.DictReader(file):
            key = (row["dtype"], row["layout"], row["op"], int(row["m"]), int(row["n"]), int(row["lda"]))
            points[key][row["implementation"]] = row
    return points


def form(key):
    return "Dot" if (key[1] == "row-major") == (key[2] == "N") else "Axpy"


def type_name(dtype):
    """The element type as the class tables print it (fp32 for the CSV's float)."""
    return "fp32" if dtype == "float" else dtype


def matrix_bytes(key):
    return key[3] * key[4] * SIZES[key[0]]


def band(key):
    """Index into BANDS of the matrix's size."""
    return [i for i, (floor, _) in enumerate(BANDS) if matrix_bytes(key) >= floor][-1]


def vendor_of(entry):
    others = [name for name in entry if name != "fastmv" and not name.startswith("fastmv:")]
    return others[0] if others else None


def floor_gbps(key, fastmv):
    """The read floor's GB/s over A alone at this point, or None where the run did not time it."""
    floor_s = float(fastmv.get("read_floor_s") or 0)
    return matrix_bytes(key) / floor_s * 1e-9 if floor_s > 0 else None


def criteria(points, ceiling):
    under_ceiling = collections.Counter()
    large = 0
    under_vendor = collections.Counter()
    ratios = []
    for key, entry in points.items():
        fastmv = entry.get("fastmv")
        if fastmv is None:
            continue
        gbps = float(fastmv["gbps"])
        if key[0] in ("float", "bf16") and matrix_bytes(key) >= 64 << 20:
            large += 1
            fraction = gbps / ceiling if ceiling else float(fastmv["fraction_of_read_ceiling"])
            if fraction < 0.92:
                under_ceiling[(form(key), key[0])] += 1
        vendor = vendor_of(entry)
        if vendor is not None:
            ratio = gbps / float(entry[vendor]["gbps"])
            ratios.append(math.log(ratio))
            if ratio < 1.0:
                under_vendor[(form(key), key[0])] += 1
    against = f"a ceiling of {ceiling:.0f} GB/s" if ceiling else "the run's ceiling"
    print(f"1. under 92 % of {against}: {sum(under_ceiling.values())} of {large}",
          dict(sorted(under_ceiling.items())))
    if ratios:
        print(f"2. geometric mean {math.exp(sum(ratios) / len(ratios)):.3f}x over {len(ratios)}; "
              f"under 1.0x: {sum(under_vendor.values())}", dict(sorted(under_vendor.items())))
    cliffs, pairs = cliff_pairs(points)
    print(f"3. cliff pairs beyond 5 %: {sum(cliffs.values())} of {pairs}", dict(sorted(cliffs.items())))
    floor(points, ceiling)
    decode(points)


def cliff_pairs(points):
    """Criterion 3: ({(form, type, "n+1" or "n+8"): pairs beyond 5 %}, pairs judged) over the
    square orders n >= 2048, n % 256 == 0, whose neighbour the run has."""
    squares = {key[:4]: float(entry["fastmv"]["gbps"]) for key, entry in points.items()
               if key[3] == key[4] == key[5] and "fastmv" in entry}
    cliffs = collections.Counter()
    pairs = 0
    for (dtype, layout, op, n), gbps in squares.items():
        if n < 2048 or n % 256 != 0:
            continue
        for step in (1, 8):
            neighbour = squares.get((dtype, layout, op, n + step))
            if neighbour is None:
                continue
            pairs += 1
            if abs(neighbour / gbps - 1) > 0.05:
                cliffs[(form((dtype, layout, op)), type_name(dtype), "n+%d" % step)] += 1
    return cliffs, pairs


FLOOR_BANDS = [(64 << 20, "64-96 MiB"), (96 << 20, "96-128 MiB"), (128 << 20, "128-256 MiB"),
               (256 << 20, ">= 256 MiB")]


def aligned(key):
    """Whether lda (n row-major, m column-major) is a whole number of 16-byte words."""
    lda = key[4] if key[1] == "row-major" else key[3]
    return lda * SIZES[key[0]] % 16 == 0


def floor(points, ceiling):
    """Criterion 1's points against the read floor, where the run timed it."""
    rows = collections.defaultdict(list)  # band -> (floor / ceiling, fastmv / floor, vendor / floor)
    under = collections.Counter()
    judged = collections.Counter()
    for key, entry in points.items():
        fastmv = entry.get("fastmv")
        if fastmv is None or key[0] not in ("float", "bf16") or matrix_bytes(key) < 64 << 20:
            continue
        floor_rate = floor_gbps(key, fastmv)
        if floor_rate is None:
            continue
        gbps = float(fastmv["gbps"])
        run_ceiling = ceiling or gbps / float(fastmv["fraction_of_read_ceiling"])
        vendor = vendor_of(entry)
        vendor_fraction = float(entry[vendor]["gbps"]) / floor_rate if vendor else float("nan")
        band_index = [i for i, (low, _) in enumerate(FLOOR_BANDS) if matrix_bytes(key) >= low][-1]
        rows[band_index].append((floor_rate / run_ceiling, gbps / floor_rate, vendor_fraction))
        cls = (form(key), key[0], "al" if aligned(key) else "odd")
        judged[cls] += 1
        if gbps / floor_rate < 0.92:
            under[cls] += 1
    if not judged:
        return
    every = [row for band_rows in rows.values() for row in band_rows]
    print(f"1'. read floor: under 92 % of the ceiling at {sum(r[0] < 0.92 for r in every)} of {len(every)}; "
          f"fastmv under 92 % of the floor at {sum(under.values())}",
          {"%s %s %s" % cls: "%d/%d" % (under[cls], judged[cls]) for cls in sorted(judged)})
    for band_index in sorted(rows):
        band_rows = rows[band_index]
        def median(i):
            return statistics.median(r[i] for r in band_rows)
        print(f"    {FLOOR_BANDS[band_index][1]:12} {len(band_rows):4} points: floor / ceiling {median(0):.3f} "
              f"({min(r[0] for r in band_rows):.3f}-{max(r[0] for r in band_rows):.3f}), "
              f"fastmv / floor {median(1):.3f}, vendor / floor {median(2):.3f}")


# As tools/fastmv/gpu_sweep.cpp's kLlmDecodeShapes (m x n, every layout and op).
DECODE_SHAPES = {(4096, 4096), (11008, 4096), (4096, 11008), (14336, 4096), (32000, 4096), (128256, 4096)}


def decode(points):
    """Criterion 5's points (bf16 decode shapes of at least 32 MiB, >= 2800 GB/s), and the
    read floor's GB/s over A at each where the run timed it."""
    judged = under = floored = floor_under = 0
    worst = None  # (fastmv / floor, key)
    for key, entry in points.items():
        fastmv = entry.get("fastmv")
        if fastmv is None or key[0] != "bf16" or key[3:5] not in DECODE_SHAPES or matrix_bytes(key) < 32 << 20:
            continue
        judged += 1
        gbps = float(fastmv["gbps"])
        under += gbps < 2800
        floor_rate = floor_gbps(key, fastmv)
        if floor_rate is not None:
            floored += 1
            floor_under += floor_rate < 2800
            if worst is None or gbps / floor_rate < worst[0]:
                worst = (gbps / floor_rate, key)
    if not judged:
        return
    line = f"5. bf16 decode shapes from 32 MiB under 2800 GB/s: {under} of {judged}"
    if floored:
        line += (f"; the read floor under 2800 GB/s at {floor_under} of {floored}; fastmv's lowest "
                 f"fraction of the floor {worst[0]:.3f} ({' '.join(map(str, worst[1][:5]))})")
    print(line)


def compare(new, old):
    by_class = collections.defaultdict(lambda: collections.defaultdict(list))
    for key, entry in new.items():
        if key not in old:
            continue
        for name, row in entry.items():
            if name in old[key]:
                ratio = float(row["median_s"]) / float(old[key][name]["median_s"])
                by_class[(form(key), type_name(key[0]), band(key))][name].append(math.log(ratio))
    print("time new / old, geometric mean by class (points):")
    for cls in sorted(by_class):
        cells = "  ".join(f"{name} {math.exp(sum(v) / len(v)):.3f}x ({len(v)})" for name, v in sorted(by_class[cls].items()))
        print(f"  {cls[0]:4} {cls[1]:6} {BANDS[cls[2]][1]:10}  {cells}")
    new_cliffs, _ = cliff_pairs(new)
    old_cliffs, _ = cliff_pairs(old)
    print("cliff pairs beyond 5 %, old -> new by class:")
    for cls in sorted(set(new_cliffs) | set(old_cliffs)):
        print(f"  {cls[0]:4} {cls[1]:6} {cls[2]}  {old_cliffs[cls]} -> {new_cliffs[cls]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("run", help="CSV written by fastmv bench gemv --csv")
    parser.add_argument("--ceiling", type=float, help="count criterion 1 against this read ceiling (GB/s)")
    parser.add_argument("--against", help="an earlier run's CSV of the same points")
    args = parser.parse_args()
    points = load(args.run)
    criteria(points, args.ceiling)
    if args.against:
        compare(points, load(args.against))


if __name__ == "__main__":
    main()
