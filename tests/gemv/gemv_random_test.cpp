// GEMV against the oracle (gemv_harness.hpp) on fresh random inputs in [-1, 1]:
// adversarial shapes, leading dimensions, increments, alpha and beta, misaligned
// and aligned operands, on every layout x op, float and double.
#include <gtest/gtest.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "common/test_environment.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

// 0, 1, small, SIMD tile - 1 / tile / tile + 1 (16 floats = one AVX-512 vector),
// primes, around 256 and large.
std::vector<index_t> cross_sizes() {
  if (quick_mode()) return {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 255, 256, 257};
  return {0, 1, 2, 3, 7, 15, 16, 17, 31, 33, 255, 256, 257, 1000, 4099};
}

// Smaller sizes that still hit tile edges, for the cross over everything else.
const std::vector<index_t> kEdgeSizes = {1, 3, 17, 33, 257};
const std::vector<index_t> kIncrements = {1, 2, -1, -3};

bool large(index_t m, index_t n) { return m * n >= kLargeProblemElements; }

template <typename T>
class GemvRandomTest : public BackendTest {
 protected:
  std::vector<T> scalars() const { return {T(0), T(1), T(-0.7)}; }

  // Fresh random operands of one shape against the oracle: alpha = beta = -0.7 over a
  // random y with unit increments, then alpha = 1, beta = 0 over a poisoned y with x and y
  // strided (-3, 2).
  bool check_fresh(Layout layout, Op op, index_t m, index_t n, index_t lda, std::size_t misalign) {
    GemvOperands<T> operands(layout, op, m, n, lda, misalign);
    operands.fill_random(this->random());
    const std::vector<T> y = initial_y(this->random(), operands.y_size(), T(-0.7));
    const std::vector<T> poisoned = initial_y(this->random(), operands.y_size(), T(0));
    return check_gemv(operands, T(-0.7), T(-0.7), 1, 1, y, thread_counts(false)) &&
           check_gemv(operands, T(1), T(0), -3, 2, poisoned, thread_counts(false));
  }

  // check_fresh in the Dot form (row-major NoTrans, column-major Trans) of `rows` rows of
  // `length` elements: lda the least plus lda_extra, or the least rounded up to a multiple
  // of 4 elements (whole_words: 16-byte rows for float).
  bool check_dot_form(index_t rows, index_t length, index_t lda_extra, std::size_t misalign,
                      bool whole_words = false) {
    for (const Layout layout : kLayouts) {
      const Op op = layout == Layout::RowMajor ? Op::NoTrans : Op::Trans;
      const index_t m = layout == Layout::RowMajor ? rows : length;
      const index_t n = layout == Layout::RowMajor ? length : rows;
      const index_t lda = whole_words ? (min_lda(layout, m, n) + 3) / 4 * 4 : min_lda(layout, m, n) + lda_extra;
      if (!check_fresh(layout, op, m, n, lda, misalign)) return false;
    }
    return true;
  }

  // check_fresh in the Axpy form of each stored shape (check_axpy_form).
  bool check_axpy_shapes(const std::vector<AxpyShape>& shapes) {
    return check_axpy_form(shapes, [this](Layout layout, Op op, index_t m, index_t n, index_t lda) {
      return check_fresh(layout, op, m, n, lda, 0);
    });
  }

  // Increments x scalars x lda on m, n in kEdgeSizes for one layout x op (below).
  void check_increments_scalars_lda(Layout layout, Op op) {
    for (const index_t m : kEdgeSizes) {
      for (const index_t n : kEdgeSizes) {
        for (const index_t lda_extra : {0, 5}) {
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + lda_extra, 1);
          operands.fill_random(this->random());
          for (const index_t incx : kIncrements) {
            for (const index_t incy : kIncrements) {
              for (const T alpha : scalars()) {
                for (const T beta : scalars()) {
                  const std::vector<T> y = initial_y(this->random(), operands.y_size(), beta);
                  if (!check_gemv(operands, alpha, beta, incx, incy, y, thread_counts(false))) return;
                }
              }
            }
          }
        }
      }
    }
  }
};

using FloatTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GemvRandomTest, FloatTypes);

