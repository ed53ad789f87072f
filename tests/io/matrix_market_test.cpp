// fastmv::read_matrix_market: every format, field and symmetry, and malformed files
// reported with their line.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "fastmv/fastmv.hpp"

namespace {

// A file with `text` in the test's temporary directory, removed afterwards.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& text) {
    const char* directory = std::getenv("TMPDIR");
    path_ = std::string(directory != nullptr ? directory : "/tmp") + "/fastmv_mm_" +
            std::to_string(getpid()) + "_" + std::to_string(counter_++) + ".mtx";
    std::ofstream(path_) << text;
  }
  ~TemporaryFile() { std::remove(path_.c_str()); }
  const std::string& path() const { return path_; }

 private:
  static inline int counter_ = 0;
  std::string path_;
};

fastmv::DenseMatrix<double> read(const std::string& text) {
  return fastmv::read_matrix_market(TemporaryFile(text).path());
}

// The read must fail at `line` with a message containing `words`.
void expect_error(const std::string& text, std::int64_t line, const std::string& words) {
  SCOPED_TRACE(text);
  const TemporaryFile file(text);
  try {
    fastmv::read_matrix_market(file.path());
    ADD_FAILURE() << "no error";
  } catch (const fastmv::FileError& error) {
    EXPECT_EQ(error.line(), line) << error.what();
    EXPECT_EQ(error.path(), file.path());
    const std::string expected_start = file.path() + ":" + std::to_string(line) + ": ";
    EXPECT_EQ(std::string(error.what()).rfind(expected_start, 0), 0u) << error.what();
    EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
  }
}

TEST(MatrixMarket, ArrayGeneralIsColumnMajor) {
  const auto m = read("%%MatrixMarket matrix array real general\n% a comment\n\n2 3\n1\n2\n3\n4\n5\n6.5e0\n");
  EXPECT_EQ(m.rows, 2);
  EXPECT_EQ(m.cols, 3);
  EXPECT_EQ(m.layout, fastmv::Layout::ColMajor);
  EXPECT_EQ(m(0, 0), 1);
  EXPECT_EQ(m(1, 0), 2);
  EXPECT_EQ(m(0, 1), 3);
  EXPECT_EQ(m(1, 2), 6.5);
}

TEST(MatrixMarket, ArraySymmetricAndSkewMirrorTheLowerTriangle) {
  const auto s = read("%%MatrixMarket matrix array real symmetric\r\n3 3\r\n1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n");
  const std::vector<double> expected = {1, 2, 3, 2, 4, 5, 3, 5, 6};
  EXPECT_EQ(s.values, expected);
  const auto k = read("%%MatrixMarket matrix array real skew-symmetric\n3 3\n1\n2\n3\n");
  const std::vector<double> skew = {0, 1, 2, -1, 0, 3, -2, -3, 0};
  EXPECT_EQ(k.values, skew);
}

TEST(MatrixMarket, CoordinateFieldsAndSymmetries) {
  const auto g = read("%%MatrixMarket matrix coordinate real general\n3 2 3\n1 1 1.5\n3 2 -2\n1 1 0.5\n");
  EXPECT_EQ(g.rows, 3);
  EXPECT_EQ(g.cols, 2);
  EXPECT_EQ(g(0, 0), 2.0);  // listed twice: added
  EXPECT_EQ(g(2, 1), -2.0);
  EXPECT_EQ(g(1, 1), 0.0);
  const auto p = read("%%MatrixMarket matrix coordinate pattern symmetric\n2 2 2\n1 1\n2 1\n");
  EXPECT_EQ(p.values, (std::vector<double>{1, 1, 1, 0}));
  const auto i = read("%%MATRIXMARKET Matrix Coordinate Integer Skew-Symmetric\n2 2 1\n2 1 7\n");
  EXPECT_EQ(i.values, (std::vector<double>{0, 7, -7, 0}));
}

TEST(MatrixMarket, VectorsAreOneColumnOrOneRow) {
  const TemporaryFile column("%%MatrixMarket matrix array real general\n3 1\n1\n2\n3\n");
  EXPECT_EQ(fastmv::read_matrix_market_vector(column.path()), (std::vector<double>{1, 2, 3}));
  const TemporaryFile row("%%MatrixMarket matrix coordinate real general\n1 3 1\n1 2 4\n");
  EXPECT_EQ(fastmv::read_matrix_market_vector(row.path()), (std::vector<double>{0, 4, 0}));
  const TemporaryFile square("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n");
  EXPECT_THROW(fastmv::read_matrix_market_vector(square.path()), fastmv::FileError);
}

TEST(MatrixMarket, MalformedFilesNameTheLine) {
  expect_error("", 1, "empty");
  expect_error("MatrixMarket matrix array real general\n1 1\n1\n", 1, "header");
  expect_error("%%MatrixMarket matrix array real\n1 1\n1\n", 1, "5");
  expect_error("%%MatrixMarket vector array real general\n1 1\n1\n", 1, "object");
  expect_error("%%MatrixMarket matrix dense real general\n1 1\n1\n", 1, "format");
  expect_error("%%MatrixMarket matrix array complex general\n1 1\n1 0\n", 1, "complex");
  expect_error("%%MatrixMarket matrix array pattern general\n1 1\n", 1, "pattern");
  expect_error("%%MatrixMarket matrix array real diagonal\n1 1\n1\n", 1, "symmetry");
  expect_error("%%MatrixMarket matrix array real general\n% only a comment\n", 3, "size line");
  expect_error("%%MatrixMarket matrix coordinate real general\n2 2\n", 2, "expected 3");
  expect_error("%%MatrixMarket matrix array real general\n2 x\n", 2, "'x' is not an integer");
  expect_error("%%MatrixMarket matrix array real general\n-2 2\n", 2, "negative");
  expect_error("%%MatrixMarket matrix array real symmetric\n2 3\n", 2, "square");
  expect_error("%%MatrixMarket matrix coordinate real general\n100000 100000 0\n", 2, "elements");
  expect_error("%%MatrixMarket matrix array real general\n2 1\n1\n", 4, "ends before");
  expect_error("%%MatrixMarket matrix array real general\n2 1\n1\n2\n3\n", 5, "more data");
  expect_error("%%MatrixMarket matrix array real general\n2 1\n1\n1.5.2\n", 4, "not a number");
  expect_error("%%MatrixMarket matrix array real general\n2 1\n1\n1 2\n", 4, "found 2");
  expect_error("%%MatrixMarket matrix array integer general\n1 1\n2.5\n", 3, "not an integer");
  expect_error("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n", 4, "1 of 2 entries");
  expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", 3, "row index 0");
  expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n", 3, "column index 3");
  expect_error("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n", 3, "found 2");
  expect_error("%%MatrixMarket matrix coordinate real symmetric\n2 2 1\n1 2 1\n", 3, "above the diagonal");
  expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", 3, "diagonal");
  expect_error("%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1e999\n", 3, "overflows");
}

TEST(MatrixMarket, MissingFileIsAnError) {
  try {
    fastmv::read_matrix_market("/nonexistent/fastmv.mtx");
    ADD_FAILURE() << "no error";
  } catch (const fastmv::FileError& error) {
    EXPECT_EQ(error.line(), 0);
    EXPECT_NE(std::string(error.what()).find("cannot be opened"), std::string::npos);
  }
}

}  // namespace
