// fastmv: a dense matrix that owns its elements (what fastmv::read_matrix_market
// returns and the vector overloads of fastmv::jacobi take).
#pragma once

#include <vector>

#include "fastmv/types.hpp"

namespace fastmv {

// A dense matrix owning its elements, stored in `layout` with no padding
// (leading dimension rows for ColMajor, cols for RowMajor).
template <typename T>
struct DenseMatrix {
  index_t rows = 0;
  index_t cols = 0;
  Layout layout = Layout::ColMajor;
  std::vector<T> values;

  index_t ld() const {
    const index_t ld = layout == Layout::ColMajor ? rows : cols;
    return ld > 0 ? ld : 1;
  }
  T& operator()(index_t row, index_t col) {
    return values[layout == Layout::ColMajor ? col * ld() + row : row * ld() + col];
  }
  const T& operator()(index_t row, index_t col) const {
    return values[layout == Layout::ColMajor ? col * ld() + row : row * ld() + col];
  }
};

}  // namespace fastmv
