// `fastmv bench transform4`: batched 4 x 4 transforms of vec4 arrays (seed 001).
//   cpu:   the seed's ladder (a call per vertex, unrolled, batched, pointer walking,
//          no aliasing, SSE, OpenMP threads with its grain of 32, threads + SSE) at
//          the seed's sizes, then fastmv's Cpu backend on one thread and on all, against
//          a threaded memcpy of the same bytes in the same run;
//   grain: fastmv's Cpu backend at fixed grain sizes (FASTMV_TRANSFORM4_GRAIN), and
//          the automatic choice;
//   gpu:   fastmv's Cuda backend on device arrays against cublasSgemm (4x4 times 4xN)
//          and a device-to-device copy; host arrays the seed's way (copy up, kernel,
//          copy down, pageable and pinned) against fastmv's overlapped pipeline on
//          pageable and pinned arrays, and the pinned copy bandwidth alone and with both
//          directions at once.
// Every output is checked against the reference backend.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fastmv/fastmv.hpp"

namespace fastmv_tool {

struct Transform4BenchOptions {
  std::vector<long long> sizes = {1 << 18, 1 << 19, 1 << 20, 1 << 22, 1 << 24, 1 << 26};
  std::vector<long long> ladder_sizes = {1 << 18, 1 << 19, 1 << 20};  // the seed's
  std::vector<long long> grain_sizes = {1 << 20, 1 << 24};            // vertices of the grain curve
  int threads = 0;           // 0: fastmv's default (OpenMP)
  int repetitions = 100;     // calls per sample: exactly this many at the ladder's sizes (the
                             // seed's 100 repetitions), at most this many elsewhere
  int samples = 5;           // samples per implementation; the median is reported
  double min_sample_s = 0.05;  // fewer calls per sample only when 100 would last longer than this
  bool cpu = true;
  bool gpu = true;           // when the Cuda backend is available
  bool grain = true;
  std::string json_path;
  std::string command_line;
};

// What the table and the JSON hold for one implementation at one size.
struct Transform4Result {
  std::string section;         // "cpu", "grain", "gpu", "gpu-host"
  std::string implementation;  // "naive", "fastmv-cpu", "cublas-sgemm", ...
  std::string description;
  long long vertices = 0;
  long long grain = 0;         // the grain section's fixed grain (0: automatic)
  double bytes = 0;            // moved per call: 32 per vec4 (16 read, 16 written)
  double median_s = 0;         // per call
  double min_s = 0;
  int samples = 0;
  long long calls_per_sample = 0;
  bool ceiling = false;        // a copy that bounds the others, not a transform
  std::string compared_with;   // the ceiling it is compared with
  double fraction = 0;         // of that ceiling's GB/s (per direction for host arrays)
  double max_error = 0;        // against the reference backend
  bool checked = false;
  bool correct = true;
  double gbps() const { return median_s > 0 ? bytes / median_s / 1e9 : 0; }
};

// One implementation at one size: `time(calls)` runs it `calls` times and returns
// the seconds they took; `output()` (when set) gives its last result, on the host,
// for the check against the reference backend.
struct Candidate {
  std::string section, name, description;
  double bytes = 0;
  bool ceiling = false;
  std::string compared_with;
  std::function<double(long long calls)> time;
  std::function<const float*()> output;
  // Poisons the output (NaN) before the call whose result is checked, so that a
  // candidate that writes nothing cannot pass on another's result.
  std::function<void()> poison;
};

// The buffers of one size on the GPU and the candidates that use them; freed with it.
struct GpuPoint {
  virtual ~GpuPoint() = default;
  std::vector<Candidate> candidates;
};

// Sets an environment variable (a tuning variable fastmv reads at each call) for the
// lifetime of the object, then restores what it was; an empty value changes nothing.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const std::string& value);
  ~ScopedVariable();
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::string earlier_;
  bool set_ = false;
  bool had_earlier_ = false;
};

#ifdef FASTMV_BENCH_HAVE_CUDA
// Device, pinned and pageable copies of `input` and the GPU candidates on them
// (bench_transform4_cuda.cu).
std::unique_ptr<GpuPoint> make_gpu_point(const fastmv::Context& context, const float* M, long long n,
                                         const std::vector<float>& input);
#endif

// Runs what `options` asks for, prints the table and the summary, writes the JSON.
// Returns 0, or 1 when an output did not match the reference.
int run_transform4_bench(const Transform4BenchOptions& options);

}  // namespace fastmv_tool
