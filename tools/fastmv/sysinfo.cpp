#include "sysinfo.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace fastmv_tool {
namespace {

std::string read_first_line(const std::filesystem::path& path) {
  std::ifstream file(path);
  std::string line;
  std::getline(file, line);
  return line;
}

std::string cpu_model() {
  std::ifstream cpuinfo("/proc/cpuinfo");
  for (std::string line; std::getline(cpuinfo, line);) {
    if (line.rfind("model name", 0) == 0) {
      const auto colon = line.find(':');
      if (colon != std::string::npos) return line.substr(line.find_first_not_of(" \t", colon + 1));
    }
  }
  return "unknown";
}

// The highest cache level cpu0 reports (level 3 on servers, sometimes 2 on small VMs).
void last_level_cache(MachineInfo& info) {
  const std::filesystem::path caches = "/sys/devices/system/cpu/cpu0/cache";
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(caches, error)) {
    if (entry.path().filename().string().rfind("index", 0) != 0) continue;
    const std::string type = read_first_line(entry.path() / "type");
    if (type == "Instruction") continue;
    try {
      const int level = std::stoi(read_first_line(entry.path() / "level"));
      const std::size_t size = parse_bytes(read_first_line(entry.path() / "size"));
      if (level > info.llc_level) {
        info.llc_level = level;
        info.llc_bytes = size;
      }
    } catch (const std::exception&) {
      // An entry without a readable level or size says nothing about the LLC.
    }
  }
}

}  // namespace

std::size_t parse_bytes(const std::string& text) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits]))) ++digits;
  if (digits == 0) throw std::invalid_argument("not a byte count: '" + text + "'");
  const std::size_t value = std::stoull(text.substr(0, digits));
  std::string unit = text.substr(digits);
  for (auto& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  if (unit.empty() || unit == "B") return value;
  if (unit == "K" || unit == "KB" || unit == "KIB") return value << 10;
  if (unit == "M" || unit == "MB" || unit == "MIB") return value << 20;
  if (unit == "G" || unit == "GB" || unit == "GIB") return value << 30;
  throw std::invalid_argument("unknown byte unit in '" + text + "' (use K, M or G)");
}

std::string format_bytes(std::size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024 && unit < 4) {
    value /= 1024;
    ++unit;
  }
  char text[32];
  std::snprintf(text, sizeof text, value == static_cast<double>(static_cast<long long>(value))
                                       ? "%.0f %s" : "%.1f %s", value, units[unit]);
  return text;
}

MachineInfo machine_info() {
  MachineInfo info;
  info.cpu_model = cpu_model();
  info.cores = static_cast<int>(sysconf(_SC_NPROCESSORS_ONLN));
  last_level_cache(info);
  char host[256] = {};
  if (gethostname(host, sizeof host - 1) == 0) info.hostname = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  info.date_utc = date;
  return info;
}

}  // namespace fastmv_tool
