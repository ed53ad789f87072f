// CPU GEMV: Highway SIMD kernels compiled once per x86 target (SSSE3 .. AVX-512) and
// chosen at run time; threads from cpu/work_sharing.hpp. Tuning: gemv_cpu_policy.hpp.
//
// Both canonical forms (kernels/gemv_kernels.hpp) stream A in storage order:
//   Dot  - eight stored vectors per pass, one accumulator each (eight independent FMA
//          chains, eight streams for the prefetchers); x re-read from cache; the four
//          row sums of a group reduced together (SumOfLanes4);
//   Axpy - eight stored vectors per pass added into a y accumulator kept in L1/L2, so
//          A is read once, contiguously, with no strided gather.
// Every stream prefetches 1 KiB ahead. Work is cut into chunks of stored vectors (or
// column strips for short-wide problems), so each chunk streams one contiguous part of A.
#include <algorithm>
#include <cstddef>
#include <vector>

#include "kernels/gemv_kernels.hpp"
#include "cpu/gemv_cpu_policy.hpp"
#include "cpu/work_sharing.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/gemv_cpu.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fastmv::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// Asks for the line kPrefetchBytes ahead in a stored vector. The hardware streamer
// stops at each 4 KiB page; this keeps every stream's next page on its way. A prefetch
// never faults, so running past the end of A is harmless. kIntoL2: prefetcht2 when A
// streams from memory (an L1 prefetch holds one of the core's few L1 miss buffers:
// ~5 % slower at 16384^2 double); prefetcht0 for small matrices, where the line is
// wanted in L1 next (prefetcht2 measured 15-20 % slower at 16^2..64^2, cold).
template <bool kIntoL2, typename T>
HWY_INLINE void PrefetchAhead(const T* p) {
  __builtin_prefetch(reinterpret_cast<const char*>(p) + GemvCpuPolicy::kPrefetchBytes, 0,
                     kIntoL2 ? 1 : 3);
}

#if HWY_TARGET != HWY_SCALAR
// Adds the 128-bit blocks of v: one 128-bit vector.
template <class D>
HWY_INLINE auto SumOfBlocks(D d, hn::Vec<D> v) {
  if constexpr (hn::MaxLanes(d) * sizeof(hn::TFromD<D>) <= 16) {
    return v;
  } else {
    const hn::Half<D> half;
    return SumOfBlocks(half, hn::Add(hn::LowerHalf(half, v), hn::UpperHalf(half, v)));
  }
}

// out[i] = sum of the lanes of sums[i], i < 4: interleave-and-add the four vectors
// until each 128-bit block holds one partial sum per row, then add the blocks.
// About a third of the shuffles of four separate SumOfLanes.
template <class D, typename T>
HWY_INLINE void SumOfLanes4(D d, const hn::Vec<D>* sums, T* HWY_RESTRICT out) {
  const auto pair01 = hn::Add(hn::InterleaveLower(d, sums[0], sums[1]),
                              hn::InterleaveUpper(d, sums[0], sums[1]));
  const auto pair23 = hn::Add(hn::InterleaveLower(d, sums[2], sums[3]),
                              hn::InterleaveUpper(d, sums[2], sums[3]));
  if constexpr (sizeof(T) == 8) {  // a block holds one partial sum of each pair
    hn::StoreU(SumOfBlocks(d, pair01), hn::Full128<T>(), out);
    hn::StoreU(SumOfBlocks(d, pair23), hn::Full128<T>(), out + 2);
  } else {  // a block holds two partial sums of each pair: interleave once more
    const hn::Repartition<uint64_t, D> d64;
    const auto wide01 = hn::BitCast(d64, pair01);
    const auto wide23 = hn::BitCast(d64, pair23);
    const auto all = hn::Add(hn::BitCast(d, hn::InterleaveLower(d64, wide01, wide23)),
                             hn::BitCast(d, hn::InterleaveUpper(d64, wide01, wide23)));
    hn::StoreU(SumOfBlocks(d, all), hn::Full128<T>(), out);
  }
}
#endif

