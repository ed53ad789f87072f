// Tuning of the CUDA GEMV kernels, in one place. Values chosen for Hopper (H100,
// 132 SMs, 50 MB L2); docs/PERFORMANCE.md has the measurements behind them.
//
// The values are defaults of a struct rather than constants so that one benchmark run
// can compare settings: FASTMV_CUDA_GEMV_POLICY="name=value,..." (names as below)
// overrides them for the whole process. Results never depend on the policy, only
// speed does.
#pragma once

#include <limits>

#include "fastmv/types.hpp"

namespace fastmv::kernels::cuda {

// GemvPolicy::axpy_staged_chunk_bytes and axpy_staged_one_group_chunk_bytes at most (the
// staged Axpy kernel's shared memory).
constexpr index_t kAxpyStagedMaxChunkBytes = 98304;

struct GemvPolicy {
  // A fast memory system: at least this many GB/s of peak DRAM bandwidth an SM
  // (CudaState::memory_gbps_per_sm; 0: none is). The thresholds below were tuned on an
  // H100 SXM (25.4 GB/s an SM); the rules marked "on fast memory" are an H200's (36.5,
  // the same 132 SMs), where a block's ramp and drain and an SM's share of the grid weigh
  // more against the faster DRAM.
  index_t fast_memory_min_gbps_per_sm = 30;

  // Axpy form with at most 8 stored vectors: threads per SM of the streaming grid.
  // (The other kernels size their grids to the block slots CUDA reports, see
  // choose_split in gemv_cuda.cu.)
  index_t target_threads_per_sm = 1024;
  // ... reading every vector in one round of loads (0), or one vector a round with 4
  // words of y per thread (1, the kernel before; for comparisons).
  index_t axpy_few_columns_per_round = 0;

