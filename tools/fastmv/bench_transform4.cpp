// `fastmv bench transform4` (bench_transform4.hpp): the CPU side, the sampling, the
// check against the reference backend, the table and the JSON.
#include "bench_transform4.hpp"

#include <omp.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "jacobi_gpu.hpp"
#include "sysinfo.hpp"
#include "transform4_ladder.hpp"

namespace fastmv_tool {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// 64-byte aligned floats (the SSE step needs 16), untouched until filled.
struct AlignedFloats {
  explicit AlignedFloats(std::size_t count)
      : data(static_cast<float*>(std::aligned_alloc(64, (count * sizeof(float) + 63) / 64 * 64))) {
    if (data == nullptr) throw std::runtime_error("out of memory for " + std::to_string(count) + " floats");
  }
  ~AlignedFloats() { std::free(data); }
  AlignedFloats(const AlignedFloats&) = delete;
  AlignedFloats& operator=(const AlignedFloats&) = delete;
  float* data;
};

// Values in (-1, 1) from a hash of the index: reproducible, and filled by every
// thread on its own pages.
void fill(float* values, std::size_t count, std::uint64_t seed) {
#pragma omp parallel for schedule(static)
  for (long long i = 0; i < static_cast<long long>(count); ++i) {
    std::uint64_t z = seed + 0x9E3779B97F4A7C15ULL * static_cast<std::uint64_t>(i + 1);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    values[i] = static_cast<float>(static_cast<double>(z >> 40) * 0x1p-23 - 1.0);
  }
}

// A threaded copy of `floats`, each thread its static share of 64-byte lines (as the
// pages were first touched): glibc's memcpy, or with `streaming` non-temporal stores
// (SSE2; `to` 64-byte aligned), which skip the read for ownership of the destination.
// The second is the best copy the machine does and so the CPU ceiling: glibc's memcpy
// streams only past a threshold scaled to the last-level cache (300 MiB on the H100's
// host), so at these sizes it reads every destination line first.
void threaded_copy(float* to, const float* from, std::size_t floats, int team, bool streaming) {
#pragma omp parallel num_threads(team)
  {
    const std::size_t id = static_cast<std::size_t>(omp_get_thread_num());
    const std::size_t count = static_cast<std::size_t>(omp_get_num_threads());
    const std::size_t begin = floats * id / count / 16 * 16;
    const std::size_t end = id + 1 == count ? floats : floats * (id + 1) / count / 16 * 16;
    std::size_t i = begin;
#if defined(__SSE2__)
    if (streaming) {
      for (; i + 16 <= end; i += 16) {
        const __m128 a = _mm_loadu_ps(from + i), b = _mm_loadu_ps(from + i + 4);
        const __m128 c = _mm_loadu_ps(from + i + 8), d = _mm_loadu_ps(from + i + 12);
        _mm_stream_ps(to + i, a);
        _mm_stream_ps(to + i + 4, b);
        _mm_stream_ps(to + i + 8, c);
        _mm_stream_ps(to + i + 12, d);
      }
      _mm_sfence();
    }
#endif
    std::memcpy(to + i, from + i, (end - i) * sizeof(float));
  }
}

std::string vertices_text(long long n) {
  if (n % (1 << 20) == 0) return std::to_string(n >> 20) + "M";
  if (n % (1 << 10) == 0) return std::to_string(n >> 10) + "K";
  return std::to_string(n);
}

class Bench {
 public:
  Bench(const Transform4BenchOptions& options, int threads) : options_(options), threads_(threads) {
    fill(M_, 16, 7);
  }

