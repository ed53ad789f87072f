// Mixed-precision GEMV: A in fastmv::half or fastmv::bfloat16, x and y in float or
// in A's type, float alpha, beta and accumulation. Against the oracle of
// gemv_harness.hpp (the Reference backend on exactly the same 16-bit inputs), with
// the tolerance derived there from the accumulation (float) and the output
// precision; and exactly, for integer-valued operands, where every partial sum is
// exact in float and y is rounded once.
//
// The Reference and Cpu backends run these overloads through the same reference
// loops and get modest sizes; the Cuda backend, which has tuned kernels for them,
// also gets the shapes its kernels split differently (large squares, 100003-long
// vectors), except under FASTMV_TEST_QUICK.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "common/precision.hpp"
#include "common/test_environment.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

constexpr bool kTunedBackend = kBackend == fastmv::Backend::Cuda;

// The problems a test may make as large as the backend deserves.
bool full_size() { return kTunedBackend && !quick_mode(); }

// 1, 2, around 8 (16-byte vectors of 16-bit elements), around 16 and 32, primes,
// around 256.
std::vector<index_t> cross_sizes() {
  if (quick_mode()) return {1, 7, 8, 9, 16, 17, 33, 257};
  return {1, 2, 7, 8, 9, 15, 16, 17, 31, 32, 33, 127, 255, 256, 257};
}

const std::vector<index_t> kIncrements = {1, 2, -1, -3};

index_t round_up(index_t value, index_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// The arguments that vary between calls on the same operands.
struct Call {
  float alpha, beta;
  index_t incx, incy;
};

template <typename P>
class GemvMixedPrecisionTest : public BackendTest {
 protected:
  using TA = typename P::TA;
  using TX = typename P::TX;
  using TY = typename P::TY;
  using Operands = GemvOperands<TA, TX>;

  // Random operands of one shape, checked with a fresh y for each call.
  // x and y `vector_misalign` elements off (misalign's unless given).
  bool check_shape(Layout layout, Op op, index_t m, index_t n, index_t lda, std::size_t misalign,
                   const std::vector<Call>& calls, std::size_t vector_misalign = Operands::kSameMisalign) {
    Operands operands(layout, op, m, n, lda, misalign, vector_misalign);
    operands.fill_random(this->random());
    for (const Call& call : calls) {
      const std::vector<TY> y = initial_y<TY>(this->random(), operands.y_size(), call.beta);
      if (!check_gemv(operands, call.alpha, call.beta, call.incx, call.incy, y,
                      thread_counts(false))) {
        return false;
      }
    }
    return true;
  }

  // The Axpy form of each stored shape (check_axpy_form) with alpha -0.7, beta 0.5 and
  // with beta = 0 over NaN in y.
  bool check_axpy_shapes(const std::vector<AxpyShape>& shapes) {
    return check_axpy_form(shapes, [this](Layout layout, Op op, index_t m, index_t n, index_t lda) {
      return check_shape(layout, op, m, n, lda, 0, {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, 1, 1}}, 0);
    });
  }
  // The Dot form (row-major N, column-major T) of `rows` stored rows of `length` with
  // lda padded by lda_extra, A `misalign` elements off: alpha and beta, beta = 0 over NaN
  // in y, x and y strided.
  struct DotShape {
    index_t rows, length, lda_extra;
    std::size_t misalign = 0;
  };
  bool check_dot_shapes(const std::vector<DotShape>& shapes) {
    for (const DotShape shape : shapes) {
      for (const Layout layout : kLayouts) {
        const Op op = layout == Layout::RowMajor ? Op::NoTrans : Op::Trans;
        const index_t m = layout == Layout::RowMajor ? shape.rows : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.rows;
        if (!check_shape(layout, op, m, n, min_lda(layout, m, n) + shape.lda_extra, shape.misalign,
                         {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, 1, 1}, {0.5f, 1.0f, -3, 2}})) {
          return false;
        }
      }
    }
    return true;
  }
};

