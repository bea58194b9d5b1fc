# Vector, 8-bit and 64-bit arguments, offsets and the random fill.
. "$2/lib.sh"
T="$TESTS/types.cl"
weft_exits 0 run "$TESTS/matrix.cl" --kernel scale4 --global 4 \
  --arg 'float4[4]=iota' --arg float4=1,2,3,4 --arg 'uint[1]'
has_line out.txt 'arg 0 float4[4] v: (0,2,6,12) (4,10,18,28) (8,18,30,44) (12,26,42,60)'
has_line out.txt 'arg 2 uint[1] count: 4'
# A float3 takes the storage of 4 components: the kernel strides by 16.
weft_exits 0 run "$T" --kernel add3 --global 3 --arg 'float3[3]=iota' \
  --arg float3=0.5,1,2
has_line out.txt 'arg 0 float3[3] v: (0.5,2,4) (3.5,5,7) (6.5,8,10)'
weft_exits 0 run "$T" --kernel bytes --global 4 --arg 'char[4]=iota' \
  --arg char=-3 --arg 'uchar[4]=fill:255'
has_line out.txt 'arg 0 char[4] c: 3 4 5 6'
has_line out.txt 'arg 2 uchar[4] u: 0 0 0 0'
weft_exits 0 run "$T" --kernel wide --global 2 --arg 'double[2]=fill:3' \
  --arg double=1e-3 --arg 'ulong[2]=fill:18446744073709551615' --arg long=-1
has_line out.txt 'arg 0 double[2] d: 0.003 0.003'
has_line out.txt 'arg 2 ulong[2] l: 18446744073709551614 18446744073709551614'
weft_exits 0 run "$T" --kernel ids --global 4 --offset 2 --arg 'int[6]'
has_line out.txt 'arg 0 int[6] out: 0 0 2 3 4 5'
# random is the same on every run, differs with the seed, and stays in
# [0,1) for floats and 0..255 for 8-bit integers.
weft_exits 0 run "$T" --kernel add3 --global 64 --print all \
  --arg 'float3[64]=random:5' --arg float3=0,0,0
mv out.txt first.txt
weft_exits 0 run "$T" --kernel add3 --global 64 --print all \
  --arg 'float3[64]=random:5' --arg float3=0,0,0
cmp -s out.txt first.txt || fail "random:5 differs between runs"
weft_exits 0 run "$T" --kernel add3 --global 64 --print all \
  --arg 'float3[64]=random:6' --arg float3=0,0,0
! cmp -s out.txt first.txt || fail "random:5 and random:6 agree"
tr '(),' '   ' <first.txt | tr ' ' '\n' | grep -E '^-?[0-9]' |
  awk '$1 < 0 || $1 >= 1 { bad = 1 } END { exit bad }' ||
  fail "a random float is outside [0,1)"
weft_exits 0 run "$T" --kernel bytes --global 256 --print all \
  --arg 'uchar[256]=random' --arg char=0 --arg 'uchar[256]'
sed -n 's/^arg 0 uchar\[256\] c: //p' out.txt | tr ' ' '\n' |
  awk '$1 < 0 || $1 > 255 { bad = 1 } $1 > m { m = $1 }
       END { exit bad || m < 200 }' ||
  fail "random uchars are not spread over 0..255"
matches err.txt "warning: argument 0 \('__global char \*c'\) points to char"
