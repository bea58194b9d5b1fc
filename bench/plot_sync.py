"""plot_sync.py: the plots of `weft bench sync` and `weft bench probe`, in
the manner of Stuart & Owens' figures: rate against the number of
work-groups, both on log scales. plot.py calls these by the CSV's columns.

sync CSV (measure,primitive,init,impl,groups,threads,ops,...): one panel per
primitive (semaphores one per initial value), a line per implementation,
pthreads dashed (their x is threads, one per group), the thread count
marked; and a panel of uncontended latencies in ns.
probe CSV (probe,contention,groups,...): reads and writes, volatile and
atomic, contentious and not.
"""
import math

import matplotlib.pyplot as plt
from matplotlib.ticker import LogFormatterSciNotation

PTHREAD_COLOUR = "#222222"
# One colour per implementation name across all panels (pthreads black).
COLOURS = ["#3b6ea8", "#d08a3a", "#4f9a55", "#b04a5a", "#7d5fa8", "#8a7a3a",
           "#3aa5a5", "#d4679f", "#8c8c8c", "#a0c040"]
TITLES = {
    "mutex": "mutex: lock+unlock",
    "semaphore": "semaphore (initial {init}): wait+post",
    "barrier": "weft_barrier: phases",
    "global_barrier": "weft_global_barrier: phases",
}


def _number(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def _panels(rows):
    """(primitive, init) in the order the CSV has them."""
    seen = []
    for r in rows:
        key = (r["primitive"], r["init"])
        if r["measure"] == "rate" and key not in seen:
            seen.append(key)
    return seen


def _colour(impls, impl):
    if impl == "pthread":
        return PTHREAD_COLOUR
    if impl not in impls:
        impls.append(impl)
    return COLOURS[impls.index(impl) % len(COLOURS)]


def _rate_panel(ax, rows, key, impls):
    threads = None
    for impl in dict.fromkeys(r["impl"] for r in rows):
        pts = [(int(r["groups"]), _number(r["ops_per_s"])) for r in rows
               if (r["primitive"], r["init"]) == key and r["impl"] == impl
               and r["measure"] == "rate"]
        pts = [(x, y) for x, y in pts if y and y > 0 and math.isfinite(y)]
        if not pts:
            continue
        if impl != "pthread":
            threads = next(int(r["threads"]) for r in rows
                           if r["impl"] == impl)
        label = "pthread (a thread per group)" if impl == "pthread" else impl
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                markersize=3, linestyle="--" if impl == "pthread" else "-",
                color=_colour(impls, impl), label=label)
    if threads:
        ax.axvline(threads, color="#999999", linestyle=":", linewidth=1)
        ax.text(threads, 0.02, f" {threads} threads", fontsize=7,
                color="#666666", transform=ax.get_xaxis_transform())
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    # Label some minor ticks when the rates span less than two decades.
    ax.yaxis.set_minor_formatter(LogFormatterSciNotation(
        minor_thresholds=(2, 0.5)))
    ax.set_title(TITLES[key[0]].format(init=key[1]), fontsize=9)
    ax.set_xlabel("work-groups", fontsize=8)
    ax.set_ylabel("operations/s (higher is better)", fontsize=8)
    ax.tick_params(labelsize=7)
    ax.grid(True, which="major", linewidth=0.3)
    ax.legend(fontsize=7)


def _latency_panel(ax, rows, impls):
    lat = [r for r in rows if r["measure"] == "latency"]
    prims = list(dict.fromkeys(r["primitive"] for r in lat))
    names = list(dict.fromkeys(r["impl"] for r in lat))
    width = 0.8 / max(len(names), 1)
    for i, impl in enumerate(names):
        xs, ys = [], []
        for j, p in enumerate(prims):
            r = next((r for r in lat if r["primitive"] == p
                      and r["impl"] == impl), None)
            value = _number(r["ns_per_op"]) if r else None
            if value and math.isfinite(value):
                xs.append(j + (i - (len(names) - 1) / 2) * width)
                ys.append(value)
        bars = ax.bar(xs, ys, width, label=impl, color=_colour(impls, impl))
        ax.bar_label(bars, labels=[f"{y:.3g}" for y in ys], fontsize=7)
    ax.set_xticks(range(len(prims)), prims, fontsize=8)
    ax.set_ylabel("ns per pair, one group (lower is better)", fontsize=8)
    ax.set_title("uncontended latency", fontsize=9)
    ax.margins(y=0.2)
    # Below the panel: inside, the legend covered the tallest bars.
    ax.legend(fontsize=7, loc="upper center", bbox_to_anchor=(0.5, -0.12),
              ncol=min(3, max(len(names), 1)), frameon=False)


def plot_sync(rows, title, out):
    panels = _panels(rows)
    count = len(panels) + 1
    cols = min(4, count)
    lines = math.ceil(count / cols)
    fig, axes = plt.subplots(lines, cols, figsize=(4.2 * cols, 3.4 * lines),
                             squeeze=False)
    axes = axes.flatten()
    impls = []
    for ax, key in zip(axes, panels):
        _rate_panel(ax, rows, key, impls)
    _latency_panel(axes[len(panels)], rows, impls)
    for ax in axes[count:]:
        ax.set_visible(False)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)


def plot_probe(rows, title, out):
    fig, axes = plt.subplots(1, 2, figsize=(10, 4))
    styles = {("volatile", "contentious"): ("#3b6ea8", "-"),
              ("volatile", "noncontentious"): ("#3b6ea8", "--"),
              ("atomic", "contentious"): ("#d08a3a", "-"),
              ("atomic", "noncontentious"): ("#d08a3a", "--")}
    for ax, access in zip(axes, ["read", "write"]):
        for (kind, contention), (colour, line) in styles.items():
            pts = [(int(r["groups"]), float(r["accesses_per_s"])) for r in rows
                   if r["probe"] == f"{kind}_{access}"
                   and r["contention"] == contention]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o",
                        markersize=3, color=colour, linestyle=line,
                        label=f"{kind}, {contention}")
        threads = int(rows[0]["threads"])
        ax.axvline(threads, color="#999999", linestyle=":", linewidth=1)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(f"{access}s", fontsize=10)
        ax.set_xlabel(f"work-groups ({threads} threads)", fontsize=8)
        ax.set_ylabel("accesses/s, all groups", fontsize=8)
        ax.grid(True, which="major", linewidth=0.3)
        ax.legend(fontsize=7)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    plt.close(fig)