  // Dot form: a thread keeps at least this many 16-byte words of each row to itself
  // before the row is split further across groups and blocks (the reduction and the
  // split handshake cost about as much as a few words).
  index_t dot_min_words_per_thread = 8;
  // ... or this many when there are too few rows to fill half the GPU's block slots
  // (4: one round of loads).
  index_t dot_split_min_words_per_thread = 4;
  // ... each split of a row (its blocks' segment) a multiple of this many bytes long, so
  // that on rows that start on a 128-byte line every segment does too (16: a word, the
  // rule before the fortieth session, whose segments of 1048576 / 13 doubles began
  // anywhere in a line; a power of 2, 16..4096). Same run, three rounds, row N on the
  // H100, 16 -> 128 (cuBLAS): fp64 40 x 1048576 122.5 -> 117.3 us (118.0), 48 x 1048576
  // 147.1 -> 138.8 (140.0), 96 x 1048576 287.3 -> 271.3 (270.8), 24 x 1048576 77.3 ->
  // 73.4 (76.9); fp32 40 x 1048576 63.9 -> 62.5 (63.5); bf16 40 x 1048576 34.9 -> 34.0
  // (40.3), fp16 8 x 2097152 19.1 -> 18.7; of 54 short-wide shapes of the four types
  // none slower by more than 0.2 % (splits of a power of 2 had their segments on lines
  // already). H200: fp64 40 x 1048576 83.7 -> 80.6 (83.3), bf16 40 x 1048576 27.1 ->
  // 26.3, fp32 44.1 -> 43.2; of 24 shapes none slower by more than 0.4 %.
  index_t dot_split_align_bytes = 128;
  // ... where the grid's blocks fill less than half the block slots, and for rows of at
  // most two rounds of loads a thread less than this share (%) of them (see dot() in
  // gemv_cuda.cu; 50 before the nineteenth session).
  index_t dot_split_short_rows_max_slots_percent = 25;
  // Dot form with too few rows to fill the GPU, rows split over blocks: 1 takes the
  // splits that fit one wave of block slots for matrices of at least
  // dot_split_one_wave_min_bytes, 0 the splits that reach past it (see dot()).
  index_t dot_split_one_wave = 1;
  index_t dot_split_one_wave_min_bytes = index_t(8) << 20;
  // dot_min_words_per_thread for the kernel with two rows per thread group (aligned
  // fp32). 16, same run against 8: 4352^2 35.2 -> 31.7 us, 4864^2 38.4 -> 36.8, 5120^2
  // 40.6 -> 38.7, 8704^2 115.9 -> 104.8, 8960^2 122.4 -> 110.0, 9984^2 137.2 -> 133.7,
  // no order of 1024-12800 or LLM shape slower by more than 0.5 % (bf16, one row per
  // group, lost up to 4 % with 16: it keeps 8).
  index_t dot_min_words_per_thread_2rows = 16;
  // ... but one row a group (8 words in flight) for aligned fp32 rows of at least this
  // many 16-byte words (0: never) where the two-row grid is a single wave of blocks
  // filling at least 90 % of the slots (dot() in gemv_cuda.cu): 2 waves of blocks of half
  // the rows, whose second the SMs that finish first take more of. H100, two to six runs
  // of two to four rounds each, two rows -> one: 4096 x 32000 0.972-0.985x the time,
  // 4096 x 14336 0.981-0.985x, 4096 x 128256 0.988-0.996x, 3840 x 16384 0.952-0.974x (as
  // built, same binary, three rounds, row N, against cuBLAS: 173.86 -> 170.51 us (167.38),
  // 80.06 -> 78.83 (78.22), 669.5 -> 664.3 (696.1), 85.82 -> 83.57 (84.64)). Shorter rows
  // lost: 4096 x 11008 (2752 words) 1.004-1.005x, 4096^2 1.046x; and so did grids of more
  // waves (8192^2 1.010-1.013x, 7424^2 1.022-1.036x; 11776^2-12296^2 0.97-1.00x, left on
  // two rows).
  index_t dot_one_row_4byte_min_words = 3072;
  // Aligned fp32 rows of at least dot_threads_128_4byte_min_words 16-byte words (0: never),
  // at least dot_threads_128_4byte_min_rows_per_sm rows an SM, batch 1: dot_kernel in blocks of
  // 128 threads, a row a warp with 8 words in flight (cuBLAS's layout at 11776^2), instead
  // of 256 threads of two rows a warp, 4 words each. H100, same binary, three passes
  // each, row N, 256 -> 128 (cuBLAS): 9216^2 113.38 -> 112.16 us (131.73), 9472^2 119.78 ->
  // 118.22, 10496^2 144.48 -> 143.31, 11784^2 182.10 -> 179.55 (179.46), 12040^2 189.92 ->
  // 187.22 (188.99), 12296^2 197.58 -> 195.44 (197.04), 12808^2 212.32 -> 210.37, 13824^2
  // 248.62 -> 242.82, 16384^2 341.81 -> 340.54; col T alike (12040^2 190.69 -> 187.14).
  // Over the sweep's aligned squares 8704^2-12808^2 (35) 0.993x the time, none slower by
  // more than 0.3 %; a second run with the rule built in, on -> off, 0.990x over 17 row N
  // shapes of 8704 columns and more (13824^2 0.974x), 0.989x col T; 14336^2 1.005x both
  // times. Below the floors it lost: 8448^2 (2112 words, exactly 64
  // rows an SM) 92.63 -> 93.23, 8456^2 98.03 -> 99.66; short rows, whose grid splits each
  // row over two groups, 20000 x 3000 81.42 -> 90.16. fp64 (already a row a warp) and
  // bf16 under blocks of 128: within 1 % (bf16 12288^2 0.991x, 16384^2 1.002x). The grids
  // it takes are several waves of blocks; a block of four rows leaves a last wave a
  // quarter as coarse.
  index_t dot_threads_128_4byte_min_words = 2176;
  index_t dot_threads_128_4byte_min_rows_per_sm = 64;
  // dot_kernel's threads a block: 0 by the rule above; 128 wherever aligned rows are read
  // by whole warps (tests and experiments; with the rows a group otherwise chosen), 256
  // never 128.
  index_t dot_threads = 0;
  // Dot form, aligned rows: rows per thread group (1, 2 or 4; 0 chooses by type, see
  // dot() in gemv_cuda.cu). More rows share each x word; 4 rows (2 words in flight
  // each) measured slower than 1 row at every size tried (8192^2 fp32: 2612 against
  // 2983 GB/s in one run).
  index_t dot_rows = 0;
  // ... and for 2-byte types (aligned rows, dot_rows 0): 2 rows a group where there are at
  // most this many rows an SM (count x batch), else 1. Two rows halve the x each row
  // reads again from L2 (x is in fp32 or A's type, 2-4 bytes an element of A's 2: with
  // long rows, whose x does not stay in L1, that traffic is as large as A's). Same run,
  // two rounds, bf16 row N, 2 rows against 1: 128 x 1048576 112.7 -> 93.6 us, 64 x
  // 1048576 59.1 -> 51.2, 40 x 1048576 39.1 -> 35.2, 8 x 65536 5.35 -> 4.75, 4096 x 14336
  // 44.8 -> 41.8, 2056^2 6.18 -> 5.63, 3072^2 9.50 -> 8.87, 5888^2 28.3 -> 26.9 (fp16
  // alike); but 12800^2 (97 rows an SM) 111.7 -> 115.3, 12808^2 113.9 -> 117.6, and
  // from 64 rows an SM up none faster by more than 2 %.
  index_t dot_two_rows_2byte_max_rows_per_sm = 64;
  // ... and rows of at most this many 16-byte words (those read by 8 or 4 lanes) at any
  // rows an SM (0: none), whose x (2-4 KiB in fp32) is read again for every row of 0.5-1
  // KiB. Same run, three rounds, row N, one row -> two (cuBLAS): H100 bf16 131072 x 512
  // 52.45 -> 47.45 us (51.26), 262144 x 512 96.58 -> 90.78 (98.64), 65536 x 256 15.02 ->
  // 14.55 (16.35), 131072 x 256 26.23 -> 25.75 (27.97); H200 bf16 131072 x 512 43.04 ->
  // 37.10 (36.40), 65536 x 256 13.66 -> 13.03 (12.42), fp16 42.42 -> 37.26 (36.41), 13.13
  // -> 12.92 (12.37). Rows of 128 words and more (16384 x 1024, 65536 x 1032) within 0.3 %
  // on the H200.
  index_t dot_two_rows_2byte_max_words = 96;
  // ... and for 8-byte types (aligned rows, dot_rows 0; one a group, 8 words in flight,
  // by default): 2 rows a group where the one-row grid would split each row over at
  // least this many thread groups (0: never; few words a lane, and x, as many bytes as A
  // in fp64, read again for every row) at up to dot_two_rows_8byte_max_rows_per_sm rows
  // an SM. Same run, three rounds, fp64 row N, one row -> two (cuBLAS), H100: 2304^2
  // (4 groups a row) 23.36 -> 18.18 us (17.56), 2560^2 25.83 -> 21.27 (20.93), 3328^2
  // 36.96 -> 32.26 (32.81), 3584^2 41.13 -> 36.55 (37.42), 4608^2 62.74 -> 59.22 (67.63);
  // H200: 20.35 -> 16.29 (13.29), 22.20 -> 18.21 (15.57), 32.62 -> 24.84 (23.97), 33.81
  // -> 27.24 (26.97), 49.91 -> 46.01 (51.30). Not taken: rows split 1-2 ways (H200 2048^2
  // 9.87 -> 10.52, 3072^2 21.72 -> 22.84; H100 4096^2 46.41 -> 47.16, 8192^2 176.7 ->
  // 179.4) and 11008 x 4096 (83 rows an SM; H200 87.70 -> 91.57, H100 120.50 -> 117.97).
  index_t dot_two_rows_8byte_min_groups_k = 4;
  index_t dot_two_rows_8byte_max_rows_per_sm = 64;
  // ... and 2 rows a group where there are too few rows for that grid to fill half the
  // block slots (each row split over blocks) and at least this many rows (0: never;
  // independent of dot_two_rows_8byte_min_groups_k): x,
  // as long as a row, is then read once for two rows. Same run, three rounds, fp64 row N
  // on the H100 (fortieth session, segments on 128-byte lines, dot_split_align_bytes),
  // one row -> two (cuBLAS): 32 x 1048576 95.5 -> 92.7 us (95.1), 40 x 1048576 126.9 ->
  // 117.3 (118.0), 48 x 1048576 140.4 -> 138.8 (140.0), 64 x 1048576 190.9 -> 182.1
  // (182.3), 96 x 1048576 282.5 -> 271.3 (270.8), 128 x 1048576 364.8 -> 356.5 (357.8),
  // 40 x 262144 33.6 -> 32.3 (35.0); with segments on words 16 x 1048576 51.1 -> 51.4
  // (57.3), hence the floor.
  index_t dot_two_rows_8byte_few_min_rows = 32;
  // Dot form, unaligned rows: read unshifted, rows that lie the same distance past a
  // 16-byte boundary a group, x from any element (dot_kernel's kShifted), where the
  // dispatcher's rule takes it (1; figures in dot() in gemv_cuda.cu), everywhere it can
  // run (2), or nowhere (0: each row realigned in registers).
  index_t dot_shifted = 1;
  // ... with this many rows a group (1, 2 or 4; 0: the rule's).
  index_t dot_shifted_rows = 0;
  // ... 4-byte types up to this many rows an SM ...
  index_t dot_shifted_4byte_max_rows_per_sm = 68;
  // ... or at any rows an SM on fast memory (1; 0: that limit there too). H200, same run,
  // three rounds, fp32 row N, realigned -> 2 shifted rows a group (cuBLAS): 9729^2 116.75
  // -> 94.23 us (115.06), 10753^2 131.81 -> 112.77 (120.32), 11009^2 136.67 -> 117.25
  // (123.52), 11777^2 149.14 -> 133.92 (134.99), 12801^2 179.68 -> 159.70 (165.44), 9217^2
  // 88.61 -> 86.97; none of 9217^2-12801^2 slower.
  index_t dot_shifted_4byte_fast_memory = 1;
  // ... 8-byte types up to this many rows an SM, 2 rows a group ...
  index_t dot_shifted_8byte_max_rows_per_sm = 64;
  // ... with 4 rows a group from this many rows an SM up to the next (else 2) ...
  index_t dot_shifted_rows4_min_rows_per_sm = 16;
  index_t dot_shifted_rows4_max_rows_per_sm = 40;
  // ... and 2-byte types, 4 rows a group, from this many up to the next (else realigned).
  index_t dot_shifted_2byte_min_rows_per_sm = 32;
  index_t dot_shifted_2byte_max_rows_per_sm = 72;
  // Dot form, shifted rows (dot_kernel's kShifted, one split a tile, one matrix): where a
  // grid of more than one and at most dot_tail_split_max_waves waves of block slots has
  // a last wave of at most dot_tail_split_max_percent of the slots, that wave's tiles
  // split over the slots, at most dot_tail_max_splits ways and at least a round of loads
  // a thread each (1; figures in dot() in gemv_cuda.cu), every such grid's last wave
  // wherever its rows have two rounds (2: for the tests), or never (0).
  index_t dot_tail_split = 1;
  index_t dot_tail_split_max_waves = 2;
  index_t dot_tail_split_max_percent = 50;
  index_t dot_tail_max_splits = 32;
  // Dot form, one row per group: 16-byte words of the row in flight per thread (4 or
  // 8; 0 chooses by type and alignment, see dot() in gemv_cuda.cu).
  index_t dot_unroll = 0;
  // Dot form, aligned rows of whole 16-byte words (at least kBalancedMinWords), one
  // matrix, at least one row a block: rows balanced over the warps
  // (dot_balanced_kernel, blocks of dot_balanced_threads threads: 256, 512 or 1024)
  // where gemv_cuda.cu's dot_balanced_gain predicts it dot_balanced_min_gain_percent
  // faster than dot_kernel, for 2- and 4-byte types (1); always (2, for tests); never
  // (0). Same run, two rounds, row-major N, against dot_kernel: bf16 4352^2 19.1 ->
  // 16.8 us, 4864^2 22.3 -> 18.8, 2560^2 8.6 -> 7.1, fp32 2304^2 10.7 -> 8.9, 4352^2
  // 31.7 -> 28.0; slower where dot_kernel's waves are full (bf16 8192^2 47.9 -> 53.1,
  // 4096^2 13.5 -> 13.8) and wherever its grid has many waves (12800^2 111.8 -> 115.3).
  // 256 threads measured as fast as 512 and 1024, and faster on small matrices.
  // Dot form through the TMA unit (dot_tma_kernel, gemv_dot_tma.cuh): aligned rows and
  // a contiguous aligned x, the rows in equal bands of ceil(rows / (SMs *
  // dot_tma_blocks_per_sm)), a stage dot_tma_words 16-byte words of each row (32, 64 or
  // 128; 0 chooses), dot_tma_stages stages in flight a block. 0 never (the default); 2
  // wherever it fits (tests); 1 for 2-byte types in one matrix (batch 1) of at least
  // dot_tma_min_bytes, rows on 32-byte sectors (lda * sizeof(TA) a multiple of 32),
  // whose bands have dot_tma_2byte_min_band_rows to dot_tma_2byte_max_band_rows rows.
  // That band is the only one where it measured faster than dot_kernel, on squares
  // whose dot_kernel grid is at its worst (groups_k 4: bf16 8704^2 4352 blocks for 528
  // slots). Two runs of three rounds and one of five, row N, dot_kernel ->
  // dot_tma_kernel: bf16 8704^2 56.0-57.1 -> 54.9-55.1 us, 9216^2 61.9-62.5 ->
  // 60.9-61.3, 9472^2 65.1-65.4 -> 64.4-64.7, fp16 8704^2 56.0-56.7 -> 54.9-55.2; col T
  // alike. But in the same band non-square matrices lost (five rounds: bf16 9472 x 8192
  // 55.0 -> 58.6, 8960 x 12288 75.9 -> 77.8, 9216 x 6144 41.9 -> 42.4; 8704 x 4096 even),
  // hence off by default. Rows that straddle sectors (orders 8 past a multiple of 256)
  // lost up to 4 % (bf16 8712^2 58.0 -> 59.5; 8456^2 gained 2 %), and so did everything
  // outside the band: 1-12 % from 4096^2 to 12808^2 (bf16 8192^2 47.5 -> 53.0, 63 rows a
  // band; 9728^2, 74 rows, 67.6 -> 69.9), 20-60 % below 4096^2, fp32 at every order
  // (8704^2 even), and two blocks an SM (docs/PERFORMANCE.md).
  index_t dot_tma = 0;
  index_t dot_tma_min_bytes = index_t(48) << 20;
  index_t dot_tma_2byte_min_band_rows = 65;
  index_t dot_tma_2byte_max_band_rows = 72;
  index_t dot_tma_blocks_per_sm = 1;
  index_t dot_tma_words = 0;
  index_t dot_tma_stages = 4;
  // Dot form, rows of one offset class a block with x staged in shared memory, shifted
  // by the class's offset (dot_shared_x_kernel, gemv_dot.cuh): 0 never, 1 by the rule
  // below, 2 wherever it can run (tests; aligned rows too, one class). It runs one
  // matrix (batch 1) of rows read by whole warps (dot_kernel's lanes 32) whose staged x,
  // length + V accumulator values, takes at most dot_shared_x_max_shared_bytes. The
  // rule: 2-byte rows off 16-byte boundaries, dot_shared_x_min_rows_per_sm to
  // dot_shared_x_max_rows_per_sm rows an SM, at most dot_shared_x_max_bytes of matrix.
  // Same run, two rounds, row N, H100 (dot_kernel -> this kernel, 4 words in flight):
  // bf16 2305^2 8.58 -> 7.45 us, 2561^2 9.41 -> 8.45, 2817^2 10.32 -> 9.26 (fp16 alike),
  // where dot_kernel's realigned grid fills 55-67 % of its block slots; the other odd
  // 2-byte orders 1281^2-12289^2 0.83-1.01x (2049^2, 15.5 rows an SM, 0.88x; 3073^2-3841^2
  // 0.99-1.01x), fp32 odd orders 0.77-0.96x (2305^2 0.99-1.02x), so 2-byte types only.
  // dot_shared_x_unroll: words a lane in flight (4 or 8; 8 was slower in the band:
  // bf16 2561^2 9.99 us).
  index_t dot_shared_x = 1;
  // The Dot form with x held in registers (dot_held_x_kernel: aligned 2-byte rows of
  // 385-1792 words, one matrix; shorter rows and fp32 below): 1, from dot_held_x_min_bytes to dot_held_x_max_bytes
  // where the row's words fill at least dot_held_x_min_fill_percent of its row group's
  // loads (4 or 8 warps x 32 lanes x 3-7 words; rows of more than 512 words only with
  // dot_held_x_long_rows); 2, wherever it can run (the tests); 0, never.
  // dot_held_x_blocks_per_sm: its wave (3 blocks of 8 warps an SM where they fit: the
  // probe's best of 2-4; 2 measured 3-4 % slower in the benchmark). H100, same run, three
  // rounds, row N against 0 (col T alike; cuBLAS): bf16 11008 x 4096 33.62 -> 30.86 us
  // (36.45), 14336 x 4096 42.57 -> 40.14 (43.43), 32000 x 4096 88.96 -> 86.47, 4096^2 13.39
  // -> 12.88; fp16 14336 x 4096 44.72 -> 40.02 (43.59); but bf16 128256 x 4096 (1 GiB)
  // 337.9 -> 341.0, hence the upper bound. Rows of 8 warps (a second run): bf16 5120^2
  // 20.35 -> 19.25 us, 6144^2 28.92 -> 27.01, 8192^2 0.973x, 12800^2 0.979x, 4096 x 14336
  // 0.979x, 4096 x 11008 0.987x (fp16 alike); but 4104^2 (513 words in loads for 768)
  // 1.010x, hence the fill. fp32 (rows of 2048 forced through a 4-byte build of it) 16384
  // x 2048 1.005x, 32768 x 2048 0.991x: 2-byte only. Forty-seventh session, same run, three
  // rounds, bf16 row N (col T and fp16 alike): from 24 MiB, not 32, 3584^2 (24.5 MiB) 11.00
  // -> 10.50 us, 3840^2 12.40 -> 11.48; a fill of 70 %, not 75, 4352^2 (544 words in 768,
  // 71 %) 15.29 -> 14.89, 4353^2 (shifted) 18.70 -> 16.58; 4608^2-5121^2 within 1.4 %.
  index_t dot_held_x = 1;
  index_t dot_held_x_min_bytes = index_t(24) << 20;
  index_t dot_held_x_max_bytes = index_t(512) << 20;
  index_t dot_held_x_min_fill_percent = 70;
  index_t dot_held_x_long_rows = 1;
  // Its blocks an SM, 4 since the fifty-ninth session (3 before): only rows of 8 warps of
  // at most 3 words a lane (513-768 words) fit 4, the rest keep 3 or fewer. H100, same
  // binary, three passes, bf16 row N, 3 -> 4 over the sweep's orders 2048-12808: the 23
  // it moves (4352^2-6145^2) 0.986x in geometric mean, 4360^2 1.004x the slowest, 6144^2
  // 27.57 -> 26.77 us, 4616^2 16.73 -> 16.24, 5121^2 20.65 -> 20.18 (fp16 and col T alike).
  index_t dot_held_x_blocks_per_sm = 4;
  // On fast memory (fast_memory_min_gbps_per_sm; forty-eighth session, H200, same run,
  // three rounds, bf16 row N, col T alike, against all four at their old values):
  // dot_held_x_short_rows 1: rows of 129-384 words (4 warps of 2-3 words a lane) from
  // dot_held_x_short_min_bytes, two rows a round (their loads in flight together) where
  // the words a lane number at most dot_held_x_two_rows_max_k: 2304^2 5.81 -> 4.98 us,
  // 2305^2 7.09 -> 6.38, 2560^2 6.70 -> 5.16, 2561^2 7.62 -> 6.58, 3072^2 7.70 -> 6.28,
  // 3073^2 9.50 -> 7.26, 8192 x 2048 12.76 -> 9.22, 16384 x 1544 15.66 -> 13.58, 16384 x
  // 2048 18.63 -> 17.01, 65536 x 2048 65.20 -> 63.03 (with one row a round 16384 x 2048 and
  // 32768 x 2048 lost 6-7 % to dot_kernel in an earlier run, two rows gained 7-9 %; 2049^2 at 8 MiB 0-1 % slower,
  // hence the floor). dot_held_x_fast_memory_blocks_per_sm 4 (3 on the H100's memory):
  // 4352^2 12.41 -> 11.38, 5120^2 16.07 -> 14.07, 6144^2 21.55 -> 19.14, no slower
  // anywhere. dot_held_x_fast_memory_min_fill_percent 65: 4104^2 (513 words in 768)
  // 11.35 -> 10.40 (a fill of 0 changed nothing else measured). dot_held_x_4byte_max_k:
  // fp32 rows off 16-byte boundaries of 513-1280 words (8 warps of 3-5 words a lane; fp32
  // aligned rows stay on dot_kernel: held-x 13-26 % slower at 2304^2-4096^2): 2305^2 10.06 -> 7.66, 2561^2
  // 11.45 -> 8.47, 3073^2 13.64 -> 10.95, 4097^2 1.2 % and 5121^2 17 % faster with k up to
  // 5 (the same run; 5-7 words with 3 blocks an SM an earlier run: 6145^2 and 7169^2 from
  // 9 % faster to 10 % slower between runs, hence 5). Since the fifty-sixth session on the
  // H100 too (dot_held_x_4byte_any_memory), there up to 7 since the fifty-ninth
  // (dot_held_x_4byte_max_k_slow_memory, below).
  index_t dot_held_x_short_rows = 1;
  index_t dot_held_x_short_min_bytes = index_t(10) << 20;
  index_t dot_held_x_two_rows_max_k = 3;
  index_t dot_held_x_fast_memory_blocks_per_sm = 4;
  index_t dot_held_x_fast_memory_min_fill_percent = 65;
  index_t dot_held_x_4byte_max_k = 5;
  // ... on memory systems under fast_memory_min_gbps_per_sm (the H100's) up to this many
  // words a lane instead (fifty-ninth session; fast memory keeps dot_held_x_4byte_max_k,
  // whose 6-7 moved between runs there). H100, same binary, three passes, fp32 row N,
  // shifted dot_kernel (two rows a group) -> held x, 5 -> 7: 5633^2 46.12 -> 44.15 us,
  // 5889^2 49.61 -> 47.70, 6145^2 53.32 -> 51.75, 6401^2 58.30 -> 56.43, 6657^2 63.18 ->
  // 60.87, 6913^2 66.40 -> 65.19, 7169^2 71.14 -> 69.74 (0.957-0.982x; the aligned 5632^2
  // and 5888^2 43.3 and 47.0 in the same run, so 5633^2 and 5889^2 stay within 2-2.5 % of
  // them).
  index_t dot_held_x_4byte_max_k_slow_memory = 7;
  // ... and those fp32 rows on any memory system (1), with the fast-memory blocks an SM and
  // fill floor above, or on fast memory only (0, the rule before the fifty-sixth session).
  // H100 (25.4 GB/s an SM), same run, three passes, fp32 row N, the odd orders 2305^2-5121^2,
  // shifted dot_kernel (4 rows a group) -> held x (cuBLAS): 2305^2 11.05 -> 9.24 us (11.53),
  // 2561^2 12.97 -> 10.39 (12.83), 2817^2 14.31 -> 12.79 (14.75), 3073^2 16.06 -> 14.28,
  // 3329^2 17.97 -> 17.00, 3585^2 20.17 -> 19.06 (21.27), 3841^2 22.77 -> 21.97, 4097^2
  // 24.46 -> 24.34, 4353^2 29.29 -> 27.08, 4609^2 32.05 -> 30.15, 4865^2 35.59 -> 33.38,
  // 5121^2 39.76 -> 36.69: 1.093x in geometric mean, none slower. With the H100's 3 blocks
  // an SM (dot_held_x 2) 4097^2 lost 4.4 % and the rest gained less.
  index_t dot_held_x_4byte_any_memory = 1;
  // ... and, on memory systems under fast_memory_min_gbps_per_sm (not measured on fast
  // memory), aligned fp32 rows of at least dot_held_x_4byte_aligned_min_words words (8
  // warps of 6-7 words a lane, up to kHeldXMaxWords; 0: never), with the fast-memory
  // blocks an SM and fill floor. Shorter aligned rows stay on dot_kernel and the balanced
  // kernel.
  // H100, same binary, three passes, fp32 row N, the sweep's aligned orders 2048-7176
  // against dot_held_x 2 (the kernel on every one): 5632^2-7168^2 0.983x in geometric
  // mean (5632^2 44.28 -> 43.40 us, 6144^2 52.10 -> 50.97, 6912^2 65.58 -> 62.20, 6400^2
  // 1.002x the slowest), 4352^2-5384^2 within 1 % either way, 2056^2-3072^2 2-6 % slower.
  index_t dot_held_x_4byte_aligned_min_words = 1408;
  // Rows off 16-byte boundaries, or of lengths that end inside a word (the kernel's
  // kShifted: each row group the rows of one offset class, edges one element a lane): 1,
  // from dot_held_x_shifted_min_bytes (and as above); 0, never (dot_held_x 2 forces it
  // too). H100, same run, three rounds, against 0 (dot_kernel's shifted or realigned
  // rows), bf16 row N (col T and fp16 alike): 3329^2 (21 MiB, no byte floor) 11.87 -> 10.19 us,
  // 3585^2 12.70 -> 11.64, 4097^2 15.05 -> 13.95, 5121^2 23.45 -> 20.87, 8449^2 55.28 ->
  // 50.51, 10241^2 76.70 -> 71.74, 12289^2 105.98 -> 102.27, 12801^2 118.53 -> 110.83: every odd
  // order it takes, 0.86-0.965x. Not measured under 16 MiB (the smallest rows it takes,
  // 385 words, make 3080^2 at 18 MiB).
  index_t dot_held_x_shifted = 1;
  index_t dot_held_x_shifted_min_bytes = index_t(16) << 20;
  // Narrow rows (forty-ninth session; aligned rows of at most 128 16-byte words, 2- and
  // 4-byte types: dot_held_x_kernel's kL): row groups of 8-32 lanes, several a warp, 2
  // words a lane and two rows a round for rows of up to 64 words, else 4 words a lane and
  // one row (that kernel's two rows spilled at 80 registers: bf16 131072 x 512 1.24x
  // dot_kernel's time). 1, on fast memory (fast_memory_min_gbps_per_sm) from
  // dot_held_x_narrow_min_bytes where the row fills dot_held_x_narrow_min_fill_percent of
  // a row group's loads, dot_held_x_narrow_blocks_per_sm blocks an SM where they fit (3
  // measured 4-20 % slower, 6 fit no more); 2, wherever it can run (the tests); 0, never.
  // H200, same run, three rounds, against dot_kernel (cuBLAS): bf16 row N 16384 x 512
  // 11.60 -> 5.74 us (7.87), 65536 x 256 13.04 -> 9.63 (12.39), 131072 x 264 (33 words,
  // 52 % of the loads) 34.10 -> 21.89 (23.81), 65536 x 512 21.03 -> 17.28 (20.69), 131072
  // x 512 37.21 -> 34.09 (36.46), 262144 x 512 69.07 -> 65.52 (67.62), 65536 x 768 31.96 ->
  // 26.66 (28.66), 32768 x 1024 20.58 -> 19.87 (20.39); fp32 16384 x 256 10.69 -> 5.78
  // (8.57), 65536 x 256 19.50 -> 17.12 (20.95), 262144 x 512 143.7 -> 125.1 (124.7),
  // 1048576 x 128 145.0 -> 137.2 (157.0), 16384 x 512 (4 words) 10.47 -> 9.81, 131072 x
  // 512 even. A third run, 4 words a lane (bf16 row N): 8192 x 1024 8.16 -> 7.21, 12288 x
  // 1024 11.36 -> 9.02, 16384 x 768 13.49 -> 8.65, 131072 x 520 (65 words, 51 %) 49.30 ->
  // 41.79, but 16384 x 1024 11.67 -> 11.90 (1.018x in the second run, fp16 col T 1.039x),
  // the one shape measured slower. Under 8 MiB the runs' launch modes (1.4x) hid any
  // difference.
  index_t dot_held_x_narrow = 1;
  index_t dot_held_x_narrow_min_bytes = index_t(8) << 20;
  index_t dot_held_x_narrow_min_fill_percent = 50;
  index_t dot_held_x_narrow_blocks_per_sm = 4;
  // Rows of 16-31 words (2-byte 128-248 elements, fp32 64-124), which the flat kernel
  // takes, go to the narrow rows first up to dot_held_x_narrow_flat_max_bytes (with
  // dot_held_x_narrow 1 and its rules; 0: never). H200, same run, three rounds, against
  // dot_flat_kernel (cuBLAS): bf16 row N 65536 x 128 (16 MiB) 9.49 -> 5.92 us (8.61), 131072
  // x 248 (62 MiB) 20.73 -> 17.50 (21.88), fp32 131072 x 124 20.16 -> 17.36 (26.35), 262144
  // x 96 (96 MiB) 0.938x; but bf16 262144 x 192 (96 MiB) 1.007x, 524288 x 128 1.058x, 1048576
  // x 128 1.123x, fp32 1048576 x 64 1.070x: hence 64 MiB.
  index_t dot_held_x_narrow_flat_max_bytes = index_t(64) << 20;
  index_t dot_shared_x_min_rows_per_sm = 16;
  index_t dot_shared_x_max_rows_per_sm = 22;
  index_t dot_shared_x_max_bytes = index_t(16) << 20;
  index_t dot_shared_x_max_shared_bytes = index_t(96) << 10;
  index_t dot_shared_x_unroll = 4;
  index_t dot_balanced = 1;
  index_t dot_balanced_threads = 256;
  index_t dot_balanced_min_gain_percent = 10;
  // ... or, counting the round that a piece's spare words save (its words past its last
  // full round, at most one a lane, which the kernel adds at the end: bf16 8192 x 2056,
  // pieces of 257 words, 16.68 -> 15.42 us, cuBLAS 15.80), this much. The model counts
  // only how full the rounds are, not that dot_kernel's two rows a group keep twice the
  // words in flight and read x once for both: same run, three rounds, row N, dot_kernel
  // -> balanced (predicted gain with the spare words): fp32 1536^2 6.04 -> 5.01 us
  // (2.00), 2056^2 8.45 -> 7.43 (1.50), 3584^2 19.15 -> 18.28 (1.17), bf16 2816^2 8.86 ->
  // 7.72 (1.50), 3072^2 8.95 -> 8.62 (1.50), 3592^2 11.45 -> 11.11 (1.33); but bf16 4104^2
  // 13.93 -> 14.49 (1.25), 7168^2 37.34 -> 37.84 (1.17), 8200^2 49.10 -> 56.00 (1.12), fp32
  // 4104^2 24.76 -> 25.16 (1.12), 7424^2 75.78 -> 76.23 (1.11); fp16 as bf16.
  index_t dot_balanced_spare_min_gain_percent = 30;
  // ... and this much where dot_kernel would read one row a group, whose words in
  // flight and reads of x the model counts as they are (with two rows a group it
  // counts neither the doubled words in flight nor x read once for both). At 15 it
  // takes, of the sweep's shapes, 11008 x 4096 in half precision (predicted 1.20; 1376
  // blocks of one row a warp for 528 slots), rows and columns. Same run, three rounds,
  // dot_kernel -> balanced: bf16 row N 34.15 -> 33.14 us, col T (4096 x 11008) 34.16 ->
  // 33.18, fp16 33.80 -> 33.46 and 33.57 -> 33.13; three more runs, bf16 row N 34.42 ->
  // 33.54, 34.34 -> 33.54, 33.83 -> 33.23; outside the sweep bf16 row N 11008 x 2048
  // (1.20) 19.09 -> 17.70, and eleven more decode-like shapes (6144-28672 rows, 4096-28672
  // columns) keep their kernel. At 15 for two rows a group too it would also take bf16
  // 4104^2 (predicted 1.25: 14.12 -> 14.46) and 7168^2 (1.17: 37.38 -> 37.85), and fp32
  // 3584^2 (1.17: 18.75 -> 18.32).
  index_t dot_balanced_one_row_spare_min_gain_percent = 15;
  // ... and the model for dot_kernel grids of more than 3 waves: 1 counts only the
  // share of each round of loads that has words, where a thread group reads whole rows
  // (rows of 129-257 words read in rounds of 128 leave up to half of them masked); 0
  // never takes the balanced kernel there (the rule before). Same run, three rounds, row N, 0 -> 1 (cuBLAS): bf16 65536 x 1032
  // 65.70 -> 52.09 us (57.22), 16384 x 1544 23.72 -> 20.87 (22.63); fp32 65536 x 1032
  // 108.66 -> 95.16 (97.94), 16384 x 1544 38.34 -> 36.71 (44.54); another run: bf16 40000 x
  // 1032 40.85 -> 32.65 (34.94), fp32 66.8 -> 60.4 (62.6). With rows split over groups
  // it took bf16 12800^2, 12808^2 and 12040^2 as well, 2-3 % slower (hence whole rows).
  index_t dot_balanced_many_waves = 1;
  // ... and, on any GPU, every dot_kernel grid of more than 3 waves whose thread groups
  // read whole rows in at most this many rounds of loads (0: never), whatever the model
  // predicts: its blocks live a memory latency or two each, which the model's rounds do
  // not count (it predicts 0.97 at 16384 x 1024). H100, a scan first (dot_balanced=2 on 51
  // shapes, row N, three types, three passes): faster at 16384 x 1024 in every type (5-9 %)
  // and fp32 131072 x 512 (1.4 %), the grids of this class; elsewhere -5.9 to +1.4 % (fp32
  // 8192^2 2.3 % slower, bf16 1024 x 16384 5.9 %: fewer waves). As built, same binary,
  // three passes, rule off -> on (cuBLAS): bf16 16384 x 1024 (one round, 2048 blocks for
  // 528 slots) 15.03 -> 14.32 us (15.01), fp16 14.72 -> 13.97 (14.82), fp32 (two rows a
  // group, two rounds, 1024 blocks for 264) 25.28 -> 23.22 (27.67), fp32 131072 x 512 (one
  // round, 31 waves) 89.79 -> 88.58 (89.58); of the sweep's row N shapes (the trace) these
  // are the ones it moves. On fast memory these grids took it already under
  // dot_balanced_fast_memory_max_bytes.
  index_t dot_balanced_many_waves_max_rounds = 2;
  // ... and, on fast memory (fast_memory_min_gbps_per_sm), every dot_kernel grid of more
  // than 3 waves of blocks, whole rows a group or not, in a matrix under
  // dot_balanced_fast_memory_max_bytes, whatever the model predicts. The H100 SXM has
  // about 25 GB/s an SM and keeps the rules above (tuned there); on an H200 (36.5) the
  // balanced kernel beat dot_kernel at every such bf16 grid of the sweep, where the
  // model, tuned on the H100, had kept dot_kernel. Same run, three rounds, row
  // N, H200, dot_kernel -> balanced (cuBLAS), us: bf16 8704^2 46.68 -> 41.13 (45.32),
  // 9472^2 53.78 -> 44.55 (50.21), 9728^2 51.44 -> 47.34 (51.63), 10752^2 64.61 -> 57.26
  // (59.90), 12800^2 85.95 -> 80.12 (85.59), 16384 x 1024 13.85 -> 11.86 (11.81), 14336 x
  // 4096 34.82 -> 31.08 (32.39), 32000 x 4096 67.20 -> 65.42 (67.22); fp32 8456^2 74.34 ->
  // 67.52, 9728^2 91.80 -> 88.08, 131072 x 512 73.81 -> 63.89 (65.13), 16384 x 1024 19.90
  // -> 18.13. From 400 MiB fp32 lost 1-3 % (10240^2 98.98 -> 101.82, 12800^2 153.36 ->
  // 157.07, 128256 x 4096 465.71 -> 473.46), hence the cap. Grids of at most 3 waves keep
  // the model: there the balanced kernel lost on the H200 too (bf16 8192^2 34.79 -> 39.18,
  // 12288^2 73.84 -> 76.82). With the rule, the 159 sweep points it moves on the H200 (Dot
  // form, bf16, fp16, fp32) ran 1.097x faster in geometric mean, none slower by more than
  // 1 %, and on the H100 no sweep point moves. docs/PERFORMANCE.md has the comparison.
  index_t dot_balanced_fast_memory_max_bytes = index_t(384) << 20;
  // ... and where its warps' pieces of the run of words begin: on a boundary of this
  // many bytes of A (a power of 2 from 16 to 4096; 16 cuts the run into equal pieces
  // wherever they fall). Cut anywhere, half the pieces of rows of an odd number of
  // words (2-byte orders 8 past a multiple of 256) began 16 bytes into a sector, each
  // warp load of 512 bytes then 17 sectors and 5 lines. Same run, three rounds, row N,
  // 16 / 128 / 512 / 1024: bf16 5128^2 21.49 / 20.98 / 20.68 / 20.61 us, 7176^2 39.38 /
  // 38.68 / 38.19 / 37.94; rows of whole sectors too, 5888^2 26.83 / 26.73 / 26.48 /
  // 26.06; but 1024 lost on small matrices (bf16 2056^2 5.70 at 512 -> 6.03, fp32
  // 1536^2 5.10 -> 5.45). More in docs/PERFORMANCE.md.
  index_t dot_balanced_align = 512;
  // ... and, for 2-byte types, how many words a lane past its pieces' last full round it
  // reads apart (its spare words, added at the end: 1 or 2) rather than in a round of
  // their own; other types 1. The model (dot_balanced_gain) counts as many (its pieces of
  // 1344 words take 10 rounds, not 11, at bf16 11008 x 4096). Same run, three rounds, row N, before -> 1
  // -> 2 (us): bf16 4360^2 17.30 -> 17.38 -> 15.75 (4352^2: 15.02), 3080^2 9.31 -> 9.29
  // -> 8.94, 2200 x 2056 6.25 -> 6.31 -> 5.92, 4864^2 18.29 -> 18.29 -> 18.03, seven more
  // within 0.7 %; fp32 gained nowhere (3080^2 14.18 -> 14.28 -> 14.52; five more within
  // 0.4 %), hence 2-byte types only.
  index_t dot_balanced_spare_per_lane_2byte = 2;
  // Dot form: rows of at least this many 16-byte words get a full warp per row group;
  // shorter rows get 8 lanes (a 128-byte row segment per load instruction).
  index_t dot_warp_lanes_min_words = 64;
  // ... and rows of at most this many words get 4 lanes (0: never; see dot() in
  // gemv_cuda.cu).
  index_t dot_quad_lanes_max_words = 16;
  // ... and rows of at most this many words get 8 lanes where there are at least
  // dot_octet_lanes_min_rows_per_sm rows an SM (0: never; see dot() in gemv_cuda.cu).
  index_t dot_octet_lanes_max_words = 96;
  index_t dot_octet_lanes_min_rows_per_sm = 128;
  // Dot form, staged kernel: rows of at most kStagedMaxLength elements (gemv_common.cuh)
  // whose lda wastes at most this factor of the staged bytes.
  index_t staged_max_lda_over_length = 2;
  // Axpy form, vectors of at most axpy_staged_max_vector_bytes (and lda as above):
  // the staged kernel (axpy_staged_kernel) for matrices of at least
  // axpy_staged_min_bytes, and for smaller ones the TMA kernel would take (see axpy() in
  // gemv_cuda.cu).
  index_t axpy_staged_max_vector_bytes = 32;
  index_t axpy_staged_min_bytes = index_t(2) << 20;
  // ... and vectors of up to kAxpyStagedMaxLength elements that the flat kernel would
  // read one a block (odd lengths from 129), in matrices of at least
  // axpy_staged_one_group_min_bytes_2byte (2-byte types) or _4byte (4-byte types); 0:
  // never, as for 8-byte types (not measured). See axpy() in gemv_cuda.cu.
  index_t axpy_staged_one_group_min_bytes_2byte = index_t(8) << 20;
  index_t axpy_staged_one_group_min_bytes_4byte = index_t(384) << 20;
  // The staged Axpy kernel's chunk of A a block copies at a time: 16 KiB for the short
  // vectors (as the Dot form's), axpy_staged_one_group_chunk_bytes for the one-group
  // vectors above (at most 96 KiB each). Where its grid is split, who adds the splits'
  // partial sums: each tile's last block (0), a second kernel launched early after it
  // (axpy_split_sum_kernel) for every split grid (1), or for the one-group vectors' grids
  // only (2). Same run, H100, in the seventy-fifth session's A/B (tuning log): with one
  // group a block, a 16 KiB chunk is 16-54 vectors between two barriers and the last
  // block's sums of up to 1056 splits are 66 dependent rounds; 64 KiB and the second
  // kernel read bf16 65537 x 151 row T 39.1 -> 21.3 us.
  index_t axpy_staged_chunk_bytes = 16384;  // at most kAxpyStagedMaxChunkBytes (above)
  index_t axpy_staged_one_group_chunk_bytes = 65536;
  index_t axpy_staged_sum_kernel = 2;
  // The staged Axpy kernel's chunks copied through cp.async, every whole 16-byte word
  // asked for at once (stage_span_async), instead of 4 words a thread at a time in
  // registers: 0 never, 1 the one-group vectors' chunks, 2 every staged grid's. A
  // candidate (not yet measured): a 64 KiB chunk is 4 round trips to DRAM the other way.
  index_t axpy_staged_async_copy = 0;
  // ... and vectors of 129-256 elements in two groups of 128 threads a block, two outputs
  // a thread (1), instead of one group of `length` threads (0). A candidate (not yet
  // measured): one group leaves up to 127 threads idle and a thread adds every vector of
  // the chunk in turn.
  index_t axpy_staged_two_groups = 0;
  // Dot form, short rows read as one flat run of granules (dot_flat_kernel): 0 never,
  // 1 rows of dot_flat_min_row_bytes up to dot_flat_max_row_bytes in matrices of at
  // least dot_flat_min_bytes (dot_flat_min_bytes_2byte for 2-byte types), 2 wherever it
  // can (tests); dot_flat_blocks_per_sm > 0 caps the blocks an SM (0: as many as are
  // resident). See dot_flat in gemv_cuda.cu.
  index_t dot_flat = 1;
  index_t dot_flat_min_row_bytes = 8;
  index_t dot_flat_max_row_bytes = 496;
  index_t dot_flat_min_bytes = index_t(8) << 20;
  index_t dot_flat_min_bytes_2byte = index_t(1) << 20;
  index_t dot_flat_blocks_per_sm = 0;
  // Axpy form, short vectors read as one flat run of granules (axpy_flat_kernel): 0
  // never, 1 vectors of axpy_flat_min_vector_bytes up to axpy_flat_max_vector_bytes in
  // matrices of at least axpy_flat_min_bytes, 2 wherever it can (tests);
  // axpy_flat_blocks_per_sm blocks an SM (see axpy_flat in gemv_cuda.cu). Taken before
  // the staged kernel's vectors of up to axpy_staged_max_vector_bytes.
  index_t axpy_flat = 1;
  index_t axpy_flat_min_vector_bytes = 8;
  index_t axpy_flat_max_vector_bytes = 1024;
  index_t axpy_flat_min_bytes = index_t(1) << 20;
  index_t axpy_flat_blocks_per_sm = 2;
  // Both flat kernels under 1: rows (vectors) of more than kBlockThreads / 2 granules,
  // one row group a block (2- and 4-byte granules: odd lengths), only in matrices of at
  // least flat_one_group_min_bytes (by default none), 2-byte Axpy vectors of at least
  // axpy_flat_one_group_min_bytes_2byte; 0 takes them at any size (the rule before the
  // seventy-third session). Same run, H100 80GB HBM3, three rounds, flat -> the other
  // kernels (cuBLAS), row N = Dot of R rows of C, row T = Axpy of C outputs: bf16 row N
  // 4001 x 151 (1.2 MB) 9.39 -> 4.04 us (6.25), 16001 x 151 17.12 -> 5.06 (11.39), 65537
  // x 151 49.95 -> 17.58 (20.63), 4001 x 201 11.91 -> 4.37 (6.48), 16001 x 129 15.19 ->
  // 4.67 (11.46); row T 4001 x 151 13.14 -> 7.77 (8.91), 16001 x 255 21.79 -> 10.86
  // (10.53), 16001 x 129 19.28 -> 7.67 (9.71); fp32 row T 4001 x 151 12.96 -> 8.97
  // (9.32), 16001 x 151 17.71 -> 9.72 (10.56), 65537 x 151 (40 MB) 34.49 -> 21.62 (20.21),
  // 65537 x 255 (67 MB) 40.63 -> 39.05 (27.75). But bf16 row T from 20 MB ran faster
  // flat: 65537 x 151 39.16 against 46.85, 65537 x 255 42.17 / 48.94, hence 16 MiB for
  // 2-byte Axpy vectors. From 64 MiB too the other kernels read the Dot form's rows and
  // 4-byte Axpy vectors faster (seventy-fourth session, same run, three rounds, flat ->
  // without): bf16 row N 262145 x 151 187.8 -> 65.1 us, 1048577 x 201 973.1 -> 267.6;
  // fp32 row T 262145 x 151 101.4 -> 68.3, 262145 x 255 125.1 -> 107.7; 1048577 x 201
  // 418.4 -> 427.2 the one loss (2 %; 424 -> 447 in the next run). Hence no size (the largest
  // index_t) by default.
  index_t flat_one_group_min_bytes = std::numeric_limits<index_t>::max();
  index_t axpy_flat_one_group_min_bytes_2byte = index_t(16) << 20;
  // ... but in one matrix of at least axpy_tma_split_min_bytes, aligned vectors longer
  // than this go to the TMA kernel's splits one block an SM first (axpy_tma_split_wide).
  // Same run, three rounds, row T, 1024 (flat up to 1 KiB) -> 128 (cuBLAS): bf16 131072 x
  // 512 60.70 -> 49.05 us (49.42), 65536 x 256 21.47 -> 17.70 (18.18), 1048576 x 128
  // 97.29 -> 94.49 (96.86), 262144 x 128 30.40 -> 29.39 (31.15); fp32 65536 x 256 32.01
  // -> 27.81 (28.25), 1048576 x 128 186.3 -> 178.5 (191.4), 1048576 x 64 96.2 -> 93.6,
  // 1048576 x 40 (160 bytes) 64.8 -> 63.8; an earlier run: bf16 262144 x 512 106.6 ->
  // 91.3 (94.1), 100000 x 256 27.5 -> 23.0 (23.5). Vectors of 80 bytes lost on TMA (64:
  // bf16 1048576 x 40 36.8 -> 49.6); 128 bytes even (bf16 1048576 x 64 53.3 -> 52.6).
  index_t axpy_flat_large_max_vector_bytes = 128;
  // ... except, on fast memory (fast_memory_min_gbps_per_sm), vectors of at most 256
  // bytes in matrices of at least axpy_flat_fast_memory_256_min_bytes, which stay on the
  // flat kernel (forty-ninth session; 0: never). H200, two runs of three rounds, row T,
  // TMA splits -> flat (cuBLAS): bf16 1048576 x 128 71.36 -> 69.36 us (70.16) and 71.34 ->
  // 69.38 (69.28), 1572864 x 128 104.96 -> 101.02, 2097152 x 128 137.86 -> 131.01 (132.43),
  // fp16 col N 128 x 2097152 137.57 -> 131.36 (132.08), fp32 1048576 x 64 70.54 -> 68.42,
  // 2097152 x 64 135.82 -> 130.77; 786432 x 128 (192 MiB) 0.991x, but 524288 x 128 1.018x,
  // 393216 x 128 1.042x, 262144 x 128 1.064x (the H100's 128-byte bound above holds there).
  index_t axpy_flat_fast_memory_256_min_bytes = index_t(192) << 20;
  // Dot form, staged kernel: tiles shrink (to no fewer than half a row per thread) until
  // the grid has this many blocks per SM (0: always whole tiles).
  index_t staged_blocks_per_sm = 4;

