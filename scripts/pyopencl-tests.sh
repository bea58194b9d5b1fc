#!/bin/sh
# Runs PyOpenCL's own test suite, from the PyPI source distribution of the
# version Debian 12 ships (2022.3.1, checked against its SHA-256), with
# Debian's PyOpenCL and pytest (installed when missing), against this
# build of Weft; compares each test's outcome with the checked-in list
# tests/conformance/pyopencl.expected: a test that passed there and does
# not now is a regression, and the script exits 1.
#
#   scripts/pyopencl-tests.sh [PYTEST ARGS...]
#
# Environment: WEFT_BUILD_DIR (build/), WORK (/tmp/weft-pyopencl), ICD
# (an OCL_ICD_VENDORS folder; default the build's icd/), PLATFORM
# (PYOPENCL_TEST's platform name: weft; "portable" for PoCL).
# Output: WORK/results.txt ("test: outcome" per line, as the list).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=${WEFT_BUILD_DIR:-$root/build}
work=${WORK:-/tmp/weft-pyopencl}
icd=${ICD:-$build/icd}
version=2022.3.1
sha256=4a3db0fe61b5cdc95267526deebd71a7e1d795694d4b0fe2761f0630bcca3621
expected=$root/tests/conformance/pyopencl.expected
python=/usr/bin/python3 # Debian's: its pyopencl and numpy
[ -d "$icd" ] || { echo "pyopencl-tests.sh: no $icd: build Weft first" >&2; exit 2; }
if ! $python -c 'import pytest, pyopencl' 2>/dev/null; then
  sudo=; [ "$(id -u)" -eq 0 ] || sudo=sudo
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q \
    --no-install-recommends python3-pytest python3-pyopencl >&2
fi
mkdir -p "$work"
sdist=$work/pyopencl-$version.tar.gz
if [ ! -f "$sdist" ]; then
  $python -m pip download --no-deps --no-binary :all: -d "$work" \
    "pyopencl==$version" >&2
fi
echo "$sha256  $sdist" | sha256sum -c --quiet - ||
  { echo "pyopencl-tests.sh: $sdist is not PyPI's $version" >&2; exit 1; }
rm -rf "$work/src" "$work/cache"
mkdir -p "$work/src"
tar -xzf "$sdist" -C "$work/src"
cd "$work/src/pyopencl-$version/test"
# Debian's pyopencl (not the sdist's sources) is the one imported.
PYOPENCL_TEST=${PLATFORM:-weft} OCL_ICD_VENDORS=$icd \
  WEFT_CACHE_DIR=$work/cache POCL_CACHE_DIR=$work/cache PYOPENCL_NO_CACHE=1 \
  $python -m pytest -q -p no:cacheprovider --junitxml="$work/junit.xml" \
  "$@" . >"$work/run.log" 2>&1 || true
$python - "$work/junit.xml" >"$work/results.txt" <<'PY'
import re
import sys
import xml.etree.ElementTree as ET
# The device's name (the machine's processor) out of the test's id.
DEVICE = re.compile(r"<context factory for <pyopencl\.Device '[^']*' on "
                    r"'[^']*'>>")
for case in ET.parse(sys.argv[1]).getroot().iter("testcase"):
    kinds = {child.tag for child in case}
    outcome = ("fail" if kinds & {"failure", "error"} else
               "skip" if "skipped" in kinds else "pass")
    name = DEVICE.sub("<device>", case.get("name"))
    print(f"{case.get('classname')}::{name}: {outcome}")
PY
sort -o "$work/results.txt" "$work/results.txt"
tail -1 "$work/run.log"
exec "$root/scripts/compare-results.sh" "$expected" "$work/results.txt" pyopencl-tests.sh
