// `fastmv plot gemv` and `fastmv plot transform4`: run plot_gemv.py or plot_transform4.py,
// installed next to this program, on a results file.
#pragma once

#include <string>
#include <vector>

namespace fastmv_tool {

// The script's exit status, or 127 with a message on stderr when python3 or the script
// cannot be found.
int run_plot_gemv(const std::string& results_json, const std::string& output_png,
                  const std::string& metric);

// Runs `script` (installed next to this program) with `arguments` under python3.
int run_plot_script(const std::string& script, std::vector<std::string> arguments);

}  // namespace fastmv_tool
