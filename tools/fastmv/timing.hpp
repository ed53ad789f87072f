// How implementations are timed at one point: warm up, size a batch of calls so that a
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
  // Untimed calls before each sample of calls shorter than this (see time_round_robin).
  double warm_up_per_sample_s = 200e-6;
  std::size_t max_samples = 20000;
};

struct Timing {
  std::size_t calls_per_sample = 0;
  std::size_t samples = 0;
  double median_s = 0;  // per call
  double min_s = 0;     // per call
};

// Times several implementations at one point. Each is warmed up and its batch sized
// so that one sample lasts min_sample_s; then the samples go round-robin, one of each
// implementation in turn, so that a drift of the machine's memory bandwidth during the
// point (seen: 22 to 28 GB/s between consecutive runs on a shared VM) moves every
// implementation alike and the ratios stay fair. `cursor` is the pool set the next call
// starts from; it keeps moving so that consecutive samples do not reuse sets just touched.
template <typename T>
std::vector<Timing> time_round_robin(const std::vector<GemvImplementation*>& implementations,
                                     const GemvPool<T>& pool, const SamplingPolicy& policy,
                                     std::size_t& cursor) {
  using Clock = std::chrono::steady_clock;
  auto run_batch = [&](GemvImplementation& implementation, std::size_t calls) {
    const double seconds = implementation.time_calls(pool, cursor, calls);
    cursor = (cursor + calls) % pool.sets;
    return seconds;
  };

  // Grows `batch` until one batch lasts min_sample_s; returns that batch's seconds.
  auto size_batch = [&](GemvImplementation& implementation, std::size_t& batch) {
    double seconds = run_batch(implementation, batch);
    while (seconds < policy.min_sample_s) {
      const double wanted = 1.25 * policy.min_sample_s / std::max(seconds, 1e-9);
      batch = static_cast<std::size_t>(std::ceil(static_cast<double>(batch) *
                                                 std::clamp(wanted, 2.0, 100.0)));
      seconds = run_batch(implementation, batch);
    }
    return seconds;
  };

  std::vector<std::size_t> batches;
  std::vector<double> call_estimates_s;
  for (GemvImplementation* implementation : implementations) {
    std::size_t batch = 1;
    const auto warm_up_start = Clock::now();
    size_batch(*implementation, batch);
    while (std::chrono::duration<double>(Clock::now() - warm_up_start).count() <
           policy.warm_up_s) {
      run_batch(*implementation, batch);
    }
    // The first calls were cold (page faults, threads starting): size it again, warm.
    const double seconds = size_batch(*implementation, batch);
    call_estimates_s.push_back(seconds / static_cast<double>(batch));
    batches.push_back(batch);
  }

  // Each implementation gets at least `repeats` samples and min_time_s of sampling.
  std::vector<std::vector<double>> per_call(implementations.size());
  std::vector<double> sampled_s(implementations.size(), 0.0);
  auto more_needed = [&](std::size_t i) {
    return per_call[i].size() < policy.max_samples &&
           (per_call[i].size() < static_cast<std::size_t>(policy.repeats) ||
            sampled_s[i] < policy.min_time_s);
  };
  // Untimed calls before each sample, lasting about warm_up_per_sample_s: thread pools
  // (fastmv's, OpenBLAS's) sleep while the other implementations run and would
  // otherwise charge their wake-up to the first call of the sample, as no caller
  // looping over GEMVs sees. Calls long enough to hide a wake-up get none.
  std::vector<std::size_t> warm_up_calls;
  for (std::size_t i = 0; i < implementations.size(); ++i) {
    const double per_call_s = std::max(call_estimates_s[i], 1e-9);
    warm_up_calls.push_back(
        per_call_s >= policy.warm_up_per_sample_s
            ? 0
            : std::min(batches[i], static_cast<std::size_t>(std::ceil(
                                       policy.warm_up_per_sample_s / per_call_s))));
  }
  for (bool any = true; any;) {
    any = false;
    for (std::size_t i = 0; i < implementations.size(); ++i) {
      if (!more_needed(i)) continue;
      if (warm_up_calls[i] > 0) run_batch(*implementations[i], warm_up_calls[i]);
      const double seconds = run_batch(*implementations[i], batches[i]);
      sampled_s[i] += seconds;
      per_call[i].push_back(seconds / static_cast<double>(batches[i]));
      any = true;
    }
  }

  std::vector<Timing> timings;
  for (std::size_t i = 0; i < implementations.size(); ++i) {
    std::vector<double>& samples = per_call[i];
    std::sort(samples.begin(), samples.end());
    Timing timing;
    timing.calls_per_sample = batches[i];
    timing.samples = samples.size();
    const std::size_t middle = samples.size() / 2;
    timing.median_s = samples.size() % 2 == 1 ? samples[middle]
                                              : 0.5 * (samples[middle - 1] + samples[middle]);
    timing.min_s = samples.front();
    timings.push_back(timing);
  }
  return timings;
}

// One point's timings from several rounds: the median of the round medians, the least
// of the minima, every sample counted.
inline Timing combine_rounds(std::vector<Timing> rounds) {
  Timing combined = rounds.front();
  combined.samples = 0;
  for (const Timing& round : rounds) {
    combined.samples += round.samples;
    combined.min_s = std::min(combined.min_s, round.min_s);
  }
  std::sort(rounds.begin(), rounds.end(),
            [](const Timing& a, const Timing& b) { return a.median_s < b.median_s; });
  const std::size_t middle = rounds.size() / 2;
  combined.median_s = rounds.size() % 2 == 1
                          ? rounds[middle].median_s
                          : 0.5 * (rounds[middle - 1].median_s + rounds[middle].median_s);
  return combined;
}

}  // namespace fastmv_tool
