// Eigen's matrix-vector product, when Eigen was found at build time.
#pragma once

#include <memory>

#include "gemv_implementation.hpp"

namespace fastmv_tool {

// Unavailable, with the reason, in a build without Eigen.
std::unique_ptr<GemvImplementation> make_eigen();

}  // namespace fastmv_tool
