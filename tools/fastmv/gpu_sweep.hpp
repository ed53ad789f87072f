// The GPU sweeps of `fastmv bench gemv` (issue 3) and how their points are sampled.
#pragma once

#include <vector>

#include "bench_gemv.hpp"
#include "timing.hpp"

namespace fastmv_tool {

// Full and Acceptance: square orders 16, 32, 64, 128 and every multiple of 256 up to
// 12800 with its +1 and +8 neighbours (odd and unaligned leading dimensions), the
// skinny shapes and the LLM-decode shapes. Quick: a dozen of them.
std::vector<Shape> gpu_sweep_shapes(Sweep sweep);

// The weight matrices of LLM decoding (rows x columns of W in y = W x).
const std::vector<Shape>& llm_decode_shapes();
bool is_llm_decode_shape(Shape shape);

SamplingPolicy gpu_sampling_for(Sweep sweep);

}  // namespace fastmv_tool
