#!/usr/bin/env bash
# Fetches qemu-user 10 (Debian bookworm-backports) into $1 without touching the system's apt sources.
# qemu 7.2 (bookworm) lacks the riscv_hwprobe syscall, so Rust's feature detection sees no Zbb/Zbc there;
# qemu 10 has it (and runs the vector crypto extensions). See ../shared/CROSS.md.
set -euo pipefail
dest=$1
if [ -x "$dest/usr/bin/qemu-riscv64" ]; then exit 0; fi
d=$(mktemp -d)
mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
uri=$(awk '/^URIs/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)
[ -n "$uri" ] || uri=$(awk '/^deb /{print $2; exit}' /etc/apt/sources.list)
echo "deb $uri bookworm-backports main" > "$d/sources.list"
O=(-o "Dir::Etc::SourceList=$d/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$d/lists" -o "Dir::Cache=$d/cache")
apt-get "${O[@]}" update -qq
(cd "$d" && apt-get "${O[@]}" download qemu-user >/dev/null)
mkdir -p "$dest"
dpkg-deb -x "$d"/qemu-user_*.deb "$dest"
rm -rf "$d"