// Every m x n of cross_sizes() for each layout x op, lda = min + 5 (NaN padding),
// unit increments, alpha = beta = -0.7, operands one element off alignment.
TYPED_TEST(GemvRandomTest, ShapeCrossUnitIncrements) {
  using T = TypeParam;
  const std::vector<index_t> sizes = cross_sizes();
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : sizes) {
        for (const index_t n : sizes) {
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + 5, 1);
          operands.fill_random(this->random());
          const T scalar = T(-0.7);
          const std::vector<T> y = initial_y(this->random(), operands.y_size(), scalar);
          if (!check_gemv(operands, scalar, scalar, 1, 1, y, thread_counts(large(m, n)))) return;
        }
      }
    }
  }
}

// Increments {1, 2, -1, -3} for x and y x alpha, beta in {0, 1, -0.7} x lda in
// {min, min + 5} on m, n in kEdgeSizes crossed, one layout x op a test: 7200 calls each,
// and on a GPU each call is a launch and its copies, so the four can run in separate
// shards (GTEST_TOTAL_SHARDS) rather than one test taking most of a shard's time.
TYPED_TEST(GemvRandomTest, IncrementsScalarsLdaCrossRowMajorNoTrans) {
  this->check_increments_scalars_lda(Layout::RowMajor, Op::NoTrans);
}
TYPED_TEST(GemvRandomTest, IncrementsScalarsLdaCrossRowMajorTrans) {
  this->check_increments_scalars_lda(Layout::RowMajor, Op::Trans);
}
TYPED_TEST(GemvRandomTest, IncrementsScalarsLdaCrossColMajorNoTrans) {
  this->check_increments_scalars_lda(Layout::ColMajor, Op::NoTrans);
}
TYPED_TEST(GemvRandomTest, IncrementsScalarsLdaCrossColMajorTrans) {
  this->check_increments_scalars_lda(Layout::ColMajor, Op::Trans);
}

// Tall-skinny (100003 x 3) and short-wide (3 x 100003) for every layout x op with
// 1, 2 and 3 threads: all increment pairs with alpha = beta = -0.7, and all alpha,
// beta pairs with increments (1, 1) and (-3, 2), lda in {min, min + 5}.
TYPED_TEST(GemvRandomTest, TallSkinnyAndShortWide) {
  using T = TypeParam;
  const index_t long_side = quick_mode() ? 20011 : 100003;
  struct Shape {
    index_t m, n;
  };
  for (const Shape shape : {Shape{long_side, 3}, Shape{3, long_side}}) {
    for (const Layout layout : kLayouts) {
      for (const Op op : kOps) {
        for (const index_t lda_extra : {0, 5}) {
          GemvOperands<T> operands(layout, op, shape.m, shape.n,
                                   min_lda(layout, shape.m, shape.n) + lda_extra, 1);
          operands.fill_random(this->random());
          auto check = [&](T alpha, T beta, index_t incx, index_t incy) {
            const std::vector<T> y = initial_y(this->random(), operands.y_size(), beta);
            return check_gemv(operands, alpha, beta, incx, incy, y, thread_counts(true));
          };
          for (const index_t incx : kIncrements) {
            for (const index_t incy : kIncrements) {
              if (!check(T(-0.7), T(-0.7), incx, incy)) return;
            }
          }
          for (const T alpha : this->scalars()) {
            for (const T beta : this->scalars()) {
              if (!check(alpha, beta, 1, 1) || !check(alpha, beta, -3, 2)) return;
            }
          }
        }
      }
    }
  }
}

// Many short stored vectors (the Axpy form of row-major A^T and column-major A with
// 1-32 outputs: the CUDA backend's staged Axpy kernel, its chunks of whole vectors and
// their split over blocks): lengths around the 16-byte words, counts around the
// chunks, lda from the length to length + 2, increments 1 and -3, alpha and beta
// general and beta = 0 over a poisoned y.
TYPED_TEST(GemvRandomTest, ShortVectorsLongReductions) {
  using T = TypeParam;
  // 70001 x 32 takes several chunks a block on the CUDA backend.
  const std::vector<index_t> counts = quick_mode() ? std::vector<index_t>{9, 5003, 40009}
                                                   : std::vector<index_t>{9, 5003, 70001};
  for (const index_t length : {1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 31, 32}) {
    for (const index_t count : counts) {
      for (const index_t lda_extra : {0, 1, 2}) {
        for (const Layout layout : kLayouts) {
          // Row-major A^T and column-major A: `count` vectors of `length` outputs.
          const Op op = layout == Layout::RowMajor ? Op::Trans : Op::NoTrans;
          const index_t m = layout == Layout::RowMajor ? count : length;
          const index_t n = layout == Layout::RowMajor ? length : count;
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + lda_extra, 1);
          operands.fill_random(this->random());
          for (const index_t inc : {1, -3}) {
            const std::vector<T> y = initial_y(this->random(), operands.y_size(), T(-0.7));
            if (!check_gemv(operands, T(-0.7), T(-0.7), inc, inc, y, thread_counts(false))) return;
          }
          const std::vector<T> poisoned = initial_y(this->random(), operands.y_size(), T(0));
          if (!check_gemv(operands, T(1), T(0), 1, 1, poisoned, thread_counts(false))) return;
        }
      }
    }
  }
}

