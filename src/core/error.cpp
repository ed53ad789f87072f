#include "fastmv/error.hpp"

#include <string>
#include <utility>

namespace fastmv {

InvalidArgument::InvalidArgument(std::string function, std::string argument, std::string value,
                                 const std::string& requirement)
    : Error(function + ": " + argument + " = " + value + " " + requirement),
      function_(std::move(function)),
      argument_(std::move(argument)),
      value_(std::move(value)) {}

FileError::FileError(std::string path, std::int64_t line, const std::string& problem)
    : Error(path + (line > 0 ? ":" + std::to_string(line) : std::string()) + ": " + problem),
      path_(std::move(path)),
      line_(line) {}

}  // namespace fastmv
