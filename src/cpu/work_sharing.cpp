#include "cpu/work_sharing.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif
#include <omp.h>

namespace fastmv::kernels::cpu::detail {
namespace {

// The CPUs helper threads may run on when OpenMP binds threads (OMP_PROC_BIND set): the
// union of OpenMP's places, i.e. the CPUs the process had before libgomp bound its
// initial thread to one of them. A helper started from that thread would inherit its
// single-CPU mask, and every helper would share one core (measured on the H100's
// 16-core host: transform4 of 16M vertices at 13 GB/s instead of 140). Returns false
// when OpenMP binds nothing: helpers then keep the mask they inherit (taskset, cgroups).
bool helper_cpus(void* mask_out) {
#if defined(__linux__)
  if (omp_get_proc_bind() == omp_proc_bind_false) return false;
  auto* mask = static_cast<cpu_set_t*>(mask_out);
  CPU_ZERO(mask);
  for (int place = 0; place < omp_get_num_places(); ++place) {
    std::vector<int> ids(static_cast<std::size_t>(std::max(omp_get_place_num_procs(place), 0)));
    omp_get_place_proc_ids(place, ids.data());
    for (int id : ids) {
      if (id >= 0 && id < CPU_SETSIZE) CPU_SET(id, mask);
    }
  }
  return CPU_COUNT(mask) > 0;
#else
  (void)mask_out;
  return false;
#endif
}

inline void cpu_relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}

// Helper threads, created on first use and never destroyed (they sleep when idle;
// a process may call fastmv from static destructors). One job runs at a time; a
// second caller arriving meanwhile runs its chunks on its own thread.
class HelperPool {
 public:
  static HelperPool& instance() {
    static HelperPool* pool = new HelperPool;
    return *pool;
  }

  void run(int threads, std::size_t chunks, ChunkFunction function, void* body) {
    std::unique_lock<std::mutex> running(run_mutex_, std::try_to_lock);
    if (!running.owns_lock() || chunks > kMaxChunks) {
      for (std::size_t chunk = 0; chunk < chunks; ++chunk) function(body, chunk);
      return;
    }
    const unsigned helpers =
        static_cast<unsigned>(std::min<std::size_t>(static_cast<std::size_t>(threads - 1),
                                                    chunks - 1));
    start_helpers(helpers);
    const Job job{function, body, static_cast<std::uint32_t>(chunks)};
    std::uint32_t generation;
    {
      std::lock_guard<std::mutex> lock(state_mutex_);
      generation = generation_.load(std::memory_order_relaxed) + 1;
      job_ = job;
      wanted_ = helpers;
      done_.store(0, std::memory_order_relaxed);
      claim_.store(pack(generation, 0), std::memory_order_release);
      generation_.store(generation, std::memory_order_release);
    }
    wake_.notify_all();
    work(generation, job);
    // Wait only for chunks that helpers claimed and are still computing.
    for (unsigned spins = 0; done_.load(std::memory_order_acquire) < chunks; ++spins) {
      if (spins < 4096) {
        cpu_relax();
      } else {
        std::this_thread::yield();  // a preempted helper may need this core
      }
    }
  }

 private:
  struct Job {
    ChunkFunction function;
    void* body;
    std::uint32_t chunks;
  };
  static constexpr std::size_t kMaxChunks = std::size_t(1) << 31;
  // Idle helpers poll this long before they sleep, so calls in a loop find them awake.
  static constexpr std::chrono::microseconds kSpinBeforeSleep{100};

  static std::uint64_t pack(std::uint32_t generation, std::uint32_t next) {
    return (std::uint64_t(generation) << 32) | next;
  }

  // Claims and runs chunks of job `generation` until none is left. The claim counter
  // carries the generation, so a helper that wakes after its job has finished can
  // never claim a chunk of a later job.
  void work(std::uint32_t generation, const Job& job) {
    std::uint64_t current = claim_.load(std::memory_order_acquire);
    while (std::uint32_t(current >> 32) == generation && std::uint32_t(current) < job.chunks) {
      if (claim_.compare_exchange_weak(current, current + 1, std::memory_order_acq_rel,
                                       std::memory_order_acquire)) {
        job.function(job.body, std::uint32_t(current));
        done_.fetch_add(1, std::memory_order_release);
        current = claim_.load(std::memory_order_acquire);
      }
    }
  }

  void start_helpers(unsigned count) {
    while (helpers_ < count) {
      try {
        std::thread(&HelperPool::helper_main, this, helpers_,
                    generation_.load(std::memory_order_acquire))
            .detach();
      } catch (const std::system_error&) {
        return;  // no more threads to be had: the caller does the remaining work
      }
      ++helpers_;
    }
  }

  void helper_main(unsigned id, std::uint32_t seen) {
#if defined(__linux__)
    static cpu_set_t cpus;
    static const bool widen = helper_cpus(&cpus);
    if (widen) pthread_setaffinity_np(pthread_self(), sizeof cpus, &cpus);
#endif
    for (;;) {
      const auto spin_until = std::chrono::steady_clock::now() + kSpinBeforeSleep;
      for (unsigned spins = 0; generation_.load(std::memory_order_acquire) == seen; ++spins) {
        cpu_relax();
        if (spins % 256 == 0 && std::chrono::steady_clock::now() > spin_until) break;
      }
      Job job;
      bool take_part;
      {
        std::unique_lock<std::mutex> lock(state_mutex_);
        wake_.wait(lock, [&] { return generation_.load(std::memory_order_relaxed) != seen; });
        seen = generation_.load(std::memory_order_relaxed);
        job = job_;
        take_part = id < wanted_;
      }
      if (take_part) work(seen, job);
    }
  }

  std::mutex run_mutex_;    // held by the caller whose job is in flight
  std::mutex state_mutex_;  // guards job_ and wanted_; pairs with wake_
  std::condition_variable wake_;
  Job job_{};
  unsigned wanted_ = 0;   // helpers with id < wanted_ take part in the current job
  unsigned helpers_ = 0;  // helpers started (only touched under run_mutex_)
  std::atomic<std::uint32_t> generation_{0};
  std::atomic<std::uint64_t> claim_{0};  // generation << 32 | next unclaimed chunk
  std::atomic<std::size_t> done_{0};     // chunks of the current job finished
};

}  // namespace

void run_chunks(int threads, std::size_t chunks, ChunkFunction function, void* body) {
  HelperPool::instance().run(threads, chunks, function, body);
}

}  // namespace fastmv::kernels::cpu::detail