using MixedPrecisions =
    ::testing::Types<Precision<fastmv::half, float>, Precision<fastmv::half, fastmv::half>,
                     Precision<fastmv::bfloat16, float>,
                     Precision<fastmv::bfloat16, fastmv::bfloat16>>;
TYPED_TEST_SUITE(GemvMixedPrecisionTest, MixedPrecisions, PrecisionNames);

// Every m x n of cross_sizes() for each layout x op, lda = min + 5 (NaN padding),
// operands one element (2 bytes) off alignment: alpha = -0.7 with beta = 0.5, and
// beta = 0 with NaN in y.
TYPED_TEST(GemvMixedPrecisionTest, ShapeCross) {
  const std::vector<index_t> sizes = cross_sizes();
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : sizes) {
        for (const index_t n : sizes) {
          if (!this->check_shape(layout, op, m, n, min_lda(layout, m, n) + 5, 1,
                                 {{-0.7f, 0.5f, 1, 1}, {-0.7f, 0.0f, 1, 1}})) {
            return;
          }
        }
      }
    }
  }
}

// 16-byte-aligned operands with lda a multiple of 8 elements (16 bytes), the
// layout the fastest paths need, on sizes that are and are not multiples of 8.
TYPED_TEST(GemvMixedPrecisionTest, AlignedOperands) {
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : {7, 8, 64, 264}) {
        for (const index_t n : {9, 16, 128, 264}) {
          const index_t lda = round_up(min_lda(layout, m, n), 8);
          if (!this->check_shape(layout, op, m, n, lda, 0,
                                 {{1.0f, 1.0f, 1, 1}, {-0.7f, 0.0f, 1, 1}, {-0.7f, 0.5f, -3, 2}})) {
            return;
          }
        }
      }
    }
  }
}

// Increments {1, 2, -1, -3} for x and y with alpha = beta = -0.7, and alpha, beta in
// {0, 1, -0.7} (alpha = 0: A and x unread; alpha = 0, beta = 1: y bit-identical;
// beta = 0: NaN in y ignored) with increments (1, 1) and (-3, 2), lda in
// {min, min + 5}.
TYPED_TEST(GemvMixedPrecisionTest, IncrementsAndScalars) {
  std::vector<Call> calls;
  for (const index_t incx : kIncrements) {
    for (const index_t incy : kIncrements) calls.push_back({-0.7f, -0.7f, incx, incy});
  }
  for (const float alpha : {0.0f, 1.0f, -0.7f}) {
    for (const float beta : {0.0f, 1.0f, -0.7f}) {
      calls.push_back({alpha, beta, 1, 1});
      calls.push_back({alpha, beta, -3, 2});
    }
  }
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : {1, 17, 33}) {
        for (const index_t n : {1, 17, 33}) {
          for (const index_t lda_extra : {0, 5}) {
            if (!this->check_shape(layout, op, m, n, min_lda(layout, m, n) + lda_extra, 1, calls)) {
              return;
            }
          }
        }
      }
    }
  }
}

// Tall-skinny (n = 1, n = 3) and short-wide (m = 1, m = 3), the long side 100003 on
// the Cuda backend (4099 elsewhere), misaligned and aligned.
TYPED_TEST(GemvMixedPrecisionTest, TallSkinnyAndShortWide) {
  const index_t long_side = full_size() ? 100003 : 4099;
  struct Shape {
    index_t m, n;
  };
  for (const Shape shape :
       {Shape{long_side, 1}, Shape{1, long_side}, Shape{long_side, 3}, Shape{3, long_side}}) {
    for (const Layout layout : kLayouts) {
      for (const Op op : kOps) {
        for (const std::size_t misalign : {0, 1}) {
          if (!this->check_shape(layout, op, shape.m, shape.n,
                                 min_lda(layout, shape.m, shape.n) + 5 * index_t(misalign),
                                 misalign, {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, -3, 2}})) {
            return;
          }
        }
      }
    }
  }
}

