# A build error prints the log with file:line:column and exits 1.
. "$2/lib.sh"
cp "$TESTS/bad.cl" bad.cl
weft_exits 1 run bad.cl --global 8 --arg 'int[8]'
matches err.txt "^bad\.cl:2:27: error: expected ';'"
matches err.txt '^weft run: building bad\.cl: WEFT_EBUILD'
[ ! -s out.txt ] || fail "a failed build printed results"
# Build options reach the compiler: fill_n needs -DN.
weft_exits 0 run "$TESTS/define.cl" --global 4 \
  --options '-cl-std=CL3.0 -DN=7' --arg 'int[4]'
has_line out.txt 'arg 0 int[4] a: 7 7 7 7'
weft_exits 1 run "$TESTS/define.cl" --global 4 --arg 'int[4]'
matches err.txt "define\.cl:3:25: error: use of undeclared identifier 'N'"
