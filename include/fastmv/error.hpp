// fastmv: the error policy of the C++ API.
//
// Every public function checks all of its arguments before it reads or writes any
// operand. A bad argument raises fastmv::InvalidArgument, whose message names the
// function, the argument and its value, e.g.
//   fastmv::gemv: lda = 3 must be >= max(1, n) = 17 for a row-major matrix
// Nothing is written when an exception is thrown for a bad argument: outputs keep
// their values. Asking for a backend this build or machine does not have raises
// fastmv::BackendUnavailable, a failing CUDA call fastmv::CudaError. On the CUDA
// backend operands must be device memory of the context's device; a host pointer
// or one on another device is an InvalidArgument found before any work. No public
// function has undefined behaviour for any combination of argument values
// (pointers that do not point to as many elements as the sizes say cannot be
// detected and remain the caller's duty).
//
// The BLAS library (libfastmv_blas.so) does not throw: it reports through xerbla_
// and cblas_xerbla like reference BLAS, see src/blas/.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "fastmv/export.hpp"

namespace fastmv {

// Base class of everything fastmv throws.
class FASTMV_API Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An argument is outside what the function accepts.
class FASTMV_API InvalidArgument : public Error {
 public:
  InvalidArgument(std::string function, std::string argument, std::string value,
                  const std::string& requirement);
  const std::string& function() const noexcept { return function_; }
  const std::string& argument() const noexcept { return argument_; }
  const std::string& value() const noexcept { return value_; }

 private:
  std::string function_;
  std::string argument_;
  std::string value_;
};

// The requested backend is not compiled in or has no device on this machine.
class FASTMV_API BackendUnavailable : public Error {
 public:
  using Error::Error;
};

// A CUDA runtime call or kernel launch failed. The message names the fastmv
// function, the CUDA call and CUDA's own description; code() is the cudaError_t.
class FASTMV_API CudaError : public Error {
 public:
  CudaError(const std::string& message, int code) : Error(message), code_(code) {}
  int code() const noexcept { return code_; }

 private:
  int code_;
};

// A file could not be read, or does not follow its format. The message names the file
// and, where it applies, the line: "A.mtx:12: row index 0 is outside 1..5".
class FASTMV_API FileError : public Error {
 public:
  FileError(std::string path, std::int64_t line, const std::string& problem);
  const std::string& path() const noexcept { return path_; }
  // 1-based; 0 when the problem is not on one line (the file cannot be opened).
  std::int64_t line() const noexcept { return line_; }

 private:
  std::string path_;
  std::int64_t line_;
};

}  // namespace fastmv
