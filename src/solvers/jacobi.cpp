// fastmv::jacobi: checks every argument and the diagonal before any work, then runs
// the stopping rule over a backend's iteration engine (kernels/jacobi_kernels.hpp).
#include "fastmv/jacobi.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <memory>
#include <string>

#include "cuda/runtime.hpp"
#include "dispatch/checks.hpp"
#include "fastmv/error.hpp"
#include "kernels/jacobi_kernels.hpp"

namespace fastmv {

const char* to_string(JacobiStop stop) noexcept {
  switch (stop) {
    case JacobiStop::Residual: return "residual";
    case JacobiStop::Update: return "update";
    case JacobiStop::ResidualAndUpdate: return "residual-and-update";
    case JacobiStop::ResidualOrUpdate: return "residual-or-update";
  }
  return "invalid-stop";
}

const char* to_string(JacobiStatus status) noexcept {
  switch (status) {
    case JacobiStatus::Converged: return "converged";
    case JacobiStatus::IterationLimit: return "iteration-limit";
    case JacobiStatus::Diverged: return "diverged";
  }
  return "invalid-status";
}

namespace {

constexpr const char* kFunction = "fastmv::jacobi";

using Clock = std::chrono::steady_clock;
double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

void check_options(const JacobiOptions& options) {
  using checks::require;
  using checks::str;
  require(options.stop == JacobiStop::Residual || options.stop == JacobiStop::Update ||
              options.stop == JacobiStop::ResidualAndUpdate ||
              options.stop == JacobiStop::ResidualOrUpdate,
          kFunction, "options.stop", [&] { return str(static_cast<int>(options.stop)); },
          [] { return "is not a fastmv::JacobiStop"; });
  require(std::isfinite(options.tolerance) && options.tolerance >= 0, kFunction,
          "options.tolerance", [&] { return number(options.tolerance); },
          [] { return "must be finite and >= 0"; });
  require(options.max_iterations >= 0, kFunction, "options.max_iterations",
          [&] { return str(options.max_iterations); }, [] { return "must be >= 0"; });
  require(options.check_every >= 0, kFunction, "options.check_every",
          [&] { return str(options.check_every); },
          [] { return "must be >= 0 (0: fastmv chooses)"; });
  require(options.divergence_factor > 1, kFunction, "options.divergence_factor",
          [&] { return number(options.divergence_factor); }, [] { return "must be > 1"; });
}

bool stopping_rule_holds(JacobiStop stop, double residual, double update, double tolerance) {
  const bool residual_small = residual <= tolerance;
  const bool update_small = update <= tolerance;
  switch (stop) {
    case JacobiStop::Residual: return residual_small;
    case JacobiStop::Update: return update_small;
    case JacobiStop::ResidualAndUpdate: return residual_small && update_small;
    case JacobiStop::ResidualOrUpdate: return residual_small || update_small;
  }
  return false;
}

template <typename T>
JacobiResult solve(const Context& context, Layout layout, index_t rows, index_t cols, const T* A,
                   index_t lda, const T* b, T* x, const JacobiOptions& options) {
  using checks::require;
  using checks::str;
  require(layout == Layout::RowMajor || layout == Layout::ColMajor, kFunction, "layout",
          [=] { return str(static_cast<int>(layout)); }, [] { return "is not a fastmv::Layout"; });
  require(rows >= 0, kFunction, "rows", [=] { return str(rows); }, [] { return "must be >= 0"; });
  require(cols >= 0, kFunction, "cols", [=] { return str(cols); }, [] { return "must be >= 0"; });
  require(rows == cols, kFunction, "cols", [=] { return str(cols); }, [=] {
    return "must equal rows = " + str(rows) + ": Jacobi's method needs a square matrix";
  });
  const index_t n = rows;
  require(lda >= std::max<index_t>(1, n), kFunction, "lda", [=] { return str(lda); },
          [=] { return "must be >= max(1, n) = " + str(std::max<index_t>(1, n)); });
  check_options(options);

  JacobiResult result;
  if (n == 0) return result;
  const Clock::time_point call = Clock::now();

  const auto null = [] { return std::string("nullptr"); };
  require(A != nullptr, kFunction, "A", null, [] { return "must point to the matrix"; });
  require(b != nullptr, kFunction, "b", null, [=] { return "must point to " + str(n) + " elements"; });
  require(x != nullptr, kFunction, "x", null, [=] { return "must point to " + str(n) + " elements"; });
  const checks::Span x_span = checks::vector_span(kFunction, "x", x, n, 1);
  const auto x_address = [=] { return checks::address(x); };
  require(!checks::overlap(x_span, checks::matrix_span(kFunction, A, n, n, lda)), kFunction, "x",
          x_address, [] { return "must not share memory with A"; });
  require(!checks::overlap(x_span, checks::vector_span(kFunction, "b", b, n, 1)), kFunction, "x",
          x_address, [] { return "must not share memory with b"; });
  if (context.backend() == Backend::Cuda) {
    cuda::require_host_pointer(kFunction, "A", A);
    cuda::require_host_pointer(kFunction, "b", b);
    cuda::require_host_pointer(kFunction, "x", x);
  }

  // Every diagonal entry is divided by; b and the initial guess must be numbers.
  std::vector<T> diagonal(static_cast<std::size_t>(n));
  double b_max = 0;
  for (index_t i = 0; i < n; ++i) {
    const T entry = A[i * lda + i];  // the same index for both layouts
    if (!std::isfinite(entry) || entry == T(0)) {
      throw InvalidArgument(kFunction, "A(" + str(i) + ", " + str(i) + ")", number(entry),
                            "must be finite and nonzero: Jacobi's method divides by every "
                            "diagonal entry (indices from 0)");
    }
    diagonal[i] = entry;
    if (!std::isfinite(b[i])) {
      throw InvalidArgument(kFunction, "b[" + str(i) + "]", number(b[i]), "must be finite");
    }
    b_max = std::max(b_max, std::fabs(static_cast<double>(b[i])));
    if (options.initial_guess && !std::isfinite(x[i])) {
      throw InvalidArgument(kFunction, "x[" + str(i) + "]", number(x[i]),
                            "must be finite (the initial guess)");
    }
  }

  // b = 0: x = 0 is the solution, whatever A is.
  if (b_max == 0) {
    std::fill(x, x + n, T(0));
    return result;
  }

  // Residuals are summed as (r_i * scale)^2 with scale a power of two near 1 / max|b|:
  // no overflow or underflow for any finite b, and the scaling itself is exact.
  const double scale = std::ldexp(1.0, -std::ilogb(b_max));
  double b_norm_squared = 0;
  for (index_t i = 0; i < n; ++i) {
    const double scaled = static_cast<double>(b[i]) * scale;
    b_norm_squared += scaled * scaled;
  }
  const double b_norm = std::sqrt(b_norm_squared);

  kernels::JacobiProblem<T> system{layout, n,     A,    lda, b, diagonal.data(),
                                  scale,  options.initial_guess ? x : nullptr};
  std::unique_ptr<kernels::JacobiEngine<T>> engine;
  switch (context.backend()) {
    case Backend::Reference: engine = kernels::reference::make_jacobi_engine(system); break;
    case Backend::Cpu: engine = kernels::cpu::make_jacobi_engine(system, context.threads()); break;
    case Backend::Cuda:
      engine = kernels::cuda::make_jacobi_engine(system, cuda::state_of(context, kFunction),
                                                 context.threads());
      break;
    case Backend::Auto: break;
  }
  if (!engine) {
    throw BackendUnavailable(std::string(kFunction) + ": no Jacobi iteration for backend '" +
                             to_string(context.backend()) + "'");
  }

  // Checks at iterations 0, c, 2c, ... and at max_iterations; each chunk of work runs
  // from one check to the next, measured at its start. An engine that asks for it
  // gets the next chunk before the driver waits for the current check, so that its
  // device never waits for the host; the others get it once the check has been read.
  const index_t check = options.check_every > 0 ? options.check_every : engine->default_check_every();
  const index_t limit = options.max_iterations;
  const auto chunk = [&](index_t at) { return at >= limit ? index_t(1) : std::min(check, limit - at); };
  result.check_every = check;
  result.transfer_seconds = engine->transfer_seconds();
  const bool ahead = engine->queue_ahead(check);

  const Clock::time_point start = Clock::now();
  index_t k = 0;
  int slot = 0;
  double first_residual = -1;
  engine->iterate(chunk(0), slot);
  for (;;) {
    const index_t next = k + chunk(k);
    if (ahead && k < limit) engine->iterate(chunk(next), slot ^ 1);
    const kernels::JacobiMeasurement measured = engine->measurement(slot);
    const double residual = std::sqrt(measured.residual_squared) / b_norm;
    const double update = measured.update_max == 0 ? 0.0 : measured.update_max / measured.x_next_max;
    if (options.keep_history) result.history.push_back(JacobiCheck{k, residual, update});
    if (first_residual < 0) first_residual = residual;
    result.iterations = k;
    result.residual = residual;
    result.update = update;
    if (!std::isfinite(residual) || std::isnan(update) ||
        residual > options.divergence_factor * std::max(1.0, first_residual)) {
      result.status = JacobiStatus::Diverged;
      break;
    }
    if (stopping_rule_holds(options.stop, residual, update, options.tolerance)) {
      result.status = JacobiStatus::Converged;
      break;
    }
    if (k >= limit) {
      result.status = JacobiStatus::IterationLimit;
      break;
    }
    k = next;
    slot ^= 1;
    if (!ahead) engine->iterate(chunk(k), slot);
  }
  result.iteration_seconds = seconds_since(start);
  result.matrix_products = result.iterations + 1;

  const Clock::time_point download = Clock::now();
  engine->read_iterate(slot, x);
  if (context.backend() == Backend::Cuda) result.transfer_seconds += seconds_since(download);
  engine.reset();  // freeing is part of the call's cost, so part of setup_seconds
  result.setup_seconds = seconds_since(call) - result.transfer_seconds - result.iteration_seconds;
  return result;
}

template <typename T>
JacobiResult solve_vectors(const Context& context, const DenseMatrix<T>& A,
                           const std::vector<T>& b, std::vector<T>& x, const JacobiOptions& options) {
  using checks::require;
  using checks::str;
  require(A.rows >= 0 && A.cols >= 0 &&
              static_cast<index_t>(A.values.size()) == A.rows * A.cols,
          kFunction, "A.values.size()", [&] { return str(static_cast<index_t>(A.values.size())); },
          [&] { return "must be rows * cols = " + str(A.rows) + " * " + str(A.cols); });
  require(static_cast<index_t>(b.size()) == A.rows, kFunction, "b.size()",
          [&] { return str(static_cast<index_t>(b.size())); },
          [&] { return "must equal the " + str(A.rows) + " rows of A"; });
  if (options.initial_guess) {
    require(static_cast<index_t>(x.size()) == A.cols, kFunction, "x.size()",
            [&] { return str(static_cast<index_t>(x.size())); },
            [&] { return "must equal the " + str(A.cols) + " columns of A (the initial guess)"; });
  }
  // Checked before x is resized, so that a bad argument leaves x as it was.
  require(A.rows == A.cols, kFunction, "A", [&] { return str(A.rows) + " x " + str(A.cols); },
          [] { return "must be square for Jacobi's method"; });
  x.resize(static_cast<std::size_t>(A.cols));
  return solve(context, A.layout, A.rows, A.cols, A.values.data(), A.ld(), b.data(), x.data(),
               options);
}

}  // namespace

JacobiResult jacobi(const Context& context, Layout layout, index_t rows, index_t cols,
                    const float* A, index_t lda, const float* b, float* x,
                    const JacobiOptions& options) {
  return solve(context, layout, rows, cols, A, lda, b, x, options);
}
JacobiResult jacobi(const Context& context, Layout layout, index_t rows, index_t cols,
                    const double* A, index_t lda, const double* b, double* x,
                    const JacobiOptions& options) {
  return solve(context, layout, rows, cols, A, lda, b, x, options);
}
JacobiResult jacobi(const Context& context, const DenseMatrix<float>& A,
                    const std::vector<float>& b, std::vector<float>& x,
                    const JacobiOptions& options) {
  return solve_vectors(context, A, b, x, options);
}
JacobiResult jacobi(const Context& context, const DenseMatrix<double>& A,
                    const std::vector<double>& b, std::vector<double>& x,
                    const JacobiOptions& options) {
  return solve_vectors(context, A, b, x, options);
}

}  // namespace fastmv