// out[i] = dot(A + i*lda, x) over `length` elements, for i < kRows. Eight rows keep
// eight FMA chains with one accumulator each; fewer rows unroll the columns by two.
template <size_t kRows, bool kIntoL2, typename T>
HWY_INLINE void DotBlock(const T* HWY_RESTRICT A, size_t lda, size_t length,
                         const T* HWY_RESTRICT x, T* HWY_RESTRICT out) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  V sum0[kRows];
  V sum1[kRows];
  for (size_t i = 0; i < kRows; ++i) sum0[i] = sum1[i] = hn::Zero(d);
  size_t c = 0;
  if constexpr (kRows < 8) {
    for (; c + 2 * N <= length; c += 2 * N) {
      const V x0 = hn::LoadU(d, x + c);
      const V x1 = hn::LoadU(d, x + c + N);
      for (size_t i = 0; i < kRows; ++i) {
        PrefetchAhead<kIntoL2>(A + i * lda + c);
        sum0[i] = hn::MulAdd(hn::LoadU(d, A + i * lda + c), x0, sum0[i]);
        sum1[i] = hn::MulAdd(hn::LoadU(d, A + i * lda + c + N), x1, sum1[i]);
      }
    }
  }
  for (; c + N <= length; c += N) {
    const V x0 = hn::LoadU(d, x + c);
    for (size_t i = 0; i < kRows; ++i) {
      PrefetchAhead<kIntoL2>(A + i * lda + c);
      sum0[i] = hn::MulAdd(hn::LoadU(d, A + i * lda + c), x0, sum0[i]);
    }
  }
#if !HWY_MEM_OPS_MIGHT_FAULT
  // Masked loads do not fault past the end on this target: no scalar tail.
  if (c < length) {
    const auto mask = hn::FirstN(d, length - c);
    const V x0 = hn::MaskedLoad(mask, d, x + c);
    for (size_t i = 0; i < kRows; ++i) {
      sum1[i] = hn::MulAdd(hn::MaskedLoad(mask, d, A + i * lda + c), x0, sum1[i]);
    }
    c = length;
  }
#endif
  for (size_t i = 0; i < kRows; ++i) sum0[i] = hn::Add(sum0[i], sum1[i]);
#if HWY_TARGET != HWY_SCALAR
  if constexpr (kRows % 4 == 0) {
    for (size_t i = 0; i < kRows; i += 4) SumOfLanes4(d, sum0 + i, out + i);
  } else
#endif
  {
    for (size_t i = 0; i < kRows; ++i) out[i] = hn::GetLane(hn::SumOfLanes(d, sum0[i]));
  }
  for (size_t i = 0; i < kRows; ++i) {
    for (size_t t = c; t < length; ++t) out[i] += A[i * lda + t] * x[t];
  }
}

// y[r] = alpha * dot(A_r, x) + beta * y[r] for the stored vectors r < rows;
// x and y contiguous; y is not read when beta == 0.
template <bool kIntoL2, typename T>
void DotRows(const T* HWY_RESTRICT A, size_t lda, size_t rows, size_t length,
             const T* HWY_RESTRICT x, T alpha, T beta, T* HWY_RESTRICT y) {
  constexpr size_t kBlock = GemvCpuPolicy::kDotRowsPerPass;
  T dots[kBlock];
  const auto store = [&](size_t r, size_t count) {
    for (size_t i = 0; i < count; ++i) {
      y[r + i] = beta == T(0) ? alpha * dots[i] : alpha * dots[i] + beta * y[r + i];
    }
  };
  size_t r = 0;
  for (; r + kBlock <= rows; r += kBlock) {
    DotBlock<kBlock, kIntoL2>(A + r * lda, lda, length, x, dots);
    store(r, kBlock);
  }
  if (rows - r >= 4) {
    DotBlock<4, kIntoL2>(A + r * lda, lda, length, x, dots);
    store(r, 4);
    r += 4;
  }
  for (; r < rows; ++r) {
    DotBlock<1, kIntoL2>(A + r * lda, lda, length, x, dots);
    store(r, 1);
  }
}

