// fastmv: shared vocabulary of the public API.
#pragma once

#include <cstdint>

#include "fastmv/export.hpp"

namespace fastmv {

// Sizes, leading dimensions and increments are signed 64-bit so that a negative
// value coming from user code is detected and reported instead of wrapping.
using index_t = std::int64_t;

// How a matrix is stored: RowMajor keeps each row contiguous (C order),
// ColMajor each column (Fortran / BLAS order).
enum class Layout { RowMajor, ColMajor };

// op(A) in y = alpha * op(A) * x + beta * y. For real types ConjTrans is Trans.
enum class Op { NoTrans, Trans, ConjTrans };

// Where an operation runs.
//   Auto      - CUDA when fastmv was built with it and a device is present, else Cpu.
//   Reference - plain C++, double accumulation, one thread: the oracle, slow on purpose.
//   Cpu       - SIMD (AVX2 / AVX-512 chosen at run time) and OpenMP threads.
//   Cuda      - NVIDIA GPUs (device pointers), when built with FASTMV_CUDA.
enum class Backend { Auto, Reference, Cpu, Cuda };

FASTMV_API const char* to_string(Layout layout) noexcept;
FASTMV_API const char* to_string(Op op) noexcept;
FASTMV_API const char* to_string(Backend backend) noexcept;

}  // namespace fastmv
