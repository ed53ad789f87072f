// fastmv::gemv_strided_batched for all six precisions: batches of 0, 1, 3 and 17
// products and an attention-decode-like batch of many small ones, with the products
// placed tight, padded, shared (stride 0 for A or x), backwards (negative strides)
// and interleaved (incy = batch, stride_y = 1). Every product is checked against
// the Reference backend's single gemv on the same memory, with the tolerance of
// gemv_harness.hpp; every element of y's allocation that belongs to no product
// (gaps, padding between products, guards) must keep its bits. And the argument
// errors that only batches have.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iomanip>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "common/backend_memory.hpp"
#include "common/precision.hpp"
#include "common/test_environment.hpp"
#include "gemv/gemv_harness.hpp"

namespace fastmv_test {
namespace {

// Elements a BLAS vector of `length` elements with increment `inc` spans from its
// pointer, and the offset of its element i (a negative increment starts at the end).
index_t vector_span(index_t length, index_t inc) {
  return length == 0 ? 0 : (length - 1) * std::abs(inc) + 1;
}
index_t vector_offset(index_t i, index_t length, index_t inc) {
  return inc > 0 ? i * inc : (length - 1 - i) * -inc;
}

// How the products of a batch sit in memory.
enum class Placement {
  Tight,                 // one after the other, unit increments, lda = minimum
  Padded,                // lda, increments and strides larger than needed
  SharedA,               // stride_a = 0: one matrix, many x
  SharedX,               // stride_x = 0: one x, many matrices
  Backwards,             // negative strides and increments
  InterleavedY,          // incy = batch, stride_y = 1: y_b[i] at i * batch + b
  InterleavedYBackwards  // incy = -batch, stride_y = -1
};
const Placement kPlacements[] = {Placement::Tight,
                                 Placement::Padded,
                                 Placement::SharedA,
                                 Placement::SharedX,
                                 Placement::Backwards,
                                 Placement::InterleavedY,
                                 Placement::InterleavedYBackwards};

const char* to_string(Placement placement) {
  switch (placement) {
    case Placement::Tight:
      return "tight";
    case Placement::Padded:
      return "padded";
    case Placement::SharedA:
      return "shared A";
    case Placement::SharedX:
      return "shared x";
    case Placement::Backwards:
      return "backwards";
    case Placement::InterleavedY:
      return "interleaved y";
    case Placement::InterleavedYBackwards:
      return "interleaved y backwards";
  }
  return "?";
}

struct BatchGeometry {
  Layout layout;
  Op op;
  index_t m, n, lda, incx, incy, stride_a, stride_x, stride_y, batch;

