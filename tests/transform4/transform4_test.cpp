// fastmv::transform4 and fastmv::transform_points on the backend under test, against
// the reference backend (the oracle) and an error bound computed in double. Written
// once, compiled once per backend; the Cpu program runs every call on each SIMD target.
#include <gtest/gtest.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/backend_memory.hpp"
#include "common/backend_under_test.hpp"
#include "common/guarded_buffer.hpp"
#include "common/scoped_environment.hpp"
#include "fastmv/cuda.hpp"
#include "fastmv/fastmv.hpp"

namespace fastmv_test {
namespace {

using fastmv::Layout;

enum class Kind { Vec4, Point, PointDivide };
int width(Kind kind) { return kind == Kind::Vec4 ? 4 : 3; }
const char* name(Kind kind) {
  return kind == Kind::Vec4 ? "vec4" : kind == Kind::Point ? "points" : "points with divide";
}

void call(const fastmv::Context& context, Kind kind, Layout layout, const float* M, index_t n,
          const float* in, float* out) {
  if (kind == Kind::Vec4) {
    fastmv::transform4(context, layout, M, n, in, out);
  } else {
    fastmv::transform_points(context, layout, M, n, in, out, kind == Kind::PointDivide);
  }
}

// M(r, c) in `layout`. With a divide the last row keeps w' in [1.2, 1.8] for inputs in
// (-1, 1), so that the quotients are well conditioned.
std::vector<float> random_matrix(Random& random, Layout layout, Kind kind) {
  std::vector<float> M(16);
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      float value = random.uniform_nonzero<float>();
      if (kind == Kind::PointDivide && r == 3) value = c == 3 ? 1.5f : 0.1f * value;
      M[layout == Layout::RowMajor ? 4 * r + c : 4 * c + r] = value;
    }
  }
  return M;
}

float entry(const std::vector<float>& M, Layout layout, int r, int c) {
  return M[layout == Layout::RowMajor ? 4 * r + c : 4 * c + r];
}

// Whether `got` may stand for the exact result `exact` computed in double, given the
// sum of the magnitudes of the terms (`magnitude`) behind it and how `reference` (the
// reference backend's value) came out: NaN where it is NaN, the same infinity where
// it is infinite, otherwise within the rounding of four products and three sums.
bool acceptable(float got, float reference, double exact, double bound) {
  if (std::isnan(reference)) return std::isnan(got);
  if (std::isinf(reference)) return got == reference;
  return std::isfinite(got) && std::fabs(static_cast<double>(got) - exact) <= bound;
}

// Expected values of vertex i: the exact result in double and its error bound.
void exact_vertex(const std::vector<float>& M, Layout layout, Kind kind, const float* v, double* exact,
                  double* bound) {
  double r[4], magnitude[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = 0;
    magnitude[i] = 0;
    for (int k = 0; k < 4; ++k) {
      const double value = k < 3 ? v[k] : (kind == Kind::Vec4 ? v[3] : 1.0);
      const double term = static_cast<double>(entry(M, layout, i, k)) * value;
      r[i] += term;
      magnitude[i] += std::fabs(term);
    }
  }
  const double eps = FLT_EPSILON;
  for (int i = 0; i < width(kind); ++i) {
    if (kind == Kind::PointDivide) {
      const double q = r[i] / r[3];
      exact[i] = q;
      bound[i] = 2 * (4 * eps * magnitude[i] + std::fabs(q) * 4 * eps * magnitude[3]) / std::fabs(r[3]) +
                 2 * eps * std::fabs(q);
    } else {
      exact[i] = r[i];
      bound[i] = 4 * eps * magnitude[i];
    }
  }
}

