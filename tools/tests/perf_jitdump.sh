# WEFT_PERF=jitdump writes perf's jitdump of the JIT's code where
# JITDUMPDIR says: the kernel's symbol, and with -g its source lines
# (program.cl), for `perf inject --jit`.
. "$2/lib.sh"
export WEFT_DEVICE=cpu JITDUMPDIR="$WORK/dumps"
mkdir "$JITDUMPDIR"
WEFT_PERF=jitdump weft_exits 0 run "$TESTS/saxpy.cl" --global 16 \
  --arg float=2 --arg 'float[16]=iota' --arg 'float[16]' --options -g
dump=$(find "$JITDUMPDIR" -name 'jit-*.dump' | head -1)
[ -n "$dump" ] || fail "no jit-PID.dump under $JITDUMPDIR"
grep -aq '\.saxpy' "$dump" || fail "$dump names no saxpy kernel"
grep -aq 'program\.cl' "$dump" || fail "$dump has no source lines"
# A word it does not know is refused with the ones it takes.
WEFT_PERF=jitdumb weft_exits 0 run "$TESTS/saxpy.cl" --global 4 \
  --arg float=1 --arg 'float[4]' --arg 'float[4]'
has_line err.txt "weft: ignoring WEFT_PERF='jitdumb': expected map or jitdump (or off)"
