#!/usr/bin/env bash
# Makes the wine prefix the x86_64-pc-windows-gnu tests run in (`cargo xtask cross windows`): `wineboot --init`
# once, then the stub bcryptprimitives.dll (prng.c, see there) built with mingw-w64 and put into system32.
# Usage: setup.sh PREFIX (an absolute path; .tools/wine for the xtask). Idempotent.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
prefix="$1"
export WINEPREFIX="$prefix" WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
if [ ! -f "$prefix/system.reg" ]; then
    mkdir -p "$prefix"
    wineboot --init >/dev/null 2>&1
    wineserver -w
fi
dll="$prefix/drive_c/windows/system32/bcryptprimitives.dll"
if [ ! -f "$dll" ] || [ "$here/prng.c" -nt "$dll" ] || [ "$here/prng.def" -nt "$dll" ]; then
    tmp=$(mktemp -d)
    x86_64-w64-mingw32-gcc -O2 -shared -o "$tmp/bcryptprimitives.dll" "$here/prng.c" "$here/prng.def" -ladvapi32
    cp "$tmp/bcryptprimitives.dll" "$dll"
    rm -rf "$tmp"
fi