// Checks n results `got` against the oracle's `expected` and the exact values; reports
// the first five that are off and returns how many it found.
std::size_t compare_vertices(const std::vector<float>& M, Layout layout, Kind kind, index_t n,
                             const std::vector<float>& input, const std::vector<float>& expected,
                             const float* got) {
  std::size_t failures = 0;
  for (index_t v = 0; v < n && failures < 5; ++v) {
    double exact[4], bound[4];
    exact_vertex(M, layout, kind, input.data() + v * width(kind), exact, bound);
    for (int c = 0; c < width(kind); ++c) {
      const std::size_t at = static_cast<std::size_t>(v) * width(kind) + c;
      if (!acceptable(got[at], expected[at], exact[c], bound[c])) {
        ADD_FAILURE() << "vertex " << v << " component " << c << ": " << got[at] << ", reference "
                      << expected[at] << ", exact " << exact[c] << " +- " << bound[c];
        ++failures;
      }
    }
  }
  return failures;
}

// Runs `call`, which must throw fastmv::InvalidArgument naming `argument`.
template <typename Call>
void expect_refused(Call&& call, const std::string& argument) {
  SCOPED_TRACE("expecting InvalidArgument for " + argument);
  try {
    call();
    ADD_FAILURE() << "no exception thrown";
  } catch (const fastmv::InvalidArgument& error) {
    EXPECT_EQ(error.argument(), argument) << error.what();
  }
}
#define EXPECT_REFUSED(call, argument) expect_refused([&] { call; }, argument)

class Transform4Test : public BackendTest {
 protected:
  // One call on every execution of the backend (SIMD targets x thread counts): in
  // place or not, the arrays `misalign` floats past 64-byte alignment, guards and
  // the input checked, every output against the oracle.
  void check(Kind kind, Layout layout, index_t n, std::size_t misalign, bool in_place,
             bool special_values = false) {
    SCOPED_TRACE(std::string(name(kind)) + ", " + fastmv::to_string(layout) + ", n = " + std::to_string(n) +
                 ", misaligned by " + std::to_string(misalign) + " floats" + (in_place ? ", in place" : ""));
    const std::vector<float> M = random_matrix(random(), layout, kind);
    const std::size_t size = static_cast<std::size_t>(n) * width(kind);
    GuardedBuffer<float> in(size, misalign);
    for (std::size_t i = 0; i < size; ++i) in[i] = random().uniform_nonzero<float>();
    if (special_values && n > 0) {
      const float specials[] = {std::numeric_limits<float>::infinity(), -std::numeric_limits<float>::infinity(),
                                std::numeric_limits<float>::quiet_NaN(), 0.0f, -0.0f};
      for (std::size_t i = 0; i < size; i += 7) in[i] = specials[(i / 7) % 5];
    }
    const std::vector<float> input(in.data(), in.data() + size);

    // The oracle: the reference backend, on host memory.
    std::vector<float> expected(size);
    const fastmv::Context reference(fastmv::Backend::Reference);
    call(reference, kind, layout, M.data(), n, input.data(), expected.data());

    const bool large = n > 100000;
    for_each_execution(thread_counts(large), [&](const fastmv::Context& context) {
      GuardedBuffer<float> out(size, misalign);
      GuardedBuffer<float>& target = in_place ? in : out;
      std::copy(input.begin(), input.end(), in.data());
      const std::vector<float> in_before = in.snapshot();
      BackendCopy<float> in_on_backend(context, in);
      BackendCopy<float> out_on_backend(context, out);
      float* destination = in_place ? in_on_backend.pointer(in.data()) : out_on_backend.pointer(out.data());
      call(context, kind, layout, M.data(), n, in_on_backend.pointer(static_cast<const float*>(in.data())),
           destination);
      (in_place ? in_on_backend : out_on_backend).copy_to(target);
      EXPECT_TRUE(target.guards_intact()) << "a write outside the output";
      if (!in_place) {
        EXPECT_TRUE(in.equals(in_before)) << "the input changed";
      }
      const std::size_t failures = compare_vertices(M, layout, kind, n, input, expected, target.data());
      return failures == 0;
    });
  }
};

