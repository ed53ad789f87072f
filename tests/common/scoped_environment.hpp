// Sets an environment variable (null: unsets it) for the lifetime of the object and
// restores what was there before: for the tuning variables the library reads per call
// (FASTMV_JACOBI_ITERATION, FASTMV_TRANSFORM4_CHUNK_BYTES, FASTMV_TRANSFORM4_GRAIN).
#pragma once

#include <cstdlib>
#include <string>

namespace fastmv_test {

class ScopedEnvironment {
 public:
  ScopedEnvironment(const char* name, const char* value) : name_(name) {
    const char* previous = std::getenv(name);
    had_previous_ = previous != nullptr;
    if (had_previous_) previous_ = previous;
    set(value);
  }
  ~ScopedEnvironment() { set(had_previous_ ? previous_.c_str() : nullptr); }
  ScopedEnvironment(const ScopedEnvironment&) = delete;
  ScopedEnvironment& operator=(const ScopedEnvironment&) = delete;

  void set(const char* value) {
    if (value != nullptr) {
      setenv(name_.c_str(), value, 1);
    } else {
      unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  bool had_previous_ = false;
  std::string previous_;
};

}  // namespace fastmv_test
