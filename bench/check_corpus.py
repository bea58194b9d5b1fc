#!/usr/bin/env python3
"""check_corpus.py: Weft's check mode and Oclgrind on the same seeded bugs.

Each file of bench/check_corpus/ is one kernel `k` with a header that says
what it holds and how to run it:

    // class: memory | uninit | races | division | divergence | deadlock |
    //        hang | correct
    // expect: error | warning | clean
    // global: X[,Y] local: X[,Y]
    // arg: SPEC            (weft run's argument forms; one line each)

Weft runs it with `weft run --options -cl-weft-check=all` (and
WEFT_TIMEOUT at a third of the time limit); Oclgrind
(Debian's oclgrind) with `oclgrind-kernel --data-races --uninitialized`
on a simulator file made from the same header. Each run is under a time
limit; a run past it is a hang. A seeded bug is "found" when the tool
reports it, "missed" when it runs to the end without a word, "hang" when
it does not end; a correct kernel is "clean" or a "false report".

CSV on stdout: case,class,weft,oclgrind; a summary per class on stderr.

usage: bench/check_corpus.py [BUILD] [--timeout SECONDS] [--csv PATH]
"""
import csv
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, "check_corpus")
SIZES = {"char": 1, "uchar": 1, "short": 2, "ushort": 2, "int": 4,
         "uint": 4, "float": 4, "long": 8, "ulong": 8, "double": 8}
# What each tool says when it finds something.
WEFT_WORDS = ("invalid ", " race on ", "divergence", "deadlock", "ran past its time",
              "warning:")
GRIND_WORDS = ("Invalid ", "Uninitialized", "data race", "divergence",
               "Division by zero", "division by zero", "Work-group divergence")


def header(path):
    spec = {"args": []}
    with open(path) as f:
        for line in f:
            if not line.startswith("//"):
                break
            text = line[2:].strip()
            if text.startswith("arg:"):
                spec["args"].append(text[4:].strip())
            elif text.startswith("global:"):
                words = text.split()
                spec["global"] = words[1]
                spec["local"] = words[3]
            elif ":" in text:
                key, value = text.split(":", 1)
                spec[key.strip()] = value.strip()
    return spec


def sim_argument(arg):
    """An oclgrind-kernel argument definition for a weft run spec."""
    if arg.startswith("local["):
        return "<size=%s>" % arg[6:-1]
    if "[" in arg:
        kind, rest = arg.split("[", 1)
        count, _, fill = rest.partition("]")
        size = SIZES[kind] * int(count)
        fill = fill.lstrip("=")
        if fill.startswith("fill:"):
            return "<size=%d fill=%s %s>" % (size, fill[5:], kind)
        if fill.startswith("iota"):
            return "<size=%d range=0:1:%d %s>" % (size, int(count) - 1, kind)
        if fill.startswith("random"):  # any values do: one is enough
            return "<size=%d fill=7 %s>" % (size, kind)
        # undefined: the simulator file's buffers all have contents.
        return "<size=%d fill=0 %s>" % (size, kind)
    kind, value = arg.split("=", 1)
    return "<size=%d fill=%s %s>" % (SIZES[kind], value, kind)


def sim_file(path, spec, folder):
    sizes = lambda s: " ".join((s.split(",") + ["1", "1"])[:3])
    lines = [path, "k", sizes(spec["global"]), sizes(spec["local"])]
    lines += [sim_argument(a) for a in spec["args"]]
    sim = os.path.join(folder, os.path.basename(path) + ".sim")
    with open(sim, "w") as f:
        f.write("\n".join(lines) + "\n")
    return sim


def run(command, timeout):
    """(exit status or None on a hang, everything it printed). Weft's
    time limit on a launch (WEFT_TIMEOUT) is a third of the run's."""
    env = dict(os.environ, WEFT_CACHE_DIR="off",
               WEFT_TIMEOUT="%g" % (timeout / 3))
    try:
        p = subprocess.run(command, capture_output=True, text=True,
                           timeout=timeout, env=env)
        return p.returncode, p.stdout + p.stderr
    except subprocess.TimeoutExpired as e:
        out = (e.stdout or b"") + (e.stderr or b"")
        return None, out.decode(errors="replace") if isinstance(out, bytes) else out


def verdict(status, output, words, expect):
    if status is None:
        return "hang"
    said = any(w in output for w in words)
    if expect == "clean":
        return "false report" if said or status else "clean"
    return "found" if said else "missed"


def main():
    args = sys.argv[1:]
    build = os.path.join(HERE, "..", "build")
    timeout, csv_path = 30.0, None
    while args:
        a = args.pop(0)
        if a == "--timeout":
            timeout = float(args.pop(0))
        elif a == "--csv":
            csv_path = args.pop(0)
        else:
            build = a
    weft = os.path.join(build, "tools", "weft")
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for name in sorted(os.listdir(CORPUS)):
            if not name.endswith(".cl"):
                continue
            path = os.path.join(CORPUS, name)
            spec = header(path)
            command = [weft, "run", path, "--kernel", "k", "--global",
                       spec["global"], "--local", spec["local"], "--options",
                       "-cl-weft-check=all"]
            for a in spec["args"]:
                command += ["--arg", a]
            w = verdict(*run(command, timeout), WEFT_WORDS, spec["expect"])
            sim = sim_file(path, spec, folder)
            g = verdict(*run(["oclgrind-kernel", "--data-races",
                              "--uninitialized", sim], timeout),
                        GRIND_WORDS, spec["expect"])
            rows.append((name[:-3], spec["class"], w, g))
            print("%s: weft %s, oclgrind %s" % (name, w, g), file=sys.stderr)
    out = [csv.writer(sys.stdout)]
    files = []
    if csv_path:
        files.append(open(csv_path, "w", newline=""))
        out.append(csv.writer(files[-1]))
    for writer in out:
        writer.writerow(("case", "class", "weft", "oclgrind"))
        writer.writerows(rows)
    for f in files:
        f.close()
    good = ("found", "clean")
    for tool, column in (("weft", 2), ("oclgrind", 3)):
        print("%s: %d of %d right" % (tool, sum(r[column] in good for r in rows),
                                       len(rows)), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