TEST_F(Transform4Test, MatchesTheReferenceOnEveryShapeAndAlignment) {
  for (const Kind kind : {Kind::Vec4, Kind::Point, Kind::PointDivide}) {
    for (const Layout layout : {Layout::RowMajor, Layout::ColMajor}) {
      for (const index_t n : {0, 1, 3, 4, 5, 17, 1031}) {
        for (const std::size_t misalign : {0, 1}) {
          for (const bool in_place : {false, true}) check(kind, layout, n, misalign, in_place);
        }
      }
    }
  }
}

TEST_F(Transform4Test, LargeArraysWithThreads) {
  for (const Kind kind : {Kind::Vec4, Kind::Point, Kind::PointDivide}) {
    check(kind, Layout::RowMajor, 1000003, 0, false);
    check(kind, Layout::ColMajor, 1000003, 1, true);
  }
  // Large enough for the Cpu backend's non-temporal stores (>= 32 MiB moved), with the
  // output on a vector boundary, 16, 32 and 48 bytes past one (a large std::vector's
  // data is 16 bytes past a page: a head of vertices goes before the streamed chunks),
  // and 4 bytes past one (no streaming).
  check(Kind::Vec4, Layout::RowMajor, 1 << 21, 0, false);
  check(Kind::Vec4, Layout::RowMajor, (1 << 21) + 3, 0, true);
  for (const std::size_t misalign : {1, 4, 8, 12}) check(Kind::Vec4, Layout::ColMajor, (1 << 21) + 5, misalign, false);
  check(Kind::Vec4, Layout::RowMajor, (1 << 21) + 1, 4, true);
}

// The Cpu backend's chunks of work: any grain, one vertex up, gives the results of the
// automatic one; a grain that is not a positive number is refused.
TEST_F(Transform4Test, AnyGrainGivesTheSameResults) {
  if (kBackend != fastmv::Backend::Cpu) GTEST_SKIP() << "the grain is the Cpu backend's";
  for (const char* grain : {"1", "7", "64", "4096", "99999999"}) {
    SCOPED_TRACE(std::string("FASTMV_TRANSFORM4_GRAIN=") + grain);
    ScopedEnvironment variable("FASTMV_TRANSFORM4_GRAIN", grain);
    check(Kind::Vec4, Layout::RowMajor, 100003, 0, false);
    check(Kind::PointDivide, Layout::ColMajor, 10007, 1, true);
  }
  const std::vector<float> M(16, 1.0f);
  std::vector<float> in(64, 1.0f), out(64, 0.0f);
  for (const char* bad : {"0", "-16", "many", "16k"}) {
    ScopedEnvironment variable("FASTMV_TRANSFORM4_GRAIN", bad);
    EXPECT_REFUSED(fastmv::transform4(fastmv::Context(kBackend, 2), Layout::RowMajor, M.data(), 16, in.data(), out.data()),
                   "FASTMV_TRANSFORM4_GRAIN");
  }
  EXPECT_TRUE(std::all_of(out.begin(), out.end(), [](float v) { return v == 0.0f; }));
}

// Inf, -Inf, NaN and signed zeros among the inputs: NaN and infinities come out
// where IEEE arithmetic puts them (0 * Inf = NaN, Inf - Inf = NaN), nothing is flushed.
TEST_F(Transform4Test, InfAndNanPropagateAsIeeeSays) {
  for (const Kind kind : {Kind::Vec4, Kind::Point, Kind::PointDivide}) {
    for (const std::size_t misalign : {0, 1}) check(kind, Layout::RowMajor, 1003, misalign, false, true);
  }
}

