// The CPU backend's helper threads (src/cpu/work_sharing.cpp), compiled into this test:
// under OMP_PROC_BIND (set by ctest for this test) libgomp binds the initial thread to
// one CPU; the helpers it starts must still be allowed every CPU of OpenMP's places,
// or all of them share that one core.
#include <gtest/gtest.h>
#include <omp.h>
#include <pthread.h>
#include <sched.h>

#include <chrono>
#include <mutex>
#include <thread>
#include <vector>

#include "cpu/work_sharing.hpp"

namespace {

int cpus_of_places() {
  cpu_set_t all;
  CPU_ZERO(&all);
  for (int place = 0; place < omp_get_num_places(); ++place) {
    std::vector<int> ids(static_cast<std::size_t>(omp_get_place_num_procs(place)));
    omp_get_place_proc_ids(place, ids.data());
    for (int id : ids) CPU_SET(id, &all);
  }
  return CPU_COUNT(&all);
}

TEST(WorkSharing, HelpersMayRunOnEveryCpuOfOpenMpsPlaces) {
  if (omp_get_proc_bind() == omp_proc_bind_false) GTEST_SKIP() << "run with OMP_PROC_BIND set (ctest does)";
  const int places = cpus_of_places();
  if (places < 2) GTEST_SKIP() << "OpenMP's places hold one CPU";
  const pthread_t caller = pthread_self();
  std::mutex mutex;
  std::vector<int> helper_cpus;
  fastmv::kernels::cpu::parallel_chunks(4, 64, [&](std::size_t) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));  // time for every helper to take chunks
    cpu_set_t mine;
    CPU_ZERO(&mine);
    ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
    std::lock_guard<std::mutex> lock(mutex);
    if (!pthread_equal(pthread_self(), caller)) helper_cpus.push_back(CPU_COUNT(&mine));
  });
  ASSERT_FALSE(helper_cpus.empty()) << "no helper took a chunk";
  for (int count : helper_cpus) EXPECT_EQ(count, places) << "a helper is confined to fewer CPUs";
}

}  // namespace
