# --out writes a buffer's raw bytes; file: reads them back.
. "$2/lib.sh"
# The little-endian ints 0..7, as the ids kernel writes them.
printf '\000\000\000\000\001\000\000\000\002\000\000\000\003\000\000\000' >ref.bin
printf '\004\000\000\000\005\000\000\000\006\000\000\000\007\000\000\000' >>ref.bin
weft_exits 0 run "$TESTS/types.cl" --kernel ids --global 8 \
  --arg 'int[8]' --out 0=ids.bin
cmp ids.bin ref.bin || fail "ids.bin differs from the expected bytes"
weft_exits 0 run "$TESTS/types.cl" --kernel scale_int --global 8 \
  --arg 'int[8]=file:ids.bin' --arg int=3 --out 0=scaled.bin
has_line out.txt 'arg 0 int[8] a: 0 3 6 9 12 15 18 21'
[ "$(od -An -v -td4 scaled.bin | tr -s ' \n' '  ')" = \
  " 0 3 6 9 12 15 18 21 " ] || fail "scaled.bin holds the wrong ints"
# A file of the wrong size is refused before the run.
weft_exits 1 run "$TESTS/types.cl" --kernel scale_int --global 4 \
  --arg 'int[4]=file:ids.bin' --arg int=3
has_line err.txt "weft run: --arg 'int[4]=file:ids.bin': 'ids.bin' has 32 bytes, but int[4] takes 16"
# --out must name a buffer argument.
weft_exits 2 run "$TESTS/types.cl" --kernel scale_int --global 4 \
  --arg 'int[4]' --arg int=3 --out 1=x.bin
matches err.txt "--out 1=x.bin: argument 1 is not a buffer argument"
[ ! -e x.bin ] || fail "x.bin was written"