TEST_F(Transform4Test, ZerosInTheMatrixMeetInfinities) {
  const float inf = std::numeric_limits<float>::infinity();
  // Row 0 multiplies x by 0: Inf in x gives NaN there; row 1 gives Inf; the last row
  // gives w' = 0 for the divide: x'/0 = +-Inf, 0/0 = NaN.
  const std::vector<float> M = {0, 1, 0, 0,  //
                                2, 0, 0, 0,  //
                                0, 0, 1, 0,  //
                                0, 0, 0, 0};
  const std::vector<float> vertices = {inf, 1, 0, 1, -inf, 2, 3, 1};
  const fastmv::Context reference(fastmv::Backend::Reference);
  for_each_execution(thread_counts(false), [&](const fastmv::Context& context) {
    GuardedBuffer<float> in(vertices.size(), 0), out(vertices.size(), 0);
    std::copy(vertices.begin(), vertices.end(), in.data());
    BackendCopy<float> in_on_backend(context, in), out_on_backend(context, out);
    fastmv::transform4(context, Layout::RowMajor, M.data(), 2, in_on_backend.pointer(static_cast<const float*>(in.data())),
                       out_on_backend.pointer(out.data()));
    out_on_backend.copy_to(out);
    // Every row whose x coefficient is 0 meets 0 * Inf = NaN; row 1 is 2 * (+-Inf).
    for (int v = 0; v < 2; ++v) {
      EXPECT_TRUE(std::isnan(out[4 * v])) << out[4 * v];
      EXPECT_EQ(out[4 * v + 1], v == 0 ? inf : -inf);
      EXPECT_TRUE(std::isnan(out[4 * v + 2])) << out[4 * v + 2];
      EXPECT_TRUE(std::isnan(out[4 * v + 3])) << out[4 * v + 3];
    }
    // Points with the divide: w' = 0 for every point.
    GuardedBuffer<float> points(6, 0), divided(6, 0);
    const float xyz[] = {1, 0, -1, 0, 0, 0};
    std::copy(xyz, xyz + 6, points.data());
    BackendCopy<float> points_on_backend(context, points), divided_on_backend(context, divided);
    fastmv::transform_points(context, Layout::RowMajor, M.data(), 2,
                             points_on_backend.pointer(static_cast<const float*>(points.data())),
                             divided_on_backend.pointer(divided.data()), true);
    divided_on_backend.copy_to(divided);
    // (1, 0, -1): x' = 0, y' = 2, z' = -1 over w' = 0; (0, 0, 0): 0 / 0 throughout.
    EXPECT_TRUE(std::isnan(divided[0])) << divided[0];
    EXPECT_EQ(divided[1], inf);
    EXPECT_EQ(divided[2], -inf);
    for (int c = 3; c < 6; ++c) EXPECT_TRUE(std::isnan(divided[c])) << divided[c];
    return true;
  });
}

TEST_F(Transform4Test, BadInputIsRefusedAndNothingWritten) {
  const std::vector<float> M(16, 1.0f);
  const fastmv::Context context(kBackend);
  GuardedBuffer<float> buffer(64, 0);
  for (std::size_t i = 0; i < 64; ++i) buffer[i] = static_cast<float>(i);
  BackendCopy<float> on_backend(context, buffer);
  const std::vector<float> before = on_backend.contents();
  const float* in = on_backend.pointer(static_cast<const float*>(buffer.data()));
  float* out = on_backend.pointer(buffer.data());
  EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), -1, in, out), "n");
  EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, nullptr, 4, in, out), "M");
  EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, nullptr, out), "in");
  EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, in, nullptr), "out");
  EXPECT_REFUSED(fastmv::transform4(context, static_cast<Layout>(7), M.data(), 4, in, out), "layout");
  EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, in, out + 1), "out");
  EXPECT_REFUSED(fastmv::transform_points(context, Layout::RowMajor, M.data(), 4, in, out + 11, true),
                          "out");
  EXPECT_REFUSED(
      fastmv::transform4(context, Layout::RowMajor, M.data(), std::numeric_limits<index_t>::max() / 2, in, out), "n");
  if (kBackend == fastmv::Backend::Cuda) {
    // Host arrays are taken (HostArrays below), but not one overlapping a device array
    // partially: that cannot happen, so only bad values of the tuning variables.
    std::vector<float> host(64);
    ScopedEnvironment chunk("FASTMV_TRANSFORM4_CHUNK_BYTES", "lots");
    EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, host.data(), out),
                   "FASTMV_TRANSFORM4_CHUNK_BYTES");
    chunk.set("100");
    EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, in, host.data()),
                   "FASTMV_TRANSFORM4_CHUNK_BYTES");
    {
      // Pageable arrays on both sides run on the host's cores unless sent through the device.
      ScopedEnvironment staged("FASTMV_TRANSFORM4_PAGEABLE", "staged");
      chunk.set("-4096");
      EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, host.data(), host.data()),
                     "FASTMV_TRANSFORM4_CHUNK_BYTES");
    }
    ScopedEnvironment route("FASTMV_TRANSFORM4_PAGEABLE", "gpu");
    EXPECT_REFUSED(fastmv::transform4(context, Layout::RowMajor, M.data(), 4, host.data(), host.data()),
                   "FASTMV_TRANSFORM4_PAGEABLE");
    EXPECT_TRUE(std::all_of(host.begin(), host.end(), [](float v) { return v == 0.0f; }));
  }
  // Disjoint arrays next to each other and n = 0 are fine.
  fastmv::transform4(context, Layout::RowMajor, M.data(), 0, nullptr, nullptr);
  EXPECT_TRUE(on_backend.equals(before));
}

