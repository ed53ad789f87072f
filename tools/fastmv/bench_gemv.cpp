#include "bench_gemv.hpp"

#include <algorithm>
#include <chrono>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <stdexcept>

#include "bench_gemv_cuda.hpp"
#include "gemv_implementation.hpp"
#include "operand_pool.hpp"
#include "progress.hpp"
#include "vendor_blas.hpp"
#include "vendor_eigen.hpp"

namespace fastmv_tool {
namespace {

using fastmv::Layout;
using fastmv::Op;

// The seed paper's range, 16..12800, sampled at powers of two, their neighbours + 1
// (odd leading dimensions, tails in every kernel) and a few orders in between; 16384
// is the largest acceptance point.
const std::vector<index_t> kFullOrders = {16,   32,   64,   128,  256,  512,   1024,  2048, 3072,
                                          4096, 4097, 6144, 8192, 8193, 10240, 12800, 16384};
const std::vector<Shape> kSkinnyShapes = {
    {100003, 3}, {3, 100003}, {1048576, 16}, {16, 1048576}, {65536, 64}};
// Small orders time the call overhead and the single-thread latency regime; 1024 sits in
// the last-level cache of most servers, 4096 streams from memory on most machines. 16384
// (1 GiB in float, 2 GiB in double) takes about a minute alone, so it is only in the
// acceptance and full sweeps.
const std::vector<index_t> kQuickOrders = {16, 64, 256, 1024, 4096};
const std::vector<index_t> kAcceptanceOrders = {16, 32, 64, 128, 256, 4096, 16384};

SamplingPolicy sampling_for(Sweep sweep) {
  SamplingPolicy policy;
  switch (sweep) {
    case Sweep::Full: policy.repeats = 15; policy.min_time_s = 0.1; policy.warm_up_s = 0.02; break;
    case Sweep::Quick: policy.repeats = 5; policy.min_time_s = 0.02; policy.warm_up_s = 0.005; break;
    case Sweep::Acceptance:
      policy.repeats = 7; policy.min_time_s = 0.05; policy.warm_up_s = 0.01; break;
  }
  return policy;
}

std::vector<Shape> shapes_for(const GemvBenchOptions& options) {
  if (!options.shapes.empty()) return options.shapes;
  std::vector<Shape> shapes;
  const auto& orders = options.sweep == Sweep::Quick        ? kQuickOrders
                       : options.sweep == Sweep::Acceptance ? kAcceptanceOrders
                                                            : kFullOrders;
  for (index_t order : orders) shapes.push_back({order, order});
  if (options.sweep == Sweep::Full) {
    shapes.insert(shapes.end(), kSkinnyShapes.begin(), kSkinnyShapes.end());
  }
  return shapes;
}

std::size_t round_up(std::size_t value, std::size_t multiple) {
  return (value + multiple - 1) / multiple * multiple;
}

// Where each of a point's operands lives inside the pool buffers.
struct PointLayout {
  index_t lda = 0;
  std::size_t matrix_elements = 0;   // A as stored, lda included
  std::size_t x_length = 0;
  std::size_t y_length = 0;
  std::size_t matrix_stride = 0;     // A then x, padded to a cache line
  std::size_t output_stride = 0;
  std::size_t sets = 1;
};

template <typename T>
PointLayout layout_point(Layout layout, Op op, Shape shape, std::size_t pool_bytes) {
  constexpr std::size_t kLine = 64 / sizeof(T);
  PointLayout point;
  const bool row_major = layout == Layout::RowMajor;
  point.lda = std::max<index_t>(1, row_major ? shape.n : shape.m);
  point.matrix_elements =
      static_cast<std::size_t>(point.lda) * static_cast<std::size_t>(row_major ? shape.m : shape.n);
  point.x_length = static_cast<std::size_t>(op == Op::NoTrans ? shape.n : shape.m);
  point.y_length = static_cast<std::size_t>(op == Op::NoTrans ? shape.m : shape.n);
  point.matrix_stride = round_up(point.matrix_elements + point.x_length, kLine);
  point.output_stride = round_up(point.y_length, kLine);
  const std::size_t set_bytes = (point.matrix_elements + point.x_length + point.y_length) * sizeof(T);
  point.sets = std::max<std::size_t>(1, (pool_bytes + set_bytes - 1) / set_bytes);
  return point;
}

// |y - y_ref| <= tolerance everywhere. The operands are small integers, so a correct
// implementation is exact for reduction lengths up to 2^20 (see fill_random_operands);
// the tolerance, 4 eps sqrt(k) max|y_ref|, leaves room for rounding with other alpha or
// beta and for longer reductions, and stays below 1 so that one dropped product fails.
template <typename T>
void check_result(const T* y, const std::vector<T>& reference, index_t reduction_length,
                  ImplementationResult& result) {
  double largest = 1;
  for (T value : reference) largest = std::max(largest, std::abs(static_cast<double>(value)));
  result.tolerance = 4.0 * std::numeric_limits<T>::epsilon() *
                     std::sqrt(static_cast<double>(reduction_length)) * largest;
  result.max_error = 0;
  bool finite = true;
  for (std::size_t i = 0; i < reference.size(); ++i) {
    const double error = std::abs(static_cast<double>(y[i]) - static_cast<double>(reference[i]));
    if (!std::isfinite(error)) finite = false;
    result.max_error = std::max(result.max_error, error);
  }
  result.correct = finite && result.max_error <= result.tolerance;
  if (!finite) result.max_error = std::numeric_limits<double>::infinity();
}

class GemvBench {
 public:
  GemvBench(const GemvBenchOptions& options, GemvBenchReport& report,
            std::vector<GemvImplementation*> implementations)
      : options_(options), report_(report), implementations_(std::move(implementations)) {}

