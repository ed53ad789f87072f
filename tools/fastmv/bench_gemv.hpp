// `fastmv bench gemv`: fastmv and the vendor libraries side by side over a sweep of
// GEMV shapes, in one process, on the same rotating operands.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "fastmv/fastmv.hpp"
#include "read_ceiling.hpp"
#include "sysinfo.hpp"
#include "timing.hpp"

namespace fastmv_tool {

enum class Sweep {
  Full,        // square orders 16..16384 and skinny shapes
  Quick,       // a few orders, under a minute on two cores
  Acceptance,  // the performance acceptance points: 16..256, 4096, 16384
};
const char* to_string(Sweep sweep);

// A matrix of m rows and n columns.
struct Shape {
  index_t m = 0;
  index_t n = 0;
};
// "4096x4096" -> {4096, 4096}; throws std::invalid_argument otherwise.
Shape parse_shape(const std::string& text);

struct GemvBenchOptions {
  Sweep sweep = Sweep::Full;
  fastmv::Backend backend = fastmv::Backend::Auto;
  int threads = 0;  // 0: fastmv's default, then given to every vendor too
  std::vector<std::string> dtypes = {"float", "double"};
  std::vector<fastmv::Layout> layouts = {fastmv::Layout::RowMajor, fastmv::Layout::ColMajor};
  std::vector<fastmv::Op> ops = {fastmv::Op::NoTrans, fastmv::Op::Trans};
  std::vector<Shape> shapes;           // replaces the sweep's shapes when not empty
  std::optional<int> repeats;          // the sweep's default when empty
  std::optional<double> min_time_s;
  int rounds = 1;  // times the whole sweep is measured; each point reports the median round
  std::optional<std::size_t> pool_bytes;  // max(4 x LLC, 256 MiB) when empty: adaptive LLC replacement keeps part of a 2 x LLC pool; 0: hot cache
  std::vector<std::string> vendors;    // empty: every vendor found
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
};

struct PointResult {
  std::string dtype;
  fastmv::Layout layout = fastmv::Layout::RowMajor;
  fastmv::Op op = fastmv::Op::NoTrans;
  Shape shape;
  index_t lda = 0;
  double bytes = 0;  // A, x and y once (y twice when beta != 0)
  double flops = 0;  // 2 m n
  std::size_t pool_sets = 0;
  std::vector<ImplementationResult> implementations;  // fastmv first
};

struct ImplementationStatus {
  std::string name;
  bool used = false;
  std::string description;  // version, or why it was skipped
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
  std::vector<ImplementationStatus> implementations;
  std::vector<PointResult> points;
  double elapsed_s = 0;

  // Whether every implementation that ran gave the right result at every point.
  bool all_correct() const;
};

// Throws fastmv::Error for an unavailable backend and std::runtime_error for a backend
// whose memory this host harness cannot feed.
GemvBenchReport run_gemv_bench(const GemvBenchOptions& options);

}  // namespace fastmv_tool
