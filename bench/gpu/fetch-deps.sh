#!/usr/bin/env bash
# fetch-deps.sh: puts Catch2, Google Benchmark and nlohmann-json (nn/ parses safetensors
# headers with it), unpacked from Debian's .deb files, under .deps/root (git-ignored) so that
# bench/gpu/check.sh can configure and build on a machine that has CUDA, CMake and a compiler
# but no Debian packages (the lent H200). All three are found through CMAKE_PREFIX_PATH.
# Run it here, once, from anywhere: bash bench/gpu/fetch-deps.sh. Then carry .deps in the call.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
deps="$root/.deps"
mkdir -p "$deps/debs" "$deps/root"
cd "$deps/debs"
rm -f ./*.deb
apt-get download catch2 libbenchmark-dev libbenchmark1debian nlohmann-json3-dev
for deb in ./*.deb; do
  dpkg -x "$deb" "$deps/root"
done
# Debian's libbenchmark.so is a link into libbenchmark1debian's libbenchmark.so.1; check both
# arrived, and that CMake's package files are where check.sh points CMAKE_PREFIX_PATH.
test -f "$deps/root/usr/include/catch2/catch.hpp"
test -f "$deps/root/usr/lib/cmake/Catch2/Catch2Config.cmake"
test -f "$deps/root/usr/lib/x86_64-linux-gnu/cmake/benchmark/benchmarkConfig.cmake"
test -e "$deps/root/usr/lib/x86_64-linux-gnu/libbenchmark.so"
test -f "$deps/root/usr/share/cmake/nlohmann_json/nlohmann_jsonConfig.cmake"
echo "fetch-deps: unpacked into $deps/root:"
ls "$deps/debs"
du -sh "$deps/root"