// The same shapes with operands at 64-byte-aligned addresses (the other tests
// offset every operand by one element).
TYPED_TEST(GemvRandomTest, AlignedOperands) {
  using T = TypeParam;
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      for (const index_t m : kEdgeSizes) {
        for (const index_t n : kEdgeSizes) {
          GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n), 0);
          operands.fill_random(this->random());
          const std::vector<T> y = initial_y(this->random(), operands.y_size(), T(1));
          if (!check_gemv(operands, T(1), T(1), 1, 1, y, thread_counts(false)) ||
              !check_gemv(operands, T(-0.7), T(0), -3, 2,
                          initial_y(this->random(), operands.y_size(), T(0)),
                          thread_counts(false))) {
            return;
          }
        }
      }
    }
  }
}

// Aligned rows of whole 16-byte words, at least 128 of them (512 floats, 256
// doubles), in the Dot form (row-major N, column-major T): the Cuda backend's rows
// balanced over the warps (dot_balanced_kernel: blocks of count / blocks rows, warps
// cutting them into equal runs of words across row ends, each cut moved back to a
// 512-byte boundary of A in its row; gpu.sh also cuts anywhere and on 4096-byte
// boundaries, where most pieces are empty), counts just over whole rows
// a block, lda with padding, beta = 0 over a poisoned y, strided x and y; 4800 rows of
// 516 floats (129 words) make pieces whose last words ride with the first round, some
// of them reaching into the next row (on 132 SMs). Full sizes on
// the Cuda backend only, FASTMV_TEST_QUICK included (the sanitizer runs take this
// kernel from here; the other backends run these shapes through the loops the rest do).
TYPED_TEST(GemvRandomTest, BalancedRows) {
  using T = TypeParam;
  struct Shape {
    index_t rows, length, lda_extra;
  };
  std::vector<Shape> shapes = {{40, 512, 4}};
  if (kBackend == fastmv::Backend::Cuda) {
    shapes.insert(shapes.end(),
                  {{528, 512, 0}, {1187, 512, 4}, {2113, 1032, 0}, {4352, 4352, 0}, {1400, 2056, 8}, {4800, 516, 4}});
  }
  for (const Shape shape : shapes) {
    for (const Layout layout : kLayouts) {
      const Op op = layout == Layout::RowMajor ? Op::NoTrans : Op::Trans;
      const index_t m = layout == Layout::RowMajor ? shape.rows : shape.length;
      const index_t n = layout == Layout::RowMajor ? shape.length : shape.rows;
      GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + shape.lda_extra, 0);
      operands.fill_random(this->random());
      const std::vector<T> y = initial_y(this->random(), operands.y_size(), T(-0.7));
      const std::vector<T> poisoned = initial_y(this->random(), operands.y_size(), T(0));
      if (!check_gemv(operands, T(-0.7), T(-0.7), 1, 1, y, thread_counts(false)) ||
          !check_gemv(operands, T(1), T(0), 1, 1, poisoned, thread_counts(false)) ||
          !check_gemv(operands, T(0.5), T(1), -3, 2, y, thread_counts(false))) {
        return;
      }
    }
  }
}

