#!/usr/bin/python3
"""plot.py: bar charts of the benchmarks' CSV files, one PNG per CSV.

usage: /usr/bin/python3 plot.py FILE.csv... (writes FILE.png beside each)

A CSV with weft_ms and pocl_ms columns (bench_kernels, bench_build) becomes
one panel per row, Weft's bar beside PoCL's on the row's own scale, with
the ratio PoCL / Weft written above (above 1: Weft is faster). bench_peers'
CSV (weft_over_peer) becomes one bar per kernel, Weft's time over the
peer's (below 1: Weft is faster); its --scaling CSV becomes speedup
against threads. The switch
CSV (bench_switch) becomes ns per switch for each switch, on a log scale,
with the project's goal of 20 ns drawn in. The CSVs of `weft bench sync`
and `weft bench probe` become rates against work-groups (plot_sync.py).
bench_coop_kernels' CSV (row,value,unit) becomes three panels: the
points' overhead, the wait for a thread, the periodic load.

Run it with Debian's Python (/usr/bin/python3), which has matplotlib.
"""
import csv
import math
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write files only
import matplotlib.pyplot as plt  # noqa: E402
import plot_sync  # noqa: E402

WEFT_COLOUR = "#3b6ea8"
POCL_COLOUR = "#d08a3a"
SWITCH_GOAL_NS = 20.0


def read_rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def number(text):
    """A float, or None for an empty or missing cell."""
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def short(value):
    """3 significant digits, without exponents for large values."""
    return f"{value:.0f}" if value >= 100 else f"{value:.3g}"


def unit_for(values_ms):
    """ms, or us when every value is below a millisecond."""
    if max(values_ms) < 1.0:
        return "µs", 1000.0
    return "ms", 1.0


