# saxpy with iota and fill inputs prints the known result.
. "$2/lib.sh"
weft_exits 0 run "$TESTS/saxpy.cl" --global 1024 --print 8 \
  --arg float=2 --arg 'float[1024]=iota' --arg 'float[1024]=fill:0.5'
has_line out.txt 'arg 1 float[1024] x: 0 1 2 3 4 5 6 7 ...'
has_line out.txt 'arg 2 float[1024] y: 0.5 2.5 4.5 6.5 8.5 10.5 12.5 14.5 ...'
# The only kernel is picked without --kernel; value arguments are not shown.
[ "$(wc -l <out.txt)" -eq 2 ] || fail "expected two lines of output"
# --print all shows the last element, 2*1023+0.5, and no ellipsis.
weft_exits 0 run "$TESTS/saxpy.cl" --kernel saxpy --global 1024 --print all \
  --arg float=2 --arg 'float[1024]=iota' --arg 'float[1024]=fill:0.5'
matches out.txt '^arg 2 float\[1024\] y: 0\.5 2\.5 .* 2044\.5 2046\.5$'
# --time reports both phases.
weft_exits 0 run "$TESTS/saxpy.cl" --global 4 --time --arg float=1 \
  --arg 'float[4]' --arg 'float[4]'
matches out.txt '^build: [0-9]+\.[0-9]+ ms$'
matches out.txt '^run: [0-9]+\.[0-9]+ ms$'
