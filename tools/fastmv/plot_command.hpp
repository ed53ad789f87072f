// `fastmv plot gemv`: runs plot_gemv.py, installed next to this program, on a results file.
#pragma once

#include <string>

namespace fastmv_tool {

// The script's exit status, or 127 with a message on stderr when python3 or the script
// cannot be found.
int run_plot_gemv(const std::string& results_json, const std::string& output_png,
                  const std::string& metric);

}  // namespace fastmv_tool
