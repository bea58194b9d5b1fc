# An argument 'TYPE[N]=undefined' is a buffer whose contents are undefined,
# as OpenCL's without host data: in check mode a read of an element no one
# wrote is reported, and one that a kernel wrote is not.
. "$2/lib.sh"
export WEFT_DEVICE=cpu WEFT_NUM_THREADS=1
cat > pairs.cl <<'CL'
__kernel void k(__global int *scratch, __global int *out) {
  size_t i = get_global_id(0);
  if (i % 2 == 0) scratch[i] = (int)i;
  barrier(CLK_GLOBAL_MEM_FENCE);
  out[i] = scratch[i ^ 1];
}
CL
weft_exits 1 run pairs.cl --global 64 --local 16 --options -cl-weft-check=uninit \
  --arg 'int[64]=undefined' --arg 'int[64]'
matches err.txt "^program\.cl:5:12: uninitialised read of 4 bytes by work-item \(0\) \[local \(0\) in work-group \(0\)\], at offset 4 of argument 0 'scratch' \(256 bytes from where it points\); 32 times in all$"
# Zero-filled (the native API's promise), the same reads are no error.
weft_exits 0 run pairs.cl --global 64 --local 16 --options -cl-weft-check=uninit \
  --arg 'int[64]' --arg 'int[64]'