  index_t x_size() const { return x_length(op, m, n); }
  index_t y_size() const { return y_length(op, m, n); }
  index_t a_span() const {
    return static_cast<index_t>(GuardedMatrix<float>::storage_size(layout, m, n, lda));
  }
  // Offset of op(A)(i, j) from the matrix's pointer.
  index_t a_offset(index_t i, index_t j) const {
    const index_t row = op == Op::NoTrans ? i : j;
    const index_t col = op == Op::NoTrans ? j : i;
    return layout == Layout::RowMajor ? row * lda + col : col * lda + row;
  }
};

BatchGeometry make_geometry(Placement placement, Layout layout, Op op, index_t m, index_t n,
                            index_t batch) {
  BatchGeometry g{layout, op, m, n, min_lda(layout, m, n), 1, 1, 0, 0, 0, batch};
  const index_t interleave = std::max<index_t>(batch, 1);
  switch (placement) {
    case Placement::Tight:
      break;
    case Placement::Padded:
      g.lda += 3;
      g.incx = 2;
      g.incy = 3;
      break;
    case Placement::SharedA:
      g.incx = -1;
      break;
    case Placement::SharedX:
      break;
    case Placement::Backwards:
      g.lda += 1;
      g.incx = -2;
      g.incy = -1;
      break;
    case Placement::InterleavedY:
      g.incy = interleave;
      break;
    case Placement::InterleavedYBackwards:
      g.incy = -interleave;
      break;
  }
  const index_t a = g.a_span(), x = vector_span(g.x_size(), g.incx),
                y = vector_span(g.y_size(), g.incy);
  switch (placement) {
    case Placement::Tight:
      g.stride_a = a, g.stride_x = x, g.stride_y = y;
      break;
    // Odd paddings: every other product starts misaligned.
    case Placement::Padded:
      g.stride_a = a + 7, g.stride_x = x + 5, g.stride_y = y + 1;
      break;
    case Placement::SharedA:
      g.stride_a = 0, g.stride_x = x, g.stride_y = y;
      break;
    case Placement::SharedX:
      g.stride_a = a + 1, g.stride_x = 0, g.stride_y = y + 2;
      break;
    case Placement::Backwards:
      g.stride_a = -(a + 2), g.stride_x = -x, g.stride_y = -(y + 1);
      break;
    case Placement::InterleavedY:
      g.stride_a = a, g.stride_x = x, g.stride_y = 1;
      break;
    case Placement::InterleavedYBackwards:
      g.stride_a = a, g.stride_x = x, g.stride_y = -1;
      break;
  }
  return g;
}

// `batch` copies of an operand spanning `span` elements, `stride` apart, in one
// guarded allocation. For a negative stride the pointer passed for product 0 sits
// (batch - 1) * |stride| elements into the allocation, so that product batch - 1
// starts at its beginning.
template <typename T>
class BatchedOperand {
 public:
  BatchedOperand(index_t span, index_t stride, index_t batch, std::size_t misalign)
      : first_(stride < 0 && batch > 1 ? (batch - 1) * -stride : 0),
        stride_(stride),
        buffer_(static_cast<std::size_t>(span + (batch > 1 ? (batch - 1) * std::abs(stride) : 0)),
                misalign) {}

  // Offset of product b's pointer in the allocation's data.
  index_t offset(index_t b) const { return first_ + b * stride_; }
  T* data() { return buffer_.data() + first_; }
  T& at(index_t b, index_t offset_in_product) {
    return buffer_[static_cast<std::size_t>(offset(b) + offset_in_product)];
  }
  GuardedBuffer<T>& buffer() { return buffer_; }
  const GuardedBuffer<T>& buffer() const { return buffer_; }

 private:
  index_t first_;
  index_t stride_;
  GuardedBuffer<T> buffer_;
};

template <typename P>
class GemvStridedBatchedTest : public BackendTest {
 protected:
  using TA = typename P::TA;
  using TX = typename P::TX;
  using TY = typename P::TY;
  using S = Scalar<TA>;

