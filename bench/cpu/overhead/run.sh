#!/usr/bin/env bash
# run.sh [build-dir]: builds op_overhead.cpp against a built libwick (default build/) and runs
# it twice: plain, then with the malloc counter preloaded. Linux, gcc/g++.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../../.." && pwd)"
build="$(cd "${1:-$root/build}" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
gcc -O2 -shared -fPIC "$here/malloc_count.c" -o "$out/libmalloc_count.so" -ldl
includes=()
for d in include core/include autograd/include nn/include optim/include; do includes+=(-I"$root/$d"); done
g++ -O2 -std=c++20 "${includes[@]}" "$here/op_overhead.cpp" -L"$build" -lwick \
  -Wl,-rpath,"$build" -ldl -o "$out/op_overhead"
"$out/op_overhead"
LD_PRELOAD="$out/libmalloc_count.so" "$out/op_overhead"
