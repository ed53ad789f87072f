// `fastmv solve jacobi` (solve_jacobi.hpp).
#include "solve_jacobi.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "jacobi_baseline.hpp"
#include "fastmv/cuda.hpp"
#include "jacobi_gpu.hpp"
#include "sysinfo.hpp"
#include "vendor_blas.hpp"

namespace fastmv_tool {
namespace {

template <typename T>
struct Problem {
  std::string name;
  long long order = 0;
  double alpha = 0;  // 0 for a file
  fastmv::DenseMatrix<T> A;
  std::vector<T> b;
};

// ||b - A x||_2 / ||b||_2 in double, and what rounding in T may move a residual
// computed in T by another order of operations (64 eps || |A| |x| ||_2 / ||b||_2).
template <typename T>
std::pair<double, double> residual_of(const Problem<T>& p, const std::vector<T>& x) {
  const index_t n = p.A.rows;
  std::vector<double> sum(static_cast<std::size_t>(n), 0.0), magnitude(static_cast<std::size_t>(n), 0.0);
#pragma omp parallel for schedule(static)
  for (index_t i = 0; i < n; ++i) {
    double s = 0, m = 0;
    for (index_t j = 0; j < n; ++j) {
      const double term = static_cast<double>(p.A(i, j)) * static_cast<double>(x[j]);
      s += term;
      m += std::fabs(term);
    }
    sum[i] = s;
    magnitude[i] = m;
  }
  double residual = 0, rounding = 0, b_norm = 0;
  for (index_t i = 0; i < n; ++i) {
    const double r = static_cast<double>(p.b[i]) - sum[i];
    residual += r * r;
    rounding += magnitude[i] * magnitude[i];
    b_norm += static_cast<double>(p.b[i]) * static_cast<double>(p.b[i]);
  }
  return {std::sqrt(residual / b_norm),
          64 * std::numeric_limits<T>::epsilon() * std::sqrt(rounding / b_norm)};
}

// Runs `solve` warmups + repeats times and keeps the timed run of median total time.
template <typename Solve>
JacobiRun median_run(int warmups, int repeats, Solve&& solve) {
  for (int i = 0; i < warmups; ++i) solve();
  std::vector<JacobiRun> runs;
  for (int i = 0; i < repeats; ++i) runs.push_back(solve());
  std::sort(runs.begin(), runs.end(),
            [](const JacobiRun& a, const JacobiRun& b) { return a.total_s() < b.total_s(); });
  return runs[runs.size() / 2];
}

// fastmv::jacobi on `context` with A at `A` (p.A's values, or a page-locked copy of
// them: the paper's programs and the cuBLAS loop hold A in page-locked memory, from
// which the copy to the device needs no staging).
template <typename T>
JacobiRun run_fastmv(const fastmv::Context& context, const Problem<T>& p, const T* A,
                     const std::string& name, const fastmv::JacobiOptions& options,
                     std::vector<T>& x) {
  x.resize(p.b.size());
  const fastmv::JacobiResult result = fastmv::jacobi(context, p.A.layout, p.A.rows, p.A.cols, A,
                                                     p.A.ld(), p.b.data(), x.data(), options);
  JacobiRun run;
  run.implementation = name;
  run.status = result.status;
  run.iterations = result.iterations;
  run.residual = result.residual;
  run.transfer_s = result.transfer_seconds;
  run.setup_s = result.setup_seconds;
  run.iterate_s = result.iteration_seconds;
  run.products = result.matrix_products;
  run.check_every = result.check_every;
  return run;
}

template <typename T>
JacobiRun run_vendor_loop(GemvImplementation& vendor, const Problem<T>& p,
                          const fastmv::JacobiOptions& options, std::vector<T>& x) {
  const index_t n = p.A.rows;
  JacobiRun run;
  run.implementation = vendor.name() + "-loop";
  run.description = vendor.description() + ", update on the host";
  std::vector<T> diagonal(static_cast<std::size_t>(n));
  for (index_t i = 0; i < n; ++i) diagonal[i] = p.A(i, i);
  host_update_loop(n, p.b.data(), options, diagonal, [&](const T* x_now, T* t) {
    vendor.gemv(GemvCall<T>{p.A.layout, fastmv::Op::NoTrans, n, n, T(1), p.A.values.data(),
                            p.A.ld(), x_now, 1, T(0), t, 1});
  }, x, run);
  return run;
}

template <typename T>
std::vector<Problem<T>> make_problems(const JacobiCommandOptions& options) {
  std::vector<Problem<T>> problems;
  if (!options.matrix_path.empty()) {
    const fastmv::DenseMatrix<double> read = fastmv::read_matrix_market(options.matrix_path);
    if (read.rows != read.cols) {
      throw std::invalid_argument(options.matrix_path + " holds a " + std::to_string(read.rows) +
                                  " x " + std::to_string(read.cols) +
                                  " matrix; Jacobi's method needs a square one");
    }
    Problem<T> p;
    p.name = options.matrix_path;
    p.order = read.rows;
    p.A.rows = p.A.cols = read.rows;
    p.A.layout = options.layout;
    p.A.values.resize(read.values.size());
    for (index_t i = 0; i < read.rows; ++i)
      for (index_t j = 0; j < read.cols; ++j) p.A(i, j) = static_cast<T>(read(i, j));
    if (!options.rhs_path.empty()) {
      const std::vector<double> b = fastmv::read_matrix_market_vector(options.rhs_path);
      if (static_cast<index_t>(b.size()) != read.rows) {
        throw std::invalid_argument(options.rhs_path + " holds " + std::to_string(b.size()) +
                                    " elements, but " + options.matrix_path + " has " +
                                    std::to_string(read.rows) + " rows");
      }
      p.b.assign(b.begin(), b.end());
    } else {
      // b = A * ones: the solution is all ones.
      p.b.assign(static_cast<std::size_t>(read.rows), T(0));
      for (index_t i = 0; i < read.rows; ++i) {
        double sum = 0;
        for (index_t j = 0; j < read.cols; ++j) sum += read(i, j);
        p.b[i] = static_cast<T>(sum);
      }
    }
    problems.push_back(std::move(p));
    return problems;
  }
  for (const long long order : options.orders) {
    for (const double alpha : options.alphas) {
      Problem<T> p;
      p.order = order;
      p.alpha = alpha;
      p.name = "generated n=" + std::to_string(order) + " alpha=" + std::to_string(alpha);
      auto system = fastmv::generate_jacobi_system<T>(order, alpha, options.seed, options.layout);
      p.A = std::move(system.A);
      p.b = std::move(system.b);
      problems.push_back(std::move(p));
    }
  }
  return problems;
}

std::string milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", 1e3 * seconds);
  return text;
}

template <typename T>
int run_typed(const JacobiCommandOptions& options) {
  const MachineInfo machine = machine_info();
  std::printf("fastmv solve jacobi, %s, %s layout, %s\n", options.dtype.c_str(),
              fastmv::to_string(options.layout), machine.date_utc.c_str());
  std::printf("CPU: %s, %d cores\n", machine.cpu_model.c_str(), machine.cores);
  const bool gpu = fastmv::Context::available(fastmv::Backend::Cuda);
  std::unique_ptr<fastmv::Context> cuda_context;
  std::string gpu_text = "none";
  if (gpu) {
    cuda_context = std::make_unique<fastmv::Context>(fastmv::Backend::Cuda, options.threads);
    gpu_text = gpu_description(*cuda_context);
  }
  std::printf("GPU: %s\n", gpu_text.c_str());
  std::printf("stopping rule: %s <= %g, checked every %s, at most %lld iterations; median of %d "
              "timed solves after %d untimed\n\n",
              fastmv::to_string(options.solver.stop), options.solver.tolerance,
              options.solver.check_every > 0 ? std::to_string(options.solver.check_every).c_str()
                                             : "(fastmv's choice)",
              static_cast<long long>(options.solver.max_iterations), options.repeats, options.warmups);

  std::vector<std::string> backends = options.backends;
  std::unique_ptr<GemvImplementation> openblas;
  if (options.baselines) {
    openblas = make_openblas();
    if (!openblas->available()) {
      std::printf("openblas baseline skipped: %s\n", openblas->description().c_str());
    } else if (options.threads > 0) {
      openblas->set_threads(options.threads);
    }
  }

  nlohmann::ordered_json results = nlohmann::ordered_json::array();
  bool all_correct = true;
  std::printf("%-7s %-5s %-17s %-15s %6s %10s %10s %11s %9s %11s %10s %9s %6s\n", "order", "alpha",
              "implementation", "status", "iters", "residual", "checked", "transfer_ms",
              "setup_ms", "iterate_ms", "total_ms", "us/iter", "xfer%");
  for (const Problem<T>& p : make_problems<T>(options)) {
    std::vector<JacobiRun> runs;
    for (const std::string& name : backends) {
      const fastmv::Backend backend = name == "reference" ? fastmv::Backend::Reference
                                      : name == "cpu"     ? fastmv::Backend::Cpu
                                                          : fastmv::Backend::Cuda;
      if (backend == fastmv::Backend::Cuda && !gpu) {
        std::printf("fastmv-cuda skipped: no CUDA device\n");
        continue;
      }
      const fastmv::Context context =
          backend == fastmv::Backend::Cuda ? *cuda_context : fastmv::Context(backend, options.threads);
      std::vector<T> x;
      const std::string label = std::string("fastmv-") + fastmv::to_string(backend);
      JacobiRun run = median_run(options.warmups, options.repeats, [&] {
        return run_fastmv(context, p, p.A.values.data(), label, options.solver, x);
      });
      if (backend == fastmv::Backend::Cuda) run.gemv_s = time_fastmv_gemv(context, p.A);
      std::vector<JacobiRun> done = {run};
      std::vector<std::vector<T>> solutions = {x};
      if (backend == fastmv::Backend::Cuda) {
        fastmv::cuda::PinnedBuffer<T> pinned(static_cast<index_t>(p.A.values.size()));
        std::copy(p.A.values.begin(), p.A.values.end(), pinned.data());
        std::vector<T> y;
        JacobiRun pinned_run = median_run(options.warmups, options.repeats, [&] {
          return run_fastmv(context, p, pinned.data(), "fastmv-cuda-pinned", options.solver, y);
        });
        pinned_run.gemv_s = run.gemv_s;
        done.push_back(pinned_run);
        solutions.push_back(y);
      }
      for (std::size_t i = 0; i < done.size(); ++i) {
        const auto [checked, rounding] = residual_of(p, solutions[i]);
        done[i].checked_residual = checked;
        if (done[i].status != fastmv::JacobiStatus::Diverged &&
            !(std::fabs(checked - done[i].residual) <= 0.05 * checked + rounding)) {
          all_correct = false;
        }
        runs.push_back(done[i]);
      }
    }
    if (options.baselines) {
      fastmv::JacobiOptions baseline_options = options.solver;
      baseline_options.stop = fastmv::JacobiStop::Residual;
      if (gpu) {
        std::vector<T> x;
        JacobiRun run = median_run(options.warmups, options.repeats, [&] {
          return run_cublas_loop(*cuda_context, p.A, p.b, baseline_options, x);
        });
        run.checked_residual = residual_of(p, x).first;
        runs.push_back(run);
      }
      if (openblas && openblas->available()) {
        std::vector<T> x;
        JacobiRun run = median_run(options.warmups, options.repeats, [&] {
          return run_vendor_loop(*openblas, p, baseline_options, x);
        });
        run.checked_residual = residual_of(p, x).first;
        runs.push_back(run);
      }
    }

    for (const JacobiRun& run : runs) {
      std::printf("%-7lld %-5s %-17s %-15s %6lld %10.3e %10.3e %11s %9s %11s %10s %9.2f %5.1f%%\n",
                  p.order, p.alpha > 0 ? std::to_string(p.alpha).substr(0, 4).c_str() : "file",
                  run.implementation.c_str(), fastmv::to_string(run.status),
                  static_cast<long long>(run.iterations), run.residual, run.checked_residual,
                  milliseconds(run.transfer_s).c_str(), milliseconds(run.setup_s).c_str(),
                  milliseconds(run.iterate_s).c_str(), milliseconds(run.total_s()).c_str(),
                  1e6 * run.per_iteration_s(), 100 * run.transfer_s / run.total_s());
      results.push_back({{"problem", p.name},
                         {"order", p.order},
                         {"alpha", p.alpha},
                         {"implementation", run.implementation},
                         {"description", run.description},
                         {"status", fastmv::to_string(run.status)},
                         {"iterations", run.iterations},
                         {"residual", run.residual},
                         {"checked_residual", run.checked_residual},
                         {"transfer_s", run.transfer_s},
                         {"setup_s", run.setup_s},
                         {"iterate_s", run.iterate_s},
                         {"total_s", run.total_s()},
                         {"products", run.products},
                         {"per_iteration_s", run.per_iteration_s()},
                         {"check_every", run.check_every},
                         {"one_gemv_s", run.gemv_s}});
    }
    // The two comparisons, for fastmv's GPU run.
    const auto find = [&](const std::string& name) -> const JacobiRun* {
      for (const JacobiRun& run : runs)
        if (run.implementation == name) return &run;
      return nullptr;
    };
    for (const char* fastmv_gpu : {"fastmv-cuda", "fastmv-cuda-pinned"}) {
      const JacobiRun* cuda = find(fastmv_gpu);
      if (cuda == nullptr) continue;
      std::printf("  %s: %.2f us per iteration = %.3f x one fastmv GEMV (%.2f us); "
                  "transfer %.1f%% of %s ms", fastmv_gpu,
                  1e6 * cuda->per_iteration_s(), cuda->per_iteration_s() / cuda->gemv_s,
                  1e6 * cuda->gemv_s, 100 * cuda->transfer_s / cuda->total_s(),
                  milliseconds(cuda->total_s()).c_str());
      for (const char* other : {"cublas-host-loop", "fastmv-cpu", "openblas-loop"}) {
        if (const JacobiRun* run = find(other)) {
          std::printf("; speedup %.2fx over %s (%s ms)", run->total_s() / cuda->total_s(), other,
                      milliseconds(run->total_s()).c_str());
        }
      }
      std::printf("\n");
    }
  }
  if (!all_correct) {
    std::printf("\nWRONG: a residual recomputed in double differs from the one reported\n");
  }
  if (!options.json_path.empty()) {
    nlohmann::ordered_json document = {
        {"command", options.command_line},
        {"date_utc", machine.date_utc},
        {"cpu", machine.cpu_model},
        {"cores", machine.cores},
        {"gpu", gpu_text},
        {"dtype", options.dtype},
        {"layout", fastmv::to_string(options.layout)},
        {"stop", fastmv::to_string(options.solver.stop)},
        {"tolerance", options.solver.tolerance},
        {"max_iterations", options.solver.max_iterations},
        {"repeats", options.repeats},
        {"results", results}};
    std::ofstream file(options.json_path);
    if (!(file << document.dump(2) << '\n')) {
      throw std::runtime_error("cannot write " + options.json_path);
    }
  }
  return all_correct ? 0 : 1;
}

}  // namespace

int run_solve_jacobi(const JacobiCommandOptions& options) {
  if (options.repeats < 1) throw std::invalid_argument("--repeats must be >= 1");
  return options.dtype == "double" ? run_typed<double>(options) : run_typed<float>(options);
}

}  // namespace fastmv_tool