// --- Host arrays on the Cuda backend (cuda/transform4_host.cpp): every pairing of
// pageable, pinned and device memory, chunks that wrap around the pipeline's slots.

enum class Place { Pageable, Pinned, Device };
const char* name(Place place) {
  return place == Place::Pageable ? "pageable" : place == Place::Pinned ? "pinned" : "device";
}

// An array of `size` floats `misalign` floats past 16-byte alignment in `place`, with
// kGuard poisoned floats on either side that must survive the call.
class PlacedArray {
 public:
  static constexpr std::size_t kGuard = 16;
  static constexpr float kPoison = -12345.5f;

  PlacedArray(const fastmv::Context& context, Place place, std::size_t size, std::size_t misalign)
      : context_(context), place_(place), total_(size + 2 * kGuard + misalign), offset_(kGuard + misalign) {
    const std::vector<float> poison(total_, kPoison);
    if (place == Place::Pageable) {
      pageable_.assign(total_, kPoison);
      base_ = pageable_.data();
    } else if (place == Place::Pinned) {
      pinned_ = fastmv::cuda::PinnedBuffer<float>(static_cast<index_t>(total_));
      base_ = pinned_.data();
      std::copy(poison.begin(), poison.end(), base_);
    } else {
      device_ = fastmv::cuda::DeviceBuffer<float>(context, static_cast<index_t>(total_));
      base_ = device_.data();
      fastmv::cuda::copy(context, base_, poison.data(), static_cast<index_t>(total_));
    }
  }
  float* data() { return base_ + offset_; }
  void write(const std::vector<float>& values) {
    if (place_ == Place::Device) {
      fastmv::cuda::copy(context_, data(), values.data(), static_cast<index_t>(values.size()));
    } else {
      std::copy(values.begin(), values.end(), data());
    }
  }
  // Everything, guards included.
  std::vector<float> contents() const {
    std::vector<float> all(total_);
    if (place_ == Place::Device) {
      fastmv::cuda::copy(context_, all.data(), base_, static_cast<index_t>(total_));
    } else {
      std::copy(base_, base_ + total_, all.begin());
    }
    return all;
  }
  std::size_t offset() const { return offset_; }

 private:
  const fastmv::Context& context_;
  Place place_;
  std::size_t total_;
  std::size_t offset_;
  std::vector<float> pageable_;
  fastmv::cuda::PinnedBuffer<float> pinned_;
  fastmv::cuda::DeviceBuffer<float> device_;
  float* base_ = nullptr;
};

