// One GEMV implementation under test (fastmv itself or a vendor library), behind the
// interface the harness in bench_gemv.cpp times. Every implementation computes
//   y = alpha * op(A) * x + beta * y
// with fastmv::gemv's arguments and BLAS semantics.
//
// Operands are host memory and calls are timed with the host clock, which is right for
// every CPU library: a call returns when y holds the result. The GPU benchmark (the CUDA
// backend against cuBLAS) has its own harness, bench_gemv_cuda.cu: device operands,
// CUDA events.
#pragma once

#include <cstddef>
#include <memory>
#include <string>

#include "fastmv/fastmv.hpp"

namespace fastmv_tool {

using fastmv::index_t;

// The arguments of one fastmv::gemv call.
template <typename T>
struct GemvCall {
  fastmv::Layout layout;
  fastmv::Op op;
  index_t m;
  index_t n;
  T alpha;
  const T* A;
  index_t lda;
  const T* x;
  index_t incx;
  T beta;
  T* y;
  index_t incy;
};

// `sets` distinct operand sets laid out at fixed strides: set i is `first` with its
// pointers moved by i strides. Cycling through them keeps the working set larger than
// the last-level cache, so no call finds its operands left in cache by the previous one.
template <typename T>
struct GemvPool {
  GemvCall<T> first;
  std::size_t sets;
  std::size_t matrix_stride;  // elements between the A (and x) of consecutive sets
  std::size_t output_stride;  // elements between the y of consecutive sets

  GemvCall<T> call(std::size_t set) const {
    GemvCall<T> call = first;
    call.A += set * matrix_stride;
    call.x += set * matrix_stride;
    call.y += set * output_stride;
    return call;
  }
};

class GemvImplementation {
 public:
  virtual ~GemvImplementation() = default;

  // Short lower-case name used in tables, JSON and --vendors ("fastmv", "openblas").
  virtual std::string name() const = 0;
  // Whether the library was found; a missing one is skipped, never fatal.
  virtual bool available() const = 0;
  // Version and build details when available, why not otherwise.
  virtual std::string description() const = 0;
  // CPU threads the library may use from now on (>= 1).
  virtual void set_threads(int threads) = 0;

  virtual void gemv(const GemvCall<float>& call) = 0;
  virtual void gemv(const GemvCall<double>& call) = 0;

  // Seconds taken by `calls` back-to-back calls on sets first, first+1, ... (modulo the
  // pool size), until every result is complete.
  virtual double time_calls(const GemvPool<float>& pool, std::size_t first, std::size_t calls);
  virtual double time_calls(const GemvPool<double>& pool, std::size_t first, std::size_t calls);
};

// fastmv::gemv on `context`'s backend.
std::unique_ptr<GemvImplementation> make_fastmv_implementation(const fastmv::Context& context);

}  // namespace fastmv_tool