def plot_ratios(rows, title, out):
    """One panel per row: Weft and PoCL, the ratio annotated."""
    first = list(rows[0].keys())[0]
    fig, axes = plt.subplots(1, len(rows), figsize=(2.6 * len(rows), 3.8),
                             squeeze=False)
    for ax, row in zip(axes[0], rows):
        weft, pocl = number(row["weft_ms"]), number(row["pocl_ms"])
        unit, scale = unit_for([weft, pocl])
        bars = ax.bar(["Weft", "PoCL"], [weft * scale, pocl * scale],
                      color=[WEFT_COLOUR, POCL_COLOUR])
        ax.bar_label(bars, labels=[short(b.get_height()) for b in bars],
                     fontsize=8)
        ax.set_title(row[first], fontsize=10)
        ax.set_ylabel(unit)
        ax.margins(y=0.25)
        ratio = pocl / weft
        verdict = "Weft faster" if ratio > 1 else "PoCL faster"
        ax.text(0.5, 0.97, f"PoCL/Weft = {ratio:.3g}\n({verdict})",
                transform=ax.transAxes, ha="center", va="top", fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_peers(rows, title, out):
    """Weft's time over the peer's for each kernel (bench_peers), with 1
    and the CPU goal of 0.8 drawn in."""
    names = [r["kernel"] for r in rows]
    ratios = [number(r["weft_over_peer"]) for r in rows]
    fig, ax = plt.subplots(figsize=(max(6.4, 0.55 * len(rows)), 4.2))
    colours = [WEFT_COLOUR if v <= 1 else POCL_COLOUR for v in ratios]
    bars = ax.bar(range(len(rows)), ratios, color=colours)
    ax.bar_label(bars, labels=[f"{v:.2f}" for v in ratios], fontsize=7)
    ax.axhline(1.0, color="#444", linewidth=1)
    ax.axhline(0.8, color="#a33", linestyle="--", linewidth=1,
               label="goal on the CPU: 0.8")
    ax.set_xticks(range(len(rows)), names, rotation=60, ha="right",
                  fontsize=8)
    ax.set_ylabel("Weft's time / the peer's (below 1: Weft faster)")
    ax.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_scaling(rows, title, out):
    """Speedup over one thread against threads, a line per kernel
    (bench_peers --scaling), with the ideal and the goal of 12 on 16."""
    kernels = list(dict.fromkeys(r["kernel"] for r in rows))
    fig, ax = plt.subplots(figsize=(6.8, 4.6))
    most = 1
    for k in kernels:
        pts = [(int(r["threads"]), number(r["speedup"])) for r in rows
               if r["kernel"] == k]
        most = max(most, max(t for t, _ in pts))
        ax.plot([t for t, _ in pts], [v for _, v in pts], marker="o",
                label=k, linewidth=1)
    ax.plot([1, most], [1, most], color="#888", linestyle=":",
            label="ideal")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log", base=2)
    ax.set_xlabel("threads (WEFT_NUM_THREADS)")
    ax.set_ylabel("speedup over one thread")
    ax.legend(fontsize=6, ncol=2)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_switch(rows, title, out):
    """ns per switch: the kernel's barrier and the raw switch, log scale."""
    # PoCL has no switch: its row is the kernel's time per work-item and
    # barrier, the price of a barrier there.
    names = [r["switch"] if r["switch"] != "pocl" else "PoCL\n(no switch)"
             for r in rows]
    base = next((number(r["kernel_barrier_ns"]) for r in rows
                 if r["switch"] == "asm"), None)
    series = [("kernel_barrier_ns", "barrier() in a kernel", WEFT_COLOUR),
              ("raw_swap_ns", "raw switch", "#7fa7d4")]
    width = 0.38
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    for i, (key, label, colour) in enumerate(series):
        xs, ys, texts = [], [], []
        for x, row in enumerate(rows):
            value = number(row.get(key))
            if value is None or value <= 0:
                continue
            xs.append(x + (i - 0.5) * width)
            ys.append(value)
            text = short(value)
            # How many times the asm switch the others cost, in a kernel.
            if key == "kernel_barrier_ns" and base and row["switch"] != "asm":
                text += f"\n({value / base:.3g}× asm)"
            texts.append(text)
        bars = ax.bar(xs, ys, width, label=label, color=colour)
        ax.bar_label(bars, labels=texts, fontsize=8)
    ax.axhline(SWITCH_GOAL_NS, color="#a33", linestyle="--", linewidth=1,
               label=f"goal for asm: {SWITCH_GOAL_NS:g} ns")
    ax.set_yscale("log")
    ax.margins(y=0.3)
    ax.set_xticks(range(len(names)), names)
    ax.set_ylabel("ns per work-item switch (log)")
    ax.legend(fontsize=8, loc="upper left")
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_coop(rows, title, out):
    """bench_coop_kernels: the points' overhead (with the goals of 1.05 on
    average and 1.15 at worst), the wait for a thread beside a persistent
    kernel (median, 90th percentile, worst; log scale), and the queue's
    slowdown beside a periodic kernel with the periods met."""
    value = {r["row"]: number(r["value"]) for r in rows}
    fig, (over, wait, load) = plt.subplots(1, 3, figsize=(13, 4.2))
    names = [n for n in ("overhead_queue", "overhead_levels") if n in value]
    bars = over.bar([n.split("_", 1)[1] for n in names],
                    [value[n] for n in names], color=WEFT_COLOUR)
    over.bar_label(bars, labels=[f"{value[n]:.3f}" for n in names],
                   fontsize=8)
    over.axhline(1.05, color="#a33", linestyle="--", linewidth=1,
                 label="goal: 1.05 on average")
    over.axhline(1.15, color="#a33", linestyle=":", linewidth=1,
                 label="goal: 1.15 at worst")
    over.set_ylabel("cooperative form's time / plain form's")
    over.set_title("overhead of the points", fontsize=10)
    over.legend(fontsize=7)
    forms = [f for f in ("gather_offer", "gather_offer_long",
                         "gather_offer_all", "gather_offer_query",
                         "gather_barrier")
             if f + "_p50" in value]
    for i, stat in enumerate(("p50", "p90", "max")):
        heights = [max(value[f + "_" + stat], 1e-4) for f in forms]
        wait.bar([x + 0.27 * i for x in range(len(forms))], heights,
                 width=0.27, label=stat)
    wait.set_xticks([x + 0.27 for x in range(len(forms))],
                    [f.replace("gather_", "") for f in forms], fontsize=8)
    wait.set_yscale("log")
    wait.set_ylabel("ms a launch waits for its threads")
    wait.set_title("gather time", fontsize=10)
    wait.legend(fontsize=7)
    loads = [n for n in ("light", "medium", "heavy")
             if f"periodic_{n}_slowdown" in value]
    bars = load.bar(loads, [value[f"periodic_{n}_slowdown"] for n in loads],
                    color=WEFT_COLOUR)
    load.bar_label(bars, labels=[
        f"{value[f'periodic_{n}_slowdown']:.2f}x\n"
        f"{100 * value[f'periodic_{n}_met']:.0f}% met" for n in loads],
        fontsize=8)
    load.set_ylabel("the queue's slowdown beside a 10 ms periodic kernel")
    load.set_title("multitasking", fontsize=10)
    load.margins(y=0.25)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=120)
    plt.close(fig)


def plot_file(path):
    rows = read_rows(path)
    if not rows:
        raise SystemExit(f"plot.py: {path} has no rows")
    out = os.path.splitext(path)[0] + ".png"
    title = os.path.basename(os.path.splitext(path)[0])
    if "weft_ms" in rows[0] and "pocl_ms" in rows[0]:
        plot_ratios(rows, f"{title}: Weft vs PoCL (lower is better)", out)
    elif "speedup" in rows[0] and "threads" in rows[0]:
        plot_scaling(rows, f"{title}: Weft on more threads", out)
    elif "weft_over_peer" in rows[0]:
        plot_peers(rows, f"{title}: Weft beside a peer runtime", out)
    elif "kernel_barrier_ns" in rows[0]:
        plot_switch(rows, f"{title}: cost of one work-item switch", out)
    elif "ops_per_s" in rows[0]:
        plot_sync.plot_sync(rows, f"{title}: weft bench sync", out)
    elif "row" in rows[0] and "unit" in rows[0]:
        plot_coop(rows, f"{title}: cooperative kernels", out)
    elif "accesses_per_s" in rows[0]:
        plot_sync.plot_probe(rows, f"{title}: weft bench probe, memory "
                             "system", out)
    else:
        raise SystemExit(f"plot.py: {path}: unknown columns")
    print(out)


def main(paths):
    if not paths:
        raise SystemExit(__doc__)
    for path in paths:
        plot_file(path)


if __name__ == "__main__":
    main(sys.argv[1:])
