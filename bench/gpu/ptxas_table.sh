#!/usr/bin/env bash
# ptxas_table.sh: registers, shared memory and spills of every matmul ladder kernel, as ptxas
# reports them when it compiles kernels/cuda/gemm/ladder.cu for one architecture (default 90),
# and at 90 also steps 11 to 13's gemm/hopper.cu (for sm_90a), printed as the Markdown table of
# docs/gemm.md. Needs a configured CUDA build tree (it reuses that tree's nvcc command line);
# no GPU.
#   bash bench/gpu/ptxas_table.sh [build-dir] [arch]
set -euo pipefail
build="${1:-build}"
arch="${2:-90}"
cmd="$(ninja -C "$build" -t commands wick_kernels_cuda | grep 'gemm/ladder.cu' | head -n 1)"
[[ -n "$cmd" ]] || { echo "ptxas_table.sh: no ladder.cu in $build (configure with CUDA)" >&2; exit 1; }
# Steps 11 to 13 (gemm/hopper.cu) are compiled for sm_90a only, in builds that include 90.
hopper="$(ninja -C "$build" -t commands wick_kernels_cuda_hopper 2>/dev/null | grep 'gemm/hopper.cu' | head -n 1 || true)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
cmd="$(sed -E "s|/usr/bin/ccache ||; s|--generate-code=arch=[^ ]+|--generate-code=arch=compute_$arch,code=[sm_$arch]|g; \
  s|-o [^ ]*ladder.cu.o|-o $tmp/ladder.o -Xptxas -v|; s|-MF [^ ]*|-MF $tmp/ladder.d|" <<<"$cmd")"
if [[ -n "$hopper" && "$arch" == 90 ]]; then
  hopper="$(sed -E "s|/usr/bin/ccache ||; s|-o [^ ]*hopper.cu.o|-o $tmp/hopper.o -Xptxas -v|; \
    s|-MF [^ ]*|-MF $tmp/hopper.d|" <<<"$hopper")"
  cmd="$cmd && $hopper"
fi
(cd "$build" && eval "$cmd") 2>&1 | grep -E "Compiling entry|registers|spill" | paste - - - |
  python3 -c '
import re, sys
rows = []
for line in sys.stdin:
    name = re.search(r"entry function .(\S+).", line).group(1)
    m = re.search(r"gemm\d+(\w+?_kernel)I(.*)EEvNS1_7Problem", name)
    kernel, targs = m.group(1), m.group(2)
    dtype = {"f": "float32", "d": "float64", "l": "int64"}.get(targs[0], "float32")
    if "BFloat16" in name:
        dtype = "bfloat16"
    layouts = re.findall(r"Lb([01])E", targs)
    layout = ("A %s, B %s" % ("k-contiguous" if layouts[0] == "1" else "m-contiguous",
                              "n-contiguous" if layouts[1] == "1" else "k-contiguous")) if layouts else "any"
    tiles = "x".join(re.findall(r"Li(\d+)E", targs)) or "-"
    regs = re.search(r"Used (\d+) registers", line).group(1)
    smem = re.search(r"(\d+) bytes smem", line)
    spill = re.search(r"(\d+) bytes spill stores", line).group(1)
    shared = smem.group(1) if smem else "0"
    if kernel == "cp_async_kernel":  # CpAsyncTile<BM, BN, BK, WM, WN, TM, TN, stages, blocks, sm>
        bm, bn, bk, wm, wn, tm, tn, stages, blocks, _ = (int(x) for x in re.findall(r"Li(\d+)E", targs))
        tiles = "%dx%dx%d, warp %dx%d, thread %dx%d, %d stages, %d/SM" % (bm, bn, bk, wm, wn, tm, tn, stages, blocks)
        if shared == "0":  # past 48 KiB: dynamic, the larger layout of each operand per stage
            floats = max(bm * (bk + 4), bk * (bm + 8)) + max(bk * (bn + 8), bn * (bk + 4))
            shared = "%d dynamic" % (4 * stages * floats)
    if kernel == "tf32_mma_kernel":  # Tf32Tile: 3 stages of (128 + 128) x 32 floats, dynamic
        tiles = "128x128x32, 3 stages"
        shared = "%d dynamic" % (3 * (128 + 128) * 32 * 4)
    if kernel == "wgmma_tma_kernel":  # TMA boxes in dynamic shared memory (WgmmaTile<BN, stages, T>)
        bn, stages = (int(x) for x in re.findall(r"Li(\d+)E", targs))
        bk = 64 if dtype == "bfloat16" else 32  # 128 bytes of K a row (float32: step 13, TF32)
        tiles = "128x%dx%d, %d stages" % (bn, bk, stages)
        shared = "%d dynamic" % (1024 + stages * (128 + bn) * 128 + 2 * stages * 8)
        layout = "A k-contiguous, B k-contiguous (sm_90a)"
    rows.append((kernel, dtype, tiles, layout, regs, shared, spill))
print("| kernel | dtype | template sizes | operands | registers | shared bytes | spill bytes |")
print("|---|---|---|---|---:|---:|---:|")
for r in sorted(rows):
    print("| " + " | ".join(r) + " |")
'