  // Axpy form: each thread group handles at least this many stored vectors per split.
  index_t axpy_min_vectors_per_group = 16;
  // ... for 2-byte types from axpy_long_splits_min_bytes up (fewer, longer splits: bf16
  // 4096 x 14336 row T 48.4 -> 43.6 us, 4096^2 16.5 -> 15.7 us, the rest within 1 %;
  // below 32 MiB slower, 2056^2 bf16 by 22 %; fp32 3072^2 lost 3 %).
  index_t axpy_min_vectors_per_group_2byte = 32;
  index_t axpy_long_splits_min_bytes = index_t(32) << 20;
  // ... and for unaligned vectors (odd lda) of matrices from axpy_small_matrix_bytes up
  // to axpy_long_splits_min_bytes (more, shorter splits: one or two rounds of loads a
  // group). 8 against 16, same run: fp32 1537^2 11.2 -> 9.2 us, 2049^2 12.4 -> 11.0, bf16
  // 2049^2 9.7 -> 8.5, 2305^2 10.2 -> 9.0; fp32 3073^2 (37 MiB) lost 15 % with it.
  index_t axpy_min_vectors_per_group_unaligned_short = 8;
  // ... and for matrices under axpy_small_matrix_bytes, which take a few microseconds
  // and are latency-bound: more, shorter groups; 8 vectors (one round of loads) rather
  // than a split, whose handshake costs about 2 us.
  index_t axpy_small_matrix_bytes = index_t(8) << 20;
  index_t axpy_small_min_vectors_per_group = 8;
  // Axpy form from axpy_small_matrix_bytes up: 1 takes more splits where that leaves the
  // groups fewer rounds of loads in the same number of waves (see axpy() in
  // gemv_cuda.cu), 0 keeps the splits that fill the waves best. Same run, three rounds:
  // fp32 1537^2 9.61 -> 9.11 us (23 -> 25 splits, 3 -> 2 rounds), 1793^2 10.21 -> 9.57;
  // 70 other odd and large orders and LLM shapes (fp32, fp64, bf16) unchanged within 0.6 %.
  index_t axpy_whole_rounds = 1;
  // Axpy form: lanes along a long stored vector (32: a warp reads 512 bytes of each
  // column; more lanes read longer contiguous pieces with fewer groups per block).
  index_t axpy_lanes = 32;
  // Axpy form, matrices under axpy_small_matrix_bytes: lanes halved down to 4 while
  // the tiles give fewer than axpy_blocks_per_sm blocks per SM.
  index_t axpy_blocks_per_sm = 2;
  // Axpy form, aligned vectors of small matrices: 16-byte words in flight per thread
  // (4 or 8; fewer when a group has fewer vectors).
  index_t axpy_unroll = 8;
  // ... 1: their last, masked round of 8 (types up to 4 bytes; the aligned 2-byte kernels
  // with 8 in flight on fast memory too) waits for every load before its first multiply and
  // selects its sums instead of branching past the vectors beyond the end (axpy_kernel's
  // kMaskedSelect); 0: the branch, into which ptxas sank the second vector's load (two
  // memory latencies for the round, SASS). H100, sixty-sixth session, same run, three
  // passes, col N, main against a first build in which every round of 8 waited so (cuBLAS):
  // the orders with a masked round faster, bf16 264^2 4.08 -> 3.71 us (5.79), 392^2 4.14 ->
  // 3.73, 520^2 4.63 -> 3.94 (5.32), 648^2 4.72 -> 4.02, 264 x 1032 5.31 -> 4.60 (5.16),
  // 1032 x 264 4.10 -> 3.67; fp32 257^2 3.85 -> 3.44, 385^2 4.09 -> 3.62, 513^2 4.80 -> 4.45
  // (4.69), 641^2 5.52 -> 5.17, 769^2 5.89 -> 5.62; but the orders without one slower (bf16
  // 256^2 2.98 -> 3.19, 512^2 3.07 -> 3.25; fp32 256^2 2.82 -> 3.04, 512^2 3.28 -> 3.45;
  // fp32 520^2-648^2, where the TMA kernel should run, 8-15 %: perhaps drift between the two
  // processes, as at fp32 129^2 and 136^2, rounds of 4, 4-6 %), and the aligned fp32 kernel
  // took 80 registers instead of 64. Hence the masked round alone (ptxas, sm_90: aligned
  // fp32 64 registers as without it, realigned fp32 128 -> 121, aligned bf16 127 -> 123, but
  // aligned bf16 with fp32 x 78 -> 110, 3 blocks an SM -> 2, and interleaved 2-byte, which
  // only a policy asks for, 172 -> 247). H100, sixty-eighth session, that build for every
  // round of 8 (tests and memcheck clean), same run, three passes, col N (cuBLAS in the
  // same process): the masked orders faster in every pass, bf16 520^2 4.63 -> 3.93 us
  // (8.29), 648^2 4.75 -> 4.07, 264 x 1032 5.30 -> 4.69, 1032 x 264 4.54 -> 3.63; fp32
  // 641^2 5.39 -> 5.07, 769^2 5.89 -> 5.58, 1025^2 7.52 -> 7.35; but in the one pass where
  // cuBLAS ran at its fastest (drift between passes moved both by up to 25 %) the orders
  // without a masked round slower, bf16 256^2 3.39 -> 3.65, 384^2 3.46 -> 3.61, 1024^2
  // 3.82 -> 4.04. So 1: only where a group has a masked round of 8 (masked_select_pays in
  // gemv_cuda.cu). That rule, also held to the other kernel's blocks per SM, against main
  // (same run, three passes, fastest pass each, both layouts and ops): fp32 Axpy 257^2 3.81
  // -> 3.40 us, 385^2 3.98 -> 3.55, 513^2 4.64 -> 4.28, 641^2 5.50 -> 5.01, 769^2 5.87 ->
  // 5.54; bf16 520^2 4.61 -> 4.64, where the hold chose the other kernel (fp32 x); the
  // points whose kernel did not change 3-10 % apart either way, cuBLAS alike (the new
  // library's processes ran in a slower state). Hence the hold for large matrices (their
  // grids are sized for the other kernel's blocks), and for small ones only as far as the
  // waves of their grids. That rule, sixty-ninth session (H100, one process, `--variant`,
  // 3 rounds, 128^2-1032^2, 264 x 1032, 1032 x 264): wherever 2 beat 0 by more than 3 %
  // the default read as 2 did (bf16 520^2 3.92 us against 4.68 with 0 and 3.96 with 2,
  // 264 x 1032 4.68 / 5.31 / 4.69; fp32 641^2 5.21 / 5.51 / 5.24); the CUDA suite and
  // memcheck clean. 0: never; 2: every grid with 8 in flight of types up to 4 bytes (tests).
  index_t axpy_masked_select = 1;
  // ... and of matrices from axpy_small_matrix_bytes up (4 or 8).
  index_t axpy_large_unroll = 4;
  // ... but 8 for 8-byte types (fp64) from this many bytes of matrix (0: never). Same
  // run, three rounds, fp64 Axpy form (fortieth session), the sweep's points from 80 MiB
  // (4 -> 8 where they are aligned and on this kernel): H100 1.011x (row T) and 1.012x
  // (col N) over 145 points each, 142 faster by more than 1 %, 4 slower (4608^2 61.4 ->
  // 63.8 us, 40 x 1048576 119.1 -> 120.5), 6912^2 133.2 -> 128.4 (cuBLAS 125.6), 8192^2
  // 184.4 -> 179.7 (178.8), 2056 x 8192 49.9 -> 48.0; H200 1.039x over the 212 aligned
  // points, 166 faster, 3 slower (4608^2 47.9 -> 48.6), 6912^2 100.2 -> 93.5 (87.3),
  // 12288^2 284.7 -> 271.8 (268.3). At 8 MiB and up (axpy_large_unroll=8) 2304^2-2824^2
  // lost 1-3 % on the H100, hence the floor. Odd lda is axpy_large_unaligned_unroll's.
  index_t axpy_large_unroll_8byte_min_bytes = index_t(80) << 20;
  // ... and for fp16 with 4 in flight, 1: the kernel held to 64 registers, 4 blocks per SM
  // as bf16's (60 registers) takes by itself; 0: ptxas' choice, 77-79 registers (fp16's
  // conversions keep more registers than bf16's shifts), 3 blocks per SM. Same run, three
  // rounds, 0 -> 1 (cuBLAS), fp16 row T: 16 x 1048576 16.46 -> 14.37 us (23.56; bf16
  // 14.33 in the run before), 512 x 131072 50.10 -> 46.35 (50.60), 40 x 1048576 33.60 ->
  // 30.93, 1032 x 65536 49.62 -> 48.56 (48.48), col N 128256 x 4096 351.0 -> 343.0
  // (354.2); 13 of the 16 sweep shapes it moves 2-13 % faster, 3 within 1.3 %.
  index_t axpy_aligned_fp16_held = 1;
  // Axpy form, unaligned vectors (two loads a word) from axpy_small_matrix_bytes up
  // (4 or 8). 8, same run: fp32 1537^2 11.3 -> 10.0 us, 2049^2 12.5 -> 11.8, 4609^2
  // 37.4 -> 35.3, but 3073^2 19.2 -> 21.6, 6401^2 65.7 -> 73.4; bf16 within 4 %.
  index_t axpy_large_unaligned_unroll = 4;
  // Axpy form, unaligned vectors (two loads a word) of small matrices, 4- and 8-byte
  // types (4 or 8; 2-byte types: the next value). Same run, 8 against 4: fp32 513^2 5.01 ->
  // 4.19 us, 769^2 6.32 -> 5.29, 1025^2 8.71 -> 8.08, 1281^2 10.40 -> 9.96; with 8,
  // bf16 was 0-11 % slower and fp16 -6 to +48 % (1537^2 8.7 -> 12.9).
  index_t axpy_small_unaligned_unroll = 8;
  // ... and for 2-byte types (4 or 8). 8 against 4, same run (with two lanes a group
  // where that leaves fewer rounds): fp16 769^2 4.8 -> 4.1 us, 1793^2 9.2 -> 8.3, but
  // bf16 1281^2 7.1 -> 8.5, 1537^2 8.0 -> 9.3, 257^2 3.0 -> 3.7-4.5.
  index_t axpy_small_unaligned_unroll_2byte = 4;
  // Axpy form, unaligned vectors (odd lda): 0 reads each thread's V outputs as the two
  // aligned 16-byte words around them, realigned in registers; 1 (4- and 8-byte types)
  // or 2 (every type) has each thread own every lanes-th output instead, one element a
  // load, so that a warp's load reads consecutive elements at any alignment. 1 against
  // 0, same run, two rounds, column-major N: fp32 3585^2 26.6 -> 22.9 us, 4609^2 37.5 ->
  // 34.3, 5889^2 58.0 -> 52.8, fp64 1793^2 17.1 -> 13.7, 3585^2 45.2 -> 40.0 (1.043x over
  // 35 odd orders 513-12801), but fp32 1537^2 9.2 -> 9.7, 6145^2 56.7 -> 58.0; 2-byte
  // types 2-15 % slower with it (bf16 4097^2 18.0 -> 20.8: eight 2-byte loads a word).
  index_t axpy_interleave_unaligned = 1;
  // ... where a tile has at least this many lanes (with fewer, the small matrices',
  // a load reads a run of 8-64 bytes).
  index_t axpy_interleave_min_lanes = 32;
  // Axpy form, the narrow kernel (axpy_narrow_kernel: tiles of 16 or 32 outputs, one a
  // thread, axpy_narrow_threads threads a block, axpy_narrow_unroll vectors in flight a
  // thread, each block walking all of its split of the vectors): 0 never; 1 in matrices
  // of axpy_narrow_min_bytes up to axpy_narrow_max_bytes with unaligned vectors, or
  // aligned ones of 8-byte types (and of 4-byte types up to
  // axpy_narrow_aligned_4byte_max_bytes, by default none), where tiles of 16 outputs
  // (else of 32, for 4-byte types) fit one wave of block slots and fill at least
  // axpy_narrow_min_fill_percent of them (unaligned vectors in matrices of at most
  // axpy_narrow_low_fill_max_bytes: axpy_narrow_low_fill_percent); 2 wherever the
  // register Axpy kernel would run (tests). Aligned vectors of 2-byte types by
  // axpy_narrow_aligned_2byte's rule (by default none), with the unaligned vectors'
  // fill floors.
  // axpy_narrow_lanes 16 or 32 fixes the tile,
  // axpy_narrow_splits the splits (0: as many as keep one wave of blocks, each group at
  // least a round of loads). Figures in axpy_narrow (gemv_cuda.cu).
  index_t axpy_narrow = 1;
  index_t axpy_narrow_min_bytes = index_t(2) << 20;
  index_t axpy_narrow_max_bytes = index_t(96) << 20;
  index_t axpy_narrow_min_fill_percent = 70;
  // ... but for 8-byte types at most this (100: the floors above). Same run, three
  // rounds, fp64 row T on the H100 (fortieth session), the floors above -> any fill
  // (cuBLAS): 1024^2 (48 % of the slots) 6.66 -> 5.48 us (6.10; the TMA kernel before),
  // 1025^2 8.61 -> 6.12 (7.08; the interleaved register kernel), 1288^2 9.00 -> 7.85
  // (8.62), 640^2 (30 %) 5.07 -> 4.04 (5.09), 768^2 5.27 -> 4.54 (5.90), 520^2 (25 %) 4.96
  // -> 3.80 (5.35); 512^2 (24 %) and the orders from 1536^2 (fill above 70 %) even.
  index_t axpy_narrow_8byte_min_fill_percent = 20;
  index_t axpy_narrow_low_fill_percent = 50;
  index_t axpy_narrow_low_fill_max_bytes = index_t(32) << 20;
  // ... and, under the fill floors above down to axpy_narrow_short_min_fill_percent and from
  // axpy_narrow_short_min_bytes (under axpy_narrow_min_bytes too), unaligned vectors of types
  // up to 4 bytes whose tiles are short: a block's tile (vectors x lanes x element) at most
  // axpy_narrow_short_max_tile_bytes (0: never). There the register kernel spread its splits
  // over every SM and still took longer: its small grids (bf16 1025^2: 65 blocks of 2-lane
  // tiles) ran 6.3 us a call queued back to back against 5.4 with the stream idle between
  // calls (the host probe, seventy-second session). H100, same run, three rounds, col N,
  // register kernel -> narrow (outputs x vectors; fill of 132 slots, tile bytes): bf16 1025^2
  // (49 %, 33 KiB) 6.14 -> 3.73 us, 897^2 5.75 -> 3.64, 641^2 4.24 -> 3.38, 769^2 4.41 ->
  // 3.56-4.06, 513^2 (0.5 MiB) 4.73 -> 2.74-4.75, 1025 x 2049 (64 KiB) 6.67 -> 5.11, 769 x
  // 4097 (37 %, 128 KiB) 8.32 -> 7.84; fp32 1025^2 7.32 -> 4.01, 769^2 5.56 -> 3.73, 513^2
  // 4.88 -> 2.78, 1025 x 2049 (128 KiB) 8.21 -> 5.78; fp16 as bf16; 257^2 and 385^2 within
  // 3 %. Longer tiles lost: fp32 769 x 4097 (256 KiB) 9.02 -> 9.45, bf16 1025 x 8193 (256 KiB)
  // 10.16 -> 13.37, 513 x 16385 13.01 -> 22.26.
  // The rule as first committed (b06380e), then, same session, H100, same run, three rounds,
  // against it off: 20-25 of 60 points a type 1.06-1.80x faster (fp32 row T 2049 vectors of
  // 301 outputs, 19 tiles, 14 % of the slots, 128 KiB, 7.49 -> 4.83 us; 1281 x 701 col N 6.47
  // -> 4.26 bf16), but 2-byte row T 4001 vectors of 101 outputs (7 tiles, 5 %, 125 KiB) 6.08
  // -> 7.11: hence no fewer tiles than axpy_narrow_short_min_fill_percent of the slots.
  // Seventy-third session, same run, three rounds, the floor at 10 % against none: bf16 row
  // T 4001 x 101 (7 tiles) 7.16 -> 6.15 us, fp16 7.15 -> 6.08, but 2049 x 161 (11 tiles of
  // 16 outputs, 8.3 %) 4.83 -> 5.76 (bf16; fp16 4.76 -> 5.77), other points within 3 %:
  // hence 8 %, between the two. As 8 (seventy-fourth session, same run, against 10 %):
  // 2049 x 161 row T 4.82 against 6.19 us (fp32) and 5.79 (bf16); 4001 x 101 even.
  index_t axpy_narrow_short_max_tile_bytes = index_t(192) << 10;
  index_t axpy_narrow_short_min_bytes = index_t(512) << 10;
  index_t axpy_narrow_short_min_fill_percent = 8;
  index_t axpy_narrow_threads = 512;
  index_t axpy_narrow_lanes = 0;
  index_t axpy_narrow_unroll = 16;
  index_t axpy_narrow_splits = 1;
  // ... for aligned vectors of 2-byte types (which the TMA kernel would read): 0 never,
  // 1 where lda * sizeof(TA) is not a multiple of 128 bytes (rows that miss lines) in
  // matrices of at most axpy_narrow_aligned_2byte_max_bytes, 2 always. Same run, three
  // rounds, row T, TMA -> narrow (cuBLAS), bf16 (fp16 alike): 1544^2 5.50 -> 5.37 us
  // (8.9), 1800^2 6.60 -> 5.72 (8.6), 2056^2 7.93 -> 6.75 (7.66), 2064^2 7.42 -> 6.56
  // (7.82), 2080^2 7.52 -> 6.69 (7.70), 2104^2 7.91 -> 7.34 (7.82); on 128-byte rows the
  // TMA kernel's 4-word tiles hold their own (2048^2 6.05 against 6.30; 1536^2 5.13
  // against 4.80, 1792^2 even; below 2 MiB both are host-bound). Taller matrices, same
  // run, three rounds: 2048 x 2056 7.83 -> 6.41, 3072 x 2056 9.84 -> 8.35, 4096 x 1800
  // 9.78 -> 9.63; above 16 MiB mixed: 8192 x 2056 20.2 -> 18.0 and 16384 x 2056 36.4 ->
  // 33.0 (against the TMA kernel's 33 unsplit tiles), but 8192 x 1800 16.2 -> 16.9, 8192
  // x 2080 16.0 -> 17.8, 16384 x 1544 27.8 -> 28.8. Since then the TMA kernel (early
  // launch, rings) beats the narrow one there, hence 0: H100, sixty-third session, same
  // library (fe0181dd), same run, three passes, bf16 col N, 1 -> 0 (cuBLAS, one pass):
  // 1544^2 5.30 -> 5.05 us (7.69), 1800^2 5.96 -> 5.78 (6.74), 2056^2 6.83 -> 6.66 (7.44),
  // 2064^2 6.70 -> 6.07 (7.49), 2080^2 6.89 -> 6.11 (7.50), 2056 outputs x 3072 vectors
  // 8.55 -> 8.29 (10.20), 1800 x 4096 9.78 -> 9.33 (10.98); fp16, sixty-fourth session, as
  // built: 6 of the 7 faster (2064^2 6.68 -> 6.03, 2080^2 6.82 -> 6.02), 2056^2 6.77 -> 6.84.
  index_t axpy_narrow_aligned_2byte = 0;
  index_t axpy_narrow_aligned_2byte_max_bytes = index_t(16) << 20;
  // ... and aligned vectors of 4-byte types only in matrices of at most this many bytes
  // (0: never; the TMA kernel reads them). H100, sixty-third session, same run, three
  // passes, fp32 col N, narrow -> TMA (cuBLAS, one pass): 1536^2 5.90 -> 5.35 us (6.96),
  // 1544^2 6.26 -> 5.78, 1792^2 7.08 -> 6.45, 1800^2 7.20 -> 6.88, 2048^2 8.09 -> 7.84
  // (9.61), 2056^2 8.48 -> 8.37, 3072^2 15.32 -> 14.63 (15.69), 3080^2 16.07 -> 15.10,
  // 3584^2 19.62 -> 19.08, 3592^2 20.49 -> 19.59 (20.15), 3840^2 22.21 -> 21.46, 3848^2
  // 23.15 -> 22.14 (22.69), 4096^2 24.41 -> 24.16 (24.29), 4104^2 25.60 -> 24.66 (25.63),
  // 2048 x 8192 25.34 -> 24.38, 3072 x 6144 28.55 -> 27.12. The narrow kernel had beaten
  // the TMA kernel at aligned orders when it came (axpy_narrow in gemv_cuda.cu), before the
  // TMA kernel's early launch and ring rules. Fewer vectors than outputs, outputs x
  // vectors (same session, another run): 1536 x 700 4.90 -> 3.82, 1792 x 1200 5.79 ->
  // 5.23, 3072 x 1500 8.82 -> 8.49, 2048 x 512 3.78 -> 3.82, but 4096 x 1024 7.67 -> 7.90
  // (cuBLAS 9.01), the one shape measured slower.
  index_t axpy_narrow_aligned_4byte_max_bytes = 0;
  // ... and 1: x read as 16-byte words where it is contiguous and aligned, each thread
  // group taking axpy_narrow_unroll consecutive vectors a round; 0: one load of x a vector
  // (same run, col N, 0 -> 1: fp32 1281^2 6.28 -> 5.51 us, 2049^2 9.70 -> 9.17, bf16 1793^2
  // 7.31 -> 6.45; from 2817^2 within 0.5 %).
  index_t axpy_narrow_x_words = 1;
  // ... and 1: a split's vectors past its last whole round of loads, where they number at
  // most one a thread group (the odd and +8 orders' 1-8 past a multiple of 256 or 512),
  // read with the groups' first round, not in a round of their own that every group waits
  // for at the reduction; 0: their own round (figures in axpy_narrow, gemv_cuda.cu).
  index_t axpy_narrow_fold_tail = 1;
  // ... and, with axpy_narrow_unroll 16, a split's whole rounds in two register buffers, the
  // next round's loads issued before the current round's multiplies wait for its data
  // (axpy_narrow_kernel's kPipelined; fp32 111 -> 120 registers, still one block an SM): 0
  // never (each round's loads, then its multiplies, none in flight while a thread
  // multiplies), 1 for 4-byte types in tiles of 32 outputs, 2 always (tests). H100,
  // sixty-sixth session, same run, three passes, fp32 col N, main's narrow kernel -> 2
  // (cuBLAS; the refactored kernel at 0 within 1 % of main's but 1537^2 and 2049^2, 1.6 and
  // 2.7 % faster): tiles of 32 2305^2 11.68 -> 11.61 us (12.11), 2561^2 13.29 -> 13.15
  // (13.12), 2817^2 14.73 -> 14.58 (14.33), 3073^2 16.46 -> 16.31, 3329^2 18.52 -> 18.27,
  // 3585^2 20.67 -> 20.39 (20.10), 3841^2 23.35 -> 23.02 (22.60), 4097^2 26.05 -> 25.63
  // (25.49); tiles of 16 mixed (1281^2 5.44 -> 5.54, 1537^2 6.25 -> 6.05, 1793^2 7.29 ->
  // 7.42, 2049^2 8.63 -> 8.18); bf16 1281^2-6145^2 within 1 % but 1281^2 (+3.4 %), 1793^2
  // (+2.4 %), 2049^2 (-3.5 %). Every point of that A/B matched the reference. Sixty-eighth
  // session (H100, same run, two passes, col N, 0 -> 1; tests of 2 and memcheck clean):
  // fp32 geometric mean 0.993 over 1281^2-4097^2 odd orders, 5 faster by more than 1 %,
  // none slower, 2561^2 13.26 -> 13.09 us (13.21), 3585^2 20.69 -> 20.36 (20.09), 3841^2
  // 23.31 -> 22.99 (22.47); bf16 (not pipelined by rule 1) within 1.5 %.
  index_t axpy_narrow_pipelined = 1;
  // Axpy form, realigned vectors (odd lda) of 4- and 8-byte types with 4 in flight,
  // matrices from axpy_small_matrix_bytes up: the kernel held to 80 registers (3 blocks
  // per SM) from this size, and wherever tiles have more than 32 lanes (figures above
  // held_for in gemv_cuda.cu). 2-byte types take the held kernel at every size.
  index_t axpy_realigned_held_min_bytes = index_t(32) << 20;
  // ... and where such a grid (the held copy with 4 in flight: 2-byte types at every size)
  // over a matrix of axpy_small_matrix_bytes up to axpy_sum_max_bytes is split
  // axpy_sum_min_splits ways or more in one wave filling at most axpy_sum_max_fill_percent
  // of its block slots, its tiles' partial sums added by a second kernel launched early
  // after it (axpy_split_sum_kernel, as axpy_tma_sum_kernel does for the TMA kernel's
  // split grids) instead of by each tile's last block (1); every split grid of that copy
  // (2, for the tests); never (0). H100, seventy-first session, same run, three rounds,
  // col N, 0 -> 2 (us): bf16 2561^2 (31 splits, 341 blocks for 396 slots: 55 SMs hold two
  // of the held kernel's blocks, room for the second kernel's) 9.04 -> 8.33 (again in
  // another call, row T too: 9.01 -> 8.37, 9.02 -> 8.36), fp16 9.11 -> 8.31, bf16 2305^2
  // 7.80 -> 7.70 (row T 7.59); but where the grid fills 94-100 % of the slots, the second
  // kernel's blocks start only as the first's retire: bf16 2817^2-6145^2 1.005-1.017x
  // the time (3073^2 30 splits, 390 blocks: 10.98 -> 11.08), 8193^2 (396 blocks) 47.88 ->
  // 48.31, fp16 alike; 12801^2 (three waves) 113.23 -> 111.88 (not taken: over 64 MiB).
  index_t axpy_sum_kernel = 1;
  index_t axpy_sum_min_splits = 5;
  index_t axpy_sum_max_bytes = index_t(64) << 20;
  index_t axpy_sum_max_fill_percent = 90;
  // Axpy form, aligned A and contiguous aligned x, matrices of axpy_tma_min_bytes up to
  // axpy_tma_max_bytes (axpy_tma_max_bytes_2byte for 2-byte types): the TMA kernel
  // (axpy_tma_kernel), which keeps axpy_tma_stages boxes of 16 KiB in flight per block
  // (4: 3 blocks per SM; 6 measured up to 8 % slower, bf16 6408^2 33.2 against 30.5 us;
  // 8 no better) and splits the reduction only when the tiles leave most SMs idle, each
  // split at least axpy_tma_min_stages_per_split stages; axpy_tma_words (4, 8 or 16)
  // fixes the tile width, 0 chooses it (see axpy_tma in gemv_cuda.cu). Against the
  // register kernel, graph replay: fp32 1024^2 6.2 -> 4.1 us, bf16 2048^2 8.1 -> 5.7,
  // bf16 6408^2 35.0 -> 30.5, bf16 7680^2 (112 MiB) 43.5 -> 40.6; below 1 MiB even.
  // Axpy form, unaligned vectors (lda not a multiple of 16 bytes, or A off a 16-byte
  // boundary) through the TMA kernel, realigned in shared memory (one tensor map per
  // class of vectors, gemv_axpy_tma.cuh) from axpy_tma_unaligned_min_bytes, where aligned
  // vectors would take it (the large-matrix rule): 1 for 4- and 8-byte types, 2 for
  // every type, 0 never; 8-byte types from the smaller of axpy_tma_unaligned_min_bytes
  // and axpy_tma_unaligned_min_bytes_8byte. Figures in axpy() (gemv_cuda.cu).
  index_t axpy_tma_unaligned = 1;
  index_t axpy_tma_unaligned_min_bytes = index_t(96) << 20;
  index_t axpy_tma_unaligned_min_bytes_8byte = index_t(56) << 20;
  // ... on fast memory 4-byte types only where the tiles number
  // axpy_tma_unaligned_fast_memory_min_tiles_percent to ..._max_tiles_percent of the SMs
  // (min 0: no limit). A block, one tile, reads about 33 GB/s (fp32 5121^2, 81 tiles:
  // 2.7 TB/s), which below about 0.8 tiles an SM leaves an H200's DRAM short. H200, same
  // run, three rounds, fp32 row T, classes -> register kernel (cuBLAS): 5121^2 (81 tiles)
  // 39.00 -> 32.31 us (32.90), 5633^2 (89) 42.60 -> 36.82 (37.48), 6145^2 (97) 46.23 ->
  // 42.76 (42.41), 6657^2 (105) 49.90 -> 48.02 (48.18), 8449^2 (133) 79.65 -> 74.32
  // (90.27); kept: 6913^2 (109) 51.90 against 52.83, 7681^2 (121) 59.44 against 62.83,
  // 8193^2 (129) 67.70 against 69.26.
  index_t axpy_tma_unaligned_fast_memory_min_tiles_percent = 82;
  index_t axpy_tma_unaligned_fast_memory_max_tiles_percent = 100;
  index_t axpy_tma_min_bytes = index_t(1) << 20;
  index_t axpy_tma_max_bytes = index_t(120) << 20;
  index_t axpy_tma_max_bytes_2byte = index_t(120) << 20;
  index_t axpy_tma_stages = 4;
  index_t axpy_tma_min_stages_per_split = 4;
  // ... and splits wherever the tiles number under axpy_tma_split_max_tiles_percent of
  // the SMs in matrices of at least axpy_tma_split_min_bytes (0: only where they number
  // under a quarter of the SMs). 26 % takes the 33 tiles of 8 words that vectors of
  // 2049-2112 2-byte elements make on 132 SMs, one block each before. Same run, three
  // rounds, row T, not split -> split (cuBLAS), the final code: bf16 8192 x 2056 20.44 ->
  // 18.76 us (16.79), 16384 x 2056 37.03 -> 30.01 (28.68), 32768 x 1032 (33 tiles of 4
  // words) 52.01 -> 35.61 (30.10); fp16 alike; 2056^2, 4096 x 2056, 4096^2, 16384 x 2112
  // and fp32 unchanged. Not taken (an earlier run, three rounds): splits from 16 MiB
  // (4096 x 2056 12.08 -> 13.04); up to all the SMs' worth of tiles (100 %): squares
  // 20-40 % slower (bf16 4096^2, 128 tiles, 15.18 -> 20.88, fp32 4608^2 31.44 -> 35.35);
  // up to half (50 %): fp32 16384 x 1024 (64 tiles) 26.32 -> 30.80, bf16 8192 x 2080
  // 15.88 -> 20.99, 2904^2 10.33 -> 13.48.
  index_t axpy_tma_split_min_bytes = index_t(32) << 20;
  index_t axpy_tma_split_max_tiles_percent = 26;
  // ... where that rule splits (matrices from axpy_tma_split_min_bytes), 1 reads tiles
  // of 8 words where the chosen width's tiles are that few or the vectors straddle
  // sectors (lda * sizeof(TA) an odd multiple of 16), counts the tiles at that width and
  // takes as many splits as leave axpy_tma_split_blocks_per_sm blocks an SM (cuBLAS's
  // layout for these shapes: one block an SM, split-K); 0 keeps the chosen width and
  // fills the block slots (the rule before, which overshot them: 416 blocks for 396 at
  // bf16 16384 x 1024). Same run, three rounds, row T, 0 -> 1 (cuBLAS): bf16 16384 x
  // 1024 21.15 -> 17.76 us (16.74), 16384 x 1544 28.99 -> 25.36 (23.57; 49 tiles of 4
  // words, unsplit before), 8192 x 2056 18.69 -> 17.47 (16.68), 65536 x 1032 68.59 ->
  // 52.25 (56.04; the register kernel before: its 4-word tiles were too narrow for the
  // large-matrix rule); an earlier run: 16384 x 2056 29.80 -> 28.38 (28.61), 32768 x
  // 1032 35.39 -> 29.87 (30.21); fp16 alike; fp32 32768 x 512 31.74 -> 28.26 (32.15).
  // Not taken: 8-word splits where 4-word tiles are not few (fp32 16384 x 1024, 64
  // tiles: 26.3 -> 28.2; 8192 x 1024 15.0 -> 17.3), 2 blocks an SM (16384 x 2056 28.4 ->
  // 33.1, 65536 x 1032 52.3 -> 62.2), 6 or 8 stages (mixed: 16384 x 1024 17.8 -> 17.1,
  // 65536 x 1032 52.3 -> 56.2), from 8 MiB (2048^2, 32 tiles of 8 words, 6.0 -> 9.3).
  index_t axpy_tma_split_wide = 1;
  index_t axpy_tma_split_blocks_per_sm = 1;
  // ... and on fast memory (fast_memory_min_gbps_per_sm) 2-byte vectors read there in
  // tiles of 16 words where those tiles are few too, at least
  // axpy_tma_split_16word_min_tiles of them, and not sent to the register kernel by
  // axpy_tma_large_16word_fast_memory (1; 0: 8 words). H200, same run, three rounds, row
  // T, 8 -> 16 words (cuBLAS), the 16 sweep points it moves 1.027x, none slower: bf16
  // 8192 x 2056 14.72 -> 13.89 us (13.46), 16384 x 1544 19.23 -> 18.45 (19.50), 65536 x
  // 1032 39.17 -> 38.62 (40.17), 16384 x 1024 13.21 -> 13.07 (13.27). Without those two
  // limits, another run: 65536 x 256 (2 tiles) 13.01 -> 15.37 (14.40), 131072 x 512 (4
  // tiles on sectors above 120 MiB, then the flat kernel) 37.01 -> 47.41.
  index_t axpy_tma_split_16word_fast_memory = 1;
  index_t axpy_tma_split_16word_min_tiles = 8;
  // ... or exactly this many splits of one matrix (0: the rules above; for tuning).
  index_t axpy_tma_splits = 0;
  // ... and where a tall matrix of aligned vectors (the rule above: from
  // axpy_tma_split_min_bytes, few tiles) is split axpy_tma_sum_min_splits to
  // axpy_tma_sum_max_splits ways and is under axpy_tma_sum_max_bytes, its tiles' partial sums added by a
  // second kernel launched early after it (axpy_split_sum_kernel; cuBLAS's layout for
  // these shapes, a split-K reduction kernel) instead of by each tile's last block,
  // whose handover (its stores acknowledged, an atomic, its siblings' partials) ended
  // the grid 2.2 us after that block's last stage (1); every split grid of aligned
  // vectors (2, for the tests); never (0). Same run, five rounds, row T, 0 -> 2
  // (cuBLAS): bf16 16384 x 1024 (8 splits) 17.12 -> 16.58 us (16.49), 16384 x 1544 (5)
  // 24.92 -> 22.76 (23.46), fp16 col N 1024 x 16384 17.17 -> 16.62 (16.47), fp32 32768 x
  // 512 (8) 27.85 -> 27.65, bf16 8192 x 2056 (4) 16.68 -> 16.72; but bf16 16384 x 2056 (64
  // MiB, 4 splits) 27.70 -> 28.03, 65536 x 1032 (7) 51.25 -> 51.81, 131072 x 512 (16)
  // 48.44 -> 50.11, 65536 x 256 (33) 17.04 -> 19.75, fp32 65536 x 256 (16) 27.39 -> 28.81:
  // a thread of the second kernel adds an output's splits 8 at a time, a memory latency
  // each, and from 64 MiB the last block's tail weighs less than the second launch.
  // Another run, five rounds, 0 -> 1: bf16 16384 x 1024 17.16 -> 16.58 (16.69), 16384 x
  // 1544 24.85 -> 22.86 (23.51), fp16 16384 x 1024 16.90 -> 16.25 (16.55), 16384 x 1544
  // 24.56 -> 23.03 (23.47); with 4 splits (8192 x 2056) bf16 16.86 -> 16.82 but fp16 16.80
  // -> 17.06, hence from 5 splits. Since the second kernel's warps take the splits side
  // by side (one round trip for up to 64; thirty-first session), 16-32 splits gain too:
  // same run, three rounds, 8 splits and 64 MiB -> 32 and 96 MiB (cuBLAS): bf16 row T
  // 65536 x 256 (32 splits) 17.41 -> 16.68 us (17.78), fp16 17.32 -> 16.68, fp32 65536 x
  // 256 (16 splits, 64 MiB) 28.01 -> 27.22 (28.36), col N alike; every split from 64 MiB
  // up lost (bf16 131072 x 512, 128 MiB, 48.51 -> 48.85; 65536 x 1032 51.30 -> 51.87).
  index_t axpy_tma_sum_kernel = 1;
  index_t axpy_tma_sum_min_splits = 5;
  index_t axpy_tma_sum_max_splits = 32;
  index_t axpy_tma_sum_max_bytes = index_t(96) << 20;
  // ... and rings of axpy_tma_deep_ring_stages stages where the grid has at most
  // axpy_tma_deep_ring_max_blocks_percent of the SMs' worth of blocks (0: never) and a
  // block more stages than axpy_tma_stages: each block is then alone on its SM, and its
  // ring is all the bytes in flight there (Little's law: 37 blocks of 64 KiB, 2.4 MB in
  // flight, at a loaded latency of about 2 us read 1.2 TB/s, bf16 2312^2's 10.2 MiB in
  // 8.6 us). Same run, five rounds, row T, 4 -> 8 stages (cuBLAS): bf16 2312^2 (37 tiles of
  // 8 words) 8.59 -> 8.23 us (8.10), fp16 8.58 -> 8.01 (8.05), 2568^2 (41) 9.25 -> 9.11 and
  // 9.39 -> 8.93; four more runs alike at 2312^2 and 2568^2, one on an H200 (2312^2 8.05 ->
  // 7.63). 1280^2 (40 tiles of 4 words, 5 stages a block) moved -5 % in one run and +7 % in
  // another: at 4-5 us the noise. Not taken: the blocks with no more stages than the ring
  // (bf16 1024^2 and 1032^2, 4 stages a block, 4.5-4.7 -> 4.7-5.0 in one run); up to half
  // the SMs' worth (50: bf16 2824^2 10.20 -> 9.72, 1792^2 5.92 -> 5.53, but 3080^2 11.15 ->
  // 11.93, fp32 8192 x 1024 15.10 -> 15.94); 6 stages (between).
  index_t axpy_tma_deep_ring_max_blocks_percent = 34;
  index_t axpy_tma_deep_ring_stages = 8;
  // ... and in 2-byte types also where an unsplit grid has at most one block an SM whose
  // blocks have at most axpy_tma_deep_ring_2byte_max_stages stages (0: never), in tiles of
  // 4 words only up to axpy_tma_deep_ring_4word_max_blocks_percent of the SMs' worth of
  // blocks: short blocks spend much of their time filling the ring (thirty-first
  // session). Same run, three rounds, bf16 row T, 4 -> 8 stages (cuBLAS): 512 x 16384 (8
  // stages a block, 128 blocks) 9.81 -> 8.53 us (9.63), 1024 x 8192 (8) 9.63 -> 8.55
  // (9.50), 1024 x 16384 (16) 14.84 -> 14.29 (14.88), 2056 x 8192 (17) 15.40 -> 14.86
  // (15.11), 1544 x 16384 (25) 20.81 -> 20.46, fp16 alike; 4-word tiles of 1536^2-2048^2
  // (48-64 blocks, 6-8 stages) 3-11 % faster (2048^2 6.81 -> 6.14). Slower: 3072 x 8192
  // (24 stages) +1 %, 8192^2 (64) +3 %, every 4-word grid of 128 blocks (2048 x 4096, 8
  // stages, +3.6 %; 4096^2 +1-1.6 %), and every grid of 65-127 blocks measured (5-33 %:
  // squares of 8-16 word tiles, bf16 5888^2-12808^2 and fp32 4352^2-8200^2, whose blocks
  // have 46-200 stages); fp32 gained only at 128256 x 4096 (715 -> 689, 1000 stages) and
  // lost 1-6 % elsewhere, so 4-byte types keep the rule above. Another run, three rounds,
  // the rule against the old (cuBLAS): bf16 row T 1024 x 16384 15.12 -> 14.21 (14.75), 2056
  // x 8192 15.63 -> 14.83 (14.94), col N 8192 x 2056 15.62 -> 14.81 (15.00), fp16 alike
  // (4-7 %); the 4-word squares mixed (bf16 1792^2 5.37 -> 5.57, fp16 2048^2 6.34 -> 5.98):
  // between the runs the 4-stage ring's times moved by up to 12 %, the 8-stage ring's by 3 %.
  index_t axpy_tma_deep_ring_2byte_max_stages = 20;
  index_t axpy_tma_deep_ring_4word_max_blocks_percent = 49;
  // ... and in every type where a grid of at most one block an SM reads at least
  // axpy_tma_deep_ring_min_bytes of A (a batch's matrices together; 0: never). Same run, three rounds, fp32 row T N x
  // 4096 (128 blocks of 8-word tiles), 4 -> 8 stages (cuBLAS): N = 32768 175.7 -> 178.0 us,
  // 65536 (1 GiB) 352.3 -> 352.4 (364.0), 98304 537.3 -> 527.5 (532.6), 128256 (2 GB)
  // 715.5 -> 688.8 (691.9), 160000 905.8 -> 861.3 (868.5): with 4 stages the read rate
  // falls from 3.05 TB/s at 1 GiB to 2.89 at 2.4 GiB, as if each stage waited longer
  // (address translation past the TLBs' reach is the likeliest cause; not profiled).
  index_t axpy_tma_deep_ring_min_bytes = index_t(1280) << 20;
  // ... and in one matrix, unsplit tiles of 8 words in 2-byte types or of 16 words in 2-
  // and 4-byte types that number from
  // axpy_tma_mid_ring_min_blocks_percent of the SMs: rings of 6 stages up to
  // axpy_tma_mid_ring6_max_blocks_percent of the SMs' worth of blocks, 5 up to
  // axpy_tma_mid_ring5_max_blocks_percent (0: never); and vectors on 32-byte sectors whose
  // 8-word tiles number from the min up to axpy_tma_wide_tiles_percent (where the width
  // rule above takes 4 words) take 8 words and such a ring. On fast memory the 8-word
  // rings only (axpy_tma_mid_ring_fast_memory 1; 2: the wider tiles and the 16-word rings
  // too, not measured there; 0: none). A grid of about half the
  // SMs reads faster in 128-byte pieces than the SMs' worth of blocks does in 64-byte
  // pieces, if its blocks keep more in flight (64 blocks of 4 stages of 16 KiB hold 4 MiB;
  // 6 stages, 6 MiB). Same run, three rounds, H100, bf16 row T, default (4-word tiles of
  // 128 blocks, 4 stages) -> 8-word tiles (64 blocks) of 5 / 6 / 8 stages: 4096^2 14.54 us
  // -> 0.954 / 0.950 / 0.967x, 11008 x 4096 32.85 -> 0.991 / 0.981 / 1.008x, 14336 x 4096
  // 41.94 -> 0.997 / 0.991 / 1.014x, 8192 x 4096 0.979 / 0.977 / 0.997x, 3328^2 (52
  // blocks) 0.999 / 0.983 / 0.986x, 3840^2 0.987 / 0.982 / 0.996x, but 3072^2 (48 blocks)
  // 1.027 / 1.019 / 1.007x; with 4 stages 1.03x slower (11008 x 4096). The default's
  // 8-word grids, 4 -> 5 / 6 stages: 3592^2 (57 blocks) 0.971 / 0.968x, 4104^2 (65)
  // 0.985 / 1.014x, 4224^2 (66) 0.971 / 0.978x, 4608^2 (72) 0.977 / 0.986x, 5120^2 (80)
  // 0.994 / 0.997x, 5632^2 (88) 1.002 / 1.023x, 6144^2 (96) 0.999 / 1.042x; fp16 alike.
  // Unsplit 16-word tiles (32 blocks, rings of 6-8 stages) were 1.24-1.37x slower.
  // H200, same run, three rounds, both parts against neither: the rings 0.935-0.974x at
  // the 8-word grids of 53-73 blocks (bf16 row T 3336^2, 3592^2, 3848^2, 4104^2, 4352^2,
  // 4360^2, 4616^2; fp16 0.951-0.968x); the wider tiles 0.944x at bf16 4096^2 and 0.971x at
  // 8192 x 4096 but 1.046x at 3328^2, 1.015x at 14336 x 4096 and 1.02-1.10x in fp16 at all
  // but 4096^2. The rings alone (as built), next run: 0.938-0.972x at those grids, the rest
  // 0.99-1.01x. 16-word grids, H100, same run, two rounds, 4 -> 5 / 6 stages: fp32 row T
  // 4352^2 (68 blocks) 0.976 / 0.984x, 4608^2 0.983 / 0.985x, 5120^2 (80) 0.994 / 1.004x;
  // bf16 8704^2 (68) 0.975 / 0.969x, 8712^2 0.979 / 1.056x, 9216^2 0.981 / 0.979x, 9728^2
  // 0.990 / 0.989x, 10240^2 (80) 0.991 / 0.999x; at 81 blocks (10248^2, 5128^2, over 61 %)
  // 1.00-1.05 / 1.05-1.12x.
  index_t axpy_tma_mid_ring_min_blocks_percent = 39;
  index_t axpy_tma_mid_ring6_max_blocks_percent = 49;
  index_t axpy_tma_mid_ring5_max_blocks_percent = 61;
  index_t axpy_tma_mid_ring_fast_memory = 1;
  index_t axpy_tma_words = 0;
  // ... chosen (axpy_tma_words 0) as the widest whose tiles number at least
  // axpy_tma_wide_tiles_percent of the SMs (8 words) or axpy_tma_widest_tiles_percent (16
  // words), and no narrower than axpy_tma_straddle_min_words words where every other
  // vector starts 16 bytes into a 32-byte sector (lda * sizeof(TA) an odd multiple of
  // 16: 2-byte types at orders 8 past a multiple of 16), whose 64-byte box rows touch 3
  // sectors for 2, if those tiles number at least axpy_tma_straddle_min_tiles_percent of
  // the SMs (0 words: no floor). Same run, three rounds, against 50 % for both widths and
  // no floor: bf16 col N 8448^2 (66 tiles of 16 words or 132 of 8) 51.7 -> 48.8 us;
  // straddled bf16 2312^2 8.73 -> 8.05, 3848^2 15.48 -> 14.15, 4104^2 17.19 -> 15.48, 4104
  // x 11016 37.24 -> 34.38, fp32 2052^2 10.37 -> 9.57; but the floor slowed 1032^2 (17
  // tiles, 4.34 -> 6.74) and 1544^2 (25 tiles, 5.61 -> 7.59), and 8-word tiles at 60 %
  // slowed bf16 4352^2-4864^2 by 5-11 % (68-76 tiles of 8 words against 136-152 of 4).
  // 16-word tiles lose at exactly half the SMs but not above it: 60 % against 50 %, fp32
  // row T 4224^2 (66 tiles) 27.3 -> 26.3, bf16 8456^2 52.1 -> 51.5, but 4360^2 (69 tiles)
  // 28.7 -> 30.7, 4872^2 (77) 34.3 -> 36.6, bf16 8712^2 54.7 -> 59.9; hence 51 %.
  index_t axpy_tma_wide_tiles_percent = 50;
  index_t axpy_tma_widest_tiles_percent = 51;
  index_t axpy_tma_straddle_min_words = 8;
  index_t axpy_tma_straddle_min_tiles_percent = 25;
  // ... and above axpy_tma_max_bytes(_2byte) where its tiles are at least 8 words wide
  // and number at most this percentage of the SMs (about one an SM; 0: never; see
  // axpy_tma in gemv_cuda.cu).
  index_t axpy_tma_large_max_tiles_percent = 101;
  // ... or, in 4-byte types of at most axpy_tma_large_4byte_few_vectors vectors (0: never),
  // up to axpy_tma_large_4byte_few_vectors_max_tiles_percent. Same run, two rounds, H100,
  // fp32 row T, the register kernel -> 16-word TMA tiles up to 2 an SM (cuBLAS): 4096 x
  // 14336 (224 tiles) 80.82 -> 79.78 us (80.02), 4096 x 11008 63.56 -> 63.18 (64.14), 4096
  // x 16384 2 % and 4096 x 12800 faster; but squares of 8704-12808 vectors 4-24 % slower
  // (8961^2 113.6 -> 137.8).
  index_t axpy_tma_large_4byte_few_vectors = 4096;
  index_t axpy_tma_large_4byte_few_vectors_max_tiles_percent = 200;
  // ... and (1) 2-byte types there whose 16-word tiles are few enough to be split one
  // block an SM (tma_tiles_few; bf16 128256 x 4096 row T: 32 tiles split 4), where the
  // tiles chosen otherwise (4 words) are refused; 0: the register kernel's. Same run,
  // five rounds, 0 -> 1 (cuBLAS), row T: bf16 128256 x 4096 345.04 -> 338.70 us
  // (341.57), 32000 x 4096 90.37 -> 88.70 (90.29), fp16 alike; by a trace of the
  // dispatcher over the sweep these four are all it moves. Below 120 MiB the same tiles
  // lose (same run, three rounds, bf16 row T, 4-word tiles -> 16-word split 4): 4096^2
  // 15.19 -> 16.78 us, 8192 x 4096 26.03 -> 27.13, 11008 x 4096 33.46 -> 34.31, 14336 x
  // 4096 (112 MiB) 42.35 -> 42.50.
  index_t axpy_tma_large_split_2byte = 1;
  // ... and (2) on fast memory, 2-byte vectors on 32-byte sectors (lda * 2 a multiple of
  // 32) there that the rules above gave 16-word tiles (squares of 68 tiles and more, the
  // split tall matrices) are the register kernel's (1; 0: the TMA kernel's). H200, same
  // run, three rounds, row T, TMA -> register kernel (cuBLAS): bf16 8960^2 45.12 -> 41.24
  // us (46.86), 9472^2 48.93 -> 44.85 (52.64), 12288^2 74.58 -> 70.70 (73.72), 12800^2
  // 80.45 -> 78.66 (90.72), 32000 x 4096 67.06 -> 64.46 (64.27), 128256 x 4096 252.83 ->
  // 239.02 (238.75), fp16 alike; 16 of the 17 such squares 8704^2-12800^2 faster, 10752^2
  // even. Straddled vectors (8712^2-12808^2) lost up to 13 % (bf16 11016^2 63.95 -> 72.23)
  // and keep it, as do the 8-word tiles of 8192^2 and 8448^2 (35.60 -> 35.64, 37.11 ->
  // 37.48). On the H100 the split tiles beat the register kernel (128256 x 4096 above).
  index_t axpy_tma_large_16word_fast_memory = 1;
  // ... and (3) on fast memory, such vectors in matrices from this size up to
  // axpy_tma_max_bytes_2byte, one matrix, in tiles of 8 or 16 words as many as
  // axpy_tma_wide_tiles_percent of the SMs or more (unsplit) too (0: never). H200, same
  // run, three rounds, bf16 row T, TMA -> register kernel (cuBLAS): 4608^2 15.30 -> 14.42
  // us (15.75), 6144^2 22.33 -> 21.40 (23.42), 7424^2 31.52 -> 29.49 (31.35), 7680^2 34.67
  // -> 31.54 (34.88), 4096 x 11008 26.85 -> 24.98 (26.19); 11 of the 14 squares
  // 4608^2-7936^2 faster, 5120^2 1.6 % and 5888^2 0.2 % slower; under 40 MiB the TMA
  // kernel won (bf16 3584^2 10.29 against 11.98, 4096^2 12.04 against 12.43), as it did
  // for straddled vectors (7944^2 34.35 against 39.00) and split tiles (131072 x 512
  // 37.17 against 46.95).
  index_t axpy_tma_fast_memory_register_min_bytes = index_t(40) << 20;
  // ... and (4) on fast memory, 4-byte vectors on 32-byte sectors in matrices from
  // axpy_tma_fast_memory_register_4byte_min_bytes, one matrix, in unsplit tiles of 8 or 16
  // words as many as this percentage of the SMs or more (0: never), at any size. A TMA
  // block, one tile, reads about 33 GB/s (axpy_tma_unaligned_fast_memory_min_tiles_percent),
  // so 113-133 of them leave an H200's 4.5 TB/s short where the register kernel's grid
  // fills every SM. H200, same run, three rounds, fp32 row T, TMA -> register kernel
  // (cuBLAS), as built: the 29 sweep points it moves 1.035x in geometric mean, 25 faster
  // by more than 1 %, none slower by more (7680^2 58.98 -> 59.15 us, 58.35); 7688^2 (121
  // tiles) 64.29 -> 60.82 (60.19), 8200^2 72.34 -> 66.90 (72.23), 8448^2 70.91 -> 67.96
  // (70.59), 32000 x 4096 (128 tiles of 8 words) 129.33 -> 122.19 (126.45), 128256 x 4096
  // 487.4 -> 471.3 (489.3), 2056 x 8192 20.39 -> 19.39 (19.96). Under 113 tiles the TMA
  // kernel won or tied (an earlier run: 6408^2, 101 tiles, 42.67 against 46.86; 7168^2,
  // 112, 51.13 against 51.80); fp64 lost with the register kernel at 112-128 tiles (3584^2
  // 30.73 against 33.01, 4096^2 34.83 against 37.66, 8192 x 4096 66.09 against 69.66).
  index_t axpy_tma_fast_memory_register_4byte_min_tiles_percent = 85;
  // ... from this size (0: never). It was axpy_tma_fast_memory_register_min_bytes (40
  // MiB) until the fifty-fourth session, when the TMA kernel read the short-wide shapes
  // under it faster. H200, same run, two passes of three rounds, fp32 row T, register
  // kernel -> TMA (cuBLAS): 1024 x 16384 (64 MiB, 256 tiles) 19.71 -> 18.22 us (18.77),
  // 2056 x 8192 (64 MiB, 128 tiles) 19.82 -> 18.46 (19.79), 1544 x 16384 (96 MiB) 27.68
  // -> 26.61 (27.19); above it the register kernel still won: 4096 x 11008 (172 MiB)
  // 45.00 -> 47.61 (47.34), 11008 x 4096 44.17 -> 45.75 (44.82), 14336 x 4096 55.92 ->
  // 58.88 (57.34), 4096 x 14336 (224 MiB) 59.21 -> 59.45 (56.54). Column-major N alike.
  index_t axpy_tma_fast_memory_register_4byte_min_bytes = index_t(128) << 20;
  // ... and for 4-byte types in matrices from axpy_tma_4byte_max_tiles_min_bytes up to
  // axpy_tma_max_bytes only where its tiles number at most this percentage of the SMs (0:
  // no limit): more are the register kernel's (above axpy_tma_max_bytes the rule above
  // decides: a first version without that bound took fp32 8449^2 and 8456^2, 133 tiles,
  // off the TMA kernel, 4-5 % slower in the 17:01 sweep). Only short-wide matrices (few long vectors) have more than an SM's
  // worth of the TMA kernel's tiles below axpy_tma_max_bytes (a tile is 64 outputs from 67
  // tiles up). Same run, three rounds, fp32 row T, TMA (16-word tiles) -> register kernel
  // (cuBLAS): 1024 x 16384 (256 tiles) 27.70 -> 25.91 us (24.93), 256 x 65536 (1024
  // tiles) 25.33 -> 23.26 (25.71), 512 x 16384 (32 MiB) 15.62 -> 14.86 (14.62), 1544 x
  // 16384 37.43 -> 37.27; squares and the LLM shapes unchanged; but 128 x 32768 (16 MiB)
  // 8.67 -> 10.20 and 256 x 16384 9.34 -> 9.60, hence from 32 MiB; bf16 kept TMA (1024 x
  // 16384 14.88 against 15.48, 256 x 65536 14.39 against 15.80, an earlier run).
  // Since then the TMA kernel gained (early launch, its trigger after the reads) and is
  // the faster one up to 512 tiles: forty-fourth session, H100, same run, three rounds,
  // fp32 row T, this cap 100 -> 400 (cuBLAS): 1024 x 16384 (256 tiles) 25.10 -> 24.09 us
  // (25.67), 1544 x 16384 36.80 -> 35.74 (37.72), 512 x 16384 14.31 -> 13.29 (14.71), 256 x
  // 32768 14.96 -> 14.01 (15.23), 512 x 32768 (512 tiles) 25.56 -> 25.10 (26.37); 256 x 65536
  // (1024 tiles) stays the register kernel's (23.31 against 25.52 on TMA). Over the whole
  // fp32 row T sweep no other point from 32 MiB moved by more than noise. On fast memory
  // rule (4) above takes such shapes from 40 MiB; below it, H200, same run, three rounds:
  // 512 x 16384 11.77 -> 10.41 us (11.78), 256 x 32768 12.04 -> 11.85 (12.56).
  index_t axpy_tma_4byte_max_tiles_percent = 400;
  index_t axpy_tma_4byte_max_tiles_min_bytes = index_t(32) << 20;
  // Axpy form: the last block of a split tile reads every split's partial tile; keep
  // that under this many bytes so the tail stays short.
  index_t axpy_max_partial_bytes_per_tile = 64 * 1024;