// Short rows in the Dot form (row-major N, column-major T) past the staged kernel's 32
// elements: 9-17 16-byte words of float, 17-34 of double (the Cuda backend gives rows of
// up to 16 words 4 lanes each), counts from 1 to many blocks, lda rounded up to 16
// bytes with the operands aligned, and lda + 3 with them one element off.
TYPED_TEST(GemvRandomTest, ShortRowsDotForm) {
  using T = TypeParam;
  const std::vector<index_t> counts = quick_mode() ? std::vector<index_t>{1, 1000, 20011}
                                                   : std::vector<index_t>{1, 5, 1000, 70001};
  constexpr index_t kWord = 16 / sizeof(T);
  for (const index_t length : {33, 36, 40, 60, 64, 68}) {
    for (const index_t count : counts) {
      for (const std::size_t misalign : {0, 1}) {
        for (const Layout layout : kLayouts) {
          const Op op = layout == Layout::RowMajor ? Op::NoTrans : Op::Trans;
          const index_t m = layout == Layout::RowMajor ? count : length;
          const index_t n = layout == Layout::RowMajor ? length : count;
          const index_t lda = misalign == 0 ? (length + kWord - 1) / kWord * kWord : length + 3;
          if (!this->check_fresh(layout, op, m, n, std::max(lda, min_lda(layout, m, n)), misalign)) return;
        }
      }
    }
  }
}

// A few long rows in the Dot form (row-major A, column-major A^T): too few rows to fill
// the GPU, so the Cuda backend splits each row over blocks, aligned doubles two rows a
// group from 32 rows (dot_two_rows_8byte_few_min_rows; an odd count leaves the last
// group one row), rows one element off realigned; beta = 0 over a poisoned y, strided x
// and y.
TYPED_TEST(GemvRandomTest, FewLongRowsDotForm) {
  using T = TypeParam;
  constexpr index_t kWord = 16 / sizeof(T);
  for (const index_t rows : {31, 32, 33, 40}) {
    for (const index_t length : {65536, 65541}) {
      for (const std::size_t misalign : {0, 1}) {
        for (const Layout layout : kLayouts) {
          const Op op = layout == Layout::RowMajor ? Op::NoTrans : Op::Trans;
          const index_t m = layout == Layout::RowMajor ? rows : length;
          const index_t n = layout == Layout::RowMajor ? length : rows;
          const index_t lda = misalign == 0 ? (length + kWord) / kWord * kWord : length + 3;
          if (!this->check_fresh(layout, op, m, n, lda, misalign)) return;
        }
      }
    }
  }
}

// Dot-form rows of 129-1792 16-byte words (float: 516-7168 elements), which the Cuda
// backend's x-held kernel (dot_held_x_kernel; GemvPolicy::dot_held_x, dot_held_x_4byte)
// can take: 4 warps of 2-4 words a lane and 8 warps of 3-7, rows on 16-byte boundaries and
// off them (lda + 1 and + 2: 4 and 2 offset classes; A one element off; lengths ending
// inside a word), so that each row group reads the words inside its rows and the edges
// one element a lane; few rows and many rows a group; beta = 0 over a poisoned y,
// strided x and y. gpu.sh forces the kernel on every shape it can take; 2100 x 2053 in
// float (17 MB, rows of 513 words off the boundaries, 67 % of 8 warps x 3 words) is one
// that the default policy gives it on any GPU (GemvPolicy::dot_held_x_4byte_any_memory),
// and on an H100 (memory under GemvPolicy::fast_memory_min_gbps_per_sm) 1200 x 5636 and
// 1100 x 7168 in float (26 and 30 MB, aligned rows of 1409 and 1792 words:
// GemvPolicy::dot_held_x_4byte_aligned_min_words) and 1100 x 6145 (rows of 6 words a lane
// off the boundaries: dot_held_x_4byte_max_k_slow_memory).
TYPED_TEST(GemvRandomTest, DotFormHeldXRows) {
  struct Shape {
    index_t rows, length, lda_extra;
    std::size_t misalign;
  };
  std::vector<Shape> shapes = {{24, 1000, 0, 0}};
  if (kBackend == fastmv::Backend::Cuda) {
    shapes.insert(shapes.end(), {{5, 4096, 0, 0},
                                 {3001, 2052, 0, 0},
                                 {1000, 2053, 0, 0},
                                 {2500, 1200, 1, 0},
                                 {900, 2048, 0, 1},
                                 {600, 1100, 2, 0},
                                 {300, 516, 3, 0},
                                 {2000, 1102, 0, 0},
                                 {400, 7163, 0, 0},
                                 {700, 7168, 0, 1},
                                 {2100, 2053, 0, 0},
                                 {1200, 5636, 0, 0},
                                 {1100, 7168, 0, 0},
                                 {1100, 6145, 0, 0}});
  }
  for (const Shape shape : shapes) {
    if (!this->check_dot_form(shape.rows, shape.length, shape.lda_extra, shape.misalign)) return;
  }
}

