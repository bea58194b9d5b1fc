# WEFT_LOG: a line per topic on stderr, saying what Weft did: the devices,
# each build and where it came from (compiled, then the disk cache in a
# second process), each launch; nothing when unset; a bad value refused.
. "$2/lib.sh"
# The lines' form, on the CPU device (where WEFT_DEVICE puts a GPU first
# too).
export WEFT_DEVICE=cpu
printf '__kernel void k(__global int *a) { a[get_global_id(0)] = 7; }\n' >k.cl
set -- run k.cl --global 64 --local 16 --arg 'int[64]' --print 2
WEFT_CACHE_DIR=$WORK/cache WEFT_LOG=all weft_exits 0 "$@"
matches err.txt '^weft\[device\]: Weft [0-9]+\.[0-9]+\.[0-9]+ '
matches err.txt '^weft\[device\]: setting WEFT_LOG=all$'
matches err.txt '^weft\[device\]: back ends: cuda: .+$'
matches err.txt '^weft\[device\]: device 0: .* \(CPU\), [0-9]+ compute units, barriers: (regions|fibers)$'
matches err.txt "^weft\[build\]: build of 62 bytes for .* \(options ''\): done in [0-9.]+ ms$"
matches err.txt "^weft\[cache\]: build of 62 bytes .*: not in the kernel cache: built, and kept on disk in $WORK/cache$"
matches err.txt "^weft\[launch\]: kernel 'k' on .*: 64 in groups of 16 \(4 groups\), a loop over work-items, done after [0-9.]+ ms$"
WEFT_CACHE_DIR=$WORK/cache WEFT_LOG=cache weft_exits 0 "$@"
matches err.txt '^weft\[cache\]: build of 62 bytes .*: found in the kernel cache, on disk$'
grep -q '^weft\[build\]' err.txt && fail "WEFT_LOG=cache printed build lines"
printf '__kernel void k(__global int *a) { a[0] = ; }\n' >bad.cl
WEFT_LOG=build weft_exits 1 run bad.cl --global 64 --options -DX=1 \
  --arg 'int[64]'
matches err.txt "^weft\[build\]: build of 46 bytes .* \(options '-DX=1'\): failed after [0-9.]+ ms: error: expected expression$"
# Under WEFT_BUILD_MEMORY the process that asked logs the build, once.
WEFT_BUILD_MEMORY=1G WEFT_LOG=build weft_exits 0 "$@"
[ "$(grep -c '^weft\[build\]' err.txt)" -eq 1 ] ||
  fail "not one build line under WEFT_BUILD_MEMORY"
matches err.txt '^weft\[build\]: build of 62 bytes .*: done in the build helper in [0-9.]+ ms$'
weft_exits 0 "$@"
grep -q '^weft\[' err.txt && fail "lines without WEFT_LOG"
WEFT_LOG=everything weft_exits 0 "$@"
has_line err.txt "weft: ignoring WEFT_LOG='everything': expected a comma-separated list of device, build, cache and launch, or all (or off)"
exit 0
