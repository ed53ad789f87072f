// The GPU side of `fastmv bench transform4` (bench_transform4.hpp): device, pinned and
// pageable copies of one size's input and the candidates that use them.
//   gpu:      fastmv on device arrays, cublasSgemm (4x4 times 4xN, the vec4 array as a
//             column-major 4 x N matrix), a device-to-device copy (the ceiling);
//   gpu-host: the seed's way (copy up, kernel, copy down, one after the other) from
//             pageable and from pinned memory, fastmv on both (pinned: the overlapped
//             pipeline; pageable: the host's cores by default, and the staged pipeline),
//             and pinned copies up, down, and both at once (the ceiling).
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "bench_transform4.hpp"
#include "cuda_tools.hpp"
#include "fastmv/cuda.hpp"

namespace fastmv_tool {
namespace {

using Clock = std::chrono::steady_clock;
using fastmv::cuda::DeviceBuffer;
using fastmv::cuda::PinnedBuffer;

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

struct Point final : GpuPoint {
  Point(const fastmv::Context& c, const float* matrix, long long vertices, const std::vector<float>& input)
      : context(c),
        n(vertices),
        floats(4 * vertices),
        stream(static_cast<cudaStream_t>(c.cuda_stream())),
        device_in(c, floats),
        device_out(c, floats),
        device_copy(c, floats),
        device_M(c, 16),
        pinned_in(floats),
        pinned_out(floats),
        pageable_in(input),
        pageable_out(static_cast<std::size_t>(floats), 0.0f),
        host(static_cast<std::size_t>(floats)),
        cublas(stream) {
    std::memcpy(M, matrix, sizeof M);
    check_cuda(cudaStreamCreateWithFlags(&second, cudaStreamNonBlocking), "cudaStreamCreate");
    fastmv::cuda::copy(context, device_in.data(), input.data(), floats);
    fastmv::cuda::copy(context, device_M.data(), M, 16);
    std::memcpy(pinned_in.data(), input.data(), sizeof(float) * static_cast<std::size_t>(floats));
    std::memset(pinned_out.data(), 0, sizeof(float) * static_cast<std::size_t>(floats));
  }
  ~Point() override {
    cudaStreamSynchronize(stream);
    cudaStreamSynchronize(second);
    cudaStreamDestroy(second);
  }

