#!/bin/sh
# Builds and runs example.c against the x86_64-linux listings with gcc (GNU as assembles the .S files).
#   CC=clang-19 ./build.sh                     clang and its integrated assembler
#   CC=aarch64-linux-gnu-gcc TARGET=aarch64-linux RUN="qemu-aarch64 -cpu max" ./build.sh
#   CC="clang-19 --target=aarch64-linux-gnu --sysroot=/usr/aarch64-linux-gnu --gcc-toolchain=/usr" \
#     TARGET=aarch64-linux RUN="qemu-aarch64 -cpu max" ./build.sh
#   CC="clang-19 --target=riscv64-linux-gnu -march=rv64gc --sysroot=/usr/riscv64-linux-gnu --gcc-toolchain=/usr" \
#     TARGET=riscv64-linux RUN="qemu-riscv64 -cpu max" ./build.sh      (a qemu answering riscv_hwprobe: 10 does, 7.2 not)
# Cross clang compiles and assembles itself and links with the cross binutils' ld, finding the C library in
# the sysroot and crtbegin/libgcc in the cross gcc's folders under /usr (--gcc-toolchain).
set -e
cd "$(dirname "$0")"
G=../../generated/${TARGET:-x86_64-linux}
EXE=${OUT:-/tmp/asmgen-c-example}
${CC:-gcc} -std=c99 -Wall -Wextra -pedantic -O1 -static -I "$G" example.c "$G/ghash.S" "$G/sm4.S" -o "$EXE"
${RUN:-} "$EXE"
