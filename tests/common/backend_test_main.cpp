// main() of every backend test program: GoogleTest, plus the exit code ctest reads
// as "skipped" (SKIP_RETURN_CODE) when the backend under test cannot run here.
#include <gtest/gtest.h>
#include <malloc.h>

#include <cstdio>

#include "common/backend_under_test.hpp"
#include "common/test_environment.hpp"

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  // The tests allocate and free operands of up to 135 MB by the thousand. Left
  // alone, glibc raises its mmap threshold after freeing the first huge buffer and
  // from then on serves medium buffers from a heap it keeps growing and trimming,
  // which made later tests 30x slower. A fixed threshold keeps every test's cost
  // independent of the tests before it.
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  const bool available = fastmv::Context::available(fastmv_test::kBackend);
  std::printf("fastmv tests: backend %s (%s), SIMD targets compiled: %s, dispatched: %s%s\n",
              fastmv::to_string(fastmv_test::kBackend), available ? "available" : "unavailable",
              fastmv::cpu_simd_targets_compiled().c_str(), fastmv::cpu_simd_target().c_str(),
              fastmv_test::quick_mode() ? ", FASTMV_TEST_QUICK" : "");
  const int result = RUN_ALL_TESTS();
  if (result == 0 && !available) return fastmv_test::kSkipReturnCode;
  return result;
}
