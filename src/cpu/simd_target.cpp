// Which Highway target the CPU kernels dispatch to on this machine.
#include <string>

#include "fastmv/info.hpp"

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/simd_target.cpp"
#include "hwy/foreach_target.h"  // IWYU pragma: keep
#include "hwy/highway.h"

HWY_BEFORE_NAMESPACE();
namespace fastmv::HWY_NAMESPACE {
int64_t DispatchedTarget() { return HWY_TARGET; }
}  // namespace fastmv::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace fastmv {

HWY_EXPORT(DispatchedTarget);

std::string cpu_simd_target() { return hwy::TargetName(HWY_DYNAMIC_DISPATCH(DispatchedTarget)()); }

std::string cpu_simd_targets_compiled() {
  std::string names;
  for (int64_t targets = HWY_TARGETS; targets != 0; targets &= targets - 1) {
    const int64_t target = targets & -targets;  // lowest bit: the best remaining target
    names += names.empty() ? "" : " ";
    names += hwy::TargetName(target);
  }
  return names;
}

}  // namespace fastmv
#endif  // HWY_ONCE