  // Blocks resident per SM, capped through padding shared memory (0: no cap). Fewer
  // blocks read fewer separate pieces of A at once.
  index_t blocks_per_sm = 0;

  // Programmatic dependent launch (compute capability 9 and up): 0 launches each kernel
  // after the previous work on the stream has finished; 1 lets it start while the
  // previous kernel finishes (its blocks wait, before touching global memory, until
  // that kernel has completed and its writes are visible: the results are the same);
  // 2 also has each block ask for its first loads of A into L2 before it waits.
  // Back-to-back calls, same run, against 0: 1.09x faster over a sweep of square
  // orders 512-12800 (most at 1-16 MiB: bf16 2048^2 Dot 7.26 -> 5.60 us), 2 1.10x.
  index_t early_launch = 2;
  // ... for the TMA Axpy kernel (0, 1 or 2 as above), and split grids of tiles of 4 words
  // only where they have at most early_launch_tma_narrow_max_blocks blocks. Same run, three
  // rounds, row T, early (1) against not (0): tiles of 8 and 16 words 1-3 % faster
  // (bf16 4352^2 16.99 -> 16.47 us, 5888^2 26.75 -> 26.04, 8192^2 47.03 -> 46.28, 4096 x
  // 11008 33.59 -> 32.84; fp32 4608^2 32.16 -> 31.27, 6144^2 52.61 -> 51.55), 4-word
  // tiles 10-15 % faster up to 64 tiles (bf16 1024^2 4.75 -> 4.07, 1536^2 5.61 -> 4.79,
  // 2048^2 6.66 -> 5.97) but slower from 73 (bf16 2312^2 8.58 -> 9.46, 3848^2 15.41 ->
  // 16.96, 4096^2 14.83 -> 15.87; fp32 2048^2, 128 tiles, 9.35 -> 9.94). With the L2
  // prefetch (2) slower (bf16 4096^2 15.3 -> 17.9 in an earlier session). Those losses
  // were the GPC pile-up of early_launch_tma_next 0 (below): with 2, same run, three
  // rounds, 4-word grids of 80-128 blocks launched early 5-17 % faster (bf16 row T
  // 2560^2 8.50 -> 7.22 us, 3072^2 10.38 -> 9.07, 4096^2 15.15 -> 14.29, 2048 x 4096
  // 9.77 -> 8.52; fp16 alike; fp32 tiles of 4 words within 1 %), hence the limit on split
  // grids only. Those (half-precision row T 32768 x 512 to 262144 x 128: 4-word tiles
  // split 8-33 ways, 128-132 blocks) ran within 0.5 % early or not, as did the other 22
  // tall points measured with them (same run, two rounds, forty-second session), so the
  // limit moves nothing.
  index_t early_launch_tma = 1;
  index_t early_launch_tma_narrow_max_blocks = 64;
  // ... where its blocks let the next early-launched grid start (griddepcontrol.
  // launch_dependents): 0 as they start, 1 once their wait for the earlier grid is over,
  // 2 once they have read their part of A; early_launch_tma_next_split for split grids.
  // The next grid's blocks are placed on the SMs with room when the last block of this
  // one lets it start. At 0 (the rule until the forty-first session) up to three grids
  // were resident at once in back-to-back calls (each waiting for the one before), and
  // the next grid's blocks piled onto a few GPCs: a block's read rate falls with the
  // blocks of its grid in its GPC (about 450 GB/s a GPC; H100, fp16 row T 5384^2, 85
  // blocks of 8-word tiles, per-block timeline with %smid and GPCs found by clusters:
  // 17-22 us a block at up to 14 blocks in its GPC, 27-30 us at 20-30), and calls took
  // 21-42 us from call to call (the bimodal "early-launch modes" of earlier sessions).
  // At 1 every call placed its blocks as an ordinary launch does (at most 14 in a GPC),
  // at 2 within 11-16. Same run, three rounds, 0 -> 1 -> 2 (cuBLAS), H100 row T: bf16
  // 5384^2 23.41 -> 22.22 -> 22.07 us (24.53), 2312^2 8.22 -> 7.65 -> 7.13 (8.01),
  // 3848^2 14.51 -> 13.24 -> 13.08 (14.71), 4352^2 16.61 -> 15.81 -> 15.57, fp32 2560^2
  // 12.24 -> 10.94 -> 11.08, 4608^2 31.38 -> 30.68 -> 30.79; 2 over 104 points (bf16,
  // fp16, fp32, row T and col N) 0.960x the time of 0, 1 0.969x. Split grids, whose last
  // blocks add the splits' sums after their reads: 1 (bf16 row T 8192 x 2056 16.84 ->
  // 15.98 -> 17.25, 16384 x 1024 16.31 -> 15.09 -> 15.60).
  index_t early_launch_tma_next = 2;
  index_t early_launch_tma_next_split = 1;
  // ... and where the register Axpy kernel's blocks (axpy_kernel) let it start in
  // matrices from axpy_small_matrix_bytes: 0 as they start, 1 once their wait is over
  // (smaller matrices: 0). Its grids there fill about one wave of block slots (odd
  // orders: 374 blocks for 396 slots at fp16 4097^2), and at 0 a grid that fits lets
  // the next one in at once. H100, same run, two rounds, 0 -> 1, row T sweep (486
  // points from 8 MiB, bf16, fp16, fp32): 0.999x the time, the odd orders on the
  // realigned kernel 1.5-2.5 % faster (bf16 4097^2 17.09 -> 16.64 us, cuBLAS 18.26;
  // fp16 4097^2 16.90 -> 16.56, 16.95; fp16 4353^2 18.47 -> 18.13, 5121^2 23.44 ->
  // 23.01), none slower by more than 1.5 % in both rounds; H200, the same A/B: 0.998x,
  // the odd orders 2.5-4 % faster (fp16 4097^2 14.85 -> 14.29 us, cuBLAS 15.27; bf16
  // 4865^2 19.09 -> 18.52), none slower by more than 1.5 % in both rounds. Under 8 MiB the
  // calls' host side (3.3 or 4.5 us from sample to sample, cuBLAS alike) hid any change. The
  // other kernels at 1 (an A/B of the same trigger in all of them, row N and row T
  // squares 512^2-6145^2 and 14 skinny and LLM shapes): the Dot form at 16-64 MiB
  // 0.4-0.6 % slower (fp16 4353^2 and 4609^2 3 %), the rest even; not kept.
  index_t early_launch_next_register = 1;
  // ... for the narrow Axpy kernel with tiles of 16 outputs (0, 1 or 2 as above, never
  // more than early_launch). Its prefetch is 16 instructions a thread, one for each
  // vector of its first round, every piece asked for by all 16 lanes of the tile. Same
  // run, two rounds each, 1 against 2 (median per call; row T, col N alike): fp32 1281^2
  // 5.55 -> 5.22 us, 1537^2 6.70 -> 6.31, 1793^2 7.70 -> 7.12, 2049^2 9.21 -> 8.62,
  // aligned 2048^2 8.34 -> 8.16; bf16 1281^2 4.93 -> 4.62, 1537^2 5.73 -> 5.37, 1793^2
  // 6.43 -> 5.84, 2049^2 7.44 -> 6.83 (fp16 alike). Its tiles of 32 (fp32 2305^2-4097^2)
  // were even to 3 % slower without the prefetch (3585^2 20.3 -> 20.9) and keep
  // early_launch, as do the other Axpy kernels (bf16 3073^2, realigned, 11.8 -> 12.6).
  index_t early_launch_narrow16 = 1;
  // ... and with tiles of 32 outputs over unaligned vectors (odd lda; fp32 from 2305^2).
  // H100, same binary, three passes, 2 -> 1 (cuBLAS), col N: 2561^2 13.32 -> 13.18 us
  // (13.04), 3585^2 20.91 -> 20.61 (20.32), 3841^2 23.65 -> 23.31 (22.40), 4097^2 26.36 ->
  // 25.89 (25.59); row T alike (4097^2 26.33 -> 25.90). A second run, the rule built in,
  // over the odd orders 2305^2-4097^2: col N 0.992x the time, row T 0.989x (4097^2 0.96x
  // both; 3073^2 and 3329^2 within +-1 %, either way in the two runs). For unaligned
  // tiles of 32 this overturns the entry above (3585^2 20.3 -> 20.9 without the prefetch
  // then, 20.85 -> 20.65 now; what moved in between is not known). Aligned
  // vectors keep the prefetch: without it the multiples of 256 lost 1-2 % (3072^2 15.28 ->
  // 15.63 row T, 3840^2 22.09 -> 22.25 col N) and the +8 orders were even.
  index_t early_launch_narrow32_unaligned = 1;