// acc[c] += sum_{i < kRows} coef[i] * A[i*lda + c] for c < length.
template <size_t kRows, bool kIntoL2, typename T>
HWY_INLINE void AxpyBlock(const T* HWY_RESTRICT A, size_t lda, size_t length,
                          const T* HWY_RESTRICT coef, T* HWY_RESTRICT acc) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const size_t N = hn::Lanes(d);
  V scale[kRows];
  for (size_t i = 0; i < kRows; ++i) scale[i] = hn::Set(d, coef[i]);
  size_t c = 0;
  for (; c + N <= length; c += N) {
    V sum = hn::LoadU(d, acc + c);
    for (size_t i = 0; i < kRows; ++i) {
      PrefetchAhead<kIntoL2>(A + i * lda + c);
      sum = hn::MulAdd(scale[i], hn::LoadU(d, A + i * lda + c), sum);
    }
    hn::StoreU(sum, d, acc + c);
  }
#if !HWY_MEM_OPS_MIGHT_FAULT
  if (c < length) {
    const auto mask = hn::FirstN(d, length - c);
    V sum = hn::MaskedLoad(mask, d, acc + c);
    for (size_t i = 0; i < kRows; ++i) {
      sum = hn::MulAdd(scale[i], hn::MaskedLoad(mask, d, A + i * lda + c), sum);
    }
    hn::BlendedStore(sum, mask, d, acc + c);
    c = length;
  }
#endif
  for (; c < length; ++c) {
    T sum = acc[c];
    for (size_t i = 0; i < kRows; ++i) sum += coef[i] * A[i * lda + c];
    acc[c] = sum;
  }
}

#if !HWY_MEM_OPS_MIGHT_FAULT
// AxpyRows for length <= one vector (y of a tall-skinny A^T x): y stays in four
// register accumulators across all rows, one masked load and FMA per row, instead of
// a masked load and store of the accumulator for every eight rows (100003 x 3 float
// row-major T ran at 2.3 GB/s that way).
template <typename T>
void AxpyNarrow(const T* HWY_RESTRICT A, size_t lda, size_t rows, size_t length,
                const T* HWY_RESTRICT x, T alpha, T* HWY_RESTRICT acc) {
  const hn::ScalableTag<T> d;
  using V = hn::Vec<decltype(d)>;
  const auto mask = hn::FirstN(d, length);
  V sum0 = hn::Zero(d), sum1 = hn::Zero(d), sum2 = hn::Zero(d), sum3 = hn::Zero(d);
  size_t r = 0;
  for (; r + 4 <= rows; r += 4) {
    sum0 = hn::MulAdd(hn::Set(d, x[r]), hn::MaskedLoad(mask, d, A + r * lda), sum0);
    sum1 = hn::MulAdd(hn::Set(d, x[r + 1]), hn::MaskedLoad(mask, d, A + (r + 1) * lda), sum1);
    sum2 = hn::MulAdd(hn::Set(d, x[r + 2]), hn::MaskedLoad(mask, d, A + (r + 2) * lda), sum2);
    sum3 = hn::MulAdd(hn::Set(d, x[r + 3]), hn::MaskedLoad(mask, d, A + (r + 3) * lda), sum3);
  }
  for (; r < rows; ++r) {
    sum0 = hn::MulAdd(hn::Set(d, x[r]), hn::MaskedLoad(mask, d, A + r * lda), sum0);
  }
  const V sum = hn::Add(hn::Add(sum0, sum1), hn::Add(sum2, sum3));
  const V y = hn::MulAdd(hn::Set(d, alpha), sum, hn::MaskedLoad(mask, d, acc));
  hn::BlendedStore(y, mask, d, acc);
}
#endif

