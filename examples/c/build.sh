#!/bin/sh
# Builds and runs example.c against the x86_64-linux listings with gcc (GNU as assembles the .S files).
#   CC=clang-19 ./build.sh                     clang and its integrated assembler
#   CC=aarch64-linux-gnu-gcc TARGET=aarch64-linux RUN="qemu-aarch64 -cpu max" ./build.sh
set -e
cd "$(dirname "$0")"
G=../../generated/${TARGET:-x86_64-linux}
EXE=${OUT:-/tmp/asmgen-c-example}
${CC:-gcc} -std=c99 -Wall -Wextra -O1 -static -I "$G" example.c "$G/ghash.S" "$G/sm4.S" -o "$EXE"
${RUN:-} "$EXE"
