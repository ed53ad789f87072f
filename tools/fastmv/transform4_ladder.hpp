// The steps of seed 001's CPU ladder for n vec4 times one row-major 4 x 4 matrix,
// written as the seed wrote them (with its off-by-one in the first loop fixed), for
// `fastmv bench transform4` to measure against fastmv's Cpu backend. Not library code.
#pragma once

#include <cstddef>

namespace fastmv_tool::ladder {

// A call per vertex: nested loops over M's rows and columns.
void naive(float* dst, const float* m, const float* src, std::size_t n);
// A call per vertex, the sixteen products written out.
void unrolled(float* dst, const float* m, const float* src, std::size_t n);
// One call for the batch, indexed loads and stores.
void batched(float* dst, const float* m, const float* src, std::size_t n);
// One call, pointers walked with while (n--).
void pointer(float* dst, const float* m, const float* src, std::size_t n);
// The pointer walk with the vertex loaded into locals first, so that stores through
// dst cannot force reloads (the seed's "no aliasing" step).
void no_alias(float* dst, const float* m, const float* src, std::size_t n);
// SSE: M's rows in four registers, each vertex component broadcast (the seed's
// _mm_load_ps1), aligned loads and stores: src and dst must be 16-byte aligned.
void sse(float* dst, const float* m, const float* src, std::size_t n);
// OpenMP parallel for over chunks of `grain` vertices (the seed: 32) of no_alias or sse.
void threads(float* dst, const float* m, const float* src, std::size_t n, std::size_t grain, int team);
void threads_sse(float* dst, const float* m, const float* src, std::size_t n, std::size_t grain, int team);

}  // namespace fastmv_tool::ladder
