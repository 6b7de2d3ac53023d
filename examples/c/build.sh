#!/bin/sh
# Builds and runs example.c against the x86_64-linux listings. CC=clang-19 uses clang's integrated assembler.
set -e
cd "$(dirname "$0")"
G=../../generated/x86_64-linux
${CC:-gcc} -std=c99 -Wall -Wextra -O1 -I "$G" example.c "$G/ghash.S" "$G/sm4.S" -o "${OUT:-/tmp/asmgen-c-example}"
"${OUT:-/tmp/asmgen-c-example}"
