// Matrix Market reader (fastmv/matrix_market.hpp): one pass over the lines, every
// problem reported with the file and line it is on.
#include "fastmv/matrix_market.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "fastmv/error.hpp"

namespace fastmv {
namespace {

enum class Format { Array, Coordinate };
enum class Field { Real, Integer, Pattern };
enum class Symmetry { General, Symmetric, SkewSymmetric };

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::vector<std::string> words(const std::string& line) {
  std::vector<std::string> result;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    const std::size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i > start) result.push_back(line.substr(start, i - start));
  }
  return result;
}

class Reader {
 public:
  explicit Reader(const std::string& path) : path_(path), file_(path) {
    if (!file_) throw FileError(path, 0, "cannot be opened for reading");
  }

  [[noreturn]] void fail(const std::string& problem) const {
    throw FileError(path_, line_number_, problem);
  }

  // The next line, or false at the end of the file (problems found there are
  // reported on the line after the last).
  bool next(std::string& line) {
    if (!std::getline(file_, line)) {
      if (file_.bad()) fail("read error");
      ++line_number_;
      return false;
    }
    ++line_number_;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return true;
  }

  // The next line that is neither a comment nor blank, split into words; empty at the end.
  std::vector<std::string> next_data() {
    std::string line;
    while (next(line)) {
      const std::vector<std::string> fields = words(line);
      if (!fields.empty() && fields[0][0] != '%') return fields;
    }
    return {};
  }

  index_t integer(const std::string& word, const char* what) const {
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(word.c_str(), &end, 10);
    if (end == word.c_str() || *end != '\0' || errno == ERANGE) {
      fail(std::string(what) + " '" + word + "' is not an integer");
    }
    return value;
  }

  double real(const std::string& word) const {
    errno = 0;
    char* end = nullptr;
    const double value = std::strtod(word.c_str(), &end);
    if (end == word.c_str() || *end != '\0') fail("value '" + word + "' is not a number");
    if (errno == ERANGE && (value > 1 || value < -1)) fail("value '" + word + "' overflows a double");
    return value;
  }

  std::int64_t line() const { return line_number_; }

 private:
  std::string path_;
  std::ifstream file_;
  std::int64_t line_number_ = 0;
};

}  // namespace