// Shapes drawn at random (log-uniform up to 5000 on the Cuda backend, 300
// elsewhere) with random layout, op, padding, alignment, increments and scalars:
// the sizes no list thought of. The seed in the failure message reproduces a draw.
TYPED_TEST(GemvMixedPrecisionTest, RandomShapes) {
  Random& random = this->random();
  const int draws = quick_mode() ? 20 : 100;
  const double largest = full_size() ? 5000 : 300;
  // An integer in [1, bound].
  const auto uniform = [&](int bound) { return std::abs(random.nonzero_integer(bound)); };
  const auto log_uniform = [&] {
    const double fraction = (uniform(1 << 20) - 1) / double(1 << 20);
    return static_cast<index_t>(std::pow(largest, fraction));
  };
  for (int draw = 0; draw < draws; ++draw) {
    const Layout layout = kLayouts[uniform(2) - 1];
    const Op op = kOps[uniform(2) - 1];
    const index_t m = log_uniform(), n = log_uniform();
    const index_t lda = min_lda(layout, m, n) + uniform(10) - 1;
    const std::size_t misalign = static_cast<std::size_t>(uniform(2) - 1);
    const float alphas[] = {-0.7f, 0.5f, 1.0f};
    const float betas[] = {0.0f, 0.5f, 1.0f};
    const Call call{alphas[uniform(3) - 1], betas[uniform(3) - 1],
                    kIncrements[std::size_t(uniform(4) - 1)],
                    kIncrements[std::size_t(uniform(4) - 1)]};
    if (!this->check_shape(layout, op, m, n, lda, misalign, {call})) return;
  }
}

// Squares and rectangles large enough for the Cuda kernels to split the reduction
// among blocks (one 1000 x 1000 elsewhere). 1544 x 16384 row-major T: on fast memory
// (an H200) the register Axpy kernel with 8 words in flight in one wave
// (GemvPolicy::axpy_one_wave_unroll8_max_rounds).
TYPED_TEST(GemvMixedPrecisionTest, LargeShapes) {
  struct Shape {
    index_t m, n;
    std::size_t misalign;
  };
  std::vector<Shape> shapes = {{1000, 1000, 1}};
  if (full_size()) {
    shapes.insert(shapes.end(), {{4096, 4096, 0},
                                 {4099, 4099, 1},
                                 {8192, 1024, 0},
                                 {1024, 8192, 0},
                                 {1544, 16384, 0},
                                 {65537, 2, 1}});
  }
  for (const Shape shape : shapes) {
    for (const Layout layout : kLayouts) {
      for (const Op op : kOps) {
        if (!this->check_shape(layout, op, shape.m, shape.n, min_lda(layout, shape.m, shape.n),
                               shape.misalign, {{-0.7f, 0.5f, 1, 1}})) {
          return;
        }
      }
    }
  }
}

// The Axpy form (row-major Trans, column-major NoTrans) with odd lda and few long
// stored vectors, 12-72 of 400009 elements on the Cuda backend: tiles of 128 and 256
// lanes (the realigned kernel held to 3 blocks per SM), whole tiles and a last partial
// one, the last vector's last word at the end of the matrix; A aligned and one
// element off.
TYPED_TEST(GemvMixedPrecisionTest, UnalignedFewLongVectors) {
  const index_t length = full_size() ? 400009 : 5003;
  for (const index_t count : {12, 24, 72}) {
    for (const Layout layout : kLayouts) {
      const Op op = layout == Layout::RowMajor ? Op::Trans : Op::NoTrans;
      const index_t m = layout == Layout::RowMajor ? count : length;
      const index_t n = layout == Layout::RowMajor ? length : count;
      for (const std::size_t misalign : {0, 1}) {
        if (!this->check_shape(layout, op, m, n, min_lda(layout, m, n) + 3, misalign,
                               {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, 1, 1}})) {
          return;
        }
      }
    }
  }
}

