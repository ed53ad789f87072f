// The Axpy form: y[c] = alpha * sum_k x[k] * A[k * lda + c] + beta * y[c] for `count`
// stored vectors of `length` contiguous elements (row-major Trans, column-major
// NoTrans).
//
// A block covers a tile of `lanes` * V outputs; its kBlockThreads / lanes thread
// groups take interleaved stored vectors, each thread accumulating V outputs, and
// add their sums in shared memory. `splits` blocks share a tile when the tiles alone
// cannot fill the GPU. Aligned (A 16-byte aligned, lda and stride_a multiples of 16
// bytes): each thread loads V consecutive outputs' elements in one 16-byte word;
// otherwise element by element, lane-interleaved, so each warp load stays coalesced.
#pragma once

#include "cuda/gemv/gemv_common.cuh"

namespace fastmv::gemv_cuda {

constexpr int kAxpyUnroll = 4;

// One stored vector's elements for a thread, in two steps so that all of a thread's
// loads are in flight before the first conversion waits for its data: fetch (a
// 16-byte word when aligned and wholly inside the vector, else elements one by one,
// kept raw), then convert (outputs past `remaining` read as 0).
template <typename TA>
struct Fetched {
  uint4 word;
  TA elements[kVector<TA>];
};

template <typename TA, bool kAligned>
__device__ __forceinline__ void fetch_outputs(const TA* column, int lane, int lanes,
                                              index_t remaining, bool full_word,
                                              Fetched<TA>& out) {
  constexpr int V = kVector<TA>;
  if (kAligned && full_word) {
    out.word = load_stream(column + lane * V);
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) {
      const int e = kAligned ? lane * V + i : lane + i * lanes;
      out.elements[i] = e < remaining ? column[e] : TA{};
    }
  }
}

template <typename TA, typename Acc, bool kAligned>
__device__ __forceinline__ void convert_outputs(const Fetched<TA>& in, bool full_word,
                                                Acc (&out)[kVector<TA>]) {
  if (kAligned && full_word) {
    unpack<TA, Acc>(in.word, out);
  } else {
#pragma unroll
    for (int i = 0; i < kVector<TA>; ++i) out[i] = to_acc(in.elements[i]);
  }
}

template <typename TA, typename TX, typename TY, typename Acc, bool kAligned>
__global__ void __launch_bounds__(kBlockThreads)
    axpy_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr int V = kVector<TA>;
  __shared__ Acc reduced[kBlockThreads * V];

  const int lanes = args.lanes;
  const int groups_k = kBlockThreads / lanes;
  const int lane = threadIdx.x % lanes;
  const int group_k = threadIdx.x / lanes;
  const int tile_outputs = lanes * V;
  const index_t tile_first = static_cast<index_t>(blockIdx.x) * tile_outputs;

  // Output e of the tile held by this thread: lane * V + i (aligned) or lane + i * lanes.
  const auto local_output = [&](int i) { return kAligned ? lane * V + i : lane + i * lanes; };

  const index_t k_begin = static_cast<index_t>(blockIdx.y) * args.split_length;
  const index_t k_end = min(args.count, k_begin + args.split_length);

  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a + tile_first;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    const index_t remaining = args.length - tile_first;  // outputs from the tile's start
    const bool full_word = kAligned && (lane + 1) * V <= remaining;

    Acc sum[V];
#pragma unroll
    for (int i = 0; i < V; ++i) sum[i] = 0;

    index_t k = k_begin + group_k;
    const index_t step = groups_k;
    for (; k + (kAxpyUnroll - 1) * step < k_end; k += kAxpyUnroll * step) {
      Fetched<TA> fetched[kAxpyUnroll];
      TX xk[kAxpyUnroll];
#pragma unroll
      for (int u = 0; u < kAxpyUnroll; ++u) {
        fetch_outputs<TA, kAligned>(A + (k + u * step) * args.lda, lane, lanes, remaining,
                                    full_word, fetched[u]);
        xk[u] = x[(k + u * step) * args.incx];
      }
#pragma unroll
      for (int u = 0; u < kAxpyUnroll; ++u) {
        Acc a[V];
        convert_outputs<TA, Acc, kAligned>(fetched[u], full_word, a);
        const Acc xu = to_acc(xk[u]);
#pragma unroll
        for (int i = 0; i < V; ++i) sum[i] = fma(a[i], xu, sum[i]);
      }
    }
    for (; k < k_end; k += step) {
      Fetched<TA> fetched;
      fetch_outputs<TA, kAligned>(A + k * args.lda, lane, lanes, remaining, full_word, fetched);
      Acc a[V];
      convert_outputs<TA, Acc, kAligned>(fetched, full_word, a);
      const Acc xk = to_acc(x[k * args.incx]);
#pragma unroll
      for (int i = 0; i < V; ++i) sum[i] = fma(a[i], xk, sum[i]);
    }

    // Add the groups' sums: reduced[group][output], then one thread per output.