  // Runs the batch on the backend under test, once per execution, and checks it.
  // Returns false after reporting the first failure.
  bool check_batch(const BatchGeometry& g, S alpha, S beta, std::size_t misalign,
                   const std::string& placement) {
    const index_t x_len = g.x_size(), y_len = g.y_size();
    BatchedOperand<TA> A(g.a_span(), g.stride_a, g.batch, misalign);
    BatchedOperand<TX> x(vector_span(x_len, g.incx), g.stride_x, g.batch, misalign);
    BatchedOperand<TY> y(vector_span(y_len, g.incy), g.stride_y, g.batch, misalign);
    // Shared operands are written once per product; the last values stay, and the
    // oracle reads the memory as it is.
    for (index_t b = 0; b < g.batch; ++b) {
      for (index_t i = 0; i < y_len; ++i) {
        for (index_t j = 0; j < x_len; ++j)
          A.at(b, g.a_offset(i, j)) = random().uniform_nonzero<TA>();
      }
      for (index_t j = 0; j < x_len; ++j) {
        x.at(b, vector_offset(j, x_len, g.incx)) = random().uniform_nonzero<TX>();
      }
      for (index_t i = 0; i < y_len; ++i) {
        y.at(b, vector_offset(i, y_len, g.incy)) =
            beta == S(0) ? quiet_nan<TY>() : random().uniform_nonzero<TY>();
      }
    }

    // The oracle, product by product, on a copy of y; tolerance[p] < 0 marks the
    // elements of y's allocation no product owns: they must keep their bits.
    const std::size_t y_elements = y.buffer().size();
    const std::vector<TY> y_initial(y.buffer().data(), y.buffer().data() + y_elements);
    GuardedBuffer<TY> want(y_elements, misalign);
    std::copy(y_initial.begin(), y_initial.end(), want.data());
    std::vector<double> tolerance(y_elements, -1.0);
    const bool quick_return = g.m == 0 || g.n == 0 || (alpha == S(0) && beta == S(1));
    if (!quick_return) {
      const fastmv::Context reference(fastmv::Backend::Reference);
      for (index_t b = 0; b < g.batch; ++b) {
        fastmv::gemv(reference, g.layout, g.op, g.m, g.n, alpha, A.buffer().data() + A.offset(b),
                     g.lda, x.buffer().data() + x.offset(b), g.incx, beta,
                     want.data() + y.offset(b), g.incy);
        for (index_t i = 0; i < y_len; ++i) {
          double magnitude = 0;
          for (index_t j = 0; j < x_len; ++j) {
            magnitude += std::fabs(to_double(A.at(b, g.a_offset(i, j)))) *
                         std::fabs(to_double(x.at(b, vector_offset(j, x_len, g.incx))));
          }
          const auto p = static_cast<std::size_t>(y.offset(b) + vector_offset(i, y_len, g.incy));
          magnitude =
              std::fabs(double(alpha)) * magnitude +
              (beta == S(0) ? 0.0 : std::fabs(double(beta)) * std::fabs(to_double(y_initial[p])));
          tolerance[p] = gemv_tolerance<TY, S>(x_len, magnitude, to_double(want[p]));
        }
      }
    }

    const std::vector<TA> a_snapshot = A.buffer().snapshot();
    const std::vector<TX> x_snapshot = x.buffer().snapshot();
    return for_each_execution(thread_counts(false), [&](const fastmv::Context& context) {
      GuardedBuffer<TY> got(y_elements, misalign);
      std::copy(y_initial.begin(), y_initial.end(), got.data());
      std::ostringstream problems;
      problems << std::setprecision(std::numeric_limits<S>::max_digits10);
      try {
        BackendCopy<TA> A_on_backend(context, A.buffer());
        BackendCopy<TX> x_on_backend(context, x.buffer());
        BackendCopy<TY> y_on_backend(context, got);
        fastmv::gemv_strided_batched(
            context, g.layout, g.op, g.m, g.n, alpha, A_on_backend.pointer(A.data()), g.lda,
            g.stride_a, x_on_backend.pointer(x.data()), g.incx, g.stride_x, beta,
            y_on_backend.pointer(got.data() + y.offset(0)), g.incy, g.stride_y, g.batch);
        y_on_backend.copy_to(got);
        if (!A_on_backend.equals(a_snapshot)) problems << "\n  A or its guards changed";
        if (!x_on_backend.equals(x_snapshot)) problems << "\n  x or its guards changed";
      } catch (const std::exception& error) {
        problems << "\n  unexpected exception: " << error.what();
      }
      if (!got.guards_intact()) problems << "\n  a guard of y was written";
      int bad = 0;
      for (std::size_t p = 0; p < y_elements; ++p) {
        const bool owned = tolerance[p] >= 0;
        const double error = std::fabs(to_double(got[p]) - to_double(want[p]));
        if (owned ? error <= tolerance[p] : same_bits(got[p], y_initial[p])) continue;
        if (++bad <= 5) {
          problems << "\n  y allocation element " << p << " = " << to_double(got[p]);
          if (owned) {
            problems << ", want " << to_double(want[p]) << ", |error| " << error << " > tolerance "
                     << tolerance[p];
          } else {
            problems << " but belongs to no product (or the call returns at once): it must keep "
                     << to_double(y_initial[p]);
          }
        }
      }
      if (bad > 5) problems << "\n  ... " << bad << " of " << y_elements << " elements wrong";
      const std::string report = problems.str();
      if (report.empty()) return true;
      ADD_FAILURE() << "gemv_strided_batched<" << precision_name<TA, TX, TY>() << "> " << placement
                    << " " << fastmv::to_string(g.layout) << " op=" << fastmv::to_string(g.op)
                    << " m=" << g.m << " n=" << g.n << " lda=" << g.lda << " incx=" << g.incx
                    << " incy=" << g.incy << " stride_a=" << g.stride_a
                    << " stride_x=" << g.stride_x << " stride_y=" << g.stride_y
                    << " batch=" << g.batch << " alpha=" << alpha << " beta=" << beta
                    << " misalign=" << misalign << report;
      return false;
    });
  }
};

using AllPrecisions =
    ::testing::Types<Precision<float, float>, Precision<double, double>,
                     Precision<fastmv::half, float>, Precision<fastmv::half, fastmv::half>,
                     Precision<fastmv::bfloat16, float>,
                     Precision<fastmv::bfloat16, fastmv::bfloat16>>;
TYPED_TEST_SUITE(GemvStridedBatchedTest, AllPrecisions, PrecisionNames);

// Batches of 0, 1, 3 and 17 products of small shapes (m or n = 1, an empty matrix,
// sizes off the vector widths), every placement x layout x op, one element off
// alignment; alpha = -0.7 with beta = 0.5 and beta = 0 (NaN in y); tight batches
// also with alpha = 0 (A and x unread) and alpha = 0, beta = 1 (nothing written).
TYPED_TEST(GemvStridedBatchedTest, PlacementsAndBatchSizes) {
  using S = typename TestFixture::S;
  struct Shape {
    index_t m, n;
  };
  std::vector<Shape> shapes = {{33, 17}, {9, 1}};
  if (!quick_mode()) shapes.insert(shapes.end(), {{1, 9}, {0, 5}});
  for (const index_t batch : {0, 1, 3, 17}) {
    for (const Shape shape : shapes) {
      for (const Placement placement : kPlacements) {
        std::vector<std::pair<S, S>> scalars = {{S(-0.7), S(0.5)}, {S(1), S(0)}};
        if (placement == Placement::Tight)
          scalars.insert(scalars.end(), {{S(0), S(2)}, {S(0), S(1)}});
        for (const Layout layout : kLayouts) {
          for (const Op op : kOps) {
            const BatchGeometry g = make_geometry(placement, layout, op, shape.m, shape.n, batch);
            for (const auto& [alpha, beta] : scalars) {
              if (!this->check_batch(g, alpha, beta, 1, to_string(placement))) return;
            }
          }
        }
      }
    }
  }
}

// 16-byte-aligned products (lda and the strides multiples of 8 elements), the
// layout the fastest paths need.
TYPED_TEST(GemvStridedBatchedTest, AlignedProducts) {
  using S = typename TestFixture::S;
  for (const Layout layout : kLayouts) {
    for (const Op op : kOps) {
      BatchGeometry g = make_geometry(Placement::Tight, layout, op, 64, 128, 5);
      const index_t y_len = g.y_size();
      g.stride_y = (y_len + 7) / 8 * 8 + 8;
      if (!this->check_batch(g, S(-0.7), S(0.5), 0, "aligned")) return;
    }
  }
}

// Unaligned stored vectors (lda 1 or 3 past a multiple of 8 elements) in matrices
// 16-byte aligned apart, with x and y aligned and contiguous: every matrix's vectors
// lie at the same offsets from 16-byte boundaries, so the Cuda backend's Axpy form
// (row-major Trans, column-major NoTrans) may read the batch through the TMA unit,
// one tensor map per class of vectors (3 matrices of about 1 MiB there; small ones
// elsewhere). Every layout x op, beta = 0 over NaN in y.
TYPED_TEST(GemvStridedBatchedTest, UnalignedVectorsAlignedStrides) {
  using S = typename TestFixture::S;
  const bool cuda = kBackend == fastmv::Backend::Cuda;
  const index_t m = cuda ? 517 : 37, n = cuda ? 509 : 29;
  for (const index_t extra : {1, 3}) {
    for (const Layout layout : kLayouts) {
      for (const Op op : kOps) {
        BatchGeometry g = make_geometry(Placement::Tight, layout, op, m, n, 3);
        g.lda += extra;
        const auto round8 = [](index_t value) { return (value + 7) / 8 * 8; };
        g.stride_a = round8(g.a_span()) + 8;
        g.stride_x = round8(g.x_size());
        g.stride_y = round8(g.y_size()) + 8;
        if (!this->check_batch(g, S(-0.7), S(0.5), 0, "unaligned vectors") ||
            !this->check_batch(g, S(1), S(0), 0, "unaligned vectors")) {
          return;
        }
      }
    }
  }
}

// Attention decode: per head, scores = K q (K: sequence x head size, NoTrans) and
// out = V^T p (Trans): 32 heads of 1000 x 128 on the Cuda backend, 8 heads of
// 200 x 64 elsewhere and under FASTMV_TEST_QUICK; also one query shared by all
// heads (stride_x = 0).
TYPED_TEST(GemvStridedBatchedTest, AttentionDecodeShapes) {
  using S = typename TestFixture::S;
  const bool full = kBackend == fastmv::Backend::Cuda && !quick_mode();
  const index_t heads = full ? 32 : 8;
  const index_t head_size = full ? 128 : 64;
  const index_t sequence = full ? 1000 : 200;
  for (const Placement placement : {Placement::Tight, Placement::SharedX}) {
    for (const Layout layout : kLayouts) {
      for (const Op op : kOps) {
        const BatchGeometry g = make_geometry(placement, layout, op, sequence, head_size, heads);
        if (!this->check_batch(g, S(1), S(0), 0, to_string(placement))) return;
      }
    }
  }
}

// --- Argument errors of batches, on a 5 x 7 row-major float problem (y of 5
// elements): the InvalidArgument names the argument and y is not modified.
class GemvStridedBatchedErrorTest : public BackendTest {
 protected:
  struct Call {
    const float* A;
    index_t stride_a = 35;
    const float* x;
    index_t stride_x = 7;
    float* y;
    index_t incy = 1;
    index_t stride_y = 5;
    index_t batch = 3;
    index_t m = 5;
  };

