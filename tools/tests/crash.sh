# A kernel writing through NULL fails with a report naming the work-item.
. "$2/lib.sh"
# The CPU device's, even where WEFT_DEVICE puts a GPU first.
export WEFT_DEVICE=cpu
weft_exits 1 run "$TESTS/crash.cl" --global 64 --local 16 --arg 'int[64]'
matches err.txt "^weft run: running kernel 'crash': WEFT_EKERNELFAULT"
matches err.txt 'segmentation fault'
matches err.txt 'work-item \(37\) \[local \(5\) in work-group \(2\)\] at program\.cl:4:23$'
