#!/usr/bin/env python3
"""Schedule exploration against a corpus of seeded synchronization bugs.

Every kernel of bench/sync_corpus/ says what it is on its first line
("bug:", "weak:" for a bug only a weak memory shows, or "correct:") and how
to run it ("run:", `weft run` arguments with its --expect oracle; "explore:",
the same at 2 or 3 work-groups for the exhaustive mode). For each schedule
mode this runs `weft run --seeds 1..SEEDS` on each kernel (for "exhaustive",
`weft run --explore`), under a time limit, and records whether a seed (an
interleaving) failed and which was first; for the exhaustive mode, how many
interleavings a passing kernel had.

    bench/sync_corpus.py [--weft build/tools/weft] [--seeds 100]
                         [--limit 10] [--modes random-deep:SEED,pct:SEED+weak]
                         [--csv out.csv] [--check]

A mode is WEFT_SCHEDULE's value with SEED for the seed; "+weak" adds
WEFT_MEMORY=weak.

A failing seed of a bug counts as found; of a correct kernel, as a false
alarm. Prints one CSV row per kernel and mode, then a summary per mode.
With --check (the test bench.sync_corpus), exits 1 unless every mode
found every bug (the weak-memory ones too in a "+weak" mode), raised no
false alarm, and, for "exhaustive", proved every correct kernel.
"""
import argparse
import csv
import os
import re
import shlex
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "sync_corpus")


def kernels():
    for name in sorted(os.listdir(CORPUS)):
        if not name.endswith(".cl"):
            continue
        path = os.path.join(CORPUS, name)
        kind, run, explore = None, None, None
        with open(path) as f:
            for line in f:
                m = re.match(r"// (bug|weak|correct): ", line)
                if m and not kind:
                    kind = m.group(1)
                m = re.match(r"// run: (.*)", line)
                if m:
                    run = shlex.split(m.group(1))
                m = re.match(r"// explore: (.*)", line)
                if m:
                    explore = shlex.split(m.group(1))
        if not kind or not run or not explore:
            sys.exit(f"{path}: no 'bug:', 'weak:' or 'correct:' line, or "
                     "no 'run:' or 'explore:' line")
        yield name[:-3], path, kind, run, explore


def sweep(weft, path, args, mode, seeds, limit):
    """(first failing seed or interleaving or None, seconds, how it
    ended)."""
    schedule, _, memory = mode.partition("+")
    env = dict(os.environ, WEFT_SCHEDULE=schedule.replace("SEED", "0"),
               WEFT_MEMORY=memory or "sc", WEFT_SPIN_TIMEOUT="1")
    exhaustive = schedule.startswith("exhaustive")
    cmd = [weft, "run", path, "--options", "-cl-std=CL3.0", *args,
           *(["--explore"] if exhaustive else ["--seeds", f"1..{seeds}"]),
           "--print", "0"]
    start = time.monotonic()
    try:
        p = subprocess.run(cmd, env=env, capture_output=True, text=True,
                           timeout=limit)
    except subprocess.TimeoutExpired:
        return None, time.monotonic() - start, "time limit"
    seconds = time.monotonic() - start
    m = re.search(r"(?:seed|interleaving) (\d+) fails", p.stderr)
    if m:
        return int(m.group(1)), seconds, "failed"
    m = re.search(r"all (\d+) distinct interleavings? within .* in (\d+) "
                  r"launch", p.stdout)
    if m:
        return None, seconds, (f"all {m.group(1)} distinct interleavings "
                               f"passed, {m.group(2)} launches")
    if re.search(r"the budget is spent", p.stdout):
        return None, seconds, "budget spent"
    if p.returncode:
        sys.exit(f"{' '.join(cmd)}: exit {p.returncode}\n{p.stderr}")
    return None, seconds, "all passed"


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--weft", default=os.path.join(HERE, "..", "build",
                                                   "tools", "weft"))
    ap.add_argument("--seeds", type=int, default=100)
    ap.add_argument("--limit", type=float, default=10.0,
                    help="seconds per kernel and mode")
    ap.add_argument("--modes", default="random-deep:SEED,pct:SEED,"
                    "pct:SEED:3,random:SEED,random-deep:SEED+weak,"
                    "pct:SEED+weak,exhaustive,exhaustive+weak")
    ap.add_argument("--csv")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless every mode finds every bug it "
                    "should, with no false alarm")
    a = ap.parse_args()
    modes = a.modes.split(",")
    rows = []
    out = csv.writer(open(a.csv, "w", newline="") if a.csv else sys.stdout)
    out.writerow(["kernel", "kind", "mode", "first_failing_seed", "seconds",
                  "ended"])
    for name, path, kind, run, explore in kernels():
        for mode in modes:
            args = explore if mode.startswith("exhaustive") else run
            seed, seconds, ended = sweep(a.weft, path, args, mode, a.seeds,
                                         a.limit)
            rows.append((name, kind, mode, seed, seconds, ended))
            out.writerow([name, kind, mode, seed if seed else "",
                          f"{seconds:.2f}", ended])
            sys.stdout.flush()
    print(f"\nsummary ({a.seeds} seeds, {a.limit:g} s per kernel and mode):")
    for mode in modes:
        mine = [r for r in rows if r[2] == mode]
        for kind in ("bug", "weak"):
            bugs = [r for r in mine if r[1] == kind]
            found = [r for r in bugs if r[3]]
            seeds = sorted(r[3] for r in found)
            median = seeds[len(seeds) // 2] if seeds else "-"
            print(f"  {mode:23} {kind:5} found {len(found)}/{len(bugs)}, "
                  f"median first seed (interleaving) {median}")
        alarms = [r for r in mine if r[1] == "correct" and r[3]]
        ok = len([r for r in mine if r[1] == "correct"])
        print(f"  {mode:23} false alarms {len(alarms)}/{ok}"
              + "".join(f" ({r[0]})" for r in alarms))
        proved = [r for r in mine if r[1] == "correct" and
                  "interleavings" in r[5]]
        if proved:
            print(f"  {mode:23} proved {len(proved)}/{ok} (distinct "
                  "interleavings / launches): " + ", ".join(
                      f"{r[0]} ({r[5].split()[1]}/{r[5].split()[5]})"
                      for r in proved))
    if a.check:
        sys.exit(check(rows))


def check(rows):
    """What --check holds every mode to: a message per shortfall, and 1
    if there was one."""
    failed = 0
    for name, kind, mode, seed, _, ended in rows:
        weak = mode.endswith("+weak")
        if kind == "bug" or (kind == "weak" and weak):
            missed = not seed
        elif kind == "correct":
            missed = bool(seed) or (mode.startswith("exhaustive") and
                                    "interleavings" not in ended)
        else:
            continue
        if missed:
            print(f"check: {name} ({kind}) under {mode}: {ended}")
            failed = 1
    return failed


if __name__ == "__main__":
    main()
