#!/bin/sh
# same_output.sh: runs PROGRAM once with each argument (a platform name)
# and fails unless every run succeeds and prints the same standard output.
#
# Usage: same_output.sh PROGRAM ARG1 ARG2 [ARG...]
set -u
program=$1
shift
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
i=0
for arg in "$@"; do
  i=$((i + 1))
  if ! "$program" "$arg" >"$dir/$i"; then
    echo "same_output: $program \"$arg\" failed" >&2
    exit 1
  fi
  echo "== $arg:"
  cat "$dir/$i"
  if [ "$i" -gt 1 ] && ! cmp -s "$dir/1" "$dir/$i"; then
    echo "same_output: \"$1\" and \"$arg\" print different results:" >&2
    diff "$dir/1" "$dir/$i" >&2
    exit 1
  fi
done
echo "same_output: all $i runs agree"
