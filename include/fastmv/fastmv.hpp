// fastmv: fast matrix-vector kernels. Include this header for the whole API.
#pragma once

#include "fastmv/context.hpp"
#include "fastmv/error.hpp"
#include "fastmv/gemv.hpp"
#include "fastmv/info.hpp"
#include "fastmv/jacobi.hpp"
#include "fastmv/matrix_market.hpp"
#include "fastmv/transform4.hpp"
#include "fastmv/types.hpp"
#include "fastmv/version.hpp"
