# --help succeeds; command-line mistakes exit 2 with a hint.
. "$2/lib.sh"
weft_exits 0 --help
matches out.txt '^Usage: weft COMMAND'
matches out.txt 'TYPE\[N\]=random'
weft_exits 0 run --help
matches out.txt '^weft run FILE.cl'
weft_exits 0 info --help
matches out.txt '^weft info$'
# Every command's help, as weft help COMMAND and weft COMMAND --help.
for cmd in run info ptx bench; do
  weft_exits 0 help $cmd
  cp out.txt help.txt
  matches help.txt "^weft $cmd"
  weft_exits 0 $cmd --help
  cmp -s out.txt help.txt || fail "weft $cmd --help is not weft help $cmd"
  weft_exits 0 $cmd -h
  cmp -s out.txt help.txt || fail "weft $cmd -h is not weft help $cmd"
done
weft_exits 0 help
matches out.txt '^Usage: weft COMMAND'
weft_exits 2 help frobnicate
matches err.txt "^weft help: no command named 'frobnicate'"
weft_exits 0 bench sync --help
matches out.txt '^Usage: weft bench sync'
# The version: the release, the revision, LLVM's.
for flag in --version -V version; do
  weft_exits 0 $flag
  matches out.txt '^weft [0-9]+\.[0-9]+\.[0-9]+ \((git [0-9a-f]+(-dirty)?|unknown), LLVM 19\.[0-9]+\.[0-9]+\)$'
done
weft_exits 2
weft_exits 2 frobnicate
matches err.txt "unknown command 'frobnicate'"
S="$TESTS/saxpy.cl"
weft_exits 2 run "$S" --arg float=1
has_line err.txt 'weft run: --global X[,Y[,Z]] is required'
has_line err.txt "Try 'weft run --help'."
weft_exits 2 run --global 8
matches err.txt 'no FILE.cl given'
weft_exits 2 run "$S" --global 8 --frob
matches err.txt "unknown option '--frob'"
weft_exits 2 run "$S" --global 8,0
weft_exits 2 run "$S" --global 8,8 --local 4
matches err.txt '--local must have as many components as --global'
weft_exits 2 run "$S" --global 8 --print some
weft_exits 2 run "$S" --global 8 --arg
matches err.txt '--arg needs a value'
weft_exits 2 run "$TESTS/matrix.cl" --global 8
matches err.txt 'has 2 kernels; choose one with --kernel: index2d scale4'
weft_exits 1 run "$TESTS/matrix.cl" --kernel nope --global 8
matches err.txt "no kernel named 'nope'"
weft_exits 1 run missing.cl --global 8
matches err.txt "cannot read 'missing.cl'"