// The Axpy form (row-major Trans, column-major NoTrans) with stored vectors off
// 16-byte boundaries while x and y are aligned and contiguous, 1-3 MiB on the Cuda
// backend: under a policy override (scripts/gpu.sh; by default 2-byte types stay on
// the register kernel) it reads them through the TMA unit, one tensor map per class of
// vectors that share an offset from a 16-byte boundary (8 classes for odd lda, 4 or 2
// for lda 4 or 2 past a multiple of 8, 1 with A off a boundary). Counts that leave the
// classes unequal, lengths ending inside a tile, NaN in lda's padding, beta = 0 over
// NaN in y; under FASTMV_TEST_QUICK too (the sanitizer runs take the kernel from here).
TYPED_TEST(GemvMixedPrecisionTest, AxpyFormUnalignedVectors) {
  struct Shape {
    index_t count, length;
  };
  std::vector<Shape> shapes =
      kTunedBackend ? std::vector<Shape>{{1031, 700}, {517, 1283}, {2053, 1030}} : std::vector<Shape>{{67, 45}};
  // The narrow kernel's tiles of 16 outputs on the Cuda backend (axpy_narrow_kernel).
  if (full_size()) shapes.push_back({1537, 1537});
  for (const Shape shape : shapes) {
    for (const auto& [lda_extra, misalign] : {std::pair<index_t, std::size_t>{1, 0}, {2, 0}, {4, 0}, {5, 0},
                                              {0, 1}, {3, 1}, {0, 6}}) {
      for (const Layout layout : kLayouts) {
        const Op op = layout == Layout::RowMajor ? Op::Trans : Op::NoTrans;
        const index_t m = layout == Layout::RowMajor ? shape.count : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.count;
        if (!this->check_shape(layout, op, m, n, min_lda(layout, m, n) + lda_extra, misalign,
                               {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, 1, 1}}, 0)) {
          return;
        }
      }
    }
  }
}

// The Axpy form (row-major Trans, column-major NoTrans) with aligned vectors whose rows
// miss 128-byte lines: lda 8 past a multiple of 16 (every other vector 16 bytes into a
// 32-byte sector) and a multiple of 16 but not of 64; on the Cuda backend the TMA kernel
// by default, the narrow kernel's tiles of 16 outputs where GemvPolicy::
// axpy_narrow_aligned_2byte asks for them (1, or axpy_narrow=2 in scripts/gpu.sh's runs).
// For comparison lda a multiple of 64 (128-byte rows). Lengths ending inside a tile, NaN
// in lda's padding, beta = 0 over NaN in y.
TYPED_TEST(GemvMixedPrecisionTest, AxpyFormAlignedVectorsOffLines) {
  struct Shape {
    index_t count, length;  // every length 8 past a multiple of 16
  };
  std::vector<Shape> shapes = kTunedBackend ? std::vector<Shape>{{1200, 1800}} : std::vector<Shape>{{40, 72}};
  // 8192 x 2056: above the narrow kernel's sizes, the TMA kernel with splits.
  if (full_size()) shapes.insert(shapes.end(), {{2056, 2056}, {1300, 1544}, {8192, 2056}});
  for (const Shape shape : shapes) {
    for (const index_t lda : {shape.length, shape.length + 8, round_up(shape.length, 64)}) {
      for (const Layout layout : kLayouts) {
        const Op op = layout == Layout::RowMajor ? Op::Trans : Op::NoTrans;
        const index_t m = layout == Layout::RowMajor ? shape.count : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.count;
        if (!this->check_shape(layout, op, m, n, lda, 0, {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, 1, 1}}, 0)) {
          return;
        }
      }
    }
  }
}

// The Axpy form (row-major Trans, column-major NoTrans) of tall matrices with few
// outputs, aligned: from 32 MiB on the Cuda backend the TMA kernel reads them in tiles of
// 8 words split over the vectors one block an SM, the short vectors (272 bytes) before
// the flat kernel would (GemvPolicy::axpy_tma_split_wide), the partial sums of 16384 x
// 1024 and 1544 (8 and 5 splits on 132 SMs) added by a second kernel
// (GemvPolicy::axpy_tma_sum_kernel); a length ending inside a tile, lda with NaN padding,
// beta = 0 over NaN in y. Under FASTMV_TEST_QUICK (and elsewhere) smaller shapes, which
// scripts/gpu.sh's policy overrides send down the same paths.
TYPED_TEST(GemvMixedPrecisionTest, AxpyFormTallFewOutputs) {
  using Shape = AxpyShape;
  std::vector<Shape> shapes = kTunedBackend ? std::vector<Shape>{{4100, 1544, 1544}, {3000, 136, 144}}
                                            : std::vector<Shape>{{300, 72, 80}};
  if (full_size()) shapes.insert(shapes.end(), {{16384, 1024, 1032}, {16384, 1544, 1544}, {131072, 136, 136}});
  this->check_axpy_shapes(shapes);
}

