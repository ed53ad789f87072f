// Progress of a benchmark sweep on stderr.
#pragma once

#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <string>

namespace fastmv_tool {

// Progress on stderr: one rewritten line on a terminal, one line per point otherwise.
class Progress {
 public:
  Progress(bool enabled, std::size_t total) : enabled_(enabled), total_(total) {}
  ~Progress() {
    if (enabled_ && terminal_) std::fprintf(stderr, "\r%*s\r", static_cast<int>(width_), "");
  }
  void running(std::size_t index, const std::string& point, const std::string& implementation) {
    if (!enabled_ || !terminal_) return;
    char line[160];
    const int length = std::snprintf(line, sizeof line, "[%zu/%zu] %s: %s", index + 1, total_,
                                     point.c_str(), implementation.c_str());
    std::fprintf(stderr, "\r%-*s", static_cast<int>(width_), line);
    width_ = std::max(width_, static_cast<std::size_t>(std::max(length, 0)));
    std::fflush(stderr);
  }
  void done(std::size_t index, const std::string& point, double seconds) {
    if (enabled_ && !terminal_) {
      std::fprintf(stderr, "[%zu/%zu] %s: %.2f s\n", index + 1, total_, point.c_str(), seconds);
    }
  }

 private:
  bool enabled_;
  bool terminal_ = isatty(STDERR_FILENO) != 0;
  std::size_t total_;
  std::size_t width_ = 0;
};

}  // namespace fastmv_tool
