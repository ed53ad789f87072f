// Seed 001's ladder (transform4_ladder.hpp). The per-vertex functions are kept out of
// line, as the seed's calls were; the rest is left to the compiler at the tool's flags.
#include "transform4_ladder.hpp"

#include <omp.h>

#if defined(__SSE__)
#include <xmmintrin.h>
#endif

namespace fastmv_tool::ladder {
namespace {

__attribute__((noinline)) void vertex_loops(float* dst, const float* a, const float* b) {
  std::size_t index = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    dst[i] = 0.0f;
    for (std::size_t j = 0; j < 4; ++j) {
      dst[i] += a[index] * b[j];
      ++index;
    }
  }
}

__attribute__((noinline)) void vertex_unrolled(float* dst, const float* a, const float* b) {
  dst[0] = a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3];
  dst[1] = a[4] * b[0] + a[5] * b[1] + a[6] * b[2] + a[7] * b[3];
  dst[2] = a[8] * b[0] + a[9] * b[1] + a[10] * b[2] + a[11] * b[3];
  dst[3] = a[12] * b[0] + a[13] * b[1] + a[14] * b[2] + a[15] * b[3];
}

}  // namespace

void naive(float* dst, const float* m, const float* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) vertex_loops(dst + 4 * i, m, src + 4 * i);
}

void unrolled(float* dst, const float* m, const float* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) vertex_unrolled(dst + 4 * i, m, src + 4 * i);
}

void batched(float* dst, const float* m, const float* src, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    dst[4 * i + 0] = m[0] * src[4 * i] + m[1] * src[4 * i + 1] + m[2] * src[4 * i + 2] + m[3] * src[4 * i + 3];
    dst[4 * i + 1] = m[4] * src[4 * i] + m[5] * src[4 * i + 1] + m[6] * src[4 * i + 2] + m[7] * src[4 * i + 3];
    dst[4 * i + 2] = m[8] * src[4 * i] + m[9] * src[4 * i + 1] + m[10] * src[4 * i + 2] + m[11] * src[4 * i + 3];
    dst[4 * i + 3] = m[12] * src[4 * i] + m[13] * src[4 * i + 1] + m[14] * src[4 * i + 2] + m[15] * src[4 * i + 3];
  }
}

void pointer(float* dst, const float* m, const float* src, std::size_t n) {
  float* d = dst;
  const float* a = src;
  while (n--) {
    d[0] = m[0] * a[0] + m[1] * a[1] + m[2] * a[2] + m[3] * a[3];
    d[1] = m[4] * a[0] + m[5] * a[1] + m[6] * a[2] + m[7] * a[3];
    d[2] = m[8] * a[0] + m[9] * a[1] + m[10] * a[2] + m[11] * a[3];
    d[3] = m[12] * a[0] + m[13] * a[1] + m[14] * a[2] + m[15] * a[3];
    d += 4;
    a += 4;
  }
}

void no_alias(float* dst, const float* m, const float* src, std::size_t n) {
  float* d = dst;
  const float* a = src;
  while (n--) {
    const float ax = a[0], ay = a[1], az = a[2], aw = a[3];
    d[0] = m[0] * ax + m[1] * ay + m[2] * az + m[3] * aw;
    d[1] = m[4] * ax + m[5] * ay + m[6] * az + m[7] * aw;
    d[2] = m[8] * ax + m[9] * ay + m[10] * az + m[11] * aw;
    d[3] = m[12] * ax + m[13] * ay + m[14] * az + m[15] * aw;
    d += 4;
    a += 4;
  }
}

void sse(float* dst, const float* m, const float* src, std::size_t n) {
#if defined(__SSE__)
  // The seed's layout: result = sum_k column k of M times component k. Its code
  // loaded M's rows, which is that for the transposed matrix; here M's columns are
  // gathered first so that the result is M v, as every other step computes.
  const __m128 c0 = _mm_setr_ps(m[0], m[4], m[8], m[12]);
  const __m128 c1 = _mm_setr_ps(m[1], m[5], m[9], m[13]);
  const __m128 c2 = _mm_setr_ps(m[2], m[6], m[10], m[14]);
  const __m128 c3 = _mm_setr_ps(m[3], m[7], m[11], m[15]);
  for (std::size_t i = 0; i < n; ++i, src += 4, dst += 4) {
    __m128 accumulator = _mm_mul_ps(_mm_load_ps1(src), c0);
    accumulator = _mm_add_ps(accumulator, _mm_mul_ps(_mm_load_ps1(src + 1), c1));
    accumulator = _mm_add_ps(accumulator, _mm_mul_ps(_mm_load_ps1(src + 2), c2));
    accumulator = _mm_add_ps(accumulator, _mm_mul_ps(_mm_load_ps1(src + 3), c3));
    _mm_store_ps(dst, accumulator);
  }
#else
  no_alias(dst, m, src, n);
#endif
}

namespace {
template <typename Step>
void over_grains(Step step, float* dst, const float* m, const float* src, std::size_t n, std::size_t grain,
                 int team) {
  const long full = static_cast<long>(n / grain);
#pragma omp parallel for num_threads(team)
  for (long i = 0; i < full; ++i) {
    step(dst + 4 * grain * static_cast<std::size_t>(i), m, src + 4 * grain * static_cast<std::size_t>(i), grain);
  }
  const std::size_t done = static_cast<std::size_t>(full) * grain;
  step(dst + 4 * done, m, src + 4 * done, n - done);
}
}  // namespace

void threads(float* dst, const float* m, const float* src, std::size_t n, std::size_t grain, int team) {
  over_grains(no_alias, dst, m, src, n, grain, team);
}

void threads_sse(float* dst, const float* m, const float* src, std::size_t n, std::size_t grain, int team) {
  over_grains(sse, dst, m, src, n, grain, team);
}

}  // namespace fastmv_tool::ladder