// The Axpy form (row-major Trans, column-major NoTrans) of 2-byte vectors whose TMA tiles
// of 8 words fill about half the SMs: on 132 SMs the TMA kernel reads them unsplit in
// rings of 5 or 6 stages (GemvPolicy::axpy_tma_mid_ring_min_blocks_percent): 4096 outputs
// in 64 tiles (6 stages; 4-word tiles without the rule, and on fast memory, an H200), a
// vector count ending inside a stage of 128; 4224 in 66 (5 stages), lda on 32-byte
// sectors and 16 bytes past one (4232, NaN padding); 8704 in 68 tiles of 16 words (5
// stages; not on fast memory). beta = 0 over NaN in y.
TYPED_TEST(GemvMixedPrecisionTest, AxpyFormMidRing) {
  using Shape = AxpyShape;
  std::vector<Shape> shapes = kTunedBackend ? std::vector<Shape>{{2700, 4096, 4096}, {2650, 4224, 4232}, {3000, 8704, 8712}}
                                            : std::vector<Shape>{{200, 72, 80}};
  if (full_size()) shapes.insert(shapes.end(), {{11008, 4096, 4096}, {4224, 4224, 4224}});
  this->check_axpy_shapes(shapes);
}

// Aligned rows of whole 16-byte words, at least 128 of them, in the Dot form
// (row-major N, column-major T): the Cuda backend's rows balanced over the warps
// (dot_balanced_kernel), whose blocks take count / blocks rows and whose warps cut
// them into equal runs of words across row ends (each cut moved back to a 512-byte
// boundary of A in its row: rows of an odd number of words, rows on no such boundary,
// pieces of 0 words where gpu.sh cuts on 4096 bytes). Rows of 1024 elements (128 words:
// 8 rows a block on an H100 split 32 ways, each warp a quarter of a row), counts just
// over whole rows a block, lda with padding (NaN), beta = 0 over NaN in y, and x and y
// strided (x packed first). Rows of 129 and 257 words (4800 x 1032, 2200 x 2056) make
// pieces whose last words, at most two a lane in these 2-byte types (32 to 64 in some,
// with the cuts), ride with the first round, some of them reaching into the next row
// (on 132 SMs). On the Cuda backend under FASTMV_TEST_QUICK too (the
// sanitizer runs take this kernel from here); one small shape elsewhere. With the Dot
// form's TMA kernel forced (gpu.sh: dot_tma=2) the aligned ones make bands of 1-37 rows
// of 128- or 64-word stages, several rows a thread, partial last stages and last bands.
TYPED_TEST(GemvMixedPrecisionTest, BalancedRows) {
  using Shape = typename TestFixture::DotShape;
  std::vector<Shape> shapes = {{40, 1024, 8}};
  if (kTunedBackend) {
    shapes.insert(shapes.end(), {{1056, 1024, 0},
                                 {1187, 1024, 8},
                                 {2113, 1032, 0},
                                 {4352, 4352, 0},
                                 {1400, 8200, 16},
                                 {33000, 1024, 0},
                                 {4800, 1032, 8},
                                 {2200, 2056, 0}});
  }
  // Many rows of 129 words (a dot_kernel grid of many waves whose rounds of 128 words
  // leave the last nearly empty): the balanced kernel by default on the Cuda backend.
  if (full_size()) shapes.push_back({40000, 1032, 8});
  this->check_dot_shapes(shapes);
}

