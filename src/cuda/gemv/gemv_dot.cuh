// The Dot form: y[r] = alpha * <A row r, x> + beta * y[r] for `count` stored vectors of
// `length` contiguous elements (row-major NoTrans, column-major Trans).
//
// dot_kernel: groups of kLanes threads walk Rows stored vectors at once with 16-byte
// loads, so each x word loaded serves Rows rows; groups_k groups of a block, and
// `splits` blocks, share one row when there are too few rows to fill the GPU.
// Aligned (A 16-byte aligned, lda and stride_a multiples of 16 bytes, x contiguous and
// aligned) loads x in 16-byte words too; otherwise each row peels its unaligned head
// and tail and x is read element by element (any incx).
//
// dot_staged_kernel: stored vectors of at most kStagedMaxLength elements (tall-skinny
// matrices). A block copies rows_per_block whole rows, one contiguous span of A, into
// shared memory with 16-byte loads, then one thread per row takes the dot product.
#pragma once

#include "cuda/gemv/gemv_common.cuh"

namespace fastmv::gemv_cuda {

constexpr index_t kStagedMaxLength = 32;
constexpr int kStagedTileBytes = 16384;

// kUnroll: words per row in flight per thread before the first multiply.
template <typename TA, typename TX, typename TY, typename Acc, int kLanes, int kRows, int kUnroll,
          bool kAligned>
__global__ void __launch_bounds__(kBlockThreads)
    dot_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  static_assert(kBlockThreads % kLanes == 0 && kLanes <= 32, "groups within a warp");
  static_assert(kAligned || kRows == 1, "unaligned rows peel one row at a time");
  constexpr int V = kVector<TA>;
  constexpr int kGroups = kBlockThreads / kLanes;
  const int lane = threadIdx.x % kLanes;
  const int group = threadIdx.x / kLanes;
  const int groups_k = args.groups_k;
  const int groups_r = kGroups / groups_k;
  const int group_k = group % groups_k;
  const int group_r = group / groups_k;
  const int block_rows = groups_r * kRows;
  const index_t first_row = static_cast<index_t>(blockIdx.x) * block_rows;

  __shared__ Acc reduced[kGroups * kRows];

  const index_t segment_begin = static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t segment_end = min(args.length, segment_begin + args.split_length);

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;

    // Rows past the end repeat the last row (valid memory); their sums are dropped.
    const TA* row[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
      const index_t i = min(first_row + group_r * kRows + r, args.count - 1);
      row[r] = A + i * args.lda;
    }
    Acc sum[kRows];
#pragma unroll
    for (int r = 0; r < kRows; ++r) sum[r] = 0;

    // [vector_begin, vector_end): this segment's 16-byte words of the row;
    // scalar_*: the elements before and after them.
    index_t vector_begin, vector_end;
    if constexpr (kAligned) {
      vector_begin = segment_begin;  // split_length is a multiple of V
      vector_end = segment_begin + (segment_end - segment_begin) / V * V;
    } else {
      const index_t misaligned = (reinterpret_cast<std::uintptr_t>(row[0]) % 16) / sizeof(TA);
      const index_t first_aligned = (V - misaligned) % V;
      vector_begin = segment_begin <= first_aligned
                         ? first_aligned
                         : first_aligned + (segment_begin - first_aligned + V - 1) / V * V;
      vector_begin = min(vector_begin, segment_end);
      vector_end = vector_begin + (segment_end - vector_begin) / V * V;
    }

    // The copy of x aligned like this row (unaligned rows), if the dispatcher made them.
    const TX* x_aligned = nullptr;
    if constexpr (!kAligned) {
      if (args.x_copies != nullptr) {
        constexpr index_t kCopies = kVector<TX>;  // x words: only the shift modulo this matters
        const index_t shift = (kCopies - vector_begin % kCopies) % kCopies;
        x_aligned = args.x_copies + shift * args.x_copies_stride + shift;
      }
    }
    const auto load_x = [&](index_t c, Acc* out) {
      if (kAligned) {
        load_cached_vector<TX, Acc, V>(x + c, out);
      } else if (x_aligned != nullptr) {
        load_cached_vector<TX, Acc, V>(x_aligned + c, out);
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) out[e] = to_acc(x[(c + e) * args.incx]);
      }
    };

    // Each thread takes the words lane_offset + j * step of [vector_begin, vector_end),
    // kUnroll at a time. Rows start at different chunks and wrap around, so that rows
    // streamed side by side are not all at the same column: with a leading dimension
    // that is a multiple of the DRAM channel interleave they would all read one
    // channel. (A guard; the slow points first blamed on this, 2824^2 and 1793^2 fp32,
    // were slow for cuBLAS in the same run too, and did not repeat.)
    const index_t step = static_cast<index_t>(groups_k) * kLanes * V;
    const index_t lane_offset = (static_cast<index_t>(group_k) * kLanes + lane) * V;
    const index_t chunk = kUnroll * step;
    const index_t chunks = (vector_end - vector_begin) / chunk;
    const index_t rotation = chunks > 1 ? (first_row + group_r * kRows) % chunks : 0;
    const index_t pivot = vector_begin + rotation * chunk;
    const auto stream = [&](index_t from, index_t to) {
      index_t c = from + lane_offset;
      for (; c + (kUnroll - 1) * step < to; c += chunk) {
        uint4 a[kUnroll][kRows];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
#pragma unroll
          for (int r = 0; r < kRows; ++r) a[u][r] = load_stream(row[r] + c + u * step);
        }
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) {
          Acc xv[V];
          load_x(c + u * step, xv);
#pragma unroll
          for (int r = 0; r < kRows; ++r) {
            Acc av[V];
            unpack<TA, Acc>(a[u][r], av);
#pragma unroll
            for (int e = 0; e < V; ++e) sum[r] = fma(av[e], xv[e], sum[r]);
          }
        }
      }
      for (; c < to; c += step) {
        Acc xv[V];
        load_x(c, xv);
#pragma unroll
        for (int r = 0; r < kRows; ++r) {
          Acc av[V];
          unpack<TA, Acc>(load_stream(row[r] + c), av);
#pragma unroll
          for (int e = 0; e < V; ++e) sum[r] = fma(av[e], xv[e], sum[r]);
        }
      }
    };
    stream(pivot, vector_end);
    stream(vector_begin, pivot);
    // The fewer than V elements before and after the words: one per lane of group 0.
    if (group_k == 0) {
      const index_t head = vector_begin - segment_begin;
      const index_t tail = segment_end - vector_end;
      if (lane < head || lane < tail) {
        for (int part = 0; part < 2; ++part) {
          const index_t e = part == 0 ? segment_begin + lane : vector_end + lane;
          if (lane >= (part == 0 ? head : tail)) continue;
          const Acc xe = to_acc(x[e * args.incx]);
#pragma unroll
          for (int r = 0; r < kRows; ++r) sum[r] = fma(to_acc(row[r][e]), xe, sum[r]);
        }
      }
    }

    // Reduce each row over the group's lanes (shuffles), then over groups_k (shared).
