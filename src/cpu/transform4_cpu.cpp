// CPU batched 4 x 4 transform: Highway SIMD kernels compiled once per x86 target
// (SSSE3 .. AVX-512) and chosen at run time, with M held in registers; threads from
// cpu/work_sharing.hpp, each taking chunks of `grain` vertices.
//
//   vec4:   one vertex per 128-bit block, so a 512-bit vector transforms four. Each
//           block's x, y, z and w are broadcast within the block (Broadcast<k>) and
//           multiplied by column k of M, repeated in every block: four FMAs per vector.
//   points: xyz triples are de-interleaved into x, y and z vectors (LoadInterleaved3),
//           transformed with M's entries broadcast, and interleaved back.
// Large arrays are written with non-temporal stores where the output is aligned:
// they bypass the caches, so the write costs no read for ownership and does not evict
// the input (the transform is memory-bound: 32 bytes moved per 16 flops).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>

#include "cpu/work_sharing.hpp"
#include "fastmv/error.hpp"
#include "kernels/transform4_kernels.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/transform4_cpu.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/cache_control.h"
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fastmv::kernels::cpu::HWY_NAMESPACE {
namespace hn = hwy::HWY_NAMESPACE;

// One vertex by the scalar formula the vector code follows (fused multiply-adds, x
// first), for the ends that do not fill a vector.
HWY_INLINE void Vertex(const float* HWY_RESTRICT m, const float* in, float* out, VertexKind kind) {
  const float x = in[0], y = in[1], z = in[2];
  const float w = kind == VertexKind::Vec4 ? in[3] : 1.0f;
  float r[4];
  for (int i = 0; i < 4; ++i) {
    const float* row = m + 4 * i;
    r[i] = std::fma(row[3], w, std::fma(row[2], z, std::fma(row[1], y, row[0] * x)));
  }
  if (kind == VertexKind::Vec4) {
    for (int i = 0; i < 4; ++i) out[i] = r[i];
  } else if (kind == VertexKind::Point) {
    for (int i = 0; i < 3; ++i) out[i] = r[i];
  } else {
    for (int i = 0; i < 3; ++i) out[i] = r[i] / r[3];
  }
}

template <class D, class V>
HWY_INLINE void Put(D d, V v, float* p, bool stream) {
  if (stream) {
    hn::Stream(v, d, p);
  } else {
    hn::StoreU(v, d, p);
  }
}

// Vertices [0, n) of one chunk. `stream`: out is vector-aligned and large.
void Transform(const float* HWY_RESTRICT m, VertexKind kind, const float* in, float* out, size_t n,
               bool stream) {
  const hn::ScalableTag<float> d;
  const size_t lanes = hn::Lanes(d);
  size_t i = 0;
#if HWY_TARGET != HWY_SCALAR
  if (kind == VertexKind::Vec4) {
    // Column k of M in every 128-bit block.
    const float columns[4][4] = {{m[0], m[4], m[8], m[12]},
                                 {m[1], m[5], m[9], m[13]},
                                 {m[2], m[6], m[10], m[14]},
                                 {m[3], m[7], m[11], m[15]}};
    const auto c0 = hn::LoadDup128(d, columns[0]);
    const auto c1 = hn::LoadDup128(d, columns[1]);
    const auto c2 = hn::LoadDup128(d, columns[2]);
    const auto c3 = hn::LoadDup128(d, columns[3]);
    const auto one = [&](const float* p) {
      const auto v = hn::LoadU(d, p);
      auto r = hn::Mul(c0, hn::Broadcast<0>(v));
      r = hn::MulAdd(c1, hn::Broadcast<1>(v), r);
      r = hn::MulAdd(c2, hn::Broadcast<2>(v), r);
      return hn::MulAdd(c3, hn::Broadcast<3>(v), r);
    };
    const size_t per_vector = lanes / 4;
    // Four vectors a step: independent loads and FMA chains in flight. All loads of
    // a step come before its stores, so in == out is safe.
    for (; i + 4 * per_vector <= n; i += 4 * per_vector) {
      const float* p = in + 4 * i;
      const auto r0 = one(p), r1 = one(p + lanes), r2 = one(p + 2 * lanes), r3 = one(p + 3 * lanes);
      float* q = out + 4 * i;
      Put(d, r0, q, stream);
      Put(d, r1, q + lanes, stream);
      Put(d, r2, q + 2 * lanes, stream);
      Put(d, r3, q + 3 * lanes, stream);
    }
    for (; i + per_vector <= n; i += per_vector) Put(d, one(in + 4 * i), out + 4 * i, stream);
  } else {
    const auto m00 = hn::Set(d, m[0]), m01 = hn::Set(d, m[1]), m02 = hn::Set(d, m[2]), m03 = hn::Set(d, m[3]);
    const auto m10 = hn::Set(d, m[4]), m11 = hn::Set(d, m[5]), m12 = hn::Set(d, m[6]), m13 = hn::Set(d, m[7]);
    const auto m20 = hn::Set(d, m[8]), m21 = hn::Set(d, m[9]), m22 = hn::Set(d, m[10]), m23 = hn::Set(d, m[11]);
    const auto m30 = hn::Set(d, m[12]), m31 = hn::Set(d, m[13]), m32 = hn::Set(d, m[14]), m33 = hn::Set(d, m[15]);
    const bool divide = kind == VertexKind::PointDivide;
    for (; i + lanes <= n; i += lanes) {
      hn::Vec<decltype(d)> x, y, z;
      hn::LoadInterleaved3(d, in + 3 * i, x, y, z);
      // (m0 x) + m1 y + m2 z + m3 w with w = 1, as Vertex() computes it.
      auto ox = hn::Add(hn::MulAdd(m02, z, hn::MulAdd(m01, y, hn::Mul(m00, x))), m03);
      auto oy = hn::Add(hn::MulAdd(m12, z, hn::MulAdd(m11, y, hn::Mul(m10, x))), m13);
      auto oz = hn::Add(hn::MulAdd(m22, z, hn::MulAdd(m21, y, hn::Mul(m20, x))), m23);
      if (divide) {
        const auto ow = hn::Add(hn::MulAdd(m32, z, hn::MulAdd(m31, y, hn::Mul(m30, x))), m33);
        ox = hn::Div(ox, ow);
        oy = hn::Div(oy, ow);
        oz = hn::Div(oz, ow);
      }
      hn::StoreInterleaved3(ox, oy, oz, d, out + 3 * i);
    }
  }
#else
  (void)lanes;
  (void)stream;
#endif
  const int width = floats_per_vertex(kind);
  for (; i < n; ++i) Vertex(m, in + width * i, out + width * i, kind);
}

// Bytes of the vector type: the alignment non-temporal stores need.
size_t VectorBytes() { return hn::Lanes(hn::ScalableTag<float>()) * sizeof(float); }

}  // namespace fastmv::kernels::cpu::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fastmv::kernels::cpu {