class Transform4HostTest : public BackendTest {
 protected:
  void SetUp() override {
    BackendTest::SetUp();
    if (IsSkipped()) return;
    if (kBackend != fastmv::Backend::Cuda) GTEST_SKIP() << "host arrays only concern the Cuda backend";
  }

  // One call with `in` and `out` placed as given (the same array when `same`).
  void check(Kind kind, index_t n, Place in_place, Place out_place, bool same, std::size_t misalign) {
    SCOPED_TRACE(std::string(name(kind)) + ", n = " + std::to_string(n) + ", in " + name(in_place) + ", out " +
                 (same ? "the same array" : name(out_place)) + ", misaligned by " + std::to_string(misalign));
    const Layout layout = n % 2 == 0 ? Layout::RowMajor : Layout::ColMajor;
    const std::vector<float> M = random_matrix(random(), layout, kind);
    const std::size_t size = static_cast<std::size_t>(n) * width(kind);
    std::vector<float> input(size);
    for (float& value : input) value = random().uniform_nonzero<float>();
    std::vector<float> expected(size);
    call(fastmv::Context(fastmv::Backend::Reference), kind, layout, M.data(), n, input.data(), expected.data());

    const fastmv::Context context(fastmv::Backend::Cuda);
    PlacedArray in(context, in_place, size, misalign);
    in.write(input);
    std::unique_ptr<PlacedArray> out_array;
    if (!same) out_array = std::make_unique<PlacedArray>(context, out_place, size, misalign);
    PlacedArray& out = same ? in : *out_array;
    call(context, kind, layout, M.data(), n, in.data(), out.data());

    const std::vector<float> result = out.contents();
    const std::size_t at = out.offset();
    for (std::size_t i = 0; i < at; ++i) ASSERT_EQ(result[i], PlacedArray::kPoison) << "guard before, " << i;
    for (std::size_t i = at + size; i < result.size(); ++i) ASSERT_EQ(result[i], PlacedArray::kPoison) << "guard after";
    if (!same) {
      const std::vector<float> in_after = in.contents();
      EXPECT_TRUE(std::equal(input.begin(), input.end(), in_after.begin() + static_cast<std::ptrdiff_t>(in.offset())))
          << "the input changed";
    }
    compare_vertices(M, layout, kind, n, input, expected, result.data() + at);
  }

  void concurrent_calls();

  // Every pairing with at least one host array, and in place on each kind of host memory.
  void check_pairings(Kind kind, index_t n, std::size_t misalign) {
    for (const Place in_place : {Place::Pageable, Place::Pinned, Place::Device}) {
      for (const Place out_place : {Place::Pageable, Place::Pinned, Place::Device}) {
        if (in_place == Place::Device && out_place == Place::Device) continue;
        check(kind, n, in_place, out_place, false, misalign);
      }
    }
    check(kind, n, Place::Pageable, Place::Pageable, true, misalign);
    check(kind, n, Place::Pinned, Place::Pinned, true, misalign);
  }
};

// Pageable arrays take one of two routes (dispatch/transform4.cpp): both in host
// memory, the host's cores by default; through the device's staging pipeline when the
// other is device memory, or when FASTMV_TRANSFORM4_PAGEABLE=staged. The tests below
// run every pairing both ways.
constexpr const char* kPageableRoutes[] = {"", "staged"};

// 4 KiB chunks: 64 vec4 or 340 points, so that a thousand vertices take many chunks
// around the four slots, with a partial one at the end.
TEST_F(Transform4HostTest, SmallChunksAroundTheSlots) {
  ScopedEnvironment chunk("FASTMV_TRANSFORM4_CHUNK_BYTES", "4096");
  for (const char* route : kPageableRoutes) {
    ScopedEnvironment pageable("FASTMV_TRANSFORM4_PAGEABLE", route);
    SCOPED_TRACE(std::string("FASTMV_TRANSFORM4_PAGEABLE=") + route);
    for (const Kind kind : {Kind::Vec4, Kind::Point, Kind::PointDivide}) {
      for (const index_t n : {1, 5, 64, 1031}) {
        for (const std::size_t misalign : {0, 1}) check_pairings(kind, n, misalign);
      }
    }
  }
}

