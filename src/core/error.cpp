#include "fastmv/error.hpp"

#include <utility>

namespace fastmv {

InvalidArgument::InvalidArgument(std::string function, std::string argument, std::string value,
                                 const std::string& requirement)
    : Error(function + ": " + argument + " = " + value + " " + requirement),
      function_(std::move(function)),
      argument_(std::move(argument)),
      value_(std::move(value)) {}

}  // namespace fastmv
