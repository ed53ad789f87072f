// The backend a test program exercises. Every test source is written once and
// compiled into one program per backend (tests/gemv/CMakeLists.txt), each with
// -DFASTMV_TEST_BACKEND=<Reference|Cpu|Cuda>; programs for SIMD backends also get
// -DFASTMV_TEST_SIMD_TARGETS and run every call once per SIMD target the machine has.
//
// A program whose backend is unavailable (no CUDA device) skips every test through
// BackendTest::SetUp and exits with kSkipReturnCode, which ctest reports as skipped.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/random.hpp"
#include "fastmv/fastmv.hpp"

#ifdef FASTMV_TEST_SIMD_TARGETS
#include "hwy/targets.h"
#endif

#ifndef FASTMV_TEST_BACKEND
#error "compile with -DFASTMV_TEST_BACKEND=<Reference|Cpu|Cuda> (see tests/gemv/CMakeLists.txt)"
#endif

namespace fastmv_test {

constexpr fastmv::Backend kBackend = fastmv::Backend::FASTMV_TEST_BACKEND;
constexpr int kSkipReturnCode = 77;

// Base of every test fixture: skips when the backend is unavailable, and gives the
// test its own random generator whose seed appears in every failure message.
class BackendTest : public ::testing::Test {
 protected:
  BackendTest()
      : seed_(test_seed()), random_(seed_), seed_trace_(__FILE__, __LINE__, seed_message(seed_)) {}

  void SetUp() override {
    if (!fastmv::Context::available(kBackend)) {
      GTEST_SKIP() << "backend '" << fastmv::to_string(kBackend)
                   << "' is not available on this machine";
    }
  }

  Random& random() { return random_; }

 private:
  std::uint64_t seed_;
  Random random_;
  ::testing::ScopedTrace seed_trace_;
};

// Thread counts worth testing for a problem: the Cpu backend shares work among
// threads (src/cpu/work_sharing.hpp) only for large matrices, so large problems run with 1, 2 and 3
// threads (uneven splits, more threads than cores here); small ones run once with
// the default.
inline std::vector<int> thread_counts(bool large_problem) {
  if (kBackend == fastmv::Backend::Cpu && large_problem) return {1, 2, 3};
  return {0};
}

// Calls `run(context)` (returning false to stop early) once per way the backend
// under test can execute a call: every SIMD target this machine supports and this
// build generated (SIMD backends), times every thread count in `threads`. Returns
// false when `run` asked to stop or the SIMD target could not be selected.
template <typename Run>
bool for_each_execution(const std::vector<int>& threads, Run&& run) {
#ifdef FASTMV_TEST_SIMD_TARGETS
  // Restores the machine's own target list however the loop ends.
  struct TargetOverride {
    ~TargetOverride() { hwy::SetSupportedTargetsForTest(0); }
  } restore;
  static const std::vector<std::int64_t> targets = hwy::SupportedAndGeneratedTargets();
  for (const std::int64_t target : targets) {
    hwy::SetSupportedTargetsForTest(target);
    const std::string name = hwy::TargetName(target);
    SCOPED_TRACE("SIMD target " + name);
    // libfastmv dispatches through the same libhwy, so its kernels switch too.
    const std::string dispatched = fastmv::cpu_simd_target();
    if (dispatched != name) {
      ADD_FAILURE() << "hwy::SetSupportedTargetsForTest(" << name
                    << ") did not switch fastmv's kernels: fastmv::cpu_simd_target() = "
                    << dispatched;
      return false;
    }
#endif
    for (const int thread_count : threads) {
      SCOPED_TRACE("backend " + std::string(fastmv::to_string(kBackend)) + ", threads " +
                   (thread_count == 0 ? std::string("default") : std::to_string(thread_count)));
      const fastmv::Context context(kBackend, thread_count);
      if (!run(context)) return false;
    }
#ifdef FASTMV_TEST_SIMD_TARGETS
  }
#endif
  return true;
}

}  // namespace fastmv_test