  // Every candidate is warmed up and its samples sized (at most `repetitions` calls,
  // fewer when they would last more than min_sample_s); then the samples go
  // round-robin, one of each candidate in turn, so that a drift of the machine (the
  // 16-core VM's memcpy moved from 92 to 119 GB/s between two runs of one size) moves
  // them all alike; last, each output is poisoned, the candidate called once more and
  // its result checked against the reference.
  // `exact`: every sample is `repetitions` calls however long they last (the seed's
  // ladder: 100 repetitions at its sizes).
  std::vector<Transform4Result> measure(std::vector<Candidate>& candidates, long long n, const float* expected,
                                        bool exact = false) {
    std::vector<long long> calls;
    for (Candidate& candidate : candidates) {
      candidate.time(1);
      const double once = std::max(candidate.time(1), 1e-9);
      calls.push_back(exact ? options_.repetitions
                            : std::clamp<long long>(static_cast<long long>(std::ceil(options_.min_sample_s / once)), 1,
                                                    options_.repetitions));
    }
    std::vector<std::vector<double>> per_call(candidates.size());
    for (int s = 0; s < options_.samples; ++s) {
      for (std::size_t c = 0; c < candidates.size(); ++c) {
        per_call[c].push_back(candidates[c].time(calls[c]) / static_cast<double>(calls[c]));
      }
    }
    std::vector<Transform4Result> results;
    for (std::size_t c = 0; c < candidates.size(); ++c) {
      Candidate& candidate = candidates[c];
      std::vector<double>& samples = per_call[c];
      std::sort(samples.begin(), samples.end());
      Transform4Result result;
      result.section = candidate.section;
      result.implementation = candidate.name;
      result.description = candidate.description;
      result.vertices = n;
      result.bytes = candidate.bytes;
      result.samples = options_.samples;
      result.calls_per_sample = calls[c];
      const std::size_t middle = samples.size() / 2;
      result.median_s = samples.size() % 2 == 1 ? samples[middle] : 0.5 * (samples[middle - 1] + samples[middle]);
      result.min_s = samples.front();
      result.ceiling = candidate.ceiling;
      result.compared_with = candidate.compared_with;
      if (candidate.output && expected != nullptr) {
        if (candidate.poison) candidate.poison();
        candidate.time(1);
        check(result, candidate.output(), expected, n);
      }
      progress(result);
      results.push_back(result);
    }
    return results;
  }

  static void check(Transform4Result& result, const float* got, const float* expected, long long n) {
    double worst = 0;
    bool finite = true;
#pragma omp parallel for reduction(max : worst) reduction(&& : finite)
    for (long long i = 0; i < 4 * n; ++i) {
      const double error = std::fabs(static_cast<double>(got[i]) - static_cast<double>(expected[i]));
      finite = finite && std::isfinite(got[i]);
      worst = std::max(worst, error);
    }
    result.checked = true;
    result.max_error = worst;
    // Inputs and M in (-1, 1): |M v| < 4, and four products and three sums in float
    // err by less than 4 * 4 * 2^-24 * 4 = 4e-6 however they are ordered or fused.
    result.correct = finite && worst <= 1e-5;
  }

  void append(const std::vector<Transform4Result>& more) { results_.insert(results_.end(), more.begin(), more.end()); }

  void run() {
    const bool with_gpu = options_.gpu && fastmv::Context::available(fastmv::Backend::Cuda);
    std::vector<long long> sizes = options_.sizes;
    for (long long n : options_.ladder_sizes) sizes.push_back(n);
    for (long long n : options_.grain_sizes) sizes.push_back(n);
    std::sort(sizes.begin(), sizes.end());
    sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
    for (long long n : sizes) {
      const bool main_size = std::find(options_.sizes.begin(), options_.sizes.end(), n) != options_.sizes.end();
      const bool ladder = options_.cpu && std::find(options_.ladder_sizes.begin(), options_.ladder_sizes.end(), n) !=
                                              options_.ladder_sizes.end();
      const bool grain = options_.grain && std::find(options_.grain_sizes.begin(), options_.grain_sizes.end(), n) !=
                                               options_.grain_sizes.end();
      const std::size_t floats = 4 * static_cast<std::size_t>(n);
      AlignedFloats input(floats), output(floats), expected(floats);
      fill(input.data, floats, static_cast<std::uint64_t>(n));
      std::memset(output.data, 0, floats * sizeof(float));
      fastmv::transform4(fastmv::Context(fastmv::Backend::Reference), fastmv::Layout::RowMajor, M_, n, input.data,
                         expected.data);
      if (options_.cpu && (main_size || ladder)) run_cpu(n, input.data, output.data, expected.data, ladder);
      if (grain) run_grain(n, input.data, output.data, expected.data);
#ifdef FASTMV_BENCH_HAVE_CUDA
      if (with_gpu && main_size) {
        const std::vector<float> host_input(input.data, input.data + floats);
        std::unique_ptr<GpuPoint> point = make_gpu_point(fastmv::Context(fastmv::Backend::Cuda), M_, n, host_input);
        append(measure(point->candidates, n, expected.data));
      }
#else
      (void)with_gpu;
#endif
    }
    compare_with_ceilings();
  }

  const std::vector<Transform4Result>& results() const { return results_; }
  int threads() const { return threads_; }

 private:
  Candidate cpu_candidate(const std::string& name, const std::string& description, long long n, float* output,
                          std::function<void()> call) {
    Candidate candidate;
    candidate.section = "cpu";
    candidate.name = name;
    candidate.description = description;
    candidate.bytes = 32.0 * static_cast<double>(n);
    candidate.compared_with = "copy-nt";
    candidate.time = [call](long long calls) {
      const auto start = Clock::now();
      for (long long c = 0; c < calls; ++c) call();
      return seconds_since(start);
    };
    candidate.output = [output] { return static_cast<const float*>(output); };
    candidate.poison = [output, n] { std::fill(output, output + 4 * n, std::nanf("")); };
    return candidate;
  }

