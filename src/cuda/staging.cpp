// Staged host-to-device copies (staging.hpp). Plain C++ with the CUDA runtime API, so
// that the packing loop is compiled with the host compiler's OpenMP.
#include "cuda/staging.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstring>

#include "cuda/state.hpp"

namespace fastmv {

namespace detail {

CudaState::Staging& CudaState::staging() {
  for (int i = 0; i < kStagingBuffers; ++i) {
    if (staging_.buffers[i] == nullptr) {
      cuda::check(cudaMallocHost(&staging_.buffers[i], kStagingBytes),
                  "fastmv: staging buffer cudaMallocHost");
    }
    if (staging_.copied[i] == nullptr) {
      cuda::check(cudaEventCreateWithFlags(&staging_.copied[i], cudaEventDisableTiming),
                  "fastmv: staging cudaEventCreate");
    }
  }
  return staging_;
}

}  // namespace detail

namespace cuda {

void upload_vectors(detail::CudaState& state, void* device, std::size_t device_pitch,
                    const void* host, std::size_t host_pitch, std::size_t width, index_t count,
                    int threads, const ChunkQueued& queued) {
  if (count <= 0 || width == 0) return;
  cudaPointerAttributes attributes{};
  const bool pinned = cudaPointerGetAttributes(&attributes, host) == cudaSuccess &&
                      attributes.type == cudaMemoryTypeHost;
  cudaGetLastError();
  using Staging = detail::CudaState;
  const auto* source = static_cast<const unsigned char*>(host);
  auto* destination = static_cast<unsigned char*>(device);
  if (pinned || width > Staging::kStagingBytes) {
    // Pinned: the copy engine reads it directly, in pieces of four staging buffers
    // when the caller works on chunks (a copy call costs a few us, a 32 MiB piece
    // ~0.6 ms). Vectors wider than a staging buffer (never for a matrix that fits a
    // GPU) leave the staging to CUDA.
    const index_t per_piece =
        pinned && queued
            ? std::max<index_t>(1, static_cast<index_t>(Staging::kStagingBuffers * Staging::kStagingBytes / width))
            : count;
    for (index_t first = 0; first < count; first += per_piece) {
      const index_t vectors = std::min(per_piece, count - first);
      check(cudaMemcpy2DAsync(destination + first * device_pitch, device_pitch,
                              source + first * host_pitch, host_pitch, width,
                              static_cast<std::size_t>(vectors), cudaMemcpyHostToDevice, state.stream),
            "fastmv: cudaMemcpy2DAsync to the device");
      if (queued) queued(first, vectors);
    }
    if (!pinned) check(cudaStreamSynchronize(state.stream), "fastmv: cudaStreamSynchronize");
    return;
  }

  detail::CudaState::Staging& staging = state.staging();
  const index_t per_chunk = static_cast<index_t>(Staging::kStagingBytes / width);
  // Eight threads copy faster than PCIe moves; more would only compete with the
  // rest of the machine, and a descheduled thread holds up its whole chunk
  // (dynamic scheduling lets the others take its vectors).
  const int packers = std::max(1, std::min(threads, 8));
  int buffer = 0;
  for (index_t first = 0; first < count; first += per_chunk) {
    const index_t vectors = std::min(per_chunk, count - first);
    // The buffer's previous copy must have finished before it is overwritten.
    check(cudaEventSynchronize(staging.copied[buffer]), "fastmv: staging cudaEventSynchronize");
    auto* packed = static_cast<unsigned char*>(staging.buffers[buffer]);
#pragma omp parallel for num_threads(packers) schedule(dynamic, 4)
    for (index_t v = 0; v < vectors; ++v) {
      std::memcpy(packed + v * width, source + (first + v) * host_pitch, width);
    }
    check(cudaMemcpy2DAsync(destination + first * device_pitch, device_pitch, packed, width, width,
                            static_cast<std::size_t>(vectors), cudaMemcpyHostToDevice,
                            state.stream),
          "fastmv: staged cudaMemcpy2DAsync to the device");
    check(cudaEventRecord(staging.copied[buffer], state.stream), "fastmv: staging cudaEventRecord");
    if (queued) queued(first, vectors);
    buffer = (buffer + 1) % Staging::kStagingBuffers;
  }
}

}  // namespace cuda
}  // namespace fastmv
