#!/usr/bin/env bash
# The GPU machine's one command: build Release for the GPU, run every test (the CUDA
# ones included, and the CUDA ones again with the kernel variants that only a policy
# override selects), compute-sanitizer memcheck and racecheck on a reduced CUDA set, the
# GPU benchmark (fastmv against cuBLAS) with its plots, the Jacobi solver against the
# paper's cuBLAS loop, the batched 4x4 transforms against cuBLAS and the copy bandwidths,
# and print a summary last.
# Results go to $OUT (default out/gpu): logs, JSON, CSV, PNG.
#
#   FASTMV_GPU_BENCH=quick|full|none   benchmark sweep (default quick; full = the
#                                      acceptance sweep, 3 rounds, about 6 minutes)
#   FASTMV_GPU_TRANSFORM4=quick|full|none  `fastmv bench transform4` (default quick: 256K,
#                                      1M and 16M vertices, the grain curve at 16M; full:
#                                      up to 64M, the grain curve at 1M and 16M)
#   FASTMV_GPU_JACOBI=quick|paper|none `fastmv solve jacobi` (default quick: orders 1024,
#                                      4096 and 8192 at alpha 1.1; paper: the paper's
#                                      orders up to 12800 x alphas 1.1, 1.2, 1.4, ~1 minute)
#   FASTMV_GPU_JOBS=6                  test and compute-sanitizer steps run at once, each
#                                      a process of its own (1: one after another); the
#                                      benchmarks run alone, after them
#   FASTMV_GPU_STEPS=REGEX             only the steps whose names match (bash extended
#                                      regex; configure and build always run), e.g.
#                                      'tests$|masked-select|narrow-pipelined'
#   FASTMV_CUDA_ARCH=90                CMAKE_CUDA_ARCHITECTURES
#   FASTMV_DEBS=.deps                  a folder of Debian packages (libhwy-dev, GTest,
#                                      CLI11, nlohmann-json) unpacked into the build
#                                      folder when the machine lacks them and has no
#                                      package manager to fetch them
# Extra arguments go to `fastmv bench gemv`.
set -uo pipefail
cd "$(dirname "$0")/.."
out=${OUT:-out/gpu}
mkdir -p "$out"
build=build-gpu
bench=${FASTMV_GPU_BENCH:-quick}
debs=${FASTMV_DEBS:-.deps}
summary=()
status=0

{
  nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
  nvcc --version | tail -1
  g++ --version | head -1
} >"$out/system.txt" 2>&1