HWY_EXPORT(Transform);
HWY_EXPORT(VectorBytes);

namespace {
// Arrays from this size on (in + out) are written with non-temporal stores: more than
// a typical last-level cache, so the output would only evict the input.
constexpr std::size_t kStreamingBytes = std::size_t(32) << 20;

// The grain (vertices a thread claims at a time) when the caller leaves it to fastmv:
// about four chunks a thread, so that a thread that starts late or runs slow (another
// process on its core) leaves its last chunks to the others, but never below 4096
// vertices, where claiming a chunk and the start of its loop stop being free, nor
// above 65536, past which the chunks only make the ends uneven. The curve behind these
// numbers is in docs/PERFORMANCE.md ("how to pick the grain size").
// FASTMV_TRANSFORM4_GRAIN=<vertices> replaces it, for measurements.
constexpr index_t kMinGrain = 4096;
constexpr index_t kMaxGrain = 65536;

index_t automatic_grain(index_t n, int threads) {
  if (const char* text = std::getenv("FASTMV_TRANSFORM4_GRAIN"); text != nullptr && *text != '\0') {
    char* end = nullptr;
    const long long value = std::strtoll(text, &end, 10);
    if (*end != '\0' || value <= 0) {
      throw InvalidArgument("fastmv::transform4", "FASTMV_TRANSFORM4_GRAIN", text,
                            "must be a positive number of vertices (or unset)");
    }
    return static_cast<index_t>(value);
  }
  const index_t per_thread = (n + 4 * index_t(threads) - 1) / (4 * index_t(threads));
  // A multiple of 16 vertices keeps every chunk's stores vector-aligned.
  return (std::clamp(per_thread, kMinGrain, kMaxGrain) + 15) / 16 * 16;
}
}  // namespace

void transform4(const Transform4Problem& problem, int threads, index_t grain) {
  const int width = floats_per_vertex(problem.kind);
  const std::size_t bytes = 2 * sizeof(float) * static_cast<std::size_t>(width) * static_cast<std::size_t>(problem.n);
  const std::size_t vector_bytes = HWY_DYNAMIC_DISPATCH(VectorBytes)();
  // Large vec4 arrays are written with non-temporal stores, which need vector-aligned
  // addresses. A large std::vector or malloc block starts 16 bytes past a page (the
  // allocator's header), so `out` is rarely vector-aligned itself: the first few
  // vertices (`head`, up to vector_bytes / 16 - 1) go first with plain stores, and
  // the chunks of the rest start on vector boundaries. Outputs not on a 16-byte
  // boundary never reach one vertex by vertex and take plain stores throughout.
  const auto address = reinterpret_cast<std::uintptr_t>(problem.out);
  const bool stream = problem.kind == VertexKind::Vec4 && bytes >= kStreamingBytes && address % 16 == 0;
  const index_t head =
      stream ? static_cast<index_t>((vector_bytes - address % vector_bytes) % vector_bytes / 16) : index_t(0);
  Transform4Problem rest = problem;
  if (head > 0) {
    HWY_DYNAMIC_DISPATCH(Transform)(problem.matrix.m, problem.kind, problem.in, problem.out,
                                    static_cast<std::size_t>(head), false);
    rest.in += width * head;
    rest.out += width * head;
    rest.n -= head;
  }
  const index_t n = rest.n;
  if (grain <= 0) grain = automatic_grain(n, std::max(threads, 1));
  // Every chunk's stores stay aligned when a chunk is whole vectors.
  const bool stream_chunks = stream && (static_cast<std::size_t>(grain) * 4 * sizeof(float)) % vector_bytes == 0;
  const index_t chunks = (n + grain - 1) / grain;
  const int used = static_cast<int>(std::min<index_t>(std::max(threads, 1), chunks));
  parallel_chunks(used, static_cast<std::size_t>(chunks), [&](std::size_t chunk) {
    const index_t first = static_cast<index_t>(chunk) * grain;
    const index_t count = std::min(grain, n - first);
    HWY_DYNAMIC_DISPATCH(Transform)(rest.matrix.m, rest.kind, rest.in + width * first, rest.out + width * first,
                                    static_cast<std::size_t>(count), stream_chunks);
    // Non-temporal stores are weakly ordered: each thread fences its own before the
    // chunk counts as done.
    if (stream_chunks) hwy::FlushStream();
  });
}

}  // namespace fastmv::kernels::cpu
#endif  // HWY_ONCE
