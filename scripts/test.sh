#!/usr/bin/env bash
# Every test on a fresh machine: install what is missing, build, run ctest.
# GPU tests report themselves skipped on a machine without a CUDA device.
# FASTMV_SANITIZE=1 builds with AddressSanitizer + UndefinedBehaviorSanitizer in
# build-asan/ instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
if [ "${FASTMV_SANITIZE:-0}" = 1 ]; then
  build=build-asan
  options=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DFASTMV_SANITIZE=ON -DFASTMV_CUDA=OFF
           -DFASTMV_BUILD_TOOLS=OFF)
else
  build=build
  options=(-DCMAKE_BUILD_TYPE=Release)
fi
cmake -S . -B "$build" -G Ninja "${options[@]}" >/dev/null
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure --timeout 1800