#pragma unroll
    for (int i = 0; i < V; ++i) reduced[group_k * tile_outputs + local_output(i)] = sum[i];
    __syncthreads();
    const int outputs = static_cast<int>(min(static_cast<index_t>(tile_outputs), remaining));
    finish_tile<TY, Acc>(args, y, b, blockIdx.x, tile_first, outputs, args.length, [&](int t) {
      Acc total = 0;
      for (int g = 0; g < groups_k; ++g) total += reduced[g * tile_outputs + t];
      return total;
    });
    __syncthreads();
  }
}

// Axpy form with at most kFewMaxCount stored vectors (tall-skinny column-major A,
// short-wide row-major A^T): no reduction across threads at all. Each thread owns
// kFewUnroll words of y at a time and walks the few stored vectors, keeping
// kFewUnroll loads in flight; the grid strides over y.
constexpr index_t kFewMaxCount = 8;
constexpr int kFewUnroll = 4;

template <typename TA, typename TX, typename TY, typename Acc, bool kAligned>
__global__ void __launch_bounds__(kBlockThreads)
    axpy_few_kernel(const GemvArgs<TA, TX, TY, Acc> args) {
  constexpr int V = kVector<TA>;
  const index_t words = (args.length + V - 1) / V;
  const index_t threads = static_cast<index_t>(gridDim.x) * blockDim.x;
  for (index_t b = blockIdx.z; b < args.batch; b += gridDim.z) {
    const TA* A = args.A + b * args.stride_a;
    const TX* x = args.x + b * args.stride_x;
    TY* y = args.y + b * args.stride_y;
    for (index_t w0 = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; w0 < words;
         w0 += threads * kFewUnroll) {
      Acc sum[kFewUnroll][V];
#pragma unroll
      for (int u = 0; u < kFewUnroll; ++u) {
#pragma unroll
        for (int i = 0; i < V; ++i) sum[u][i] = 0;
      }
      for (index_t k = 0; k < args.count; ++k) {
        const TA* column = A + k * args.lda;
        const Acc xk = to_acc(x[k * args.incx]);
        Fetched<TA> fetched[kFewUnroll];
        bool whole[kFewUnroll];
#pragma unroll
        for (int u = 0; u < kFewUnroll; ++u) {
          const index_t first = (w0 + u * threads) * V;
          whole[u] = kAligned && first + V <= args.length;
          // The word's outputs, counted from `first`: fetch_outputs with lane 0.
          fetch_outputs<TA, kAligned>(column + first, 0, 1, args.length - first, whole[u],
                                      fetched[u]);
        }
#pragma unroll
        for (int u = 0; u < kFewUnroll; ++u) {
          Acc a[V];
          convert_outputs<TA, Acc, kAligned>(fetched[u], whole[u], a);
#pragma unroll
          for (int i = 0; i < V; ++i) sum[u][i] = fma(a[i], xk, sum[u][i]);
        }
      }
      // Contiguous aligned y takes the V outputs of a word in 16-byte stores: scalar
      // stores V elements apart across the warp would touch V times more sectors.
      const bool y_words = args.incy == 1 && reinterpret_cast<std::uintptr_t>(y) % 16 == 0;
#pragma unroll
      for (int u = 0; u < kFewUnroll; ++u) {
        const index_t first = (w0 + u * threads) * V;
        if (y_words && first + V <= args.length) {
          store_output_words<TY, Acc, V>(y + first, args.alpha, args.beta, sum[u]);
          continue;
        }
#pragma unroll
        for (int i = 0; i < V; ++i) {
          if (first + i < args.length) {
            store_output(y, first + i, args.incy, args.alpha, args.beta, sum[u][i]);
          }
        }
      }
    }
  }
}

// y = beta * y (alpha == 0: A and x are not read); beta == 0 writes zeros.
template <typename TY, typename Acc>
__global__ void __launch_bounds__(kBlockThreads)
    scale_kernel(TY* y, index_t incy, index_t stride_y, index_t length, index_t batch, Acc beta) {
  const index_t total = length * batch;
  for (index_t i = blockIdx.x * static_cast<index_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<index_t>(gridDim.x) * blockDim.x) {
    TY* out = y + (i / length) * stride_y + (i % length) * incy;
    *out = from_acc<TY>(beta == Acc(0) ? Acc(0) : beta * to_acc(*out));
  }
}

}  // namespace fastmv::gemv_cuda
