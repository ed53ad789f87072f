// The one declaration of the batched 4 x 4 transform that every backend implements
// (reference/, cpu/, cuda/). Only dispatch/transform4.cpp calls these, with checked
// arguments: n > 0, in == out or disjoint, M row-major.
#pragma once

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
// Device arrays of the state's device, queued on its stream.
void transform4(const Transform4Problem& problem, detail::CudaState& state);
}

}  // namespace kernels
}  // namespace fastmv