// Long Dot-form rows on 16-byte boundaries, about one row a warp of the GPU: on a GPU of
// 132 SMs the Cuda backend's two-row float grid would be one wave of blocks filling 97 %
// of its slots, so it takes the rows one a group, 8 words in flight
// (GemvPolicy::dot_one_row_4byte_min_words); a count that ends inside a block and a
// length that ends inside a word; beta = 0 over a poisoned y, strided x and y. The other
// backends take a few such rows.
TYPED_TEST(GemvRandomTest, LongRowsOneWaveDotForm) {
  struct Shape {
    index_t rows, length;
  };
  std::vector<Shape> shapes = {{64, 12302}};
  if (kBackend == fastmv::Backend::Cuda) {
    shapes = {{4096, 12288}};
    if (!quick_mode()) shapes.push_back({4090, 12302});
  }
  for (const Shape shape : shapes) {
    if (!this->check_dot_form(shape.rows, shape.length, 0, 0, true)) return;
  }
}

// Long aligned Dot-form rows, many of them: at least 64 rows an SM on a GPU of up to 136
// SMs and at least 2176 16-byte words a float row, which the Cuda backend reads in blocks
// of 128 threads, a row a warp (GemvPolicy::dot_threads_128_4byte_min_words); a count that
// ends inside a block and a length that ends inside a word; beta = 0 over a poisoned y,
// strided x and y. gpu.sh runs the suite with those blocks everywhere they can go. The
// other backends take a few such rows.
TYPED_TEST(GemvRandomTest, ManyLongRowsDotForm) {
  struct Shape {
    index_t rows, length;
  };
  std::vector<Shape> shapes = {{37, 8710}};
  if (kBackend == fastmv::Backend::Cuda) {
    shapes = {{8707, 8710}};
    if (!quick_mode()) shapes.push_back({12040, 12040});
  }
  for (const Shape shape : shapes) {
    if (!this->check_dot_form(shape.rows, shape.length, 0, 0, true)) return;
  }
}

// Dot-form rows of 16-128 whole 16-byte words (float: 64-512 elements) on 16-byte
// boundaries, which the Cuda backend's x-held kernel takes in narrow row groups (8-32
// lanes, several a warp: GemvPolicy::dot_held_x_narrow): rows that fill the groups' loads
// and rows that leave many of them masked (17, 25, 33, 65 words), fewer rows than a warp
// has groups, counts that end inside a warp's groups, lda with padding; beta = 0 over a
// poisoned y, strided x and y. gpu.sh forces the kernel on every shape it can take.
TYPED_TEST(GemvRandomTest, DotFormHeldXNarrowRows) {
  struct Shape {
    index_t rows, length, lda_extra;
  };
  std::vector<Shape> shapes = {{300, 256, 4}};
  if (kBackend == fastmv::Backend::Cuda) {
    shapes.insert(shapes.end(), {{5, 256, 0}, {3001, 128, 0}, {4099, 132, 0}, {2001, 260, 4}, {1000, 384, 8},
                                 {777, 512, 0}, {9001, 256, 0}, {3001, 64, 0}, {1000, 100, 4}, {77, 68, 0}});
  }
  for (const Shape shape : shapes) {
    if (!this->check_dot_form(shape.rows, shape.length, shape.lda_extra, 0)) return;
  }
}

// Tall matrices in the Axpy form (row-major A^T, column-major A) whose stored vectors
// end a few elements past a tile of outputs: 1032 floats make 8 tiles of 128 and a
// ninth of 8. The Cuda backend's register Axpy kernel reads lda 1033 and 1041 (one
// element past a multiple of 16 bytes) and splits each tile over as many blocks as fill
// whole waves of block slots: for float on 132 SMs 58 splits of 9 tiles for 528 slots,
// a count past 32 that only GemvPolicy::split_fill_waves offers (double: the narrow
// kernel at the quick sizes, 31 splits of 17 tiles at the full ones), the last block of
// each tile adding the splits' partial sums. beta = 0 over a poisoned y, strided x and y.
TYPED_TEST(GemvRandomTest, TallAxpyWaveSplits) {
  using Shape = AxpyShape;
  std::vector<Shape> shapes = {{12000, 1032, 1033}, {3000, 1040, 1041}};
  if (!quick_mode()) shapes.insert(shapes.end(), {{24000, 1032, 1033}, {20000, 1040, 1041}});
  this->check_axpy_shapes(shapes);
}

