// The reference transform: the plain loop every fast path is tested against. Each
// output is ((m0 x + m1 y) + m2 z) + m3 w, multiplied and added separately in float,
// in that order, exactly as written (the build has no fast-math).
#include "kernels/transform4_kernels.hpp"

namespace fastmv::kernels::reference {

void transform4(const Transform4Problem& problem) {
  const float* m = problem.matrix.m;
  const int width = floats_per_vertex(problem.kind);
  for (index_t i = 0; i < problem.n; ++i) {
    const float* v = problem.in + i * width;
    const float x = v[0], y = v[1], z = v[2];
    const float w = problem.kind == VertexKind::Vec4 ? v[3] : 1.0f;
    float result[4];
    for (int r = 0; r < 4; ++r) {
      const float* row = m + 4 * r;
      const float xy = row[0] * x + row[1] * y;
      const float xyz = xy + row[2] * z;
      result[r] = xyz + row[3] * w;
    }
    float* o = problem.out + i * width;  // may be v: every input is read above
    if (problem.kind == VertexKind::PointDivide) {
      for (int r = 0; r < 3; ++r) o[r] = result[r] / result[3];
    } else {
      for (int r = 0; r < width; ++r) o[r] = result[r];
    }
  }
}

}  // namespace fastmv::kernels::reference