  // The CPU ceilings: glibc's memcpy and a non-temporal copy of the same 16 bytes
  // per vertex, counted read + write; the transforms are compared with the second.
  std::vector<Candidate> copy_candidates(const std::string& section, long long n, const float* input, float* scratch) {
    std::vector<Candidate> copies;
    for (const bool streaming : {false, true}) {
      Candidate copy;
      copy.section = section;
      copy.name = streaming ? "copy-nt" : "memcpy";
      copy.description = std::string(streaming ? "copy with non-temporal stores" : "glibc memcpy") + " of the same 16 bytes per vertex on " +
                         std::to_string(threads_) + " OpenMP threads (ceiling; counted read + write)";
      copy.bytes = 32.0 * static_cast<double>(n);
      copy.ceiling = true;
      const int team = threads_;
      copy.time = [=](long long calls) {
        const auto start = Clock::now();
        for (long long c = 0; c < calls; ++c) threaded_copy(scratch, input, 4 * static_cast<std::size_t>(n), team, streaming);
        return seconds_since(start);
      };
      copies.push_back(copy);
    }
    return copies;
  }

  void run_cpu(long long n, const float* in, float* out, const float* expected, bool ladder) {
    const std::size_t count = static_cast<std::size_t>(n);
    const float* m = M_;
    std::vector<Candidate> candidates;
    if (ladder) {
      const int team = threads_;
      using Step = void (*)(float*, const float*, const float*, std::size_t);
      const std::pair<const char*, Step> steps[] = {
          {"naive", ladder::naive},       {"unrolled", ladder::unrolled}, {"batched", ladder::batched},
          {"pointer", ladder::pointer},   {"no-alias", ladder::no_alias}, {"sse", ladder::sse}};
      const char* descriptions[] = {"seed: a call per vertex, loops over M", "seed: a call per vertex, unrolled",
                                    "seed: one call, indexed", "seed: one call, pointers walked",
                                    "seed: pointers walked, the vertex in locals",
                                    "seed: SSE, M in registers, aligned loads"};
      for (std::size_t k = 0; k < std::size(steps); ++k) {
        const Step step = steps[k].second;
        candidates.push_back(cpu_candidate(steps[k].first, descriptions[k], n, out, [=] { step(out, m, in, count); }));
      }
      candidates.push_back(cpu_candidate("threads", "seed: OpenMP over grains of 32, no-alias step", n, out,
                                         [=] { ladder::threads(out, m, in, count, 32, team); }));
      candidates.push_back(cpu_candidate("threads+sse", "seed: OpenMP over grains of 32, SSE step", n, out,
                                         [=] { ladder::threads_sse(out, m, in, count, 32, team); }));
    }
    auto single = std::make_shared<fastmv::Context>(fastmv::Backend::Cpu, 1);
    auto all = std::make_shared<fastmv::Context>(fastmv::Backend::Cpu, threads_);
    candidates.push_back(cpu_candidate("fastmv-cpu-1", "fastmv Cpu backend, 1 thread (" + fastmv::cpu_simd_target() + ")",
                                       n, out, [=] { fastmv::transform4(*single, fastmv::Layout::RowMajor, m, n, in, out); }));
    candidates.push_back(cpu_candidate("fastmv-cpu", "fastmv Cpu backend, " + std::to_string(threads_) + " threads",
                                       n, out, [=] { fastmv::transform4(*all, fastmv::Layout::RowMajor, m, n, in, out); }));
    for (Candidate& copy : copy_candidates("cpu", n, in, out)) candidates.push_back(copy);
    append(measure(candidates, n, expected, ladder));
  }