  GemvStridedBatchedErrorTest() : A_(512, 1), x_(256, 1), y_(256, 1) {
    for (std::size_t i = 0; i < A_.size(); ++i) A_[i] = random().uniform_nonzero<float>();
    for (std::size_t i = 0; i < x_.size(); ++i) x_[i] = random().uniform_nonzero<float>();
    for (std::size_t i = 0; i < y_.size(); ++i) y_[i] = random().uniform_nonzero<float>();
  }

  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    const fastmv::Context context(kBackend);
    A_on_backend_.emplace(context, A_);
    x_on_backend_.emplace(context, x_);
    y_on_backend_.emplace(context, y_);
  }

  // The operands in the backend's memory, at element `offset` of their buffers.
  float* A_data(index_t offset = 0) { return A_on_backend_->pointer(A_.data() + offset); }
  float* x_data(index_t offset = 0) { return x_on_backend_->pointer(x_.data() + offset); }
  float* y_data(index_t offset = 0) { return y_on_backend_->pointer(y_.data() + offset); }

  Call valid_call() {
    Call call;
    call.A = A_data();
    call.x = x_data();
    call.y = y_data();
    return call;
  }

  static void run(const Call& c) {
    fastmv::gemv_strided_batched(fastmv::Context(kBackend), Layout::RowMajor, Op::NoTrans, c.m, 7,
                                 -0.7f, c.A, 7, c.stride_a, c.x, 1, c.stride_x, 0.5f, c.y, c.incy,
                                 c.stride_y, c.batch);
  }