// Aligned rows of 129 to 1792 whole 16-byte words (1032-14336 elements) in the Dot form
// (row-major N, column-major T): on the Cuda backend x held in registers
// (dot_held_x_kernel), four warps a row up to 512 words (2-4 words a lane; rows of up to
// 384 words two a round), eight from 513 (3 to 7 words a lane), by default in matrices of
// 24-512 MiB whose rows fill 70 % of a row group's loads, on fast memory rows of up to 384
// words from 10 MiB (the full size's 4096^2; gpu.sh forces the kernel on every shape it
// takes, with one row a round and in line chunks too). Rows of 129, 257, 385
// and 513 words (the last warp's words nearly all masked), 1792 (none masked), fewer rows
// than the grid's row groups (5), many rows a group, lda with padding (NaN), beta = 0 over
// NaN in y, x and y strided (x packed first). One small shape elsewhere.
TYPED_TEST(GemvMixedPrecisionTest, DotFormHeldX) {
  using Shape = typename TestFixture::DotShape;
  std::vector<Shape> shapes = {{24, 3080, 8}};
  if (kTunedBackend) {
    shapes.insert(shapes.end(), {{5, 4096, 0}, {3001, 4096, 8}, {1000, 3080, 0}, {2500, 3504, 16}, {900, 4104, 0},
                                 {300, 8200, 16}, {700, 11008, 8}, {5, 14336, 0}, {400, 14336, 0}, {3001, 1032, 8},
                                 {1000, 2056, 0}, {2200, 3072, 0}, {777, 2048, 24}});
  }
  if (full_size()) shapes.push_back({4096, 4096, 0});
  this->check_dot_shapes(shapes);
}

// Aligned rows of 16 to 128 whole 16-byte words (128-1024 elements) in the Dot form: on
// the Cuda backend the held-x kernel's narrow rows (row groups of 8, 16 or 32 lanes, several
// a warp, GemvPolicy::dot_held_x_narrow; rows of up to 31 words ahead of the flat kernel up
// to 64 MiB; gpu.sh forces them on every shape they take, 2 and 4 words a lane, one and two
// rows a round). Rows that fill the groups' loads (16, 32, 64, 128 words) and rows that leave
// many of them masked (17, 25, 33, 65 words), fewer rows than a warp
// has groups (5), counts that end inside a warp's groups, lda with padding (NaN), beta = 0
// over NaN in y, x and y strided (x packed first). One small shape elsewhere.
TYPED_TEST(GemvMixedPrecisionTest, DotFormHeldXNarrow) {
  using Shape = typename TestFixture::DotShape;
  std::vector<Shape> shapes = {{300, 512, 8}};
  if (kTunedBackend) {
    shapes.insert(shapes.end(), {{5, 512, 0}, {3001, 256, 0}, {4099, 264, 0}, {2001, 520, 8}, {1000, 768, 16},
                                 {777, 1024, 0}, {1500, 1024, 24}, {9001, 512, 0}, {3001, 128, 0}, {1000, 200, 8},
                                 {77, 136, 0}});
  }
  if (full_size()) {
    shapes.push_back({131072, 512, 0});
    shapes.push_back({65536, 128, 0});
  }
  this->check_dot_shapes(shapes);
}

