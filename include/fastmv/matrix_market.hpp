// fastmv: dense matrices and vectors read from Matrix Market files
// (https://math.nist.gov/MatrixMarket/formats.html).
//
// Both formats are read: `array` (dense, column by column) and `coordinate` (one
// "row column value" line per entry, 1-based; entries not listed are 0, entries listed
// twice are added). Fields: real, integer, and pattern (coordinate only; every listed
// entry is 1). Symmetries: general, symmetric, skew-symmetric (the file holds the lower
// triangle; the upper one is mirrored, negated for skew-symmetric), and hermitian,
// which for real data is symmetric. Complex files are refused.
//
// A file that cannot be opened or does not follow the format throws fastmv::FileError,
// whose message names the file and the line: "b.mtx:7: expected 1 value, found 2".
#pragma once

#include <string>
#include <vector>

#include "fastmv/dense_matrix.hpp"
#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

namespace fastmv {

// Matrices of more elements than this are refused (16 GiB as double): a coordinate
// file's size line alone must not make the reader allocate without bound.
constexpr index_t kMatrixMarketMaxElements = index_t(1) << 31;

// The whole matrix, column-major, as double.
FASTMV_API DenseMatrix<double> read_matrix_market(const std::string& path);

// A vector: a file holding an n x 1 or 1 x n matrix.
FASTMV_API std::vector<double> read_matrix_market_vector(const std::string& path);

}  // namespace fastmv
