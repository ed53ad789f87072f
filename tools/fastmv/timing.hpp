// How one implementation is timed at one point: warm up, size a batch of calls so that a
// sample is long enough for the clock, take many samples, keep the median and the min.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <vector>

#include "gemv_implementation.hpp"

namespace fastmv_tool {

struct SamplingPolicy {
  int repeats = 15;            // samples at least
  double min_time_s = 0.1;     // and keep sampling for at least this long
  double warm_up_s = 0.02;     // calls before the first sample
  // A sample shorter than this is mostly clock resolution and call overhead of
  // steady_clock::now(); a 16 x 16 GEMV is timed over hundreds of calls.
  double min_sample_s = 20e-6;
  std::size_t max_samples = 20000;
};

struct Timing {
  std::size_t calls_per_sample = 0;
  std::size_t samples = 0;
  double median_s = 0;  // per call
  double min_s = 0;     // per call
};

// `cursor` is the pool set the next call starts from; it keeps moving across samples
// and implementations so that consecutive samples do not reuse the sets just touched.
template <typename T>
Timing time_implementation(GemvImplementation& implementation, const GemvPool<T>& pool,
                           const SamplingPolicy& policy, std::size_t& cursor) {
  using Clock = std::chrono::steady_clock;
  auto run_batch = [&](std::size_t calls) {
    const double seconds = implementation.time_calls(pool, cursor, calls);
    cursor = (cursor + calls) % pool.sets;
    return seconds;
  };

  // Grow the batch until one lasts min_sample_s, then keep warming up with it.
  std::size_t batch = 1;
  const auto warm_up_start = Clock::now();
  for (double seconds = run_batch(batch); seconds < policy.min_sample_s;
       seconds = run_batch(batch)) {
    const double wanted = 1.25 * policy.min_sample_s / std::max(seconds, 1e-9);
    batch = static_cast<std::size_t>(std::ceil(static_cast<double>(batch) *
                                               std::clamp(wanted, 2.0, 100.0)));
  }
  while (std::chrono::duration<double>(Clock::now() - warm_up_start).count() < policy.warm_up_s) {
    run_batch(batch);
  }

  std::vector<double> per_call;
  const auto start = Clock::now();
  while (per_call.size() < policy.max_samples &&
         (per_call.size() < static_cast<std::size_t>(policy.repeats) ||
          std::chrono::duration<double>(Clock::now() - start).count() < policy.min_time_s)) {
    per_call.push_back(run_batch(batch) / static_cast<double>(batch));
  }
  std::sort(per_call.begin(), per_call.end());

  Timing timing;
  timing.calls_per_sample = batch;
  timing.samples = per_call.size();
  const std::size_t middle = per_call.size() / 2;
  timing.median_s = per_call.size() % 2 == 1 ? per_call[middle]
                                             : 0.5 * (per_call[middle - 1] + per_call[middle]);
  timing.min_s = per_call.front();
  return timing;
}

}  // namespace fastmv_tool
