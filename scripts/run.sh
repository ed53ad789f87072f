#!/usr/bin/env bash
# The main job on a fresh machine: install what is missing, build Release, run the
# quick GEMV benchmark (fastmv against OpenBLAS/BLIS/Eigen) on the default backend.
# Extra arguments go to `fastmv bench gemv`, e.g. scripts/run.sh --json gemv.json
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build
./build/tools/fastmv/fastmv info
./build/tools/fastmv/fastmv bench gemv --quick "$@"
