#!/usr/bin/env python3
"""Plot `fastmv bench transform4 --json` results as bar charts, like seed 001's.

    plot_transform4.py results.json -o transform4.png

Panels (those the results hold):
  1. the CPU ladder: milliseconds per 100 calls at each of the seed's sizes, log scale;
  2. throughput at every size: fastmv on the CPU and the GPU, cublasSgemm, fastmv on host
     arrays, with the ceilings measured in the same run as outlined bars;
  3. the grain-size curve: GB/s of fastmv's Cpu backend against its grain.
A wrong result is drawn hatched and marked WRONG.
"""
import argparse
import json
import sys


def load_matplotlib():
    try:
        import matplotlib
    except ImportError:
        sys.exit("plot_transform4.py: matplotlib is missing; install it with `pip install matplotlib` "
                 f"for {sys.executable}")
    matplotlib.use("Agg")
    import matplotlib.pyplot as pyplot
    return pyplot


def size_text(n):
    if n % (1 << 20) == 0:
        return f"{n >> 20}M"
    if n % (1 << 10) == 0:
        return f"{n >> 10}K"
    return str(n)


def grouped_bars(axis, groups, names, value, ceilings=(), log=False):
    """One group of bars per size, one bar per implementation present there."""
    width = 0.8 / max(1, len(names))
    for k, name in enumerate(names):
        xs, ys, wrong = [], [], []
        for g, rows in enumerate(groups):
            row = rows.get(name)
            if row is None:
                continue
            xs.append(g + (k - (len(names) - 1) / 2) * width)
            ys.append(value(row))
            wrong.append(not row["correct"])
        bars = axis.bar(xs, ys, width, label=name,
                        fill=name not in ceilings, edgecolor="black" if name in ceilings else None,
                        linestyle="--" if name in ceilings else "-")
        for bar, bad in zip(bars, wrong):
            if bad:
                bar.set_hatch("xx")
                axis.annotate("WRONG", (bar.get_x(), bar.get_height()), fontsize=6, color="red")
    if log:
        axis.set_yscale("log")
        values = [value(row) for rows in groups for name, row in rows.items() if name in names and value(row) > 0]
        if values:
            axis.set_ylim(bottom=min(values) / 2)
    axis.grid(axis="y", alpha=0.3)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results")
    parser.add_argument("-o", "--output", default="transform4.png")
    arguments = parser.parse_args()
    with open(arguments.results) as file:
        document = json.load(file)
    if document.get("benchmark") != "transform4":
        sys.exit(f"plot_transform4.py: {arguments.results} is not from `fastmv bench transform4 --json`")
    results = document["results"]

    def table(section, names=None):
        sizes = sorted({r["vertices"] for r in results if r["section"] == section})
        groups = []
        for n in sizes:
            groups.append({r["implementation"]: r for r in results
                           if r["section"] == section and r["vertices"] == n
                           and (names is None or r["implementation"] in names)})
        present = []
        for group in groups:
            for name in group:
                if name not in present:
                    present.append(name)
        return sizes, groups, present

    ladder_names = ["naive", "unrolled", "batched", "pointer", "no-alias", "sse", "threads", "threads+sse",
                    "fastmv-cpu-1", "fastmv-cpu"]
    ladder_sizes, ladder_groups, ladder_present = table("cpu", ladder_names)
    seed_sizes = [n for n, g in zip(ladder_sizes, ladder_groups) if "naive" in g]
    ladder_groups = [g for n, g in zip(ladder_sizes, ladder_groups) if n in seed_sizes]

    panels = []
    if seed_sizes:
        panels.append("ladder")
    panels.append("throughput")
    if any(r["section"] == "grain" for r in results):
        panels.append("grain")
    pyplot = load_matplotlib()
    figure, axes = pyplot.subplots(len(panels), 1, figsize=(13, 4.6 * len(panels)), squeeze=False)
    axes = [a[0] for a in axes]
    title = f"fastmv bench transform4: {document.get('cpu', '?')}, {document.get('threads', '?')} threads"
    if document.get("gpu", "none") != "none":
        title += f"\n{document['gpu']}"
    figure.suptitle(f"{title}  ({document.get('date_utc', '')})", fontsize=10)

    for axis, panel in zip(axes, panels):
        if panel == "ladder":
            names = [n for n in ladder_names if n in ladder_present]
            grouped_bars(axis, ladder_groups, names, lambda r: 1e5 * r["median_s"], log=True)
            axis.set_xticks(range(len(seed_sizes)))
            axis.set_xticklabels([f"{size_text(n)} vertices" for n in seed_sizes])
            axis.set_ylabel("ms per 100 calls (log)")
            axis.set_title("CPU: seed 001's ladder and fastmv (lower is better)", fontsize=10)
            axis.legend(fontsize=7, ncol=5)
        elif panel == "throughput":
            wanted = [("cpu", "fastmv-cpu"), ("cpu", "copy-nt"), ("gpu", "fastmv-cuda"), ("gpu", "cublas-sgemm"),
                      ("gpu", "d2d-copy"), ("gpu-host", "seed-pageable"), ("gpu-host", "seed-pinned"),
                      ("gpu-host", "fastmv-cuda-host-pageable"), ("gpu-host", "fastmv-cuda-host-pageable-staged"),
                      ("gpu-host", "fastmv-cuda-host-pinned"), ("gpu-host", "pinned-both")]
            sizes = sorted({r["vertices"] for r in results if (r["section"], r["implementation"]) in wanted})
            groups = []
            for n in sizes:
                groups.append({f"{r['section']}: {r['implementation']}": r for r in results
                               if r["vertices"] == n and (r["section"], r["implementation"]) in wanted})
            names = [f"{s}: {i}" for s, i in wanted if any(f"{s}: {i}" in g for g in groups)]
            ceilings = {"cpu: copy-nt", "gpu: d2d-copy", "gpu-host: pinned-both"}
            grouped_bars(axis, groups, names, lambda r: r["gbps"], ceilings=ceilings, log=True)
            axis.set_xticks(range(len(sizes)))
            axis.set_xticklabels([f"{size_text(n)} vertices" for n in sizes])
            axis.set_ylabel("GB/s (log); host arrays: each way")
            axis.set_ylim(top=axis.get_ylim()[1] * 1.5)
            axis.set_title("Throughput; outlined: the ceilings measured in the same run (higher is better)",
                           fontsize=10)
            axis.legend(fontsize=7, ncol=5, loc="upper center", bbox_to_anchor=(0.5, -0.09))
        else:
            for n in sorted({r["vertices"] for r in results if r["section"] == "grain"}):
                rows = [r for r in results if r["section"] == "grain" and r["vertices"] == n
                        and r["implementation"].startswith("grain-")]
                rows.sort(key=lambda r: r["grain"])
                line = axis.plot([r["grain"] for r in rows], [r["gbps"] for r in rows], marker="o",
                                 label=f"{size_text(n)} vertices")[0]
                for r in results:
                    if r["section"] == "grain" and r["vertices"] == n and r["implementation"] == "auto":
                        axis.axhline(r["gbps"], color=line.get_color(), linestyle=":",
                                     label=f"{size_text(n)}: automatic grain")
                    if r["section"] == "grain" and r["vertices"] == n and r["implementation"] == "copy-nt":
                        axis.axhline(r["gbps"], color=line.get_color(), linestyle="--", alpha=0.5,
                                     label=f"{size_text(n)}: copy with non-temporal stores")
            axis.set_xscale("log", base=2)
            axis.set_xlabel("grain (vertices a thread claims at a time)")
            axis.set_ylabel("GB/s (read + write)")
            axis.set_title("CPU: how to pick the grain size", fontsize=10)
            axis.grid(alpha=0.3)
            axis.legend(fontsize=7)
    figure.tight_layout()
    figure.savefig(arguments.output, dpi=110)
    print(f"wrote {arguments.output}")


if __name__ == "__main__":
    main()