  // `calls` of `queue` on the context's stream, timed with events.
  template <typename Queue>
  double device_time(long long calls, Queue queue) {
    check_cuda(cudaEventRecord(events[0], stream), "cudaEventRecord");
    for (long long c = 0; c < calls; ++c) queue();
    check_cuda(cudaEventRecord(events[1], stream), "cudaEventRecord");
    check_cuda(cudaEventSynchronize(events[1]), "cudaEventSynchronize");
    return elapsed_s(events[0], events[1]);
  }
  // `calls` of a call that returns with its results on the host, timed on the host.
  template <typename Call>
  static double host_time(long long calls, Call call) {
    const auto start = Clock::now();
    for (long long c = 0; c < calls; ++c) call();
    return seconds_since(start);
  }
  // NaN (all bits set) over an output before the call that is checked.
  void poison_device(float* device) {
    check_cuda(cudaMemsetAsync(device, 0xFF, sizeof(float) * static_cast<std::size_t>(floats), stream), "cudaMemsetAsync");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }
  void poison_host(float* host_array) { std::memset(host_array, 0xFF, sizeof(float) * static_cast<std::size_t>(floats)); }
  const float* from_device(const float* device) {
    fastmv::cuda::copy(context, host.data(), device, floats);
    return host.data();
  }
  // The seed's host-to-host call: the input up, the kernel, the result down, in turn.
  void serial(const float* in, float* out) {
    const std::size_t bytes = sizeof(float) * static_cast<std::size_t>(floats);
    check_cuda(cudaMemcpyAsync(device_in.data(), in, bytes, cudaMemcpyHostToDevice, stream), "cudaMemcpyAsync");
    fastmv::transform4(context, fastmv::Layout::RowMajor, M, n, device_in.data(), device_out.data());
    check_cuda(cudaMemcpyAsync(out, device_out.data(), bytes, cudaMemcpyDeviceToHost, stream), "cudaMemcpyAsync");
    check_cuda(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
  }

  fastmv::Context context;
  long long n;
  fastmv::index_t floats;
  cudaStream_t stream;
  cudaStream_t second = nullptr;
  float M[16];
  DeviceBuffer<float> device_in, device_out, device_copy, device_M;
  PinnedBuffer<float> pinned_in, pinned_out;
  std::vector<float> pageable_in, pageable_out, host;
  CublasHandle cublas;
  Events events;
};

}  // namespace

std::unique_ptr<GpuPoint> make_gpu_point(const fastmv::Context& context, const float* M, long long n,
                                         const std::vector<float>& input) {
  auto point = std::make_unique<Point>(context, M, n, input);
  Point* p = point.get();
  const double device_bytes = 32.0 * static_cast<double>(n);
  const double each_way = 16.0 * static_cast<double>(n);
  const std::size_t bytes = 16 * static_cast<std::size_t>(n);
  auto add = [&](const char* section, const char* name, std::string description, double counted, bool ceiling,
                 const char* compared_with, std::function<double(long long)> time,
                 std::function<const float*()> output, std::function<void()> poison = {}) {
    Candidate candidate;
    candidate.section = section;
    candidate.name = name;
    candidate.description = std::move(description);
    candidate.bytes = counted;
    candidate.ceiling = ceiling;
    candidate.compared_with = compared_with;
    candidate.time = std::move(time);
    candidate.output = std::move(output);
    candidate.poison = std::move(poison);
    p->candidates.push_back(std::move(candidate));
  };

  // --- device arrays
  add("gpu", "fastmv-cuda", "fastmv::transform4 on device arrays", device_bytes, false, "d2d-copy",
      [p](long long calls) {
        return p->device_time(calls, [p] {
          fastmv::transform4(p->context, fastmv::Layout::RowMajor, p->M, p->n, p->device_in.data(), p->device_out.data());
        });
      },
      [p] { return p->from_device(p->device_out.data()); }, [p] { p->poison_device(p->device_out.data()); });
  add("gpu", "cublas-sgemm", "cublasSgemm: C (4 x N) = M (4 x 4) V (4 x N)", device_bytes, false, "d2d-copy",
      [p](long long calls) {
        return p->device_time(calls, [p] {
          const float one = 1, zero = 0;
          // cuBLAS is column-major: the row-major M is the column-major M^T, hence OP_T.
          check_cublas(cublasSgemm(p->cublas.get(), CUBLAS_OP_T, CUBLAS_OP_N, 4, static_cast<int>(p->n), 4, &one,
                                   p->device_M.data(), 4, p->device_in.data(), 4, &zero, p->device_copy.data(), 4),
                       "cublasSgemm");
        });
      },
      [p] { return p->from_device(p->device_copy.data()); }, [p] { p->poison_device(p->device_copy.data()); });
  add("gpu", "d2d-copy", "cudaMemcpyAsync device to device of the input (ceiling; read + write)", device_bytes, true, "",
      [p, bytes](long long calls) {
        return p->device_time(calls, [p, bytes] {
          check_cuda(cudaMemcpyAsync(p->device_copy.data(), p->device_in.data(), bytes, cudaMemcpyDeviceToDevice, p->stream),
                     "cudaMemcpyAsync");
        });
      },
      nullptr);

  // --- host arrays
  add("gpu-host", "seed-pageable", "copy up, kernel, copy down in turn; pageable host arrays", each_way, false,
      "pinned-both",
      [p](long long calls) { return Point::host_time(calls, [p] { p->serial(p->pageable_in.data(), p->pageable_out.data()); }); },
      [p] { return static_cast<const float*>(p->pageable_out.data()); },
      [p] { p->poison_host(p->pageable_out.data()); });
  add("gpu-host", "seed-pinned", "copy up, kernel, copy down in turn; pinned host arrays", each_way, false, "pinned-both",
      [p](long long calls) { return Point::host_time(calls, [p] { p->serial(p->pinned_in.data(), p->pinned_out.data()); }); },
      [p] { return static_cast<const float*>(p->pinned_out.data()); },
      [p] { p->poison_host(p->pinned_out.data()); });
  add("gpu-host", "fastmv-cuda-host-pageable", "fastmv::transform4 on pageable host arrays (the default: host cores)",
      each_way, false, "pinned-both",
      [p](long long calls) {
        return Point::host_time(calls, [p] {
          fastmv::transform4(p->context, fastmv::Layout::RowMajor, p->M, p->n, p->pageable_in.data(), p->pageable_out.data());
        });
      },
      [p] { return static_cast<const float*>(p->pageable_out.data()); },
      [p] { p->poison_host(p->pageable_out.data()); });
  add("gpu-host", "fastmv-cuda-host-pageable-staged",
      "fastmv::transform4 on pageable host arrays through the device (FASTMV_TRANSFORM4_PAGEABLE=staged: staged, "
      "overlapped)",
      each_way, false, "pinned-both",
      [p](long long calls) {
        const ScopedVariable staged("FASTMV_TRANSFORM4_PAGEABLE", "staged");
        return Point::host_time(calls, [p] {
          fastmv::transform4(p->context, fastmv::Layout::RowMajor, p->M, p->n, p->pageable_in.data(), p->pageable_out.data());
        });
      },
      [p] { return static_cast<const float*>(p->pageable_out.data()); },
      [p] { p->poison_host(p->pageable_out.data()); });
  add("gpu-host", "fastmv-cuda-host-pinned", "fastmv::transform4 on pinned host arrays (overlapped)", each_way, false,
      "pinned-both",
      [p](long long calls) {
        return Point::host_time(calls, [p] {
          fastmv::transform4(p->context, fastmv::Layout::RowMajor, p->M, p->n, p->pinned_in.data(), p->pinned_out.data());
        });
      },
      [p] { return static_cast<const float*>(p->pinned_out.data()); },
      [p] { p->poison_host(p->pinned_out.data()); });
  add("gpu-host", "pinned-h2d", "cudaMemcpyAsync pinned to device alone (16 bytes per vertex)", each_way, true, "",
      [p, bytes](long long calls) {
        return p->device_time(calls, [p, bytes] {
          check_cuda(cudaMemcpyAsync(p->device_copy.data(), p->pinned_in.data(), bytes, cudaMemcpyHostToDevice, p->stream),
                     "cudaMemcpyAsync");
        });
      },
      nullptr);
  add("gpu-host", "pinned-d2h", "cudaMemcpyAsync device to pinned alone", each_way, true, "",
      [p, bytes](long long calls) {
        return p->device_time(calls, [p, bytes] {
          check_cuda(cudaMemcpyAsync(p->pinned_out.data(), p->device_in.data(), bytes, cudaMemcpyDeviceToHost, p->stream),
                     "cudaMemcpyAsync");
        });
      },
      nullptr);
  add("gpu-host", "pinned-both", "pinned up and down at once on two streams (ceiling; GB/s each way)", each_way, true, "",
      [p, bytes](long long calls) {
        return Point::host_time(calls, [p, bytes] {
          check_cuda(cudaMemcpyAsync(p->device_copy.data(), p->pinned_in.data(), bytes, cudaMemcpyHostToDevice, p->stream),
                     "cudaMemcpyAsync");
          check_cuda(cudaMemcpyAsync(p->pinned_out.data(), p->device_in.data(), bytes, cudaMemcpyDeviceToHost, p->second),
                     "cudaMemcpyAsync");
          check_cuda(cudaStreamSynchronize(p->stream), "cudaStreamSynchronize");
          check_cuda(cudaStreamSynchronize(p->second), "cudaStreamSynchronize");
        });
      },
      nullptr);
  add("gpu-host", "pageable-h2d", "cudaMemcpyAsync pageable to device alone", each_way, true, "",
      [p, bytes](long long calls) {
        return Point::host_time(calls, [p, bytes] {
          check_cuda(cudaMemcpyAsync(p->device_copy.data(), p->pageable_in.data(), bytes, cudaMemcpyHostToDevice, p->stream),
                     "cudaMemcpyAsync");
          check_cuda(cudaStreamSynchronize(p->stream), "cudaStreamSynchronize");
        });
      },
      nullptr);
  add("gpu-host", "pageable-d2h", "cudaMemcpyAsync device to pageable alone", each_way, true, "",
      [p, bytes](long long calls) {
        return Point::host_time(calls, [p, bytes] {
          check_cuda(cudaMemcpyAsync(p->pageable_out.data(), p->device_in.data(), bytes, cudaMemcpyDeviceToHost, p->stream),
                     "cudaMemcpyAsync");
          check_cuda(cudaStreamSynchronize(p->stream), "cudaStreamSynchronize");
        });
      },
      nullptr);
  return point;
}

}  // namespace fastmv_tool
