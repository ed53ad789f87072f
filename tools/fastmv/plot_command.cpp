#include "plot_command.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <vector>

namespace fastmv_tool {

int run_plot_gemv(const std::string& results_json, const std::string& output_png,
                  const std::string& metric) {
  return run_plot_script("plot_gemv.py", {results_json, "-o", output_png, "--metric", metric});
}

int run_plot_script(const std::string& name, std::vector<std::string> script_arguments) {
  std::error_code error;
  const std::filesystem::path program = std::filesystem::read_symlink("/proc/self/exe", error);
  const std::filesystem::path script = program.parent_path() / name;
  if (error || !std::filesystem::exists(script)) {
    std::fprintf(stderr, "fastmv plot: %s not found; it is installed next to the fastmv program\n",
                 script.c_str());
    return 127;
  }

  std::vector<std::string> arguments = {"python3", script.string()};
  arguments.insert(arguments.end(), script_arguments.begin(), script_arguments.end());
  std::vector<char*> argv;
  for (auto& argument : arguments) argv.push_back(argument.data());
  argv.push_back(nullptr);

  std::fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) {
    std::fprintf(stderr, "fastmv plot: fork failed: %s\n", std::strerror(errno));
    return 127;
  }
  if (child == 0) {
    execvp(argv[0], argv.data());
    std::fprintf(stderr, "fastmv plot: cannot run python3 (%s); install Python 3 and matplotlib "
                 "(pip install matplotlib)\n", std::strerror(errno));
    _exit(127);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

}  // namespace fastmv_tool