// The default chunks (an eighth of the array, 512 KiB to 16 MiB): 2^19 + 1 vec4 are
// eight chunks of 1 MiB and one vertex; 5 * 2^19 + 3 are eight of 5 MiB and three;
// 9 * 2^20 + 5 are nine of 16 MiB and five.
TEST_F(Transform4HostTest, DefaultChunks) {
  for (const char* route : kPageableRoutes) {
    ScopedEnvironment pageable("FASTMV_TRANSFORM4_PAGEABLE", route);
    SCOPED_TRACE(std::string("FASTMV_TRANSFORM4_PAGEABLE=") + route);
    check_pairings(Kind::Vec4, (1 << 19) + 1, 0);
    check_pairings(Kind::Vec4, 5 * (1 << 19) + 3, 1);
    check_pairings(Kind::PointDivide, 1000003, 1);
    check(Kind::Vec4, 9 * (1 << 20) + 5, Place::Pageable, Place::Pageable, false, 1);
    check(Kind::Vec4, 9 * (1 << 20) + 5, Place::Pageable, Place::Pageable, true, 0);
    check(Kind::Vec4, 9 * (1 << 20) + 5, Place::Pinned, Place::Pageable, false, 0);
  }
}

// The two routes of pageable arrays give the same bits: the Cpu kernels and the device
// kernel evaluate each output as the same chain of fused multiply-adds (where the host
// has FMA, AVX2 and up; the SSE4 and scalar targets round the products separately).
TEST_F(Transform4HostTest, BothRoutesGiveTheSameBits) {
  const std::string target = fastmv::cpu_simd_target();
  if (target != "AVX2" && target != "AVX3" && target != "AVX3_ZEN4" && target != "AVX3_SPR") {
    GTEST_SKIP() << "the host's SIMD target (" << target << ") has no FMA";
  }
  const fastmv::Context context(fastmv::Backend::Cuda);
  for (const Kind kind : {Kind::Vec4, Kind::Point, Kind::PointDivide}) {
    const index_t n = 300007;
    const std::vector<float> M = random_matrix(random(), Layout::RowMajor, kind);
    std::vector<float> input(static_cast<std::size_t>(n) * width(kind));
    for (float& value : input) value = random().uniform_nonzero<float>();
    std::vector<float> on_cores(input.size(), 0.0f), staged(input.size(), 1.0f);
    call(context, kind, Layout::RowMajor, M.data(), n, input.data(), on_cores.data());
    {
      ScopedEnvironment route("FASTMV_TRANSFORM4_PAGEABLE", "staged");
      call(context, kind, Layout::RowMajor, M.data(), n, input.data(), staged.data());
    }
    std::size_t different = 0;
    for (std::size_t i = 0; i < input.size(); ++i) different += !same_bits(on_cores[i], staged[i]);
    EXPECT_EQ(different, 0u) << name(kind);
  }
}