// The same kernel for rows off 16-byte boundaries and lengths that end inside a word
// (dot_held_x_kernel's kShifted; GemvPolicy::dot_held_x_shifted): each row group the rows
// of one offset class, the edges one element a lane. Odd lda (8 classes) with few rows, many
// rows a group, four and eight warps a row; lda of 2 and 4 classes; A one element off with
// aligned lda (one class, every row one element past a boundary); a length ending inside a
// word on aligned rows; the longest rows (1791 whole words), the shortest (129); NaN
// padding. gpu.sh forces it.
TYPED_TEST(GemvMixedPrecisionTest, DotFormHeldXShifted) {
  using Shape = typename TestFixture::DotShape;
  std::vector<Shape> shapes = {{24, 3081, 0, 0}};
  if (kTunedBackend) {
    shapes.insert(shapes.end(), {{5, 4097, 0, 0},
                                 {3001, 4097, 0, 0},
                                 {1000, 3084, 0, 0},
                                 {2500, 4100, 2, 0},
                                 {900, 4096, 0, 1},
                                 {600, 4100, 4, 0},
                                 {1000, 3085, 3, 0},
                                 {700, 11009, 0, 0},
                                 {300, 8197, 3, 1},
                                 {400, 14335, 0, 0},
                                 {33, 14343, 0, 1},
                                 {3001, 1033, 0, 0},
                                 {1000, 2049, 0, 0},
                                 {2200, 3073, 0, 0},
                                 {900, 2056, 0, 1},
                                 {1500, 1540, 2, 0}});
  }
  if (full_size()) shapes.push_back({4097, 4097, 0});
  this->check_dot_shapes(shapes);
}

// Rows off 16-byte boundaries in the Dot form (row-major N, column-major T) at 16-22 rows an
// SM up to 16 MiB: on a GPU of 132 SMs (H100, H200) the Cuda backend gives a block the rows
// of one class that share their offset and stages x in shared memory shifted by it
// (dot_shared_x_kernel, GemvPolicy::dot_shared_x). Odd lda (8 classes), a length ending
// inside a word, A one element off with rows on 16-byte strides (one class, every row one
// element past a boundary), NaN padding, beta = 0 over NaN in y, x and y strided (x read
// with its increment, negative too). One small shape elsewhere; gpu.sh forces the kernel on
// every shape of the suite.
TYPED_TEST(GemvMixedPrecisionTest, OddRowsSharedX) {
  using Shape = typename TestFixture::DotShape;
  std::vector<Shape> shapes = {{40, 300, 1, 0}};
  if (kTunedBackend) {
    shapes.insert(shapes.end(), {{2305, 2305, 0, 0}, {2561, 2567, 4, 0}, {2817, 2600, 0, 1}, {2400, 3001, 2, 0}});
  }
  this->check_dot_shapes(shapes);
}

// Short stored vectors in both forms (Axpy: row-major A^T, column-major A; Dot:
// row-major A, column-major A^T): the Cuda backend reads them as one flat run of
// granules (axpy_flat_kernel, dot_flat_kernel) of 16 bytes where lda, the length and
// the operands allow, else 8, 4 or 2 (lengths of 40, 36, 34 and 33 elements; one
// element off). Counts of whole and partial rounds, lda padded (NaN), beta = 0 over NaN
// in y, strided x and y; many vectors on the Cuda backend only.
TYPED_TEST(GemvMixedPrecisionTest, ShortVectorsBothForms) {
  struct Shape {
    index_t count, length;
  };
  std::vector<Shape> shapes;
  for (const index_t length : {17, 33, 34, 36, 40, 100, 200}) {
    for (const index_t count : {9, 1000, length < 200 ? 20011 : 5003}) shapes.push_back({count, length});
  }
  // Many rounds a block (the Dot form's blocks walk rounds of up to 4096 rows).
  if (full_size()) shapes.insert(shapes.end(), {{400009, 17}, {200003, 40}});
  for (const Shape shape : shapes) {
    for (const auto& [lda_extra, misalign] : {std::pair<index_t, std::size_t>{0, 0}, {8, 0}, {0, 1}}) {
      for (const auto& [layout, op] : {std::pair{Layout::RowMajor, Op::Trans}, {Layout::ColMajor, Op::NoTrans},
                                       {Layout::RowMajor, Op::NoTrans}, {Layout::ColMajor, Op::Trans}}) {
        // The many-round shapes once per form (column-major takes the same kernels).
        if (shape.count > 100000 && (lda_extra != 0 || misalign != 0 || layout == Layout::ColMajor)) continue;
        const index_t m = layout == Layout::RowMajor ? shape.count : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.count;
        if (!this->check_shape(layout, op, m, n, min_lda(layout, m, n) + lda_extra, misalign,
                               {{-0.7f, 0.5f, 1, 1}, {1.0f, 0.0f, -3, 2}})) {
          return;
        }
      }
    }
  }
}

