// `fastmv solve jacobi`: Jacobi's method on generated systems (the seed paper's) or on
// Matrix Market files, on fastmv's backends and the paper's baselines side by side.
#pragma once

#include <string>
#include <vector>

#include "fastmv/fastmv.hpp"

namespace fastmv_tool {

struct JacobiCommandOptions {
  std::vector<long long> orders = {4096};
  std::vector<double> alphas = {1.1};
  unsigned long long seed = 1;
  std::string matrix_path;  // Matrix Market A; replaces the generated systems
  std::string rhs_path;     // Matrix Market b (default: b = A * ones)
  std::string dtype = "float";
  fastmv::Layout layout = fastmv::Layout::RowMajor;
  // fastmv backends ("reference", "cpu", "cuda"), and the baselines when `baselines`.
  std::vector<std::string> backends;
  bool baselines = true;
  int threads = 0;
  int repeats = 3;  // timed solves per implementation and system; the median is reported
  int warmups = 1;  // untimed solves before them
  fastmv::JacobiOptions solver;
  std::string json_path;
  std::string command_line;
};

// Runs every system and implementation, prints the table and the summary lines, writes
// JSON when asked. Returns 0, or 1 when a residual recomputed in double does not match
// what an implementation reported (a wrong answer).
int run_solve_jacobi(const JacobiCommandOptions& options);

}  // namespace fastmv_tool