// acc[c] += alpha * sum_{r < rows} x[r] * A[r*lda + c] for c < length; x and acc
// contiguous. Columns go in chunks that keep acc in L1/L2 while rows stream by.
template <bool kIntoL2, typename T>
void AxpyRows(const T* HWY_RESTRICT A, size_t lda, size_t rows, size_t length,
              const T* HWY_RESTRICT x, T alpha, T* HWY_RESTRICT acc) {
#if !HWY_MEM_OPS_MIGHT_FAULT
  if (length <= hn::Lanes(hn::ScalableTag<T>())) {
    AxpyNarrow(A, lda, rows, length, x, alpha, acc);
    return;
  }
#endif
  constexpr size_t kBlock = GemvCpuPolicy::kAxpyRowsPerPass;
  const size_t chunk = GemvCpuPolicy::kAxpyChunkBytes / sizeof(T);
  for (size_t c0 = 0; c0 < length; c0 += chunk) {
    const size_t width = std::min(chunk, length - c0);
    T coef[kBlock];
    size_t r = 0;
    for (; r + kBlock <= rows; r += kBlock) {
      for (size_t i = 0; i < kBlock; ++i) coef[i] = alpha * x[r + i];
      AxpyBlock<kBlock, kIntoL2>(A + r * lda + c0, lda, width, coef, acc + c0);
    }
    if (rows - r >= 4) {
      for (size_t i = 0; i < 4; ++i) coef[i] = alpha * x[r + i];
      AxpyBlock<4, kIntoL2>(A + r * lda + c0, lda, width, coef, acc + c0);
      r += 4;
    }
    for (; r < rows; ++r) {
      coef[0] = alpha * x[r];
      AxpyBlock<1, kIntoL2>(A + r * lda + c0, lda, width, coef, acc + c0);
    }
  }
}

// `streaming`: A is large enough to come from memory (GemvCpuPolicy::kStreamingBytes).
template <typename T>
void DotRowsAny(const T* A, size_t lda, size_t rows, size_t length, const T* x, T alpha, T beta,
                T* y, bool streaming) {
  if (streaming) {
    DotRows<true>(A, lda, rows, length, x, alpha, beta, y);
  } else {
    DotRows<false>(A, lda, rows, length, x, alpha, beta, y);
  }
}
template <typename T>
void AxpyRowsAny(const T* A, size_t lda, size_t rows, size_t length, const T* x, T alpha, T* acc,
                 bool streaming) {
  if (streaming) {
    AxpyRows<true>(A, lda, rows, length, x, alpha, acc);
  } else {
    AxpyRows<false>(A, lda, rows, length, x, alpha, acc);
  }
}

void DotRowsF32(const float* A, size_t lda, size_t rows, size_t length, const float* x,
                float alpha, float beta, float* y, bool streaming) {
  DotRowsAny(A, lda, rows, length, x, alpha, beta, y, streaming);
}
void DotRowsF64(const double* A, size_t lda, size_t rows, size_t length, const double* x,
                double alpha, double beta, double* y, bool streaming) {
  DotRowsAny(A, lda, rows, length, x, alpha, beta, y, streaming);
}
void AxpyRowsF32(const float* A, size_t lda, size_t rows, size_t length, const float* x,
                 float alpha, float* acc, bool streaming) {
  AxpyRowsAny(A, lda, rows, length, x, alpha, acc, streaming);
}
void AxpyRowsF64(const double* A, size_t lda, size_t rows, size_t length, const double* x,
                 double alpha, double* acc, bool streaming) {
  AxpyRowsAny(A, lda, rows, length, x, alpha, acc, streaming);
}

}  // namespace fastmv::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fastmv::kernels::cpu {

HWY_EXPORT(DotRowsF32);
HWY_EXPORT(DotRowsF64);
HWY_EXPORT(AxpyRowsF32);
HWY_EXPORT(AxpyRowsF64);