  void run_grain(long long n, const float* in, float* out, const float* expected) {
    auto all = std::make_shared<fastmv::Context>(fastmv::Backend::Cpu, threads_);
    const float* m = M_;
    std::vector<long long> grains;
    for (long long grain = 16; grain <= std::min<long long>(n, 1 << 22); grain *= 4) grains.push_back(grain);
    grains.push_back(0);
    std::vector<Candidate> candidates;
    for (long long grain : grains) {
      Candidate candidate = cpu_candidate(grain == 0 ? "auto" : "grain-" + std::to_string(grain),
                                          grain == 0 ? "fastmv Cpu backend, automatic grain"
                                                     : "fastmv Cpu backend, FASTMV_TRANSFORM4_GRAIN=" + std::to_string(grain),
                                          n, out, {});
      candidate.section = "grain";
      const std::string value = grain == 0 ? std::string() : std::to_string(grain);
      candidate.time = [=](long long calls) {
        ScopedVariable variable("FASTMV_TRANSFORM4_GRAIN", value);
        const auto start = Clock::now();
        for (long long c = 0; c < calls; ++c) fastmv::transform4(*all, fastmv::Layout::RowMajor, m, n, in, out);
        return seconds_since(start);
      };
      candidates.push_back(candidate);
    }
    for (Candidate& copy : copy_candidates("grain", n, in, out)) candidates.push_back(copy);
    std::vector<Transform4Result> results = measure(candidates, n, expected);
    for (std::size_t k = 0; k < grains.size(); ++k) results[k].grain = grains[k];
    append(results);
  }

  // Each result's fraction of its ceiling's GB/s at the same size and section.
  void compare_with_ceilings() {
    for (Transform4Result& result : results_) {
      if (result.compared_with.empty()) continue;
      for (const Transform4Result& ceiling : results_) {
        if (ceiling.ceiling && ceiling.implementation == result.compared_with && ceiling.vertices == result.vertices &&
            ceiling.section == result.section) {
          result.fraction = result.gbps() / ceiling.gbps();
        }
      }
    }
  }

  void progress(const Transform4Result& result) const {
    std::fprintf(stderr, "  %-6s %-26s %6s  %10.3f ms  %8.1f GB/s\n", result.section.c_str(), result.implementation.c_str(),
                 vertices_text(result.vertices).c_str(), 1e3 * result.median_s, result.gbps());
  }

  const Transform4BenchOptions& options_;
  int threads_;
  float M_[16];
  std::vector<Transform4Result> results_;
};

void print_table(const std::vector<Transform4Result>& results) {
  const char* sections[] = {"cpu", "grain", "gpu", "gpu-host"};
  const char* titles[] = {
      "CPU: seed 001's ladder and fastmv, 32 bytes per vertex (read + write)",
      "CPU: fastmv at fixed grain sizes (vertices per chunk of work)",
      "GPU, device arrays: 32 bytes per vertex (read + write)",
      "GPU, host arrays: GB/s each way (16 bytes per vertex up, 16 down)"};
  for (std::size_t s = 0; s < std::size(sections); ++s) {
    bool header = false;
    for (const Transform4Result& r : results) {
      if (r.section != sections[s]) continue;
      if (!header) {
        std::printf("\n%s\n", titles[s]);
        std::printf("%-26s %8s %14s %10s %8s %11s  %s\n", "implementation", "vertices", "ms/100 calls", "GB/s",
                    "ceiling", "max error", "vs");
        header = true;
      }
      char error[32] = "-";
      if (r.checked) std::snprintf(error, sizeof error, "%.1e%s", r.max_error, r.correct ? "" : " WRONG");
      char fraction[16] = "-";
      if (r.fraction > 0) std::snprintf(fraction, sizeof fraction, "%.3f", r.fraction);
      std::printf("%-26s %8s %14.3f %10.1f %8s %11s  %s\n", r.implementation.c_str(), vertices_text(r.vertices).c_str(),
                  1e5 * r.median_s, r.gbps(), fraction, error, r.compared_with.c_str());
    }
  }
}

const Transform4Result* find(const std::vector<Transform4Result>& results, const std::string& section,
                             const std::string& name, long long n) {
  for (const Transform4Result& r : results) {
    if (r.section == section && r.implementation == name && r.vertices == n) return &r;
  }
  return nullptr;
}

// Issue 5's three targets, at each size where they apply.
void print_summary(const std::vector<Transform4Result>& results) {
  std::printf("\nTargets (issue 5):\n");
  std::map<long long, bool> sizes;
  for (const Transform4Result& r : results) sizes[r.vertices] = true;
  for (const auto& [n, unused] : sizes) {
    (void)unused;
    if (n < (1 << 24)) continue;
    if (const auto* gpu = find(results, "gpu", "fastmv-cuda", n)) {
      const auto* cublas = find(results, "gpu", "cublas-sgemm", n);
      std::printf("  GPU device arrays, %s vertices: %.3f of the device-to-device copy (target 0.90: %s)%s\n",
                  vertices_text(n).c_str(), gpu->fraction, gpu->fraction >= 0.9 ? "holds" : "MISSED",
                  cublas ? (", " + std::to_string(cublas->median_s / gpu->median_s).substr(0, 5) + "x cublasSgemm").c_str()
                         : "");
    }
    for (const char* kind : {"pinned", "pageable", "pageable-staged"}) {
      if (const auto* r = find(results, "gpu-host", std::string("fastmv-cuda-host-") + kind, n)) {
        const std::string route = std::strcmp(kind, "pinned") == 0     ? "pinned (the device's pipeline)"
                                  : std::strcmp(kind, "pageable") == 0 ? "pageable (default: host cores)"
                                                                       : "pageable (staged through the device)";
        std::printf("  Cuda context, %s host arrays, %s vertices: %.1f GB/s each way, %.3f of the pinned copies both "
                    "ways at once (target 0.80: %s)\n",
                    route.c_str(), vertices_text(n).c_str(), r->gbps(), r->fraction,
                    r->fraction >= 0.8 ? "holds" : "MISSED");
      }
    }
    if (const auto* cpu = find(results, "cpu", "fastmv-cpu", n)) {
      std::printf("  CPU threads + SIMD, %s vertices: %.3f of the threaded copy with non-temporal stores (target 0.90: %s)\n",
                  vertices_text(n).c_str(), cpu->fraction, cpu->fraction >= 0.9 ? "holds" : "MISSED");
    }
  }
}

void write_json(const Transform4BenchOptions& options, const Bench& bench, const std::string& gpu) {
  const MachineInfo machine = machine_info();
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Transform4Result& r : bench.results()) {
    rows.push_back({{"section", r.section},
                    {"implementation", r.implementation},
                    {"description", r.description},
                    {"vertices", r.vertices},
                    {"grain", r.grain},
                    {"bytes_per_call", r.bytes},
                    {"median_s", r.median_s},
                    {"min_s", r.min_s},
                    {"samples", r.samples},
                    {"calls_per_sample", r.calls_per_sample},
                    {"gbps", r.gbps()},
                    {"ceiling", r.ceiling},
                    {"compared_with", r.compared_with},
                    {"fraction_of_ceiling", r.fraction},
                    {"checked", r.checked},
                    {"max_error", r.max_error},
                    {"correct", r.correct}});
  }
  const nlohmann::ordered_json document = {{"benchmark", "transform4"},
                                           {"command", options.command_line},
                                           {"date_utc", machine.date_utc},
                                           {"cpu", machine.cpu_model},
                                           {"cores", machine.cores},
                                           {"threads", bench.threads()},
                                           {"simd_target", fastmv::cpu_simd_target()},
                                           {"gpu", gpu},
                                           {"results", rows}};
  std::ofstream file(options.json_path);
  if (!(file << document.dump(2) << '\n')) throw std::runtime_error("cannot write " + options.json_path);
}

}  // namespace

