#!/usr/bin/python3
"""check-layers.py: the layer rule of ../shared/DESIGN.md, checked.

Usage: check-layers.py SOURCE_DIR [OBJECT ...]

Each folder has a layer (LAYERS below). Three rules:
  1. no file #includes a file of a higher layer;
  2. no two units (a file's path less its extension, so x.c and x.h are
     one unit) #include each other, directly or through others;
  3. a folder with a narrower interface (NARROW below) includes no other
     file of the folders it names;
  4. no object file of the libraries (the OBJECT arguments, as CMake's
     $<TARGET_OBJECTS> gives them) calls or reads a symbol defined in an
     object of a higher layer (which an #include alone would not show: a
     declaration written out by hand).
Prints each breach; exit status 1 if any, else 0 (77, skipped, where
the object files named are not there, as in a packed build). Also prints, for
information, the cycles of calls between object files of one folder.
"""
import collections
import os
import re
import subprocess
import sys

# Lower layers never include higher ones (DESIGN.md, "Layers").
LAYERS = {
    "include": 0, "builtins": 0,
    "base": 1,
    "jit": 2,
    "backend": 3,
    "core": 4,
    "api": 5,
    "tools": 6, "bench": 6, "examples": 6,
}
SUFFIXES = (".c", ".h", ".cpp", ".S", ".cl", ".cuh")

# Folders that see a lower folder only through some of its files: core/
# sees the back ends through the operations table and the registry, never
# one back end's files; api/ is the OpenCL API over the native API alone.
NARROW = {
    "core": {"backend": ("backend/device.h", "backend/backends.h")},
    "api": {"base": (), "jit": (), "backend": (), "core": ()},
}

INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer_of(path):
    return LAYERS.get(path.split("/", 1)[0])


def source_files(root):
    files = []
    for top in LAYERS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in names:
                if name.endswith(SUFFIXES):
                    files.append(os.path.relpath(os.path.join(folder, name),
                                                 root))
    return sorted(files)


def includes(root, path, known):
    """The files of the tree that path includes, resolved as the compiler
    would: beside the file, then from the root, then from include/."""
    found = []
    with open(os.path.join(root, path), errors="replace") as f:
        for number, line in enumerate(f, 1):
            m = INCLUDE.match(line)
            if not m:
                continue
            name = m.group(1)
            for candidate in (os.path.join(os.path.dirname(path), name), name,
                              os.path.join("include", name)):
                candidate = os.path.normpath(candidate)
                if candidate in known:
                    found.append((number, candidate))
                    break
    return found


def cycles(graph):
    """Strongly connected components of more than one node (Tarjan)."""
    index, low, stack, on_stack, result = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                result.append(frozenset(component))

    sys.setrecursionlimit(100000)
    for v in sorted(graph):
        if v not in index:
            visit(v)
    return result


def check_includes(root):
    files = source_files(root)
    known = set(files)
    breaches, units = [], collections.defaultdict(set)
    for path in files:
        for number, target in includes(root, path, known):
            if layer_of(target) > layer_of(path):
                breaches.append(f"{path}:{number}: includes {target}, a "
                                f"higher layer")
            top, target_top = path.split("/")[0], target.split("/")[0]
            allowed = NARROW.get(top, {}).get(target_top)
            if allowed is not None and target not in allowed:
                breaches.append(f"{path}:{number}: includes {target}; "
                                f"{top}/ sees {target_top}/ only through "
                                f"{', '.join(allowed) or 'nothing'}")
            a, b = os.path.splitext(path)[0], os.path.splitext(target)[0]
            if a != b:
                units[a].add(b)
    for cycle in cycles(units):
        breaches.append("units include each other in a loop: " +
                        ", ".join(sorted(cycle)))
    return breaches, len(files)


def object_source(path):
    """backend/cpu/coop.c for BUILD/CMakeFiles/weft.dir/backend/cpu/coop.c.o,
    api/cl_event.c for BUILD/api/CMakeFiles/weft_opencl.dir/cl_event.c.o
    (a folder with a CMakeLists.txt of its own builds beneath its name)."""
    m = re.match(r"^(.*?)/?CMakeFiles/[^/]+\.dir/(.*?)(\.o)?$",
                 os.path.normpath(path))
    if not m:
        return path
    folder = os.path.basename(m.group(1))
    return (folder + "/" if folder in LAYERS else "") + m.group(2)


def symbols(path):
    out = subprocess.run(["nm", "-P", path], capture_output=True, text=True,
                         check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        fields = line.split()
        if len(fields) < 2:
            continue
        if fields[1] == "U":
            used.add(fields[0])
        elif fields[1] in "TDBRVWtdbr" and fields[1].isupper():
            defined.add(fields[0])
    return defined, used


def check_objects(objects):
    where, uses = {}, {}
    for path in objects:
        source = object_source(path)
        if layer_of(source) is None:
            continue
        defined, used = symbols(path)
        uses[source] = used
        for name in defined:
            where[name] = source
    breaches, calls = [], collections.defaultdict(set)
    for source, used in sorted(uses.items()):
        for name in sorted(used):
            target = where.get(name)
            if not target or target == source:
                continue
            if layer_of(target) > layer_of(source):
                breaches.append(f"{source}: uses {name} of {target}, a "
                                f"higher layer")
            if os.path.dirname(target) == os.path.dirname(source):
                calls[source].add(target)
    for cycle in cycles(calls):
        print("(information) files of one folder calling each other in a "
              "loop: " + ", ".join(sorted(cycle)))
    return breaches, len(uses)


def main(argv):
    if len(argv) < 2:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    missing = [path for path in argv[2:] if not os.path.exists(path)]
    if missing:
        # A packed build (scripts/device-pack.sh) leaves object files out.
        print(f"skipped: {len(missing)} object files are not here, e.g. "
              f"{missing[0]}")
        return 77
    breaches, num_files = check_includes(argv[1])
    more, num_objects = check_objects(argv[2:])
    breaches += more
    for breach in breaches:
        print("layer rule: " + breach)
    print(f"{num_files} source files, {num_objects} object files: "
          f"{len(breaches)} breaches of the layer rule")
    return 1 if breaches else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
