// `fastmv bench gemv`: fastmv and the vendor libraries side by side over a sweep of
// GEMV shapes, in one process, on the same rotating operands. On the CPU backends the
// vendors are OpenBLAS, BLIS and Eigen (host memory, host clock); on the CUDA backend
// cuBLAS (device memory, CUDA events; see bench_gemv_cuda.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fastmv/fastmv.hpp"
#include "read_ceiling.hpp"
#include "sysinfo.hpp"
#include "timing.hpp"

namespace fastmv_tool {

// The CPU's sweeps; the GPU's are in gpu_sweep.hpp.
enum class Sweep {
  Full,        // square orders 16..16384 and skinny shapes (GPU: the whole sweep)
  Quick,       // a few orders, under a minute on two cores (GPU: a small subset)
  Acceptance,  // the performance acceptance points: 16..256, 4096, 16384 (GPU: as Full)
};
const char* to_string(Sweep sweep);

// A matrix of m rows and n columns.
struct Shape {
  index_t m = 0;
  index_t n = 0;
};
// "4096x4096" -> {4096, 4096}; throws std::invalid_argument otherwise.
Shape parse_shape(const std::string& text);

// A --variant's implementation name: this prefix and its label ("fastmv:off").
inline const std::string kVariantPrefix = "fastmv:";
inline bool is_variant_name(const std::string& name) { return name.rfind(kVariantPrefix, 0) == 0; }

// "LABEL=POLICY" (--variant) -> {LABEL, POLICY}: LABEL letters, digits, '_' and '-', not
// one of `earlier`'s; POLICY may be empty. Throws std::invalid_argument otherwise.
std::pair<std::string, std::string> parse_variant(
    const std::string& text, const std::vector<std::pair<std::string, std::string>>& earlier);

// One point of a sweep before its dtype is chosen.
struct PointSpec {
  fastmv::Layout layout;
  fastmv::Op op;
  Shape shape;
};

// "float row N 4096x4096", for progress lines and error messages.
inline std::string describe_point(const char* dtype, const PointSpec& spec) {
  return std::string(dtype) + " " + (spec.layout == fastmv::Layout::RowMajor ? "row" : "col") +
         " " + (spec.op == fastmv::Op::NoTrans ? "N" : "T") + " " + std::to_string(spec.shape.m) +
         "x" + std::to_string(spec.shape.n);
}

struct GemvBenchOptions {
  Sweep sweep = Sweep::Full;
  fastmv::Backend backend = fastmv::Backend::Auto;
  int threads = 0;  // 0: fastmv's default, then given to every vendor too
  // "float", "double", and on the GPU "bf16" and "fp16" (A in that type, x and y float).
  // Empty: float and double on the CPU; float, bf16 and fp16 on the GPU.
  std::vector<std::string> dtypes;
  std::vector<fastmv::Layout> layouts = {fastmv::Layout::RowMajor, fastmv::Layout::ColMajor};
  std::vector<fastmv::Op> ops = {fastmv::Op::NoTrans, fastmv::Op::Trans};
  std::vector<Shape> shapes;           // replaces the sweep's shapes when not empty
  std::optional<int> repeats;          // the sweep's default when empty
  std::optional<double> min_time_s;
  std::optional<double> min_sample_s;  // seconds a sample of back-to-back calls lasts, at least
  // Times the whole sweep is measured; each point reports the median round. 0: the
  // sweep's default (3 for the CPU's acceptance sweep, else 1).
  int rounds = 0;
  // Operands rotated per point; 0: one set, hot cache. Empty: on the CPU max(4 x LLC,
  // 256 MiB) (adaptive LLC replacement keeps part of a 2 x LLC pool); on the GPU
  // max(8 x L2, 512 MiB) and at least 2 sets.
  std::optional<std::size_t> pool_bytes;
  std::vector<std::string> vendors;    // empty: every vendor found
  // GPU only: fastmv again under each (label, FASTMV_CUDA_GEMV_POLICY text), as
  // implementation "fastmv:label" in the same round-robin (fastmv::cuda::set_gemv_policy).
  std::vector<std::pair<std::string, std::string>> variants;
  double alpha = 1;
  double beta = 0;
  bool progress = false;
  std::string command_line;
};

struct ImplementationResult {
  std::string name;
  bool correct = false;
  std::string error;  // why it failed to run, empty when it ran
  double max_error = 0;
  double tolerance = 0;
  Timing timing;
  // GPU only: the vendor routine that ran ("cublasSgemv"), the bytes this implementation
  // moves when they differ from the point's (cuBLAS reads x in A's half type), and
  // every routine timed for the vendor at this point, fastest first.
  std::string routine;
  double bytes = 0;
  std::vector<std::pair<std::string, Timing>> routines;
};

struct PointResult {
  std::string dtype;
  fastmv::Layout layout = fastmv::Layout::RowMajor;
  fastmv::Op op = fastmv::Op::NoTrans;
  Shape shape;
  index_t lda = 0;
  double bytes = 0;  // A, x and y once (y twice when beta != 0)
  double flops = 0;  // 2 m n
  double matrix_bytes = 0;  // A alone, in its own type
  std::size_t pool_sets = 0;
  std::vector<ImplementationResult> implementations;  // fastmv first
  // GPU only, points with at least 8 MiB of A: a kernel that only reads A's bytes (the
  // read ceiling's kernel), launched once per call as fastmv's kernels are (programmatic
  // dependent launch), on the same rotated sets, in the same round-robin as fastmv and
  // cuBLAS. fastmv's GB/s over its (A's bytes over its time) says how close fastmv comes
  // to what a read launched per call reaches at this size (the read ceiling streams 2 GiB
  // in one launch): a reference rather than a bound, since GEMV calls have beaten it by up
  // to 2.3 % (sweep L, docs/PERFORMANCE.md). samples == 0 where it was not timed.
  Timing read_floor;
};

struct ImplementationStatus {
  std::string name;
  bool used = false;
  std::string description;  // version, or why it was skipped
};

// The GPU a CUDA run measured, for table headers and JSON metadata.
struct GpuInfo {
  int device = 0;
  std::string name;
  int compute_capability_major = 0;
  int compute_capability_minor = 0;
  int multiprocessors = 0;
  std::size_t l2_bytes = 0;
  std::size_t memory_bytes = 0;
  double memory_peak_gbps = 0;  // 2 x memory clock x bus width, the datasheet figure
  std::string driver_version;   // the kernel module's, "unknown" when not readable
  int cuda_driver_version = 0;  // cudaDriverGetVersion, e.g. 13000
  int cuda_runtime_version = 0;
  int cublas_version = 0;       // e.g. 130100 for 13.1.0
};

struct GemvBenchReport {
  MachineInfo machine;
  std::string command_line;
  Sweep sweep = Sweep::Full;
  std::string backend;
  int threads = 1;
  std::size_t pool_bytes = 0;
  SamplingPolicy sampling;
  int rounds = 1;
  double alpha = 1;
  double beta = 0;
  ReadCeiling read_ceiling;
  std::optional<GpuInfo> gpu;  // set for a run on the CUDA backend
  std::vector<ImplementationStatus> implementations;
  std::vector<PointResult> points;
  double elapsed_s = 0;

  // Whether every implementation that ran gave the right result at every point.
  bool all_correct() const;
};

// Runs on the context's backend: the CPU harness here, or on the CUDA backend the GPU
// harness of bench_gemv_cuda.hpp. Throws std::runtime_error naming the cause when
// --backend cuda finds no device or no CUDA build, std::invalid_argument for a dtype the
// backend's benchmark does not run, and fastmv::Error for other backend failures.
GemvBenchReport run_gemv_bench(const GemvBenchOptions& options);

}  // namespace fastmv_tool
