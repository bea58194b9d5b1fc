# A 2-D run with --local and a __local argument: each item writes
# (y*width+x)*10 + its flat group id, staged through local memory.
. "$2/lib.sh"
weft_exits 0 run "$TESTS/matrix.cl" --kernel index2d --global 8,4 \
  --local 4,2 --print all --arg 'int[32]' --arg 'local int[8]' --arg int=8
has_line out.txt 'arg 0 int[32] out: 0 10 20 30 41 51 61 71 80 90 100 110 121 131 141 151 162 172 182 192 203 213 223 233 242 252 262 272 283 293 303 313'
# The same with local[BYTES] and groups of 8x1 (flat group id = y).
weft_exits 0 run "$TESTS/matrix.cl" --kernel index2d --global 8,4 \
  --local 8,1 --print 4 --arg 'int[32]' --arg 'local[32]' --arg int=8
has_line out.txt 'arg 0 int[32] out: 0 10 20 30 ...'
# A local size that does not divide the global size is Weft's error.
weft_exits 1 run "$TESTS/matrix.cl" --kernel index2d --global 8,4 \
  --local 3,2 --arg 'int[32]' --arg 'local[24]' --arg int=8
matches err.txt "^weft run: running kernel 'index2d': WEFT_EGROUPSIZE"
