// The one declaration of the batched 4 x 4 transform that every backend implements
// (reference/, cpu/, cuda/). Only dispatch/transform4.cpp calls these, with checked
// arguments: n > 0, in == out or disjoint, M row-major.
#pragma once

#include "cuda/runtime.hpp"
#include "fastmv/types.hpp"

namespace fastmv {
namespace detail {
struct CudaState;
}

namespace kernels {

// M(r, c) = m[4 r + c]: the matrix by value, as kernels take it.
struct Matrix4 {
  float m[16];
};

enum class VertexKind {
  Vec4,          // 4 floats in, 4 out
  Point,         // 3 floats in (w = 1), x' y' z' out
  PointDivide,   // 3 floats in (w = 1), x'/w' y'/w' z'/w' out
};

struct Transform4Problem {
  Matrix4 matrix;
  VertexKind kind;
  index_t n;        // vertices, > 0
  const float* in;  // n * (4 or 3) floats
  float* out;       // the same count; == in for in place
};

inline int floats_per_vertex(VertexKind kind) { return kind == VertexKind::Vec4 ? 4 : 3; }

namespace reference {
void transform4(const Transform4Problem& problem);
}

namespace cpu {
// `grain`: vertices per chunk of work (0: chosen per machine, see transform4_cpu.cpp).
void transform4(const Transform4Problem& problem, int threads, index_t grain = 0);
}

namespace cuda {
// Device arrays of the state's device, queued on `stream` (a cudaStream_t; null: the
// state's stream). Returns at once.
void transform4(const Transform4Problem& problem, detail::CudaState& state, void* stream = nullptr);

// At least one array in host memory (transform4_host.cpp): chunks of the arrays go
// through the state's host pipeline, copies up, kernels and copies down overlapped on
// its streams; pageable arrays are staged through its pinned buffers by `threads`
// threads. Ordered after the work queued on the state's stream; returns when `out`
// holds the result and `in` may be reused. Holds state.mutex while it runs: calls on
// one context from several threads take turns.
void transform4_host(const Transform4Problem& problem, detail::CudaState& state,
                     fastmv::cuda::Residence in, fastmv::cuda::Residence out, int threads);
}

}  // namespace kernels
}  // namespace fastmv