// The Axpy form (row-major Trans, column-major NoTrans) of vectors whose fp32 TMA tiles of
// 16 words fill about half the SMs: on an H100 (132 SMs) 4352 outputs in 68 tiles, read
// unsplit in rings of 5 stages (GemvPolicy::axpy_tma_mid_ring_min_blocks_percent), lda on
// and off 32-byte sectors; double takes other kernels. Strided x and y, beta = 0 over a
// poisoned y in the second call.
TYPED_TEST(GemvRandomTest, AxpyFormMidRing) {
  using Shape = AxpyShape;
  std::vector<Shape> shapes = {{3000, 4352, 4352}};
  if (!quick_mode()) shapes.push_back({2600, 4352, 4356});
  this->check_axpy_shapes(shapes);
}

// Short stored vectors in both forms: the Axpy form (row-major A^T, column-major A)
// and the Dot form (row-major A, column-major A^T), which the Cuda backend reads as one
// flat run of granules (axpy_flat_kernel, dot_flat_kernel) of 16 bytes where lda, the
// length and the operands allow it, else 8 or 4 (odd lengths, one element off): the
// Axpy form's blocks splitting the vectors, the Dot form's walking rounds of rows.
// Lengths from 9 to 256 elements, counts from 9 to many rounds a block, lda equal to
// the length or padded, beta = 0 over a poisoned y, strided x and y.
TYPED_TEST(GemvRandomTest, ShortVectorsBothForms) {
  struct Shape {
    index_t count, length;
  };
  std::vector<Shape> shapes;
  for (const index_t length : {9, 33, 40, 41, 64, 100, 129, 256}) {
    for (const index_t count : {9, 1000, length < 200 ? 20011 : 5003}) shapes.push_back({count, length});
  }
  // Many rounds a block (the Dot form's blocks walk rounds of up to 4096 rows).
  if (kBackend == fastmv::Backend::Cuda && !quick_mode()) {
    shapes.insert(shapes.end(), {{400009, 9}, {200003, 40}, {70001, 129}});
  }
  for (const Shape shape : shapes) {
    // lda padded, or the operands one element off (granules of one element for odd
    // lengths, else of 8 bytes or one element).
    for (const auto& [lda_extra, misalign] : {std::pair<index_t, std::size_t>{0, 0}, {4, 0}, {0, 1}}) {
      for (const auto& [layout, op] : {std::pair{Layout::RowMajor, Op::Trans}, {Layout::ColMajor, Op::NoTrans},
                                       {Layout::RowMajor, Op::NoTrans}, {Layout::ColMajor, Op::Trans}}) {
        // The many-round shapes once per form (column-major takes the same kernels).
        if (shape.count > 100000 && (lda_extra != 0 || misalign != 0 || layout == Layout::ColMajor)) continue;
        // `count` stored vectors (rows of the storage order) of `length` elements.
        const index_t m = layout == Layout::RowMajor ? shape.count : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.count;
        if (!this->check_fresh(layout, op, m, n, min_lda(layout, m, n) + lda_extra, misalign)) return;
      }
    }
  }
}

