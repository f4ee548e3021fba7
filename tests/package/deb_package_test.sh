#!/usr/bin/env bash
# Builds the fabricmon .deb with CPack and checks it end to end on this machine: contents, control
# fields, conffiles, maintainer scripts, install, the INSTALLED binary, conffile preservation on
# reinstall, remove (conffile kept) and purge (everything gone). The package is never left installed.
# Usage: deb_package_test.sh BUILD_DIR SOURCE_DIR. Exit 77 = skipped (not root, no dpkg, or a
# fabricmon already on this machine that the test must not touch).
set -euo pipefail

build=${1:?build dir}
src=${2:?source dir}

skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root for dpkg -i"
for tool in dpkg dpkg-deb dpkg-query cpack cmake; do
  command -v "$tool" >/dev/null 2>&1 || skip "$tool not installed"
done
# CPACK_DEBIAN_PACKAGE_SHLIBDEPS needs it; scripts/install-deps installs it.
command -v dpkg-shlibdeps >/dev/null 2>&1 || skip "dpkg-shlibdeps not installed (package dpkg-dev)"

# Never clobber a real deployment: a package in any state (installed, or removed with its config
# kept) or a from-source install.
if dpkg-query -W -f='${db:Status-Status}' fabricmon 2>/dev/null | grep -qv '^not-installed$'; then
  skip "a fabricmon package is already known to dpkg on this machine"
fi
[ -e /usr/bin/fabricmon ] && skip "/usr/bin/fabricmon exists (installed from source?)"
[ -e /etc/fabricmon ] && skip "/etc/fabricmon exists"

failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
check() { # check DESCRIPTION COMMAND... : runs the command, counts a failure if it fails
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else fail "$what"; fi
}

out=$(mktemp -d)
installed_by_us=0
cleanup() {
  if [ "$installed_by_us" -eq 1 ]; then
    dpkg --purge fabricmon >/dev/null 2>&1 || echo "WARNING: dpkg --purge fabricmon failed"
  fi
  rm -rf "$out"
}
trap cleanup EXIT

version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$build/CMakeCache.txt")
[ -n "$version" ] || { echo "FAIL: no CMAKE_PROJECT_VERSION in $build/CMakeCache.txt"; exit 1; }
arch=$(dpkg --print-architecture)

# --- build ---------------------------------------------------------------------------------------
cmake --build "$build" --target fabricmon -j2
(cd "$build" && cpack -G DEB -B "$out" --config "$build/CPackConfig.cmake") >"$out/cpack.log" 2>&1 ||
  { cat "$out/cpack.log"; echo "FAIL: cpack"; exit 1; }
mapfile -t debs < <(find "$out" -maxdepth 1 -name 'fabricmon_*.deb')
[ "${#debs[@]}" -eq 1 ] || { cat "$out/cpack.log"; echo "FAIL: expected one .deb, got ${#debs[@]}"; exit 1; }
deb=${debs[0]}
check "file name is fabricmon_${version}_${arch}.deb" test "$(basename "$deb")" = "fabricmon_${version}_${arch}.deb"

