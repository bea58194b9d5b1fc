# lib.sh: what the client tests share. Each test script is run as
#   sh TEST.sh WEFT_BINARY TESTS_DIR
# and sources this file, which moves into a scratch directory removed at exit.

WEFT=$1
TESTS=$2
WORK=$(mktemp -d) || exit 1
trap 'rm -rf "$WORK"' EXIT
cd "$WORK" || exit 1

fail() {
  echo "FAIL: $*" >&2
  echo "--- stdout:" >&2; cat out.txt >&2
  echo "--- stderr:" >&2; cat err.txt >&2
  exit 1
}

# weft_exits CODE ARGS...: runs weft ARGS with stdout in out.txt and stderr
# in err.txt; the test fails unless weft exits with CODE.
weft_exits() {
  expected=$1
  shift
  "$WEFT" "$@" >out.txt 2>err.txt
  code=$?
  [ "$code" -eq "$expected" ] ||
    fail "weft $*: exited with $code, expected $expected"
}

# has_line FILE LINE: FILE holds exactly LINE as one of its lines.
has_line() {
  grep -qxF -- "$2" "$1" || fail "$1 lacks the line '$2'"
}

# matches FILE REGEX: a line of FILE matches the extended REGEX.
matches() {
  grep -qE -- "$2" "$1" || fail "$1 has no line matching '$2'"
}
