#!/bin/sh
# package.sh BUILD: the Debian package CPack makes of BUILD
# (cmake/package.cmake): its control file (name, version, the dependencies
# dpkg-shlibdeps found and Clang's headers, each one a package this machine
# has), its files (under /usr, the ICD file in /etc naming
# /usr/lib/libweft-opencl.so.0), its command running from the unpacked
# tree; and, as root, dpkg installs it into a throwaway root and removes
# it, leaving nothing.
set -eu
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
fail() { echo "package.sh: $*" >&2; exit 1; }

(cd "$build" && cpack -B "$work/out") >"$work/cpack.log" 2>&1 ||
  fail "cpack failed: $(cat "$work/cpack.log")"
deb=$(ls "$work"/out/weft_*.deb)
[ "$(dpkg-deb -f "$deb" Package)" = weft ] || fail "the package is not 'weft'"
dpkg-deb -f "$deb" Version | grep -Eq '^[0-9]+\.[0-9]+\.[0-9]+$' ||
  fail "version '$(dpkg-deb -f "$deb" Version)'"
depends=$(dpkg-deb -f "$deb" Depends)
for need in libc6 libllvm19 libsleef3 libclang-common-19-dev; do
  echo "$depends" | grep -q "\\b$need\\b" ||
    fail "Depends lacks $need: $depends"
done
# Every dependency is a package this machine (which built Weft) has.
echo "$depends" | tr ',' '\n' | sed 's/^ *//; s/ .*//' | while read -r p; do
  dpkg -s "$p" >/dev/null 2>&1 || fail "Depends names $p, not installed here"
done
dpkg-deb -c "$deb" | awk '{print $6}' >"$work/files.txt"
for f in ./usr/bin/weft ./usr/lib/libweft.so.0 ./usr/lib/libweft-opencl.so.0 \
         ./usr/include/weft/weft.h ./usr/lib/cmake/Weft/WeftConfig.cmake \
         ./usr/lib/pkgconfig/weft.pc ./usr/share/man/man1/weft.1 \
         ./usr/share/man/man7/weft-kernel.7 \
         ./usr/libexec/weft/weft-build-helper ./etc/OpenCL/vendors/weft.icd; do
  grep -qxF "$f" "$work/files.txt" || fail "the package lacks $f"
done
if grep -v '^\./\(usr\|etc\)\(/\|$\)' "$work/files.txt" | grep -v '^\./$'; then
  fail "files outside /usr and /etc (above)"
fi
dpkg-deb -x "$deb" "$work/x"
[ "$(cat "$work/x/etc/OpenCL/vendors/weft.icd")" = \
  /usr/lib/libweft-opencl.so.0 ] || fail "the ICD file names another library"
"$work/x/usr/bin/weft" --version | grep -q '^weft ' ||
  fail "the unpacked weft --version failed"

# Install and remove with dpkg in a throwaway root (its own database; the
# package's ldconfig is a no-op there, and the dependencies are this
# machine's). Only root can give files their owners.
if [ "$(id -u)" -eq 0 ]; then
  mkdir -p "$work/root" "$work/admin/updates" "$work/admin/info" "$work/bin"
  touch "$work/admin/status" "$work/admin/available"
  printf '#!/bin/sh\nexit 0\n' >"$work/bin/ldconfig"
  chmod +x "$work/bin/ldconfig"
  dpkg_in_root() {
    PATH="$work/bin:$PATH" dpkg --instdir="$work/root" \
      --admindir="$work/admin" --force-script-chrootless --force-depends \
      --log=/dev/null "$@" >>"$work/dpkg.log" 2>&1
  }
  dpkg_in_root -i "$deb" || fail "dpkg -i failed: $(cat "$work/dpkg.log")"
  [ -x "$work/root/usr/bin/weft" ] || fail "dpkg -i installed no usr/bin/weft"
  [ -f "$work/root/etc/OpenCL/vendors/weft.icd" ] ||
    fail "dpkg -i installed no etc/OpenCL/vendors/weft.icd"
  dpkg_in_root --purge weft || fail "dpkg --purge failed: $(cat "$work/dpkg.log")"
  left=$(find "$work/root" -type f)
  [ -z "$left" ] || fail "files left after dpkg --purge: $left"
fi
echo "package.sh: $(basename "$deb"): $(wc -l <"$work/files.txt") entries"
