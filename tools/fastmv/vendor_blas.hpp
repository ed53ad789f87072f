// Vendor BLAS libraries opened at run time through their CBLAS interface.
#pragma once

#include <memory>

#include "gemv_implementation.hpp"

namespace fastmv_tool {

// OpenBLAS (libopenblas.so.0). Unavailable, with the reason, when it cannot be opened.
std::unique_ptr<GemvImplementation> make_openblas();
// BLIS (libblis.so.4).
std::unique_ptr<GemvImplementation> make_blis();

}  // namespace fastmv_tool
