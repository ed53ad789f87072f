// Public entry points of the batched 4 x 4 transform: check every argument, bring M
// into row-major order, pick the backend.
#include "fastmv/transform4.hpp"

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>

#include "cuda/runtime.hpp"
#include "dispatch/checks.hpp"
#include "fastmv/error.hpp"
#include "kernels/transform4_kernels.hpp"

namespace fastmv {
namespace {

// Whether a call on a Cuda context whose arrays are both in host memory, at least one
// of them pageable, runs on the host's cores instead of through the device. The copy
// engines cannot read pageable memory, so the device path has the host copy every
// such byte through pinned buffers: with the copy engines' own traffic that is three
// times the host memory traffic of transforming the vertices in place of copying them
// (on the H100's 16-core host: 26-32 GB/s each way through the device, 62-68 on the
// cores; docs/PERFORMANCE.md). Both use every thread of the context. Two pinned
// arrays (the device's DMA alone reads and writes them, the cores stay free) and any
// device array go through the device. FASTMV_TRANSFORM4_PAGEABLE=staged sends
// pageable arrays through the device anyway (for measurements); `cores`, empty or
// unset: the default; anything else is an InvalidArgument.
bool on_host_cores(const char* function, cuda::Residence in, cuda::Residence out) {
  const char* text = std::getenv("FASTMV_TRANSFORM4_PAGEABLE");
  bool staged = false;
  if (text != nullptr && *text != '\0' && std::strcmp(text, "cores") != 0) {
    if (std::strcmp(text, "staged") != 0) {
      throw InvalidArgument(function, "FASTMV_TRANSFORM4_PAGEABLE", text, "must be cores or staged (or unset)");
    }
    staged = true;
  }
  const bool host = in != cuda::Residence::Device && out != cuda::Residence::Device;
  const bool pageable = in == cuda::Residence::Pageable || out == cuda::Residence::Pageable;
  return host && pageable && !staged;
}

void run(const char* function, const Context& context, Layout layout, const float* M, index_t n,
         const float* in, float* out, kernels::VertexKind kind) {
  using checks::require;
  using checks::str;
  require(layout == Layout::RowMajor || layout == Layout::ColMajor, function, "layout",
          [=] { return str(static_cast<int>(layout)); }, [] { return "is not a fastmv::Layout"; });
  require(n >= 0, function, "n", [=] { return str(n); }, [] { return "must be >= 0"; });
  if (n == 0) return;
  const auto null = [] { return std::string("nullptr"); };
  require(M != nullptr, function, "M", null, [] { return "must point to 16 floats"; });
  const int width = kernels::floats_per_vertex(kind);
  require(n <= std::numeric_limits<index_t>::max() / width, function, "n", [=] { return str(n); },
          [] { return "is more vertices than can be addressed"; });
  const auto elements = [=] { return "must point to " + str(n) + " vertices of " + str(width) + " floats"; };
  require(in != nullptr, function, "in", null, elements);
  require(out != nullptr, function, "out", null, elements);
  const checks::Span in_span = checks::vector_span(function, "in", in, n * width, 1);
  const checks::Span out_span = checks::vector_span(function, "out", out, n * width, 1);
  require(in == out || !checks::overlap(in_span, out_span), function, "out", [=] { return checks::address(out); },
          [=] { return "overlaps in (" + checks::address(in) + ") without being the same array"; });

  kernels::Transform4Problem problem{};
  for (int r = 0; r < 4; ++r) {
    for (int c = 0; c < 4; ++c) {
      problem.matrix.m[4 * r + c] = layout == Layout::RowMajor ? M[4 * r + c] : M[4 * c + r];
    }
  }
  problem.kind = kind;
  problem.n = n;
  problem.in = in;
  problem.out = out;

  switch (context.backend()) {
    case Backend::Reference: kernels::reference::transform4(problem); return;
    case Backend::Cpu: kernels::cpu::transform4(problem, context.threads()); return;
    case Backend::Cuda: {
      detail::CudaState& state = cuda::state_of(context, function);
      const cuda::Residence in_place = cuda::residence_of(state, function, "in", in);
      const cuda::Residence out_place = cuda::residence_of(state, function, "out", out);
      if (in_place == cuda::Residence::Device && out_place == cuda::Residence::Device) {
        kernels::cuda::transform4(problem, state);
      } else if (on_host_cores(function, in_place, out_place)) {
        cuda::synchronize(state);  // after the work queued on the context's stream, as on the device
        kernels::cpu::transform4(problem, context.threads());
      } else {
        kernels::cuda::transform4_host(problem, state, in_place, out_place, context.threads());
      }
      return;
    }
    case Backend::Auto: break;
  }
  throw BackendUnavailable(std::string(function) + ": no transform kernels for backend '" +
                           to_string(context.backend()) + "'");
}

}  // namespace

void transform4(const Context& context, Layout layout, const float* M, index_t n, const float* in,
                float* out) {
  run("fastmv::transform4", context, layout, M, n, in, out, kernels::VertexKind::Vec4);
}

void transform_points(const Context& context, Layout layout, const float* M, index_t n,
                      const float* in, float* out, bool perspective_divide) {
  run("fastmv::transform_points", context, layout, M, n, in, out,
      perspective_divide ? kernels::VertexKind::PointDivide : kernels::VertexKind::Point);
}

}  // namespace fastmv