  // Every point of one element type; the input pool is allocated and filled once for all.
  template <typename T>
  void run_type(const char* dtype, const std::vector<PointSpec>& specs, Progress& progress,
                std::size_t& index) {
    std::size_t input_elements = 0;
    for (const auto& spec : specs) {
      const PointLayout point = layout_point<T>(spec.layout, spec.op, spec.shape, report_.pool_bytes);
      input_elements = std::max(input_elements, point.sets * point.matrix_stride);
    }
    // A and x of every set; never written, so one fill serves the whole sweep.
    HostBuffer<T> inputs(input_elements);
    fill_random_operands(inputs.data(), inputs.size(), 1);

    // Round r measures every point once; a point's figure is the median of its rounds,
    // so a disturbance that lasts one point (the VM losing a core for a second) moves
    // one round of it, not the result.
    const std::size_t first_point = report_.points.size();
    std::vector<std::vector<std::vector<Timing>>> rounds_of(specs.size());  // [point][impl]
    for (int round = 0; round < report_.rounds; ++round) {
      for (std::size_t i = 0; i < specs.size(); ++i) {
        const auto start = std::chrono::steady_clock::now();
        std::string name = describe_point(dtype, specs[i]);
        if (report_.rounds > 1) name += " (round " + std::to_string(round + 1) + ")";
        PointResult result = run_point<T>(dtype, specs[i], inputs, [&](const std::string& what) {
          progress.running(index, name, what);
        });
        if (round == 0) {
          rounds_of[i].resize(result.implementations.size());
          report_.points.push_back(result);
        }
        PointResult& merged = report_.points[first_point + i];
        for (std::size_t j = 0; j < result.implementations.size(); ++j) {
          const ImplementationResult& measured = result.implementations[j];
          ImplementationResult& kept = merged.implementations[j];
          if (!measured.correct && kept.correct) kept = measured;  // keep the failure
          kept.max_error = std::max(kept.max_error, measured.max_error);
          if (measured.timing.samples > 0) rounds_of[i][j].push_back(measured.timing);
        }
        progress.done(index, name,
                      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
        ++index;
      }
    }
    for (std::size_t i = 0; i < specs.size(); ++i) {
      PointResult& merged = report_.points[first_point + i];
      for (std::size_t j = 0; j < merged.implementations.size(); ++j) {
        if (!rounds_of[i][j].empty()) {
          merged.implementations[j].timing = combine_rounds(rounds_of[i][j]);
        }
      }
    }
  }

 private:
  template <typename T, typename OnImplementation>
  PointResult run_point(const char* dtype, const PointSpec& spec, const HostBuffer<T>& inputs,
                 OnImplementation&& on_implementation) {
    const PointLayout point = layout_point<T>(spec.layout, spec.op, spec.shape, report_.pool_bytes);
    HostBuffer<T> outputs(point.sets * point.output_stride);
    fill_random_operands(outputs.data(), outputs.size(), 2);

    GemvPool<T> pool;
    pool.first = GemvCall<T>{spec.layout, spec.op,  spec.shape.m, spec.shape.n,
                             static_cast<T>(options_.alpha), inputs.data(), point.lda,
                             inputs.data() + point.matrix_elements, 1,
                             static_cast<T>(options_.beta), outputs.data(), 1};
    pool.sets = point.sets;
    pool.matrix_stride = point.matrix_stride;
    pool.output_stride = point.output_stride;

    PointResult result;
    result.dtype = dtype;
    result.layout = spec.layout;
    result.op = spec.op;
    result.shape = spec.shape;
    result.lda = point.lda;
    const double y_passes = options_.beta != 0 ? 2 : 1;  // y read and written, or written
    result.bytes = static_cast<double>(sizeof(T)) *
                   (static_cast<double>(spec.shape.m) * static_cast<double>(spec.shape.n) +
                    static_cast<double>(point.x_length) + y_passes * static_cast<double>(point.y_length));
    result.flops = 2.0 * static_cast<double>(spec.shape.m) * static_cast<double>(spec.shape.n);
    result.pool_sets = point.sets;

    // The oracle: fastmv's Reference backend on the first set.
    const GemvCall<T> first = pool.call(0);
    const std::vector<T> initial_y(first.y, first.y + point.y_length);
    std::vector<T> reference = initial_y;
    fastmv::gemv(fastmv::Context(fastmv::Backend::Reference), first.layout, first.op, first.m,
                 first.n, first.alpha, first.A, first.lda, first.x, first.incx, first.beta,
                 reference.data(), first.incy);
    const index_t reduction_length = spec.op == Op::NoTrans ? spec.shape.n : spec.shape.m;

    // Check every implementation once, then time those that ran, side by side.
    std::vector<GemvImplementation*> timed;
    std::vector<std::size_t> timed_results;
    for (GemvImplementation* implementation : implementations_) {
      on_implementation(implementation->name());
      ImplementationResult measured;
      measured.name = implementation->name();
      try {
        std::copy(initial_y.begin(), initial_y.end(), first.y);
        implementation->gemv(first);
        check_result(first.y, reference, reduction_length, measured);
        timed.push_back(implementation);
        timed_results.push_back(result.implementations.size());
      } catch (const std::exception& error) {
        measured.correct = false;
        measured.error = error.what();
      }
      result.implementations.push_back(std::move(measured));
    }
    on_implementation("timing");
    std::size_t cursor = 0;
    const std::vector<Timing> timings = time_round_robin(timed, pool, report_.sampling, cursor);
    for (std::size_t i = 0; i < timings.size(); ++i) {
      result.implementations[timed_results[i]].timing = timings[i];
    }
    return result;
  }

  const GemvBenchOptions& options_;
  GemvBenchReport& report_;
  std::vector<GemvImplementation*> implementations_;
};

}  // namespace

const char* to_string(Sweep sweep) {
  switch (sweep) {
    case Sweep::Full: return "full";
    case Sweep::Quick: return "quick";
    case Sweep::Acceptance: return "acceptance";
  }
  return "unknown";
}

Shape parse_shape(const std::string& text) {
  const auto x = text.find_first_of("xX");
  std::size_t m_end = 0;
  std::size_t n_end = 0;
  Shape shape;
  try {
    if (x == std::string::npos) throw std::invalid_argument("no x");
    shape.m = std::stoll(text.substr(0, x), &m_end);
    shape.n = std::stoll(text.substr(x + 1), &n_end);
  } catch (const std::exception&) {
    throw std::invalid_argument("not a shape ROWSxCOLS: '" + text + "'");
  }
  if (m_end != x || n_end != text.size() - x - 1 || shape.m < 1 || shape.n < 1) {
    throw std::invalid_argument("not a shape ROWSxCOLS with positive sizes: '" + text + "'");
  }
  return shape;
}

std::pair<std::string, std::string> parse_variant(
    const std::string& text, const std::vector<std::pair<std::string, std::string>>& earlier) {
  const auto equals = text.find('=');
  const std::string label = text.substr(0, equals);
  const bool label_ok = !label.empty() && std::all_of(label.begin(), label.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-';
  });
  if (equals == std::string::npos || !label_ok) {
    throw std::invalid_argument("--variant wants LABEL=POLICY (LABEL of letters, digits, '_' and "
                                "'-'; POLICY as in FASTMV_CUDA_GEMV_POLICY, may be empty): '" +
                                text + "'");
  }
  for (const auto& [other, policy] : earlier) {
    if (other == label) throw std::invalid_argument("--variant " + label + " given twice");
  }
  return {label, text.substr(equals + 1)};
}

bool GemvBenchReport::all_correct() const {
  for (const auto& point : points) {
    for (const auto& implementation : point.implementations) {
      if (!implementation.correct) return false;
    }
  }
  return true;
}

GemvBenchReport run_gemv_bench(const GemvBenchOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  GemvBenchReport report;
  report.machine = machine_info();
  report.command_line = options.command_line;
  report.sweep = options.sweep;
  report.alpha = options.alpha;
  report.beta = options.beta;

  if (options.backend == fastmv::Backend::Cuda &&
      !fastmv::Context::available(fastmv::Backend::Cuda)) {
    throw std::runtime_error(
        fastmv::cuda_built()
            ? "no CUDA device: --backend cuda needs an NVIDIA GPU visible to this process "
              "(CUDA found 0 devices; check nvidia-smi and CUDA_VISIBLE_DEVICES)"
            : "no CUDA backend: this fastmv was built without CUDA (FASTMV_CUDA=OFF)");
  }
  const fastmv::Context context(options.backend, options.threads);
  if (context.backend() == fastmv::Backend::Cuda) {
    report.backend = fastmv::to_string(context.backend());
    run_gemv_bench_cuda(options, context, report);
    report.elapsed_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return report;
  }
  if (!options.variants.empty()) {
    throw std::invalid_argument("--variant compares policies of the CUDA dispatcher: it needs "
                                "the CUDA backend (--backend cuda on a machine with a GPU)");
  }
  const std::vector<std::string> dtypes =
      options.dtypes.empty() ? std::vector<std::string>{"float", "double"} : options.dtypes;
  for (const auto& dtype : dtypes) {
    if (dtype != "float" && dtype != "double") {
      throw std::invalid_argument("--dtype " + dtype +
                                  " is benchmarked on the CUDA backend only; the CPU benchmark "
                                  "runs float and double");
    }
  }
  report.backend = fastmv::to_string(context.backend());
  report.threads = context.threads();
  report.pool_bytes = options.pool_bytes.value_or(
      std::max<std::size_t>(4 * report.machine.llc_bytes, std::size_t(256) << 20));
  report.sampling = sampling_for(options.sweep);
  report.rounds = options.rounds > 0 ? options.rounds : options.sweep == Sweep::Acceptance ? 3 : 1;
  if (options.repeats) report.sampling.repeats = *options.repeats;
  if (options.min_time_s) report.sampling.min_time_s = *options.min_time_s;
  if (options.min_sample_s) report.sampling.min_sample_s = *options.min_sample_s;

  // fastmv first, then the vendors in a fixed order.
  std::vector<std::unique_ptr<GemvImplementation>> owned;
  owned.push_back(make_fastmv_implementation(context));
  owned.push_back(make_openblas());
  owned.push_back(make_blis());
  owned.push_back(make_eigen());
  std::vector<GemvImplementation*> used;
  for (const auto& implementation : owned) {
    ImplementationStatus status{implementation->name(), false, implementation->description()};
    const bool wanted = implementation->name() == "fastmv" || options.vendors.empty() ||
                        std::find(options.vendors.begin(), options.vendors.end(),
                                  implementation->name()) != options.vendors.end();
    if (!wanted) {
      status.description = "skipped: not in --vendors (" + status.description + ")";
    } else if (!implementation->available()) {
      status.description = "skipped: " + status.description;
    } else {
      implementation->set_threads(report.threads);
      status.used = true;
      used.push_back(implementation.get());
    }
    report.implementations.push_back(std::move(status));
  }

  // The ceiling streams twice the pool, so that it too comes from memory.
  const std::size_t ceiling_bytes =
      2 * std::max(report.pool_bytes, std::max<std::size_t>(report.machine.llc_bytes, 1 << 20));
  report.read_ceiling = measure_read_ceiling(ceiling_bytes, report.threads, 5);

  std::vector<PointSpec> specs;
  for (const Shape& shape : shapes_for(options)) {
    for (Layout layout : options.layouts) {
      for (Op op : options.ops) specs.push_back({layout, op, shape});
    }
  }
  const bool has_float = std::find(dtypes.begin(), dtypes.end(), "float") != dtypes.end();
  const bool has_double = std::find(dtypes.begin(), dtypes.end(), "double") != dtypes.end();
  Progress progress(options.progress, specs.size() * static_cast<std::size_t>(report.rounds) *
                                         ((has_float ? 1 : 0) + (has_double ? 1 : 0)));
  GemvBench bench(options, report, used);
  std::size_t index = 0;
  if (has_float) bench.run_type<float>("float", specs, progress, index);
  if (has_double) bench.run_type<double>("double", specs, progress, index);

  report.elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return report;
}

}  // namespace fastmv_tool
