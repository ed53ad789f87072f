#include "fastmv/types.hpp"

namespace fastmv {

const char* to_string(Layout layout) noexcept {
  switch (layout) {
    case Layout::RowMajor: return "row-major";
    case Layout::ColMajor: return "col-major";
  }
  return "invalid-layout";
}

const char* to_string(Op op) noexcept {
  switch (op) {
    case Op::NoTrans: return "N";
    case Op::Trans: return "T";
    case Op::ConjTrans: return "C";
  }
  return "invalid-op";
}

const char* to_string(Backend backend) noexcept {
  switch (backend) {
    case Backend::Auto: return "auto";
    case Backend::Reference: return "reference";
    case Backend::Cpu: return "cpu";
    case Backend::Cuda: return "cuda";
  }
  return "invalid-backend";
}

}  // namespace fastmv