# Dependencies: the system's when present, else the carried .deb files.
if ! ls /usr/lib/*/cmake/hwy/hwy-config.cmake >/dev/null 2>&1 && ls "$debs"/*.deb >/dev/null 2>&1; then
  mkdir -p "$build/deps"
  for package in "$debs"/*.deb; do dpkg -x "$package" "$build/deps"; done
  export CMAKE_PREFIX_PATH="$PWD/$build/deps/usr${CMAKE_PREFIX_PATH:+:$CMAKE_PREFIX_PATH}"
  export LD_LIBRARY_PATH="$PWD/$build/deps/usr/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

max_jobs=${FASTMV_GPU_JOBS:-6}
only=${FASTMV_GPU_STEPS:-}
selected() { [ -z "$only" ] || [[ $1 =~ ^(configure|build)$ ]] || [[ $1 =~ $only ]]; }
record() {  # record NAME RC SECONDS: the outcome's summary line
  if [ "$2" = 0 ]; then
    summary+=("$(printf '%-22s ok     %4ds' "$1" "$3")")
    case "$1" in configure | plot) rm -f "$out/$1.log" ;; esac  # nothing to read
  else
    summary+=("$(printf '%-22s FAILED %4ds  (see %s.log)' "$1" "$3" "$1")")
    status=1
  fi
}
step() {  # step NAME COMMAND...: runs, logs to $out/NAME.log, records the outcome
  local name=$1; shift
  selected "$name" || return 0
  local start=$SECONDS rc=0
  "$@" >"$out/$name.log" 2>&1 || rc=$?
  record "$name" "$rc" $((SECONDS - start))
}
# The test and compute-sanitizer steps: independent processes, up to $max_jobs at once (the
# CUDA quick set alone takes about 200 s; one after another the steps outlast a device
# call many times over). pstep starts one in the background; pwait waits for them all and
# records them in the order they were started (waiting on their own pids: a bare `wait`
# would also wait for any process substitution, such as an `exec > >(tee ...)`).
started=() pids=()
pstep() {  # pstep NAME COMMAND...
  local name=$1; shift
  selected "$name" || return 0
  if [ "$max_jobs" -le 1 ]; then step "$name" "$@"; return 0; fi
  while [ "$(jobs -rp | wc -l)" -ge "$max_jobs" ]; do wait -n || true; done
  started+=("$name")
  rm -f "$out/$name.status"
  (
    start=$SECONDS rc=0
    "$@" >"$out/$name.log" 2>&1 || rc=$?
    echo "$rc $((SECONDS - start))" >"$out/$name.status"
  ) &
  pids+=($!)
}
pwait() {
  [ ${#pids[@]} -gt 0 ] && wait "${pids[@]}"
  local name rc seconds
  for name in "${started[@]}"; do
    read -r rc seconds <"$out/$name.status" 2>/dev/null || { rc=lost seconds=0; }
    rm -f "$out/$name.status"
    record "$name" "$rc" "$seconds"
  done
  started=() pids=()
}

step configure cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DFASTMV_CUDA=ON \
  -DCMAKE_CUDA_ARCHITECTURES="${FASTMV_CUDA_ARCH:-90}"
step build cmake --build "$build" -j "$(nproc)"
pstep tests ctest --test-dir "$build" -j 8 --output-on-failure --timeout 900

# The kernel variants that only a policy override selects, run on every CUDA test shape:
# 8 words in flight for realigned Dot rows and for large Axpy matrices, Dot splits down
# to one word per thread, the staged Dot kernel's smallest tiles, the staged Axpy kernel
# for every matrix of vectors of up to 32 elements, the 2-byte Axpy long
# splits at every size, the register Axpy kernel where the TMA one would run, unaligned
# Axpy vectors interleaved for every type and tile width (the narrow kernel off); then the
# TMA Axpy kernel at every size (short vectors too, which the staged kernel would take;
# unaligned vectors of every type, realigned in shared memory, which by default it takes
# only for 4- and 8-byte types from 96 MiB; every grid launched early, which by default
# 4-word tiles are only up to 64 blocks), once with its choices and once with the widest tile,
# 2 stages and splits of one stage, and once with every size taken for large (the TMA
# kernel only where its tiles are about one an SM; names: src/cuda/gemv_cuda_policy.hpp).
cuda_test="$build/tests/gemv/gemv_test_cuda"
# The tests whose Dot-form rows are split over blocks (few long rows).
split_filter='GemvRandomTest/*.TallSkinnyAndShortWide:*FewLongRows*:GemvMixedPrecisionTest/*.TallSkinnyAndShortWide:GemvMixedPrecisionTest/*.LargeShapes:GemvStridedBatchedTest/*'
# The tests that give the balanced Dot kernel its shapes (*BalancedRows* on the Cuda
# backend in the reduced set too).
balanced_filter='*BalancedRows*:GemvMixedPrecisionTest/*.AlignedOperands:GemvExactTest/*.NanAndInf*'
forced_policy='dot_unroll=8,axpy_large_unroll=8,dot_split_min_words_per_thread=1,staged_blocks_per_sm=64,axpy_long_splits_min_bytes=0,axpy_min_vectors_per_group_2byte=1,axpy_tma_min_bytes=0,axpy_staged_min_bytes=0,axpy_staged_max_vector_bytes=256,axpy_interleave_unaligned=2,axpy_interleave_min_lanes=1,axpy_flat=0,dot_flat=0,axpy_narrow=0'
tma_policy='axpy_tma_min_bytes=1,axpy_tma_max_bytes=1000000000000,axpy_tma_max_bytes_2byte=1000000000000,axpy_staged_max_vector_bytes=0,axpy_flat=0,axpy_tma_unaligned=2,axpy_tma_unaligned_min_bytes=0,early_launch_tma_narrow_max_blocks=1000000000,axpy_tma_4byte_max_tiles_percent=0'
tma_forced_policy="$tma_policy,axpy_tma_words=16,axpy_tma_stages=2,axpy_tma_min_stages_per_split=1"
# ... and split one block an SM in tiles of 8 words (by default tall matrices from 32 MiB
# with few tiles, GemvPolicy::axpy_tma_split_wide), splits of one stage.
tma_wide_policy="$tma_policy,axpy_tma_split_min_bytes=1,axpy_tma_split_max_tiles_percent=100000,axpy_tma_min_stages_per_split=1"
tma_large_policy='axpy_tma_min_bytes=1,axpy_tma_max_bytes=1,axpy_tma_max_bytes_2byte=1,axpy_flat=0,axpy_tma_unaligned=2,axpy_tma_unaligned_min_bytes=0'
if [ -x "$cuda_test" ] && nvidia-smi -L >/dev/null 2>&1; then  # without a GPU it only skips
  pstep tests-forced-policy env FASTMV_CUDA_GEMV_POLICY="$forced_policy" "$cuda_test" --gtest_brief=1
  pstep tests-tma-everywhere env FASTMV_CUDA_GEMV_POLICY="$tma_policy" "$cuda_test" --gtest_brief=1
  pstep tests-tma-forced env FASTMV_CUDA_GEMV_POLICY="$tma_forced_policy" "$cuda_test" --gtest_brief=1
  # ... with its blocks letting the next early-launched grid start as they start, and
  # with the split and unsplit grids' points swapped (by default unsplit grids once
  # their blocks have read their part of A, split ones once their wait is over:
  # GemvPolicy::early_launch_tma_next).
  pstep tests-tma-next-at-start env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY="$tma_policy,early_launch_tma_next=0,early_launch_tma_next_split=0" \
    "$cuda_test" --gtest_brief=1
  pstep tests-tma-next-swapped env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY="$tma_wide_policy,early_launch_tma_next=1,early_launch_tma_next_split=2" \
    "$cuda_test" --gtest_brief=1
  pstep tests-tma-split-wide env FASTMV_CUDA_GEMV_POLICY="$tma_wide_policy" "$cuda_test" --gtest_brief=1
  # The register Axpy kernel wherever the TMA one would run, every matrix taken for large,
  # so its grids let the next early-launched grid start once their wait is over at every
  # size (by default from 8 MiB, GemvPolicy::early_launch_next_register).
  pstep tests-register-next-after-wait env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_tma_min_bytes=0,axpy_small_matrix_bytes=1 "$cuda_test" --gtest_brief=1
  # ... with every split tile of aligned vectors summed by the second kernel (by default
  # tall matrices under 96 MiB split 5-32 ways, GemvPolicy::axpy_tma_sum_kernel).
  pstep tests-tma-sum-kernel env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY="$tma_wide_policy,axpy_tma_sum_kernel=2" \
    "$cuda_test" --gtest_brief=1
  # Every split grid of the held realigned register kernel (2-byte odd lda; every type's
  # with the realigned layout) summed by the second kernel (GemvPolicy::axpy_sum_kernel).
  pstep tests-sum-kernel env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_sum_kernel=2,axpy_interleave_unaligned=0,axpy_realigned_held_min_bytes=1 \
    "$cuda_test" --gtest_brief=1
  pstep tests-tma-large env FASTMV_CUDA_GEMV_POLICY="$tma_large_policy" "$cuda_test" --gtest_brief=1
  # The staged Axpy kernel's chunks copied through cp.async wherever it runs, and on
  # every vector of up to 256 elements (by default never, GemvPolicy::axpy_staged_async_copy);
  # the same vectors of 129-256 elements in two groups of threads (axpy_staged_two_groups).
  pstep tests-staged-async env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_staged_async_copy=2,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,axpy_flat=0 \
    "$cuda_test" --gtest_brief=1
  pstep tests-staged-two-groups env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_staged_two_groups=1,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,axpy_flat=0 \
    "$cuda_test" --gtest_brief=1
  # Rings of 8 stages on every TMA grid whose blocks have more stages than the ring (by
  # default only grids of at most a third of the SMs' worth, unsplit 2-byte grids of short
  # blocks and grids over matrices from 1.25 GiB, GemvPolicy::axpy_tma_deep_ring_*).
  pstep tests-tma-deep-ring env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY="$tma_policy,axpy_tma_deep_ring_max_blocks_percent=100000" "$cuda_test" --gtest_brief=1
  # The rules "on fast memory" (an H200's; GemvPolicy::fast_memory_min_gbps_per_sm) on any
  # GPU, with the thresholds that keep most of them to large matrices lowered so the test
  # shapes reach them: balanced Dot grids of more than 3 waves, shifted 4-byte rows at any
  # rows an SM, 2-byte vectors on sectors in wide TMA tiles and fp32 ones in unsplit TMA
  # tiles nearly filling the SMs to the register kernel at any size, TMA classes for
  # realigned fp32 only at 82-100 % of the SMs in tiles, register Axpy grids (realigned,
  # interleaved at any size, and aligned) held to one wave whatever its fill.
  pstep tests-fast-memory env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=fast_memory_min_gbps_per_sm=1,axpy_tma_fast_memory_register_min_bytes=1,axpy_tma_fast_memory_register_4byte_min_bytes=1,axpy_tma_unaligned_min_bytes=0,axpy_realigned_one_wave_min_fill_percent=0,axpy_interleaved_one_wave_min_fill_percent=0,axpy_aligned_one_wave_min_fill_percent=0 \
    "$cuda_test" --gtest_brief=1
  # ... and in full size the large mixed-precision shapes, among them aligned 2-byte Axpy
  # grids with 8 words in flight in one wave (GemvPolicy::axpy_one_wave_unroll8_max_rounds).
  pstep tests-fast-memory-large env FASTMV_CUDA_GEMV_POLICY=fast_memory_min_gbps_per_sm=1 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='*LargeShapes*'
  # ... and tall grids split one block an SM at every size, which on fast memory read
  # 2-byte vectors in 16-word tiles (GemvPolicy::axpy_tma_split_16word_fast_memory).
  pstep tests-fast-memory-split-wide env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY="$tma_wide_policy,fast_memory_min_gbps_per_sm=1" "$cuda_test" --gtest_brief=1
  # The Dot form's split rows through global memory where a cluster would take them.
  pstep tests-no-clusters env FASTMV_CUDA_GEMV_POLICY=cluster_max_splits=0 "$cuda_test" --gtest_brief=1
  # dot_kernel in blocks of 128 threads wherever its aligned rows are read by whole warps
  # (by default only long fp32 rows in grids of many: dot_threads_128_4byte_min_words), with
  # the rows a group otherwise chosen, and one row a group.
  pstep tests-dot-128 env FASTMV_CUDA_GEMV_POLICY=dot_threads=128 "$cuda_test" --gtest_brief=1
  pstep tests-dot-128-one-row env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_threads=128,dot_rows=1 \
    "$cuda_test" --gtest_brief=1
  # The Dot form's rows balanced over the warps wherever that kernel can take them (by
  # default only where its model predicts a gain), in blocks of 256 and of 1024 threads.
  pstep tests-balanced env FASTMV_CUDA_GEMV_POLICY=dot_balanced=2 "$cuda_test" --gtest_brief=1
  pstep tests-balanced-1024 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_balanced=2,dot_balanced_threads=1024 \
    "$cuda_test" --gtest_brief=1
  # ... with its warps' pieces cut anywhere (16 bytes; 512-byte boundaries by default) and
  # one spare word a lane for 2-byte types too (2 by default), and on 4096-byte boundaries
  # (a block of one row of 128 words: one piece, seven empty).
  pstep tests-balanced-cut16 env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=dot_balanced=2,dot_balanced_align=16,dot_balanced_spare_per_lane_2byte=1 \
    "$cuda_test" --gtest_brief=1 --gtest_filter="$balanced_filter"
  pstep tests-balanced-cut4096 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_balanced=2,dot_balanced_align=4096 \
    "$cuda_test" --gtest_brief=1 --gtest_filter="$balanced_filter"
  # The Dot form's rows of one offset class a block against x staged in shared memory
  # (by default 2-byte rows off 16-byte boundaries at 16-22 rows an SM, GemvPolicy::dot_shared_x)
  # wherever it can run, aligned rows too, and on the quick set with 8 words in flight.
  pstep tests-dot-shared-x env FASTMV_CUDA_GEMV_POLICY=dot_shared_x=2 "$cuda_test" --gtest_brief=1
  pstep tests-dot-shared-x-u8 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_shared_x=2,dot_shared_x_unroll=8 \
    "$cuda_test" --gtest_brief=1
  # The Dot form with x held in registers (by default 2-byte matrices of 24-512 MiB with
  # aligned rows of 385-1792 words, from 16 MiB with rows off 16-byte boundaries, fp32 ones
  # of 513-1280 words too, and on fast memory rows of 129-384 words from 10 MiB and the
  # narrow rows of 16-128 words from 8 MiB; GemvPolicy::dot_held_x and the knobs after it)
  # wherever it can run (float too), then its tests with one row a round.
  pstep tests-dot-held-x env FASTMV_CUDA_GEMV_POLICY=dot_held_x=2,dot_held_x_narrow=2 "$cuda_test" --gtest_brief=1
  pstep tests-dot-held-x-one-row env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_held_x=2,dot_held_x_two_rows_max_k=0 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='*DotFormHeldX*'
  # The Dot form's TMA kernel (off by default) wherever it fits, with its widest stage for
  # each band and with stages of 64 and 32 words.
  pstep tests-dot-tma env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_tma=2 "$cuda_test" --gtest_brief=1
  pstep tests-dot-tma-64 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_tma=2,dot_tma_words=64 \
    "$cuda_test" --gtest_brief=1
  pstep tests-dot-tma-32 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_tma=2,dot_tma_words=32 \
    "$cuda_test" --gtest_brief=1
  # Short vectors of both forms read flat wherever those kernels can take them (by
  # default: vectors of 8 bytes to 1 KiB, rows of 8 to 496 bytes, from 1 or 8 MiB).
  pstep tests-flat env FASTMV_CUDA_GEMV_POLICY=axpy_flat=2,dot_flat=2 "$cuda_test" --gtest_brief=1
  # Unaligned Axpy vectors of 4- and 8-byte types realigned where they would be interleaved.
  pstep tests-realigned env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_interleave_unaligned=0 \
    "$cuda_test" --gtest_brief=1
  # Unaligned Dot rows read unshifted wherever that kernel can take them (by default 4-byte
  # types up to 68 rows an SM, 8-byte up to 64, 2-byte types at 32-72), two and four rows
  # a group.
  pstep tests-dot-shifted env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_shifted=2 "$cuda_test" --gtest_brief=1
  pstep tests-dot-shifted-4 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_shifted=2,dot_shifted_rows=4 \
    "$cuda_test" --gtest_brief=1
  # The Dot form's last partial wave split over the slots (by default for shifted rows in
  # grids of 1-2 waves whose last wave is at most half the slots) on every grid of shifted
  # rows whose rows have two rounds of loads: rows as chosen, and read unshifted four a
  # group wherever they can be.
  pstep tests-dot-tail env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_tail_split=2 "$cuda_test" --gtest_brief=1
  pstep tests-dot-tail-shifted env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=dot_tail_split=2,dot_shifted=2,dot_shifted_rows=4 "$cuda_test" --gtest_brief=1
  # The narrow Axpy kernel (tiles of 16 or 32 outputs) wherever the register Axpy kernel
  # would run (by default: 2-96 MiB where its tiles fill one wave): as chosen but with the
  # first round prefetched into L2 before the early-launch wait on tiles of 16 and on
  # unaligned vectors too (by default only on aligned tiles of 32; memcheck below runs it
  # without), and with tiles of 32,
  # blocks of 256 threads, 32 vectors in flight and splits that fill the slots; then with
  # the vectors past a split's whole rounds in a round of their own (by default read with
  # the first round, axpy_narrow_fold_tail).
  pstep tests-narrow env FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,early_launch_narrow16=2,early_launch_narrow32_unaligned=2 "$cuda_test" --gtest_brief=1
  pstep tests-narrow-splits env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_splits=0,axpy_narrow_lanes=32,axpy_narrow_threads=256,axpy_narrow_unroll=32 \
    "$cuda_test" --gtest_brief=1
  pstep tests-narrow-unfolded env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_fold_tail=0 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='*Axpy*:GemvStridedBatchedTest/*'
  # ... and with its whole rounds pipelined through two register buffers wherever it
  # reads rounds of 16 (by default 4-byte types in tiles of 32,
  # GemvPolicy::axpy_narrow_pipelined), as chosen, then with splits that fill the slots,
  # no folded tail and one load of x a vector.
  pstep tests-narrow-pipelined env FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_pipelined=2 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='*Axpy*:*Mixed*:GemvStridedBatchedTest/*:GemvRandomTest/*'
  pstep tests-narrow-pipelined-splits env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_pipelined=2,axpy_narrow_splits=0,axpy_narrow_fold_tail=0,axpy_narrow_x_words=0 \
    "$cuda_test" --gtest_brief=1
  # The register Axpy kernel's masked rounds of 8 waiting for every load, their sums
  # selected, in every grid with 8 in flight (by default only where a round is masked,
  # and for large matrices only where the kernel keeps the other's blocks per SM,
  # GemvPolicy::axpy_masked_select), on the quick set, and in full size on the large
  # mixed-precision shapes as fast memory reads them (aligned 2-byte grids with 8 in
  # flight in one wave).
  pstep tests-masked-select env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_masked_select=2 \
    "$cuda_test" --gtest_brief=1
  pstep tests-masked-select-large env FASTMV_CUDA_GEMV_POLICY=axpy_masked_select=2,fast_memory_min_gbps_per_sm=1 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='*LargeShapes*'
  # `fastmv bench gemv --variant`: policies switched call by call in one process, each
  # variant's result checked against the reference at every point (exit status 1 if not).
  pstep tests-bench-variants "$build/tools/fastmv/fastmv" bench gemv --backend cuda --dtype float,bf16 \
    --layout col,row --op N,T --sizes 257,520,2561 --shapes 1032x264 --rounds 1 --repeats 3 --min-time 0 \
    --no-progress --variant sel=axpy_masked_select=2 --variant off=axpy_masked_select=0,axpy_narrow_pipelined=0
  # Realigned vectors on the kernel held to 3 blocks per SM from 8 MiB (by default 32 MiB;
  # 2-byte types take it at every size).
  pstep tests-realigned-held env FASTMV_CUDA_GEMV_POLICY=axpy_realigned_held_min_bytes=0 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='GemvMixedPrecisionTest/*:GemvStridedBatchedTest/*'
  # Aligned Axpy vectors on the register kernel at every size (by default from 8 MiB where
  # the TMA kernel does not take them), fp16's held to 4 blocks per SM.
  pstep tests-aligned-register env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_small_matrix_bytes=1,axpy_tma_min_bytes=0,axpy_narrow=0,axpy_flat=0 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='GemvMixedPrecisionTest/*:GemvStridedBatchedTest/*'
  # The Dot form's aligned fp64 rows two a group wherever one a group would read them 8
  # words in flight (by default only where that grid would split each row 4 ways or
  # more, or where the rows are too few for it and at least 32, GemvPolicy::dot_two_rows_8byte_*).
  pstep tests-fp64-two-rows env FASTMV_CUDA_GEMV_POLICY=dot_two_rows_8byte_min_groups_k=1 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='GemvRandomTest/1.*:GemvExactTest/1.*:GemvStridedBatchedTest/double*'
  # The Dot form's row segments (each split of a row over blocks) on 4096-byte
  # boundaries and on any 16-byte word (by default 128-byte lines,
  # GemvPolicy::dot_split_align_bytes): fewer, ragged splits.
  pstep tests-dot-split-align env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_split_align_bytes=4096 \
    "$cuda_test" --gtest_brief=1 --gtest_filter="$split_filter"
  pstep tests-dot-split-align16 env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_split_align_bytes=16 \
    "$cuda_test" --gtest_brief=1 --gtest_filter="$split_filter"
  # The Dot form's aligned 2-byte rows one a group (by default two up to 64 rows an SM,
  # which is every shape of the tests but the largest).
  pstep tests-2byte-one-row env FASTMV_CUDA_GEMV_POLICY=dot_two_rows_2byte_max_rows_per_sm=0 \
    "$cuda_test" --gtest_brief=1 --gtest_filter='GemvMixedPrecisionTest/*:GemvStridedBatchedTest/*'
fi

# compute-sanitizer on a reduced set (FASTMV_TEST_QUICK shrinks the shapes): memcheck
# over every kernel variant and error path, racecheck over the kernels that share
# partial sums between threads and blocks.
memcheck_filter='GemvRandomTest/*.ShapeCrossUnitIncrements:GemvRandomTest/*.TallSkinnyAndShortWide:GemvRandomTest/*.AlignedOperands:GemvExactTest/*.NanAndInf*:GemvExactTest/*.EmptyMatrix*:GemvErrorTest.*:GemvMixedPrecisionTest/*.ShapeCross:GemvMixedPrecisionTest/*.AlignedOperands:GemvMixedPrecisionTest/*.TallSkinnyAndShortWide:GemvMixedPrecisionTest/*.LargeShapes:GemvMixedPrecisionTest/*.RandomShapes:GemvStridedBatched*:Cuda*:*ShortRowsDotForm*:*AxpyFormUnalignedVectors*'
racecheck_filter='GemvRandomTest/*.TallSkinnyAndShortWide:GemvRandomTest/*.AlignedOperands:GemvMixedPrecisionTest/*.AlignedOperands:GemvMixedPrecisionTest/*.TallSkinnyAndShortWide:GemvMixedPrecisionTest/*.LargeShapes:GemvMixedPrecisionTest/*.RandomShapes:GemvStridedBatchedTest/*.AttentionDecodeShapes:GemvStridedBatchedTest/*.AlignedProducts:CudaContextTest.AsynchronousCallsAreOrderedAndSynchronized'
if [ -x "$cuda_test" ] && [ "${FASTMV_SANITIZE_GPU:-1}" = 1 ]; then
  pstep sanitizer-memcheck env FASTMV_TEST_QUICK=1 compute-sanitizer --tool memcheck \
    --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter:*AxpyFormMidRing*"
  pstep sanitizer-racecheck env FASTMV_TEST_QUICK=1 compute-sanitizer --tool racecheck \
    --error-exitcode 1 "$cuda_test" --gtest_filter="$racecheck_filter:*AxpyFormMidRing*"
  pstep sanitizer-held-x-memcheck env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_held_x=2,dot_held_x_narrow=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter='*DotFormHeldX*'
  pstep sanitizer-held-x-racecheck env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_held_x=2,dot_held_x_narrow=2 \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" --gtest_filter='*DotFormHeldX*'
  pstep sanitizer-memcheck-tma env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY="$tma_policy" \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-memcheck-tma-split-wide env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY="$tma_wide_policy" \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" \
    --gtest_filter="$memcheck_filter:*AxpyFormTallFewOutputs*:*AxpyFormAlignedVectorsOffLines*"
  pstep sanitizer-memcheck-tma-sum-kernel env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY="$tma_wide_policy,axpy_tma_sum_kernel=2" \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" \
    --gtest_filter="$memcheck_filter:*AxpyFormTallFewOutputs*:*AxpyFormAlignedVectorsOffLines*"
  pstep sanitizer-memcheck-sum-kernel env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_sum_kernel=2,axpy_interleave_unaligned=0,axpy_realigned_held_min_bytes=1 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  # Unaligned Axpy vectors of every type realigned (by default 2-byte types and small
  # matrices), and groups of 128 and 256 lanes, whose vectors start at different offsets.
  pstep sanitizer-memcheck-realigned env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_interleave_unaligned=0 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-memcheck-dot-shifted env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_shifted=2,dot_shifted_rows=4 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-memcheck-fp64-two-rows env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_two_rows_8byte_min_groups_k=1 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" \
    --gtest_filter='GemvRandomTest/1.*:GemvExactTest/1.*:GemvStridedBatchedTest/double*'
  pstep sanitizer-memcheck-dot-tail env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_tail_split=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-memcheck-wide-groups compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" \
    --gtest_filter='*UnalignedFewLongVectors*'
  # Unaligned Axpy vectors interleaved for every type and tile width (by default: 4- and
  # 8-byte types, tiles of 32 lanes, which the reduced set's small matrices seldom have).
  pstep sanitizer-memcheck-interleaved env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_interleave_unaligned=2,axpy_interleave_min_lanes=1 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  # The narrow Axpy kernel wherever the register Axpy kernel would run, its reduction
  # split over blocks to fill the slots.
  pstep sanitizer-memcheck-narrow env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_splits=0 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-memcheck-masked-select env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_masked_select=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-memcheck-narrow-pipelined env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_splits=0,axpy_narrow_pipelined=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-racecheck-narrow env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_narrow=2,axpy_narrow_splits=0 \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" --gtest_filter="$racecheck_filter"
  # The staged Axpy kernel on every vector of up to 256 elements, its chunks copied
  # through cp.async and vectors of 129-256 elements in two groups of threads (by default
  # neither, GemvPolicy::axpy_staged_async_copy, axpy_staged_two_groups).
  staged_async_policy=axpy_staged_async_copy=2,axpy_staged_two_groups=1,axpy_staged_max_vector_bytes=1024,axpy_staged_min_bytes=0,axpy_flat=0
  pstep sanitizer-memcheck-staged-async env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY="$staged_async_policy" \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" \
    --gtest_filter='*ShortVectorsLongReductions*:CudaContextTest.*'
  pstep sanitizer-racecheck-staged-async env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY="$staged_async_policy" \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" \
    --gtest_filter='*ShortVectorsLongReductions*:*FlatKernelsOneGroupRule*'
  # The balanced Dot kernel wherever it can run.
  pstep sanitizer-memcheck-balanced env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_balanced=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$balanced_filter"
  pstep sanitizer-memcheck-balanced-cut4096 env FASTMV_TEST_QUICK=1 \
    FASTMV_CUDA_GEMV_POLICY=dot_balanced=2,dot_balanced_align=4096 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter='*BalancedRows*'
  pstep sanitizer-racecheck-balanced env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_balanced=2 \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" --gtest_filter='*BalancedRows*'
  # The Dot form's shared-x kernel wherever it can run.
  pstep sanitizer-memcheck-dot-shared-x env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_shared_x=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter"
  pstep sanitizer-racecheck-dot-shared-x env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_shared_x=2 \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" --gtest_filter="$racecheck_filter"
  # The Dot form's TMA kernel wherever it fits.
  # (*BalancedRows* has bands of up to 37 rows, partial last bands and stages included.)
  pstep sanitizer-memcheck-dot-tma env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=dot_tma=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$memcheck_filter:*BalancedRows*"
  # The staged Axpy kernel at every size it can take (by default from 2 MiB, aligned from 1,
  # where the flat kernel does not take them).
  staged_filter='*ShortVectorsLongReductions*:GemvMixedPrecisionTest/*.TallSkinnyAndShortWide'
  pstep sanitizer-memcheck-staged env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_staged_min_bytes=0,axpy_flat=0 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$staged_filter"
  pstep sanitizer-racecheck-staged env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_staged_min_bytes=0,axpy_flat=0 \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" --gtest_filter="$staged_filter"
  # The flat kernels of both forms wherever they can run (their reductions: shared memory
  # in both, and the Axpy form's split over blocks).
  flat_filter='*ShortVectorsBothForms*:*ShortVectorsLongReductions*:GemvMixedPrecisionTest/*.ShapeCross'
  pstep sanitizer-memcheck-flat env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_flat=2,dot_flat=2 \
    compute-sanitizer --tool memcheck --error-exitcode 1 "$cuda_test" --gtest_filter="$flat_filter"
  pstep sanitizer-racecheck-flat env FASTMV_TEST_QUICK=1 FASTMV_CUDA_GEMV_POLICY=axpy_flat=2,dot_flat=2 \
    compute-sanitizer --tool racecheck --error-exitcode 1 "$cuda_test" --gtest_filter='*ShortVectorsBothForms*'
  # Jacobi: every test under memcheck (small systems take the fused kernel, large ones
  # the GEMV; the two Both*/GemvAndFused* tests force each); racecheck over the check
  # kernel's and the fused kernel's block reductions.
  jacobi_test="$build/tests/jacobi/jacobi_test_cuda"
  pstep sanitizer-memcheck-jacobi compute-sanitizer --tool memcheck --error-exitcode 1 "$jacobi_test"
  pstep sanitizer-racecheck-jacobi compute-sanitizer --tool racecheck --error-exitcode 1 "$jacobi_test" \
    --gtest_filter='JacobiTest/*.UpdateRuleAndHistory:JacobiCudaTest.ChecksEvery*:JacobiCudaTest.Both*'
  # Transforms: device arrays, the host pipeline and the cores route (pageable, pinned, mixed; chunks
  # wrapping the slots) under memcheck; the large cases take the default chunks.
  pstep sanitizer-memcheck-transform4 compute-sanitizer --tool memcheck --error-exitcode 1 \
    "$build/tests/transform4/transform4_test_cuda" \
    --gtest_filter='Transform4Test.MatchesTheReference*:Transform4Test.BadInput*:Transform4HostTest.SmallChunks*:Transform4HostTest.*Follow*'
