// fastmv: what this build and machine offer, for tools and bug reports.
#pragma once

#include <string>

#include "fastmv/export.hpp"

namespace fastmv {

// The SIMD target the Cpu backend runs on this machine (e.g. "AVX3", "AVX2").
FASTMV_API std::string cpu_simd_target();
// Every SIMD target compiled into this build, best first.
FASTMV_API std::string cpu_simd_targets_compiled();
// Whether this build contains the CUDA backend code (FASTMV_CUDA).
FASTMV_API bool cuda_built() noexcept;
// CUDA devices visible to this process; 0 when none or when built without CUDA.
FASTMV_API int cuda_device_count() noexcept;

}  // namespace fastmv
