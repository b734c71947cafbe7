#!/usr/bin/env bash
# install-deps.sh: installs the Debian packages wick's build, tests and benchmarks use, when
# any is missing (needs root, as on CI and the dev machines). The CUDA toolkit is not a
# package here: when nvcc is at /usr/local/cuda the CUDA backend is built, else it is not.
set -euo pipefail
packages=(cmake ninja-build g++ ccache catch2 libbenchmark-dev nlohmann-json3-dev
          libopenblas-dev libomp-14-dev clang-14 libclang-rt-14-dev llvm-14 libopenmpi-dev openmpi-bin python3
          python3-matplotlib valgrind ${WICK_EXTRA_PACKAGES:-})
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
