// What `fastmv bench gemv` prints and writes: a table, JSON for the plot script, CSV.
#pragma once

#include <cstdio>
#include <string>

#include "bench_gemv.hpp"

namespace fastmv_tool {

// The table: one row per point, fastmv's GB/s and GFLOP/s, each vendor's GB/s, fastmv over
// the best correct vendor, fastmv's fraction of the read ceiling; a machine header above,
// and below it every implementation that gave a wrong result.
void print_gemv_table(const GemvBenchReport& report, std::FILE* out);

// Throw std::runtime_error when the file cannot be written.
void write_gemv_json(const GemvBenchReport& report, const std::string& path);
void write_gemv_csv(const GemvBenchReport& report, const std::string& path);

}  // namespace fastmv_tool