  void expect_rejected(const Call& call, const std::string& argument, const std::string& value) {
    SCOPED_TRACE("expecting InvalidArgument for " + argument + " = " + value);
    const std::vector<float> y_before = y_on_backend_->contents();
    try {
      run(call);
      ADD_FAILURE() << "no exception thrown";
    } catch (const fastmv::InvalidArgument& error) {
      const std::string message = error.what();
      EXPECT_EQ(error.function(), "fastmv::gemv_strided_batched") << message;
      EXPECT_EQ(error.argument(), argument) << message;
      EXPECT_EQ(error.value(), value) << message;
      EXPECT_NE(message.find(argument), std::string::npos) << message;
    } catch (const std::exception& error) {
      ADD_FAILURE() << "wrong exception type: " << error.what();
    }
    EXPECT_TRUE(y_on_backend_->equals(y_before)) << "y modified by a rejected call";
  }

  GuardedBuffer<float> A_, x_, y_;
  std::optional<BackendCopy<float>> A_on_backend_, x_on_backend_, y_on_backend_;
};

std::string address(const void* pointer) {
  char text[32];
  std::snprintf(text, sizeof text, "%p", pointer);
  return text;
}

TEST_F(GemvStridedBatchedErrorTest, ValidCallAccepted) {
  EXPECT_NO_THROW(run(valid_call()));
  Call call = valid_call();
  call.stride_y = 0;  // one product: nothing to overlap with
  call.batch = 1;
  EXPECT_NO_THROW(run(call));
}

// The y of different products share memory: stride_y is named.
TEST_F(GemvStridedBatchedErrorTest, OverlappingOutputs) {
  Call call = valid_call();
  call.stride_y = 0;
  call.batch = 2;
  expect_rejected(call, "stride_y", "0");
  call.batch = 3;
  call.stride_y = 4;  // one element short of the span of y
  expect_rejected(call, "stride_y", "4");
  call.y = y_data(20);
  call.stride_y = -4;
  expect_rejected(call, "stride_y", "-4");
  // Interleaved needs incy >= batch * stride_y: product 2 would land on product 0's
  // element 1.
  call.y = y_data();
  call.incy = 2;
  call.stride_y = 1;
  expect_rejected(call, "stride_y", "1");
  call.incy = 3;  // incy == batch: disjoint
  EXPECT_NO_THROW(run(call));
}

TEST_F(GemvStridedBatchedErrorTest, NegativeBatch) {
  Call call = valid_call();
  call.batch = -1;
  expect_rejected(call, "batch", "-1");
  call.m = 0;  // checked before the quick return
  expect_rejected(call, "batch", "-1");
}

// A y may not share memory with the A or x of any product, not only its own.
TEST_F(GemvStridedBatchedErrorTest, OutputOverlapsAnotherProductsOperands) {
  Call call = valid_call();
  call.y = A_data(3 * 35 - 5);  // clear of A_0 and A_1, but y_0 is the end of A_2
  call.stride_y = 5;
  expect_rejected(call, "y", address(call.y));
  call = valid_call();
  call.y = x_data(3 * 7);  // y_0 starts right after x_2: clear
  EXPECT_NO_THROW(run(call));
  call.y = x_data(3 * 7 - 1);  // y_0 starts at x_2's last element
  expect_rejected(call, "y", address(call.y));
}

// batch = 0 does nothing and reads no pointer.
TEST_F(GemvStridedBatchedErrorTest, EmptyBatchDoesNothing) {
  Call call = valid_call();
  call.batch = 0;
  call.stride_y = 0;
  const std::vector<float> y_before = y_on_backend_->contents();
  EXPECT_NO_THROW(run(call));
  call.A = nullptr;
  call.x = nullptr;
  call.y = nullptr;
  EXPECT_NO_THROW(run(call));
  EXPECT_TRUE(y_on_backend_->equals(y_before));
}

}  // namespace
}  // namespace fastmv_test
