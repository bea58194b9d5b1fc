# The environment variables the code reads (every getenv("WEFT_...") of the
# library and the command, but the tests' own) are exactly those
# weft --help lists (the library's table, weft_environment_variable), and
# each is in the man page and in the README's Configuration table: the
# lists cannot drift apart. And the library reads the environment in
# base/config.c alone.
. "$2/lib.sh"
root=$TESTS/../..
grep -rhoE 'getenv\("WEFT_[A-Z0-9_]+"' "$root/base" "$root/core" "$root/jit" \
  "$root/backend" "$root/api" "$root/tools" --include='*.c' \
  --include='*.cpp' --include='*.h' |
  sed 's/getenv("//; s/"$//' | sort -u >read.txt
[ -s read.txt ] || fail "found no getenv(\"WEFT_...\") in the sources"
# The library reads its environment in one place (base/config.c).
others=$(grep -rlE '\<(secure_)?getenv\(' "$root/base" "$root/core" "$root/jit" \
  "$root/backend" "$root/api" --include='*.c' --include='*.cpp' |
  grep -v '/base/config\.c$')
[ -z "$others" ] || fail "the environment read outside base/config.c: $others"
weft_exits 0 --help
sed -n 's/^  \(WEFT_[A-Z0-9_]*\)=.*/\1/p' out.txt | sort -u >listed.txt
diff read.txt listed.txt >diff.txt ||
  fail "read by the code (<) and listed by weft --help (>) differ: $(cat diff.txt)"
while read -r name; do
  grep -q "^\.B[IR]* $name\( \|=\|$\)" "$root/doc/weft.1" ||
    fail "$name is not in doc/weft.1's ENVIRONMENT"
  grep -q "^| \`$name\` |" "$root/README.md" ||
    fail "$name is not in the README's Configuration table"
done <read.txt
exit 0