#pragma unroll
    for (int r = 0; r < kRows; ++r) {
#pragma unroll
      for (int offset = kLanes / 2; offset > 0; offset /= 2) {
        sum[r] += __shfl_xor_sync(0xffffffffu, sum[r], offset);
      }
    }
    if (lane == 0) {
#pragma unroll
      for (int r = 0; r < kRows; ++r) reduced[group_k * block_rows + group_r * kRows + r] = sum[r];
    }
    __syncthreads();
    const int outputs = static_cast<int>(min(static_cast<index_t>(block_rows), args.count - first_row));
    finish_tile<TY, Acc>(args, y, b, blockIdx.x, first_row, outputs, args.count, [&](int t) {
      Acc total = 0;
      for (int k = 0; k < groups_k; ++k) total += reduced[k * block_rows + t];
      return total;
    });
    __syncthreads();  // `reduced` is reused by the next batch entry
  }
}

// x_copies for the unaligned dot_kernel: copies[j * stride + j + i] = x[i * incx].
template <typename TX>
__global__ void __launch_bounds__(kBlockThreads)
    shifted_copies_kernel(const TX* x, index_t incx, index_t length, TX* copies, index_t stride) {
  constexpr int V = kVector<TX>;
  const index_t total = length * V;
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    const index_t copy = i / length;
    const index_t element = i % length;
    copies[copy * stride + copy + element] = x[element * incx];
  }
}

template <typename TA, typename TX, typename TY, typename Acc>
__global__ void __launch_bounds__(kBlockThreads)
    dot_staged_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  extern __shared__ uint4 staged_words[];
  __shared__ Acc staged_x[kStagedMaxLength];
  const index_t first_row = static_cast<index_t>(blockIdx.x) * args.rows_per_block;
  const index_t rows = min(args.rows_per_block, args.count - first_row);
  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;

    // The span [begin, end) of A holding the block's rows, copied so that each
    // element keeps its address modulo 16: whole 16-byte words are copied as words.
    const TA* begin = A + first_row * args.lda;
    const TA* end = begin + (rows - 1) * args.lda + args.length;
    const std::uintptr_t offset = reinterpret_cast<std::uintptr_t>(begin) % 16;
    const TA* first_word = reinterpret_cast<const TA*>(reinterpret_cast<std::uintptr_t>(begin) - offset);
    TA* staged = reinterpret_cast<TA*>(reinterpret_cast<char*>(staged_words) + offset);
    const index_t words = (reinterpret_cast<std::uintptr_t>(end) -
                           reinterpret_cast<std::uintptr_t>(first_word) + 15) / 16;
    for (index_t w = threadIdx.x; w < words; w += blockDim.x) {
      const TA* word = first_word + w * kVector<TA>;
      if (word >= begin && word + kVector<TA> <= end) {
        staged_words[w] = load_stream(word);
      } else {  // a partial word at either end: only the elements inside the span
        for (int e = 0; e < kVector<TA>; ++e) {
          const TA* element = word + e;
          if (element >= begin && element < end) staged[element - begin] = *element;
        }
      }
    }
    for (index_t c = threadIdx.x; c < args.length; c += blockDim.x) staged_x[c] = to_acc(x[c * args.incx]);
    __syncthreads();
    // Thread r starts its row at element r mod length: with lda a multiple of the 32
    // banks' width, rows side by side would otherwise hit one bank together.
    for (index_t r = threadIdx.x; r < rows; r += blockDim.x) {
      const TA* a = staged + r * args.lda;
      index_t c = r % args.length;
      Acc sum = 0;
      for (index_t k = 0; k < args.length; ++k) {
        sum = fma(to_acc(a[c]), staged_x[c], sum);
        if (++c == args.length) c = 0;
      }
      store_output(y, first_row + r, args.incy, args.alpha, args.beta, sum);
    }
    __syncthreads();
  }
}

}  // namespace fastmv::gemv_cuda