# --- contents -----------------------------------------------------------------------------------
dpkg-deb -c "$deb" >"$out/contents"
awk '{print $6}' "$out/contents" | sed 's#^\./#/#; s#/$##' >"$out/paths"
expected=(
  /usr/bin/fabricmon
  /usr/lib/fabricmon/fabricmon-tls.so
  /lib/systemd/system/fabricmon.service
  /etc/fabricmon/fabricmon.yaml
  /usr/share/doc/fabricmon/README.md
  /usr/share/doc/fabricmon/deployment.md
  /usr/share/doc/fabricmon/metrics.md
)
for f in "$src"/docs/*.md; do expected+=("/usr/share/doc/fabricmon/$(basename "$f")"); done
# The monitoring-stack folders are written by other changes; every file of each that exists ships.
for dir in prometheus grafana alertmanager; do
  [ -d "$src/deploy/$dir" ] || continue
  while IFS= read -r f; do
    expected+=("/usr/share/fabricmon/$dir/${f#"$src/deploy/$dir/"}")
  done < <(find "$src/deploy/$dir" -type f ! -name '*~')
done
for p in "${expected[@]}"; do
  grep -qxF -- "$p" "$out/paths" || fail "package lacks $p"
done
echo "ok: ${#expected[@]} expected paths checked"
check "binary is root-owned and 0755" \
  grep -qE '^-rwxr-xr-x root/root .* \./usr/bin/fabricmon$' "$out/contents"
# TLS and basic auth are a module the daemon loads from ../lib/fabricmon (exporters/tls_module.hpp).
check "TLS module is root-owned and 0644" \
  grep -qE '^-rw-r--r-- root/root .* \./usr/lib/fabricmon/fabricmon-tls.so$' "$out/contents"
check "config is root-owned and 0644" \
  grep -qE '^-rw-r--r-- root/root .* \./etc/fabricmon/fabricmon.yaml$' "$out/contents"
# Nothing outside the Debian locations this package is meant to own.
if grep -vE '^/(usr/bin|usr/lib/fabricmon|usr/share/doc/fabricmon|usr/share/fabricmon|lib/systemd/system|etc/fabricmon)(/|$)|^/(usr|usr/lib|usr/share|usr/share/doc|lib|lib/systemd|etc)?$' \
    "$out/paths" | grep -v '^$' >"$out/stray"; then
  fail "unexpected paths: $(tr '\n' ' ' <"$out/stray")"
fi

# --- control fields -----------------------------------------------------------------------------
field() { dpkg-deb -f "$deb" "$1"; }
check "Package: fabricmon" test "$(field Package)" = fabricmon
check "Version: $version" test "$(field Version)" = "$version"
check "Architecture: $arch" test "$(field Architecture)" = "$arch"
check "Section: net" test "$(field Section)" = net
check "Maintainer set" test -n "$(field Maintainer)"
check "Description set" test -n "$(field Description)"
depends=$(field Depends)
echo "Depends: $depends"
for lib in libc6 libstdc++6 libssl3 libyaml-cpp libcurl4 libjs-dygraphs; do
  check "Depends names $lib (dpkg-shlibdeps ran)" grep -q "$lib" <<<"$depends"
done

mkdir "$out/control"
dpkg-deb -e "$deb" "$out/control"
check "conffiles lists only /etc/fabricmon/fabricmon.yaml" \
  test "$(cat "$out/control/conffiles")" = "/etc/fabricmon/fabricmon.yaml"
for script in postinst prerm postrm; do
  check "$script is executable" test -x "$out/control/$script"
  check "$script parses" sh -n "$out/control/$script"
done

# --- install ------------------------------------------------------------------------------------
installed_by_us=1
check "dpkg -i" dpkg -i "$deb" </dev/null
check "dpkg status is installed" \
  test "$(dpkg-query -W -f='${db:Status-Abbrev}' fabricmon)" = "ii "
check "installed /usr/bin/fabricmon --version prints $version" \
  grep -q "^fabricmon ${version}\b" <<<"$(/usr/bin/fabricmon --version)"
check "installed fabricmon check-config accepts the installed config" \
  /usr/bin/fabricmon check-config /etc/fabricmon/fabricmon.yaml
check "installed config is config/fabricmon.yaml" cmp -s "$src/config/fabricmon.yaml" /etc/fabricmon/fabricmon.yaml
check "dpkg-query shows the conffile" \
  grep -qxF /etc/fabricmon/fabricmon.yaml <<<"$(dpkg-query --control-show fabricmon conffiles)"
check "dpkg tracks the conffile's checksum" \
  grep -q "/etc/fabricmon/fabricmon.yaml [0-9a-f]\{32\}" <<<"$(dpkg-query -W -f='${Conffiles}' fabricmon)"
if command -v systemd-analyze >/dev/null 2>&1; then
  # The unit as installed, with its real /usr/bin paths.
  verify=$(systemd-analyze verify --man=no /lib/systemd/system/fabricmon.service 2>&1) || true
  [ -n "$verify" ] && echo "$verify"
  if grep -q fabricmon.service <<<"$verify"; then fail "systemd-analyze verify warned about the installed unit"; fi
fi

# --- upgrade path: a local edit of the conffile survives a reinstall without a prompt --------
echo "# local edit by deb_package_test" >>/etc/fabricmon/fabricmon.yaml
check "reinstall over an edited conffile, no prompt (stdin closed)" dpkg -i "$deb" </dev/null
check "edited conffile kept" grep -q "local edit by deb_package_test" /etc/fabricmon/fabricmon.yaml

# --- remove keeps the conffile, purge removes everything --------------------------------------
check "dpkg --remove" dpkg --remove fabricmon </dev/null
check "binary gone after remove" test ! -e /usr/bin/fabricmon
check "unit gone after remove" test ! -e /lib/systemd/system/fabricmon.service
check "conffile kept after remove" test -f /etc/fabricmon/fabricmon.yaml
check "dpkg --purge" dpkg --purge fabricmon </dev/null
installed_by_us=0
check "binary gone after purge" test ! -e /usr/bin/fabricmon
check "/etc/fabricmon gone after purge" test ! -e /etc/fabricmon
check "docs gone after purge" test ! -e /usr/share/doc/fabricmon
check "/usr/share/fabricmon gone after purge" test ! -e /usr/share/fabricmon
check "dpkg no longer knows fabricmon" \
  test "$(dpkg-query -W -f='${db:Status-Status}' fabricmon 2>/dev/null || echo not-installed)" = not-installed

if [ "$failures" -ne 0 ]; then
  echo "$failures failure(s)"
  exit 1
fi
echo "PASS"