ScopedVariable::ScopedVariable(const char* name, const std::string& value) : name_(name) {
  if (value.empty()) return;
  if (const char* earlier = std::getenv(name)) {
    earlier_ = earlier;
    had_earlier_ = true;
  }
  setenv(name, value.c_str(), 1);
  set_ = true;
}

ScopedVariable::~ScopedVariable() {
  if (!set_) return;
  if (had_earlier_) {
    setenv(name_.c_str(), earlier_.c_str(), 1);
  } else {
    unsetenv(name_.c_str());
  }
}

int run_transform4_bench(const Transform4BenchOptions& options) {
  if (options.samples < 1 || options.repetitions < 1) throw std::invalid_argument("--samples and --repetitions must be >= 1");
  const int threads = options.threads > 0 ? options.threads : fastmv::Context(fastmv::Backend::Cpu).threads();
  const MachineInfo machine = machine_info();
  std::string gpu = "none";
#ifdef FASTMV_BENCH_HAVE_CUDA
  if (options.gpu && fastmv::Context::available(fastmv::Backend::Cuda)) {
    gpu = gpu_description(fastmv::Context(fastmv::Backend::Cuda));
  }
#endif
  std::printf("fastmv bench transform4: %s, %d threads, SIMD %s; GPU: %s; %s\n", machine.cpu_model.c_str(), threads,
              fastmv::cpu_simd_target().c_str(), gpu.c_str(), machine.date_utc.c_str());
  std::printf("M row-major, vec4 inputs in (-1, 1); median of %d samples of up to %d calls\n", options.samples,
              options.repetitions);
  std::fflush(stdout);
  Bench bench(options, threads);
  bench.run();
  print_table(bench.results());
  print_summary(bench.results());
  bool correct = true;
  for (const Transform4Result& r : bench.results()) correct = correct && r.correct;
  if (!correct) std::printf("\nWRONG: an output differs from the reference backend's\n");
  if (!options.json_path.empty()) write_json(options, bench, gpu);
  return correct ? 0 : 1;
}

}  // namespace fastmv_tool
