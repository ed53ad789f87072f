// The machine a benchmark runs on, for table headers and JSON metadata.
#pragma once

#include <cstddef>
#include <string>

namespace fastmv_tool {

struct MachineInfo {
  std::string cpu_model;     // "model name" of /proc/cpuinfo
  int cores = 1;             // online logical CPUs
  int llc_level = 0;         // level of the last-level cache, 0 when unknown
  std::size_t llc_bytes = 0; // its size as cpu0 sees it, 0 when unknown
  std::string hostname;
  std::string date_utc;      // ISO 8601, when this was read
};

MachineInfo machine_info();

// "266240K" -> 272629760; also M and G suffixes (binary), plain bytes and B/KiB/MiB/GiB.
// Throws std::invalid_argument for anything else.
std::size_t parse_bytes(const std::string& text);
// 272629760 -> "260 MiB".
std::string format_bytes(std::size_t bytes);

}  // namespace fastmv_tool