namespace {

void dot_rows(const float* A, size_t lda, size_t rows, size_t length, const float* x,
              float alpha, float beta, float* y, bool streaming) {
  HWY_DYNAMIC_DISPATCH(DotRowsF32)(A, lda, rows, length, x, alpha, beta, y, streaming);
}
void dot_rows(const double* A, size_t lda, size_t rows, size_t length, const double* x,
              double alpha, double beta, double* y, bool streaming) {
  HWY_DYNAMIC_DISPATCH(DotRowsF64)(A, lda, rows, length, x, alpha, beta, y, streaming);
}
void axpy_rows(const float* A, size_t lda, size_t rows, size_t length, const float* x,
               float alpha, float* acc, bool streaming) {
  HWY_DYNAMIC_DISPATCH(AxpyRowsF32)(A, lda, rows, length, x, alpha, acc, streaming);
}
void axpy_rows(const double* A, size_t lda, size_t rows, size_t length, const double* x,
               double alpha, double* acc, bool streaming) {
  HWY_DYNAMIC_DISPATCH(AxpyRowsF64)(A, lda, rows, length, x, alpha, acc, streaming);
}

// [begin, end) of part `part` when `total` items are cut into `parts` near-equal
// parts whose boundaries are multiples of `granule` (except the last).
struct Range {
  size_t begin;
  size_t end;
};
Range split(size_t total, size_t parts, size_t part, size_t granule) {
  const size_t granules = (total + granule - 1) / granule;
  const size_t begin = std::min(total, granules * part / parts * granule);
  const size_t end = std::min(total, granules * (part + 1) / parts * granule);
  return {begin, end};
}

// How a problem is cut: `chunks` pieces shared by up to `threads` threads.
struct Plan {
  int threads;
  size_t chunks;
};

// One thread until A is large enough to pay for waking another (GemvCpuPolicy);
// then a few chunks per thread, each at least kMinBytesPerThread of A, so a thread
// that starts late still finds work, and never more chunks than granules.
Plan plan_for(size_t matrix_bytes, size_t granules, int max_threads) {
  const size_t by_size = matrix_bytes / GemvCpuPolicy::kMinBytesPerThread;
  if (max_threads <= 1 || by_size < 2 || granules < 2) return {1, 1};
  const size_t chunks = std::min({static_cast<size_t>(max_threads) * GemvCpuPolicy::kChunksPerThread,
                                  by_size, granules});
  return {static_cast<int>(std::min(static_cast<size_t>(max_threads), chunks)), chunks};
}

// y = beta * y over a contiguous y; beta == 0 writes zeros without reading.
template <typename T>
void scale(T* y, size_t n, T beta) {
  if (beta == T(0)) {
    std::fill(y, y + n, T(0));
  } else if (beta != T(1)) {
    for (size_t i = 0; i < n; ++i) y[i] *= beta;
  }
}

// Dot form, contiguous x and y: chunks are blocks of stored vectors, each writing its
// own part of y.
template <typename T>
void gemv_dot(const GemvProblem<T>& p, const T* x, T* y, int max_threads) {
  const size_t rows = p.count, length = p.length, lda = p.lda;
  const size_t bytes = rows * length * sizeof(T);
  const bool streaming = bytes >= GemvCpuPolicy::kStreamingBytes;
  const Plan plan = plan_for(bytes, (rows + 3) / 4, max_threads);
  parallel_chunks(plan.threads, plan.chunks, [&](size_t chunk) {
    const Range part = split(rows, plan.chunks, chunk, 4);
    if (part.end > part.begin) {
      dot_rows(p.A + part.begin * lda, lda, part.end - part.begin, length, x, p.alpha, p.beta,
               y + part.begin, streaming);
    }
  });
}

// Axpy form, contiguous x and y (y already scaled by beta). With many stored vectors,
// chunks are blocks of them: chunk 0 adds into y, chunk c > 0 into partial sum c,
// and the partial sums are added in chunk order, so the result does not depend on
// which thread ran which chunk. With few stored vectors (short-wide problems), chunks
// are column strips of y and need no partial sums.
template <typename T>
void gemv_axpy(const GemvProblem<T>& p, const T* x, T* y, int max_threads) {
  const size_t rows = p.count, length = p.length, lda = p.lda;
  const size_t bytes = rows * length * sizeof(T);
  const bool streaming = bytes >= GemvCpuPolicy::kStreamingBytes;
  // Partial sums cost 2 (chunks - 1) / rows of the traffic of A: at least
  // kAxpyRowsPerPartial stored vectors per chunk keep that small.
  const Plan by_rows = plan_for(bytes, rows / GemvCpuPolicy::kAxpyRowsPerPartial, max_threads);
  if (by_rows.chunks > 1) {
    std::vector<T> partials((by_rows.chunks - 1) * length);
    parallel_chunks(by_rows.threads, by_rows.chunks, [&](size_t chunk) {
      T* acc = chunk == 0 ? y : partials.data() + (chunk - 1) * length;
      if (chunk != 0) std::fill(acc, acc + length, T(0));
      const Range part = split(rows, by_rows.chunks, chunk, 4);
      axpy_rows(p.A + part.begin * lda, lda, part.end - part.begin, length, x + part.begin,
                p.alpha, acc, streaming);
    });
    for (size_t chunk = 1; chunk < by_rows.chunks; ++chunk) {
      const T* partial = partials.data() + (chunk - 1) * length;
      for (size_t c = 0; c < length; ++c) y[c] += partial[c];
    }
    return;
  }
  const Plan by_columns = plan_for(bytes, (length + 63) / 64, max_threads);
  parallel_chunks(by_columns.threads, by_columns.chunks, [&](size_t chunk) {
    const Range strip = split(length, by_columns.chunks, chunk, 64);
    if (strip.end > strip.begin) {
      axpy_rows(p.A + strip.begin, lda, rows, strip.end - strip.begin, x, p.alpha,
                y + strip.begin, streaming);
    }
  });
}

template <typename T>
void gemv_impl(const GemvProblem<T>& p, int max_threads) {
  const size_t x_size = p.x_size(), y_size = p.y_size();
  if (p.alpha == T(0)) {  // y = beta * y; A and x are not read
    for (size_t i = 0; i < y_size; ++i) {
      T& yi = p.y[static_cast<index_t>(i) * p.incy];
      yi = p.beta == T(0) ? T(0) : p.beta * yi;
    }
    return;
  }
  // Non-unit increments: gather into contiguous copies (O(n) next to O(mn)) and
  // run the unit-stride kernels on them.
  std::vector<T> x_packed, y_packed;
  const T* x = p.x;
  if (p.incx != 1) {
    x_packed.resize(x_size);
    for (size_t i = 0; i < x_size; ++i) x_packed[i] = p.x[static_cast<index_t>(i) * p.incx];
    x = x_packed.data();
  }
  T* y = p.y;
  if (p.incy != 1) {
    y_packed.resize(y_size);
    if (p.beta != T(0)) {
      for (size_t i = 0; i < y_size; ++i) y_packed[i] = p.y[static_cast<index_t>(i) * p.incy];
    }
    y = y_packed.data();
  }
  if (p.form == GemvForm::Dot) {
    gemv_dot(p, x, y, max_threads);
  } else {
    scale(y, y_size, p.beta);
    gemv_axpy(p, x, y, max_threads);
  }
  if (p.incy != 1) {
    for (size_t i = 0; i < y_size; ++i) p.y[static_cast<index_t>(i) * p.incy] = y_packed[i];
  }
}

}  // namespace

void gemv(const GemvProblem<float>& problem, int threads) { gemv_impl(problem, threads); }
void gemv(const GemvProblem<double>& problem, int threads) { gemv_impl(problem, threads); }

}  // namespace fastmv::kernels::cpu
#endif  // HWY_ONCE
