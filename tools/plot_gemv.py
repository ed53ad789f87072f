#!/usr/bin/env python3
"""Plot `fastmv bench gemv --json` results: throughput against square order, one line per
implementation, one panel per (element type, layout, op), like Figure 3 of the seed paper.

    plot_gemv.py results.json -o gemv.png [--metric gbps|gflops]

Only square points (m == n) are plotted; a wrong result is left out of its line. With
--metric gbps the read ceiling measured in the same run is drawn as a dashed line and,
where the GPU benchmark timed it (from 8 MiB of matrix), the read floor as a dotted one: a
kernel that only reads A, launched per call as fastmv's are (A's bytes over its time).
CPU results use a log2 axis with every order marked; GPU results (fastmv against cuBLAS,
orders every 256 with their +1 and +8 neighbours) a linear axis, as in the paper, so that
a cliff at a neighbour shows as a spike in the line.
"""
import argparse
import json
import sys

COLORS = {"fastmv": "tab:red", "openblas": "tab:blue", "blis": "tab:green", "eigen": "tab:purple",
          "cublas": "tab:blue"}
LABELS = {"gbps": "GB/s (A, x, y once)", "gflops": "GFLOP/s (2mn / t)"}
DTYPE_ORDER = ["float", "double", "bf16", "fp16"]


def load_matplotlib():
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot_gemv.py: matplotlib is missing; install it with `pip install matplotlib` "
                 f"for {sys.executable}")
    matplotlib.use("Agg")  # files only, no display needed
    import matplotlib.pyplot as pyplot
    return pyplot


def panels(points):
    """{(dtype, layout, op): {implementation: [(order, value point)]}} for square points."""
    grouped = {}
    for point in points:
        if point["m"] != point["n"]:
            continue
        key = (point["dtype"], point["layout"], point["op"])
        for result in point["results"]:
            if result["correct"]:
                grouped.setdefault(key, {}).setdefault(result["implementation"], []).append(
                    (point["n"], result))
    return grouped


def floors(points):
    """{(dtype, layout, op): [(order, GB/s of the read floor)]} for square points that have one."""
    grouped = {}
    for point in points:
        floor = point.get("read_floor")
        if point["m"] != point["n"] or not floor or floor["median_s"] <= 0:
            continue
        key = (point["dtype"], point["layout"], point["op"])
        grouped.setdefault(key, []).append((point["n"], point["matrix_bytes"] / floor["median_s"] * 1e-9))
    return grouped


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", help="JSON written by fastmv bench gemv --json")
    parser.add_argument("-o", "--output", default="gemv.png", help="PNG to write")
    parser.add_argument("--metric", choices=sorted(LABELS), default="gbps")
    arguments = parser.parse_args()

    with open(arguments.results) as file:
        document = json.load(file)
    grouped = panels(document["points"])
    floor_lines = floors(document["points"])
    if not grouped:
        sys.exit(f"plot_gemv.py: no square points (m == n) in {arguments.results}")
    pyplot = load_matplotlib()

    gpu = document.get("gpu")
    dtypes = sorted({key[0] for key in grouped},
                    key=lambda dtype: (DTYPE_ORDER + [dtype]).index(dtype))
    # Row-major first, op N before T: the order of the table.
    combos = sorted({key[1:] for key in grouped}, key=lambda combo: (combo[0] != "row-major", combo))
    orders = sorted({point["n"] for point in document["points"] if point["m"] == point["n"]})
    figure, axes = pyplot.subplots(len(dtypes), len(combos), squeeze=False, sharex=True,
                                   figsize=(4.2 * len(combos), 3.4 * len(dtypes)))
    ceiling = document["read_ceiling"]["median_gbps"]
    for row, dtype in enumerate(dtypes):
        for column, (layout, op) in enumerate(combos):
            axis = axes[row][column]
            lines = grouped.get((dtype, layout, op), {})
            for name in sorted(lines, key=lambda name: (name != "fastmv", name)):
                series = sorted(lines[name], key=lambda item: item[0])
                axis.plot([order for order, _ in series],
                          [result[arguments.metric] for _, result in series],
                          marker="o", markersize=1.5 if gpu else 3,
                          linewidth=(1.2 if gpu else 2) if name == "fastmv" else (0.8 if gpu else 1.2),
                          color=COLORS.get(name), label=name)
            if arguments.metric == "gbps" and ceiling > 0:
                axis.axhline(ceiling, color="grey", linestyle="--", linewidth=1,
                             label=f"read ceiling {ceiling:.0f}")
            floor_series = sorted(floor_lines.get((dtype, layout, op), []))
            if arguments.metric == "gbps" and floor_series:
                axis.plot([order for order, _ in floor_series], [value for _, value in floor_series],
                          color="grey", linestyle=":", linewidth=1, label="read of A, per call")
            if gpu:
                axis.set_xlim(left=0)
                axis.tick_params(axis="x", labelsize=7)
            else:
                axis.set_xscale("log", base=2)
                axis.set_xticks(orders, [str(order) for order in orders], rotation=90, fontsize=7)
                axis.minorticks_off()
            axis.set_ylim(bottom=0)
            axis.grid(True, which="major", alpha=0.3)
            axis.set_title(f"{dtype}, {layout}, op {op}", fontsize=10)
            if row == len(dtypes) - 1:
                axis.set_xlabel("order n (n x n matrix)")
            if column == 0:
                axis.set_ylabel(LABELS[arguments.metric])
    axes[0][0].legend(fontsize=8, loc="best")

    metadata = document["metadata"]
    if gpu:
        figure.suptitle(f"GEMV, {gpu['name']}, fastmv {metadata['fastmv_version']} against "
                        f"cuBLAS {gpu['cublas_version']}, {metadata['date_utc']}", fontsize=10)
    else:
        figure.suptitle(f"GEMV, {metadata['cpu_model']}, {metadata['threads']} threads, "
                        f"fastmv {metadata['fastmv_version']} ({metadata['simd_target']}), "
                        f"{metadata['date_utc']}", fontsize=10)
    figure.tight_layout()
    figure.savefig(arguments.output, dpi=120)
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    main()