// On the host's cores too, the call follows the work queued on the context's stream:
// here a copy that reads the pinned array the call then writes, queued behind a long
// device-array call so that it is still pending when the call starts.
TEST_F(Transform4HostTest, HostCoresFollowEarlierWorkOnTheContextStream) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  const index_t n = 1 << 22;
  const index_t slow = 1 << 25;  // 1 GiB through the device, ~0.4 ms a pass
  const std::vector<float> M = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2};
  fastmv::cuda::DeviceBuffer<float> big(context, 4 * slow);
  fastmv::cuda::DeviceBuffer<float> copied(context, 4 * n);
  fastmv::cuda::PinnedBuffer<float> pinned(4 * n);
  const std::vector<float> eights(static_cast<std::size_t>(4 * n), 8.0f);
  for (int repeat = 0; repeat < 3; ++repeat) {
    std::fill(pinned.data(), pinned.data() + 4 * n, 1.0f);
    for (int pass = 0; pass < 8; ++pass) {
      fastmv::transform4(context, Layout::RowMajor, M.data(), slow, big.data(), big.data());  // queued
    }
    fastmv::cuda::copy(context, copied.data(), pinned.data(), 4 * n);  // queued: reads 1s
    fastmv::transform4(context, Layout::RowMajor, M.data(), n / 2, eights.data(), pinned.data());  // writes 16s
    std::vector<float> back(static_cast<std::size_t>(4 * n), 0.0f);
    fastmv::cuda::copy(context, back.data(), copied.data(), 4 * n);
    ASSERT_TRUE(std::all_of(back.begin(), back.end(), [](float v) { return v == 1.0f; })) << "repeat " << repeat;
    ASSERT_TRUE(std::all_of(pinned.data(), pinned.data() + 2 * n, [](float v) { return v == 16.0f; }));
  }
}

// A host-array call follows the work queued on the context's stream before it: here
// an asynchronous device-array call that writes its input.
TEST_F(Transform4HostTest, FollowsEarlierWorkOnTheContextStream) {
  const fastmv::Context context(fastmv::Backend::Cuda);
  const index_t n = 1 << 22;
  const std::vector<float> M = {2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2};
  std::vector<float> ones(static_cast<std::size_t>(4 * n), 1.0f);
  fastmv::cuda::DeviceBuffer<float> a(context, 4 * n), b(context, 4 * n);
  fastmv::cuda::copy(context, a.data(), ones.data(), 4 * n);
  for (int repeat = 0; repeat < 3; ++repeat) {
    fastmv::transform4(context, Layout::RowMajor, M.data(), n, a.data(), b.data());  // queued: b = 2
    fastmv::transform4(context, Layout::RowMajor, M.data(), n, b.data(), b.data());  // queued: b = 4
    std::vector<float> host(static_cast<std::size_t>(4 * n), 0.0f);
    fastmv::transform4(context, Layout::RowMajor, M.data(), n, b.data(), host.data());  // host = 8
    ASSERT_TRUE(std::all_of(host.begin(), host.end(), [](float v) { return v == 8.0f; })) << "repeat " << repeat;
  }
}

// Several threads on one context take turns through its pipeline (or share the host's
// cores).
TEST_F(Transform4HostTest, ConcurrentCallsOnOneContext) {
  for (const char* route : kPageableRoutes) {
    ScopedEnvironment pageable("FASTMV_TRANSFORM4_PAGEABLE", route);
    SCOPED_TRACE(std::string("FASTMV_TRANSFORM4_PAGEABLE=") + route);
    concurrent_calls();
  }
}

void Transform4HostTest::concurrent_calls() {
  const fastmv::Context context(fastmv::Backend::Cuda);
  const index_t n = 700001;
  std::vector<std::thread> threads;
  std::vector<int> wrong(4, 0);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      const float scale = static_cast<float>(t + 1);
      const std::vector<float> M = {scale, 0, 0, 0, 0, scale, 0, 0, 0, 0, scale, 0, 0, 0, 0, scale};
      std::vector<float> in(static_cast<std::size_t>(4 * n));
      for (std::size_t i = 0; i < in.size(); ++i) in[i] = static_cast<float>(i % 1000);
      std::vector<float> out(in.size(), 0.0f);
      for (int repeat = 0; repeat < 3; ++repeat) {
        fastmv::transform4(context, Layout::RowMajor, M.data(), n, in.data(), out.data());
        for (std::size_t i = 0; i < in.size(); ++i) wrong[t] += out[i] != scale * in[i];
      }
    });
  }
  for (auto& thread : threads) thread.join();
  for (int t = 0; t < 4; ++t) EXPECT_EQ(wrong[t], 0) << "thread " << t;
}

}  // namespace
}  // namespace fastmv_test
