#!/bin/sh
# check-layers.sh SCRIPT: the layer check finds what it is for, in a small
# tree (tree/) built to break its rules: a base file that includes a core
# one (and so a loop with it), two jit units that include each other, and
# a core file that includes one back end's header.
set -u
here=$(dirname "$0")
out=$(python3 "$1" "$here/tree")
rc=$?
echo "$out"
fail=0
expect() {
  case "$out" in
    *"$1"*) ;;
    *) echo "check-layers.sh: missing from the report: $1"; fail=1 ;;
  esac
}
[ "$rc" = 1 ] || { echo "check-layers.sh: exit status $rc, not 1"; fail=1; }
expect "base/a.h:2: includes core/b.h, a higher layer"
expect "units include each other in a loop: jit/x, jit/y"
expect "units include each other in a loop: base/a, core/b"
expect "core/c.c:2: includes backend/cpu/fault.h; core/ sees backend/ only through backend/device.h, backend/backends.h"
expect "4 breaches of the layer rule"
case "$out" in
  *"core/b.h:2"*) echo "check-layers.sh: core including base is allowed"; fail=1 ;;
esac
exit $fail