DenseMatrix<double> read_matrix_market(const std::string& path) {
  Reader reader(path);
  std::string line;
  if (!reader.next(line)) reader.fail("is empty: expected the header '%%MatrixMarket matrix ...'");
  const std::vector<std::string> header = words(line);
  if (header.empty() || lower(header[0]) != "%%matrixmarket") {
    reader.fail("expected the header '%%MatrixMarket matrix <format> <field> <symmetry>'");
  }
  if (header.size() != 5) {
    reader.fail("the header has " + std::to_string(header.size()) +
                " words, expected 5: %%MatrixMarket matrix <format> <field> <symmetry>");
  }
  if (lower(header[1]) != "matrix") reader.fail("object '" + header[1] + "' is not supported: only 'matrix'");

  const std::string format_word = lower(header[2]);
  Format format;
  if (format_word == "array") format = Format::Array;
  else if (format_word == "coordinate") format = Format::Coordinate;
  else reader.fail("format '" + header[2] + "' is neither 'array' nor 'coordinate'");

  const std::string field_word = lower(header[3]);
  Field field;
  if (field_word == "real" || field_word == "double") field = Field::Real;
  else if (field_word == "integer") field = Field::Integer;
  else if (field_word == "pattern") field = Field::Pattern;
  else if (field_word == "complex") reader.fail("complex matrices are not supported");
  else reader.fail("field '" + header[3] + "' is not one of real, integer, pattern");
  if (field == Field::Pattern && format == Format::Array) {
    reader.fail("field 'pattern' is only defined for the coordinate format");
  }

  const std::string symmetry_word = lower(header[4]);
  Symmetry symmetry;
  if (symmetry_word == "general") symmetry = Symmetry::General;
  else if (symmetry_word == "symmetric" || symmetry_word == "hermitian") symmetry = Symmetry::Symmetric;
  else if (symmetry_word == "skew-symmetric") symmetry = Symmetry::SkewSymmetric;
  else reader.fail("symmetry '" + header[4] + "' is not one of general, symmetric, skew-symmetric, hermitian");

  std::vector<std::string> size = reader.next_data();
  const std::size_t size_words = format == Format::Coordinate ? 3 : 2;
  if (size.empty()) reader.fail("the file ends before the size line");
  if (size.size() != size_words) {
    reader.fail("the size line has " + std::to_string(size.size()) + " numbers, expected " +
                std::to_string(size_words) +
                (format == Format::Coordinate ? " (rows columns entries)" : " (rows columns)"));
  }
  DenseMatrix<double> matrix;
  matrix.rows = reader.integer(size[0], "row count");
  matrix.cols = reader.integer(size[1], "column count");
  if (matrix.rows < 0 || matrix.cols < 0) reader.fail("negative matrix size");
  if (symmetry != Symmetry::General && matrix.rows != matrix.cols) {
    reader.fail("a " + symmetry_word + " matrix must be square, this one is " +
                std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols));
  }
  if (matrix.cols != 0 && matrix.rows > kMatrixMarketMaxElements / matrix.cols) {
    reader.fail(std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) +
                " is more than the " + std::to_string(kMatrixMarketMaxElements) +
                " elements fastmv reads into a dense matrix");
  }
  matrix.layout = Layout::ColMajor;
  matrix.values.assign(static_cast<std::size_t>(matrix.rows * matrix.cols), 0.0);

  const std::size_t value_words = field == Field::Pattern ? 0 : 1;
  const auto value_of = [&](const std::vector<std::string>& entry, std::size_t at) {
    if (field == Field::Pattern) return 1.0;
    if (field == Field::Integer) return static_cast<double>(reader.integer(entry[at], "value"));
    return reader.real(entry[at]);
  };
  const auto mirror = [&](index_t row, index_t col, double value) {
    if (row == col || symmetry == Symmetry::General) return;
    matrix(col, row) += symmetry == Symmetry::SkewSymmetric ? -value : value;
  };

  if (format == Format::Coordinate) {
    const index_t entries = reader.integer(size[2], "entry count");
    if (entries < 0) reader.fail("negative entry count");
    for (index_t e = 0; e < entries; ++e) {
      const std::vector<std::string> entry = reader.next_data();
      if (entry.empty()) {
        reader.fail("the file ends after " + std::to_string(e) + " of " + std::to_string(entries) +
                    " entries");
      }
      if (entry.size() != 2 + value_words) {
        reader.fail("expected " + std::to_string(2 + value_words) + " numbers (row column" +
                    (value_words ? " value" : "") + "), found " + std::to_string(entry.size()));
      }
      const index_t row = reader.integer(entry[0], "row index");
      const index_t col = reader.integer(entry[1], "column index");
      if (row < 1 || row > matrix.rows) {
        reader.fail("row index " + entry[0] + " is outside 1.." + std::to_string(matrix.rows));
      }
      if (col < 1 || col > matrix.cols) {
        reader.fail("column index " + entry[1] + " is outside 1.." + std::to_string(matrix.cols));
      }
      if (symmetry != Symmetry::General && col > row) {
        reader.fail("entry (" + entry[0] + ", " + entry[1] + ") is above the diagonal of a " +
                    symmetry_word + " matrix, which lists its lower triangle");
      }
      if (symmetry == Symmetry::SkewSymmetric && col == row) {
        reader.fail("entry (" + entry[0] + ", " + entry[1] +
                    ") is on the diagonal of a skew-symmetric matrix, which is zero there");
      }
      const double value = value_of(entry, 2);
      matrix(row - 1, col - 1) += value;
      mirror(row - 1, col - 1, value);
    }
  } else {
    // Column by column; symmetric files hold the lower triangle with the diagonal,
    // skew-symmetric ones without it.
    const index_t n = matrix.rows;
    for (index_t col = 0; col < matrix.cols; ++col) {
      const index_t first_row = symmetry == Symmetry::General ? 0
                                : symmetry == Symmetry::Symmetric ? col
                                                                  : col + 1;
      for (index_t row = first_row; row < n; ++row) {
        const std::vector<std::string> entry = reader.next_data();
        if (entry.empty()) {
          reader.fail("the file ends before the value of element (" + std::to_string(row + 1) +
                      ", " + std::to_string(col + 1) + ")");
        }
        if (entry.size() != 1) {
          reader.fail("expected 1 value per line in the array format, found " +
                      std::to_string(entry.size()));
        }
        const double value = value_of(entry, 0);
        matrix(row, col) = value;
        mirror(row, col, value);
      }
    }
  }
  if (!reader.next_data().empty()) {
    reader.fail("more data than the size line announced");
  }
  return matrix;
}

std::vector<double> read_matrix_market_vector(const std::string& path) {
  DenseMatrix<double> matrix = read_matrix_market(path);
  if (matrix.rows != 1 && matrix.cols != 1) {
    throw FileError(path, 0,
                    "holds a " + std::to_string(matrix.rows) + " x " + std::to_string(matrix.cols) +
                        " matrix, not a vector (n x 1 or 1 x n)");
  }
  return std::move(matrix.values);
}

}  // namespace fastmv
