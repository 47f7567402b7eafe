#!/usr/bin/env bash
# The Debian package of the build (scripts/test.sh runs this last): made by cpack, installed
# with dpkg -i, `gatemap demo` run from the installed binary, its man pages there, removed
# with dpkg -r, and nothing it installed left behind. A gatemap package already installed
# (a user's own) is left alone: the check is skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
SUDO=""
[[ $(id -u) -ne 0 ]] && SUDO="sudo"
if dpkg-query -W -f='${Status}' gatemap 2> /dev/null | grep -q "install ok installed"; then
  echo "[package] a gatemap package is installed here already: the package check is skipped" >&2
  exit 0
fi
(cd build && rm -f gatemap_*.deb && cpack -G DEB > /dev/null)
deb=$(ls build/gatemap_*.deb)
$SUDO dpkg -i "$deb" > /dev/null
installed=$(dpkg -L gatemap)
fail() { echo "[package] $*" >&2; $SUDO dpkg -r gatemap > /dev/null || true; exit 1; }
[ -x /usr/bin/gatemap ] || fail "no /usr/bin/gatemap after dpkg -i"
for page in gatemap gatemap-map gatemap-call gatemap-joint; do
  [ -s "/usr/share/man/man1/$page.1" ] || [ -s "/usr/share/man/man1/$page.1.gz" ] || fail "no man page $page"
done
work=$(mktemp -d)
/usr/bin/gatemap demo -t 2 -v 1 -d "$work" > "$work.out" 2>&1 || { cat "$work.out" >&2; rm -rf "$work" "$work.out"; fail "gatemap demo failed"; }
rm -rf "$work" "$work.out"
$SUDO dpkg -r gatemap > /dev/null
left=()
while read -r f; do [ -f "$f" ] && left+=("$f"); done <<< "$installed"
((${#left[@]} == 0)) || fail "dpkg -r left: ${left[*]}"
echo "[package] $(basename "$deb"): installed, demo run, removed, nothing left" >&2