// The Axpy form (row-major Trans, column-major NoTrans) at the sizes where the Cuda
// backend's default choices take the narrow kernel (axpy_narrow_kernel: tiles of 16
// or 32 outputs, each block walking every stored vector; aligned fp32 vectors are the TMA
// kernel's by default): 4-90 MiB, lengths that leave
// the last tile partial, odd and aligned lda, A off one element, x and y strided; beta =
// 0 over a poisoned y. Two shapes under FASTMV_TEST_QUICK (the sanitizer runs with
// axpy_narrow=2 take the kernel everywhere from the other tests): 600 vectors, whose 88
// past the last whole round of loads get a round of their own, and 520, whose 8 the
// groups read with their first (axpy_narrow_fold_tail), as with 1537 and 4099 vectors
// (and 1800 where the tiles are of 32 outputs, 256 vectors a round). 513^2, and 2049
// vectors of 1025 outputs, fill under half of an H100's 132 block slots with short
// tiles, which the default takes from 512 KiB at odd lda (axpy_narrow_short_max_tile_bytes).
TYPED_TEST(GemvRandomTest, AxpyFormNarrowTiles) {
  struct Shape {
    index_t count, length;
  };
  std::vector<Shape> shapes = {{600, 1800}, {520, 1800}, {513, 513}};
  if (kBackend != fastmv::Backend::Cuda) shapes = {{70, 45}};
  if (kBackend == fastmv::Backend::Cuda && !quick_mode()) {
    shapes.insert(shapes.end(), {{1537, 1537}, {1800, 2049}, {3000, 3585}, {4099, 1031}, {2049, 1025}});
  }
  for (const Shape shape : shapes) {
    for (const auto& [lda_extra, misalign] : {std::pair<index_t, std::size_t>{1, 0}, {0, 0}, {3, 1}}) {
      for (const Layout layout : kLayouts) {
        const Op op = layout == Layout::RowMajor ? Op::Trans : Op::NoTrans;
        const index_t m = layout == Layout::RowMajor ? shape.count : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.count;
        if (!this->check_fresh(layout, op, m, n, min_lda(layout, m, n) + lda_extra, misalign)) return;
      }
    }
  }
}

// The Axpy form (row-major Trans, column-major NoTrans) with stored vectors that do
// not start on 16-byte boundaries (lda not a multiple of 16 bytes, or A off one)
// while x and y are aligned and contiguous, 1-3 MiB and about 100 MiB: the Cuda backend
// may read them through the TMA unit, one tensor map per class of vectors that share
// an offset from a 16-byte boundary (2 or 4 classes here). Counts that leave the classes unequal,
// lengths that end inside a tile, NaN in lda's padding, beta = 0 over a poisoned y;
// under FASTMV_TEST_QUICK too (the sanitizer runs take the kernel from here).
TYPED_TEST(GemvRandomTest, AxpyFormUnalignedVectors) {
  using T = TypeParam;
  struct Shape {
    index_t count, length;
  };
  std::vector<Shape> shapes =
      kBackend == fastmv::Backend::Cuda ? std::vector<Shape>{{1031, 700}, {517, 1283}} : std::vector<Shape>{{67, 45}};
  // About 100 MiB, where the Cuda backend's default choices take the TMA kernel (1-3 MiB
  // only under a policy override: scripts/gpu.sh).
  if (kBackend == fastmv::Backend::Cuda && !quick_mode()) shapes.push_back({1031, 102403 / index_t(sizeof(T))});
  for (const Shape shape : shapes) {
    for (const auto& [lda_extra, misalign] :
         {std::pair<index_t, std::size_t>{1, 0}, {2, 0}, {3, 0}, {0, 1}, {3, 1}, {0, 3}}) {
      for (const Layout layout : kLayouts) {
        const Op op = layout == Layout::RowMajor ? Op::Trans : Op::NoTrans;
        const index_t m = layout == Layout::RowMajor ? shape.count : shape.length;
        const index_t n = layout == Layout::RowMajor ? shape.length : shape.count;
        GemvOperands<T> operands(layout, op, m, n, min_lda(layout, m, n) + lda_extra, misalign, 0);
        operands.fill_random(this->random());
        const std::vector<T> y = initial_y(this->random(), operands.y_size(), T(-0.7));
        const std::vector<T> poisoned = initial_y(this->random(), operands.y_size(), T(0));
        if (!check_gemv(operands, T(-0.7), T(-0.7), 1, 1, y, thread_counts(false)) ||
            !check_gemv(operands, T(1), T(0), 1, 1, poisoned, thread_counts(false))) {
          return;
        }
      }
    }
  }
}

// Op::ConjTrans is Op::Trans for real types.
TYPED_TEST(GemvRandomTest, ConjTransIsTrans) {
  using T = TypeParam;
  for (const Layout layout : kLayouts) {
    for (const index_t m : kEdgeSizes) {
      for (const index_t n : kEdgeSizes) {
        GemvOperands<T> operands(layout, Op::ConjTrans, m, n, min_lda(layout, m, n) + 5, 1);
        operands.fill_random(this->random());
        const std::vector<T> y = initial_y(this->random(), operands.y_size(), T(-0.7));
        if (!check_gemv(operands, T(-0.7), T(-0.7), 2, -1, y, thread_counts(false))) return;
      }
    }
  }
}

}  // namespace
}  // namespace fastmv_test