fi
# The benchmarks below time the GPU: every test step has ended first.
pwait

fastmv="$build/tools/fastmv/fastmv"
case "$bench" in
  none) ;;
  full) step bench "$fastmv" bench gemv --backend cuda --acceptance --rounds 3 \
          --json "$out/gemv_cuda.json" --csv "$out/gemv_cuda.csv" "$@" ;;
  *) step bench "$fastmv" bench gemv --backend cuda --quick --json "$out/gemv_cuda.json" \
       --csv "$out/gemv_cuda.csv" "$@" ;;
esac
if [ -f "$out/gemv_cuda.json" ]; then
  step plot "$fastmv" plot gemv "$out/gemv_cuda.json" -o "$out/gemv_cuda.png"
fi
case "${FASTMV_GPU_TRANSFORM4:-quick}" in
  none) ;;
  full) step transform4 "$fastmv" bench transform4 --json "$out/transform4.json" ;;
  *) step transform4 "$fastmv" bench transform4 --sizes 262144,1048576,16777216 --grain-sizes 16777216 \
       --json "$out/transform4.json" ;;
esac
if [ -f "$out/transform4.json" ]; then
  step plot-transform4 "$fastmv" plot transform4 "$out/transform4.json" -o "$out/transform4.png"
fi
case "${FASTMV_GPU_JACOBI:-quick}" in
  none) ;;
  paper) step jacobi "$fastmv" solve jacobi --paper --json "$out/jacobi.json" ;;
  *) step jacobi "$fastmv" solve jacobi --order 1024,4096,8192 --alpha 1.1 --json "$out/jacobi.json" ;;
esac

echo
cat "$out/system.txt"
grep -E "tests passed|tests failed|Skipped|\(Failed\)|\(SEGFAULT\)" "$out/tests.log" 2>/dev/null
for pass in forced-policy tma-everywhere tma-forced tma-large no-clusters balanced balanced-1024 balanced-cut16 balanced-cut4096 flat realigned; do
  grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$out/tests-$pass.log" 2>/dev/null | sed "s/^/$pass: /"
done
for tool in memcheck racecheck memcheck-tma memcheck-interleaved memcheck-balanced memcheck-balanced-cut4096 racecheck-balanced memcheck-staged racecheck-staged memcheck-flat racecheck-flat memcheck-jacobi racecheck-jacobi memcheck-transform4; do
  grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$out/sanitizer-$tool.log" 2>/dev/null | tail -1
done
[ -f "$out/bench.log" ] && sed -n '/^Acceptance/,$p' "$out/bench.log" | fold -s -w 150 | head -70
[ -f "$out/transform4.log" ] && sed -n '/^Targets/,$p' "$out/transform4.log"
[ -f "$out/jacobi.log" ] && grep -E "^GPU|fastmv-cuda:" "$out/jacobi.log"
printf '%s\n' "${summary[@]}"
exit $status
