# Specs that do not fit the kernel are refused before the launch.
. "$2/lib.sh"
S="$TESTS/saxpy.cl"
weft_exits 2 run "$S" --global 8 --arg float=2 --arg 'float[8]' --arg int=5
has_line err.txt "weft run: argument 2 ('__global float *y') is a buffer, but '--arg int=5' gives a value; write --arg float[N]"
weft_exits 2 run "$S" --global 8 --arg 'float[8]' --arg 'float[8]' \
  --arg 'float[8]'
matches err.txt "argument 0 \('float a'\) is a value of 4 bytes, but '--arg float\[8\]' gives a buffer"
weft_exits 2 run "$S" --global 8 --arg double=2 --arg 'float[8]' \
  --arg 'float[8]'
matches err.txt "gives a value of 8 bytes"
weft_exits 2 run "$S" --global 8 --arg int=2 --arg 'float[8]' --arg 'float[8]'
matches err.txt "gives an integer value; write --arg float=VALUE"
# The wrong number of --arg options names the kernel's arguments.
weft_exits 2 run "$S" --global 8 --arg float=2
matches err.txt "kernel 'saxpy' takes 3 arguments, but 1 --arg option was given"
has_line err.txt "  saxpy(float a, __global float *x, __global float *y)"
# Malformed specs.
weft_exits 2 run "$S" --global 8 --arg flot=2
matches err.txt "unknown type 'flot'"
weft_exits 2 run "$S" --global 8 --arg float4=1,2,3
matches err.txt "'1,2,3' has 3 components, but float4 takes 4"
weft_exits 2 run "$S" --global 8 --arg 'uchar[4]=fill:256'
matches err.txt "'256' is not a valid uchar"
weft_exits 2 run "$S" --global 8 --arg 'int[0]'
weft_exits 2 run "$S" --global 8 --arg 'int[4]=squares'
matches err.txt "unknown initializer 'squares'"
weft_exits 2 run "$S" --global 8 --arg 'local[16]=iota'
