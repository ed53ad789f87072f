#!/usr/bin/env bash
# Installs what fastmv needs to build, test and benchmark, from Debian's packages
# (Debian 12 / Ubuntu 22.04 or newer). Does nothing when everything is present.
# The CUDA toolkit is optional and not installed here: with nvcc on PATH the CUDA
# code is built too (FASTMV_CUDA=AUTO).
set -euo pipefail

packages=(
  cmake ninja-build g++ pkg-config python3
  libhwy-dev             # Google Highway: SIMD with run-time dispatch (the CPU kernels)
  libomp-dev             # OpenMP headers for clang users; g++ brings libgomp
  libgtest-dev libgmock-dev  # tests
  libcli11-dev nlohmann-json3-dev  # the fastmv command-line tool
  libopenblas-dev libblis-dev libeigen3-dev  # vendor baselines in the benchmarks
)

missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$package")
done
if ((${#missing[@]})); then
  if ! command -v apt-get >/dev/null; then
    echo "fastmv: please install the equivalents of: ${missing[*]}" >&2
    exit 1
  fi
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "fastmv: installing ${missing[*]}" >&2
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The plot command (fastmv plot gemv) needs matplotlib in whatever python3 is first on PATH.
if ! python3 -c "import matplotlib" 2>/dev/null; then
  python3 -m pip install -q matplotlib 2>/dev/null ||
    echo "fastmv: matplotlib not installed; 'fastmv plot' will be unavailable" >&2
fi