  // Most blocks that share one output tile: the last one adds all their partial sums.
  index_t max_splits = 256;
  // Split counts that choose_split (gemv_cuda.cu) weighs past 32 for the register Axpy
  // kernel: 1, also the largest that fits each whole number of waves of block slots
  // (aligned and interleaved vectors); 0, powers of 2 only. fp32 65536 x 1032 has 9
  // tiles of 128 outputs, the last of 8: 64 splits made 2 waves of 528 slots, 128 made
  // 1152 blocks, 3 waves, where 58 fill one (522 blocks). H100, forty-fourth session,
  // same run, three rounds, row T, 0 -> max_splits 58 (cuBLAS): 65536 x 1032 102.22 ->
  // 99.71 us (101.63), 32768 x 1032 53.12 -> 51.11 (51.20), 131072 x 1032 199.23 ->
  // 194.72 (196.77), 65536 x 1040 102.59 -> 100.50 (101.73); as built, the sweep's Axpy
  // forms, two rounds alternating, 0 -> 1: 65536 x 1032 and its transpose 1.007-1.008x,
  // fp32 9224^2 (73 tiles: 7 splits, 511 blocks, to 36, 2628 blocks in 5 waves) 120.8
  // -> 116.3 us (134.2), 11272^2-11776^2 0.5-0.9 % faster, 972 points from 8 MiB 1.000x
  // in all. Realigned vectors lost (bf16 and fp16 3841^2 16 -> 33 splits, 15.2 -> 17.3
  // us; 12033^2 8 -> 33 splits, 104.4 -> 110.4; 11265^2 1.6 % slower), hence not them.
  index_t split_fill_waves = 1;
  // ... on fast memory only counts that fill at most this many waves (0: any). H200, same
  // run, two rounds alternating, fp32 and bf16 row T sweep, 0 -> 1 with any number of
  // waves (cuBLAS): 65536 x 1032 (one wave) 73.80 -> 69.85 us (74.45), but the squares
  // and decode shapes that took more waves lost: 9224^2 81.99 -> 86.27 (98.03), 8192^2
  // (8 -> 33 splits, 1 -> 4 waves) 63.84 -> 66.70 (63.86), 6657^2 48.29 -> 50.89, 14336 x
  // 4096 and 11008 x 4096 (16 -> 33 splits) 2.8-2.9 % slower, 7432^2-10240^2 2-2.4 %.
  // With 1, by a trace of the same sweep, 65536 x 1032 is the only choice that changes
  // (same run, three rounds: 73.93 -> 69.77 us).
  index_t split_fill_waves_fast_memory_max_waves = 1;
  // Realigned Axpy vectors (2-byte types with odd lda) on the register kernel, on fast
  // memory: splits only up to those that fit axpy_realigned_max_waves waves of block slots
  // (0: any), and one wave where one fills at least axpy_realigned_one_wave_min_fill_percent
  // of the slots (over 100: never; 0: whatever the fill); choose_split alone takes a fuller last wave over fewer waves (7169^2:
  // 29 tiles, 27 splits in 2 waves at 98.9 % rather than 13 in one at 95.2 %). H200, same
  // run, three rounds, two passes, bf16 row T (fp16 alike), any -> one wave: 7169^2
  // (95.2 %) 36.69 -> 34.07 us, 7681^2 (93.9 %) 40.27 -> 38.33, 8449^2 (94.4 %) 46.53 ->
  // 44.91, 9217^2 (93.4 %) 53.61 -> 52.60, 9473^2 59.0 -> 54.6, 10497^2 68.60 -> 65.79,
  // 11777^2 82.05 -> 80.72, 10241^2 (93.2 %) and 12033^2 even; but 11521^2 (92.9 %) 77.65
  // -> 78.95, 11265^2 (90.9 %) 1.018x, 12545^2 (88.4 %) 1.036x, 12801^2 (90.0 %) 1.041x.
  // At most two waves: 9473^2 0.916x, 10497^2 0.955x, 11777^2 0.981x, 12801^2 0.990x, no
  // order slower by more than the runs' noise (1.5 %).
  index_t axpy_realigned_max_waves = 2;
  index_t axpy_realigned_one_wave_min_fill_percent = 93;
  // The same for the interleaved layout (4- and 8-byte types with odd lda) and for aligned
  // vectors: one wave where one fills at least ..._one_wave_min_fill_percent of the slots
  // (over 100: never), else at most ..._max_waves waves (0: any). choose_split took 31
  // splits of fp32 6401^2's 51 tiles (1581 blocks, 3 waves at 99.8 %) over 10 in one wave
  // (96.6 %). H200, same run, two passes each (grids of any waves -> one wave), row T: a
  // scan with one wave at every fill gained where that wave is at least 93 % full and lost
  // up to 3 % below it (fp32 interleaved 12033^2, 90.0 %, 143.5 -> 148.1 us; 11521^2, 86 %,
  // 1.031x); at most two waves otherwise was mixed (fp32 8449^2 1.1 % faster, 12289^2 2 %
  // slower), hence any number there. As built (93 %), against the
  // rule off: interleaved fp32 6401^2 47.32 -> 44.86 us (cuBLAS 44.41), 4865^2 29.09 ->
  // 28.09, 5121^2 31.73 -> 30.66, 5633^2 36.47 -> 35.73, 10497^2 113.33 -> 110.73, 10753^2
  // 119.13 -> 116.27, fp64 6401^2 87.70 -> 82.90; aligned fp32 10504^2 107.46 -> 105.18,
  // 12808^2 156.58 -> 152.97, 9216^2 80.75 -> 79.47; bf16 8704^2 39.76 -> 38.33, 9728^2
  // 47.98 -> 46.22; fp16 8704^2 39.82 -> 38.06, 9984^2 49.73 -> 48.47, 9216^2 43.31 ->
  // 42.27, 7168^2 (now 8 words in flight, axpy_one_wave_unroll8_max_rounds) 27.59 ->
  // 27.02; no grid it moves slower by more than the runs' 1.2 % (the same grid's spread
  // between processes). fp32 6145^2 (92.8 %) gained 2.5 % in the scan and is left out.
  // fp64 row T, the sweep's 189 shapes, same run: the 16 grids it moves 0.936x the time
  // (4608^2 48.75 -> 43.37 us, 5377^2 69.36 -> 60.61, 10753^2 232.36 -> 216.61), the
  // other 173 1.002x.
  index_t axpy_interleaved_max_waves = 0;
  index_t axpy_interleaved_one_wave_min_fill_percent = 93;
  // ... and the interleaved layout's one wave on any memory system in matrices of at most
  // axpy_interleaved_one_wave_any_memory_max_bytes (0: on fast memory only, the rule
  // before the fifty-sixth session). H100, same run, three passes, fp32 row T, the odd
  // orders 4353^2-12801^2 on the interleaved kernel, any waves -> one (cuBLAS): 4865^2 (95
  // MB; 27 splits, 1053 blocks -> 13, 507) 36.86 -> 35.28 us (35.93), 9217^2 (340 MB; 36
  // splits -> 7) 119.92 -> 118.02, but 8961^2 (321 MB) 110.88 -> 111.78, 10497^2 148.75 ->
  // 152.85, 10753^2 156.98 -> 160.05, 12545^2 210.96 -> 218.86, 12801^2 217.65 -> 224.96;
  // fp64 5377^2 (231 MB) 85.54 -> 81.86, 6401^2 116.35 -> 113.60, 10497^2 291.42 ->
  // 298.22. The H100 gains only under about 340 MB (the H200 to 12801^2), hence 256 MiB.
  index_t axpy_interleaved_one_wave_any_memory_max_bytes = index_t(256) << 20;
  index_t axpy_aligned_max_waves = 0;
  index_t axpy_aligned_one_wave_min_fill_percent = 93;
  // Aligned 2-byte Axpy vectors on the register kernel, on fast memory: 8 words in flight
  // (instead of axpy_large_unroll's 4) where that grid fits one wave of its own block
  // slots (ptxas gives the 8-word kernel 74 registers for bf16, 3 blocks an SM, and 119
  // for fp16, 2; the 4-word kernels run 4), filled to at least
  // axpy_one_wave_unroll8_min_fill_percent, in at most axpy_one_wave_unroll8_max_rounds
  // rounds of loads a group (0: never) and no more than the 4-word grid's rounds times
  // its waves; axpy_one_wave_unroll8_4byte 1 applies the same test to fp32. H200, same
  // run, three rounds, two passes agreeing within 1 %, bf16 and fp16 row T, the aligned
  // sweep shapes from 16 MiB on this kernel, 4 -> 8 words everywhere
  // (`axpy_large_unroll=8`): the 8-word grids of more than one wave slower but one (39 of
  // 40 by 0.5-24 %: bf16 512 x 131072 1.23x, 7424^2 1.12x, fp16 7168^2 1.08x); in one wave
  // filled to 91-100 % with 4-17 rounds faster at 26 of 27 shapes (bf16 1544 x 16384
  // 0.946x, 7168^2 0.954x, 9216^2 0.961x and 9984^2 0.949x, whose 4-word grids take two
  // waves; fp16, at the 4-word grid's rounds, 1544 x 16384 0.914x, 1032 x 65536 0.939x,
  // 5120^2 0.940x), bf16 4096 x 11008 1.008x; in one wave at 20 rounds or more even or
  // slower (bf16 11008^2 1.031x, 11264^2 1.023x; fp16 11264^2 1.025x); bf16 4608^2 (82 %
  // of a wave) 1.061x, fp16 4608^2 (6 rounds for 5) 1.011x. fp32 under a first build's
  // test (8 words only in fewer rounds than 4 take): 13 grids moved, 1.008x the time. As built, against it off, same run, three
  // rounds, two passes (row T; 23 shapes, 46 grids): the 27 grids it moves 0.969x the
  // time, none slower by more than 0.4 % (bf16 4096 x 11008 even): bf16 1544 x 16384
  // 17.23 -> 16.08 us (cuBLAS 15.81), 7168^2 28.78 -> 27.49, 9984^2 51.16 -> 48.73
  // (51.88), 5632^2 19.58 -> 18.89 (19.21); fp16 1544 x 16384 17.20 -> 15.78 (15.79),
  // 1032 x 65536 35.69 -> 33.54 (35.65), 5120^2 17.53 -> 16.49 (16.92); the 19 grids it
  // leaves within 0.4 % in both passes but one (fp16 11264^2, 1.002x and 1.024x).
  index_t axpy_one_wave_unroll8_max_rounds = 17;
  index_t axpy_one_wave_unroll8_min_fill_percent = 90;
  index_t axpy_one_wave_unroll8_4byte = 0;
  // Dot form: splits of a row tile up to this many form one thread block cluster and
  // add up through distributed shared memory (compute capability 9 and up; at most 16),
  // no handshake through global memory; 0 or 1: never. (The Axpy kernel's splits in
  // clusters measured slower: bf16 1537^2 8.1 -> 11.9 us, fp32 8192^2 91 -> 104.)
  index_t cluster_max_splits = 16;
  // ... and, where the grid's blocks fit one wave of block slots, only if all its
  // clusters fit at once (1; 0: whenever one cluster fits; see cluster_fits).
  index_t cluster_one_wave = 1;
  // Upper bound of the partial-sum workspace of one call.
  index_t max_workspace_bytes = index_t(64) << 20;

  // 1: print each call's variant and launch shape to stderr (for tuning).
  index_t trace = 0;

  // The policy in force: the one set() last installed, else the defaults with
  // FASTMV_CUDA_GEMV_POLICY applied (parsed once; an unknown name or a bad value throws
  // fastmv::InvalidArgument at the first CUDA gemv). A call reads it as it dispatches.
  static const GemvPolicy& get();
  // Installs the defaults with `text` applied (FASTMV_CUDA_GEMV_POLICY's syntax) for
  // the calls that start after it, in every context; nullptr: back to the environment's.
  // Each distinct text is parsed once and kept for the process (a benchmark alternates a
  // few of them call by call); a bad one throws fastmv::InvalidArgument and changes
  // nothing (fastmv::cuda::set_gemv_policy).
  static void set(const char* text);
  // While one lives, get() on this thread returns the policy in force when it was made:
  // one CUDA gemv call dispatches under one policy whatever set() does meanwhile on
  // another thread (its grid and its kernel must agree).
  class Pin {
   public:
    Pin();
    ~Pin();
    Pin(const Pin&) = delete;
    Pin& operator=(const Pin&) = delete;

   private:
    const GemvPolicy* saved_;
  };
};

}  // namespace fastmv::kernels::cuda