// Integer-valued A and x in [-4, 4] \ {0}: every product is exact, and every
// partial sum (at most 16 * 4099 in magnitude, far below 2^24) is exact in float in
// any order, so y = 2 * op(A) x - y is the exact integer rounded once to y's type,
// whatever the kernel's summation order.
TYPED_TEST(GemvMixedPrecisionTest, IntegerValuedProductsAreExact) {
  using TA = typename TestFixture::TA;
  using TX = typename TestFixture::TX;
  using TY = typename TestFixture::TY;
  std::vector<index_t> sizes = {1, 7, 8, 9, 16, 17, 33, 257};
  if (full_size()) sizes.insert(sizes.end(), {1000, 4099});
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : sizes) {
        for (const index_t n : sizes) {
          typename TestFixture::Operands operands(layout, op, m, n, min_lda(layout, m, n) + 3, 1);
          for (index_t i = 0; i < m; ++i) {
            for (index_t j = 0; j < n; ++j) {
              operands.A()(i, j) = TA(float(this->random().nonzero_integer(4)));
            }
          }
          for (TX& value : operands.x_values())
            value = TX(float(this->random().nonzero_integer(4)));
          std::vector<TY> y(static_cast<std::size_t>(operands.y_size()));
          for (TY& value : y) value = from_double<TY>(this->random().nonzero_integer(8));
          std::vector<double> want(y.size());
          for (index_t i = 0; i < operands.y_size(); ++i) {
            std::int64_t sum = 0;
            for (index_t j = 0; j < operands.x_size(); ++j) {
              sum += static_cast<std::int64_t>(to_double(operands.op_a(i, j))) *
                     static_cast<std::int64_t>(to_double(operands.x_values()[std::size_t(j)]));
            }
            const std::size_t k = static_cast<std::size_t>(i);
            want[k] = to_double(from_double<TY>(double(2 * sum) - to_double(y[k])));
          }
          if (!check_gemv(operands, 2.0f, -1.0f, 1, 1, y, thread_counts(false), &want) ||
              !check_gemv(operands, 2.0f, -1.0f, -2, 3, y, thread_counts(false), &want)) {
            return;
          }
        }
      }
    }
  }
}

// alpha = 0: A and x are not read, so NaN and Inf in them never reach y, which
// becomes beta * y rounded once to y's type (zeros for beta = 0, even where y held
// NaN).
TYPED_TEST(GemvMixedPrecisionTest, NanAndInfInAAndXIgnoredWhenAlphaIsZero) {
  using TA = typename TestFixture::TA;
  using TX = typename TestFixture::TX;
  using TY = typename TestFixture::TY;
  const TA a_specials[] = {quiet_nan<TA>(), infinity<TA>()};
  const TX x_specials[] = {quiet_nan<TX>(), infinity<TX>()};
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      typename TestFixture::Operands operands(layout, op, 17, 33, min_lda(layout, 17, 33) + 5, 1);
      for (index_t i = 0; i < 17; ++i) {
        for (index_t j = 0; j < 33; ++j) operands.A()(i, j) = a_specials[(i + j) % 2];
      }
      for (std::size_t j = 0; j < operands.x_values().size(); ++j) {
        operands.x_values()[j] = x_specials[j % 2];
      }
      for (const float beta : {0.0f, -0.7f}) {
        const std::vector<TY> y = initial_y<TY>(this->random(), operands.y_size(), beta);
        std::vector<double> want;
        // beta * y is exact in double (24 x 11 or 24 x 8 significant bits) and then
        // rounded to float and to TY like the float computation of the library.
        for (const TY value : y) {
          want.push_back(
              beta == 0.0f ? 0.0 : to_double(from_double<TY>(double(beta) * to_double(value))));
        }
        if (!check_gemv(operands, 0.0f, beta, 2, -3, y, {0}, &want)) return;
      }
    }
  }
}

}  // namespace
}  // namespace fastmv_test
