// Host-to-device copies of strided host arrays at the PCIe limit, for the calls that
// take host arrays and move them themselves (fastmv::jacobi).
#pragma once

#include <cstddef>
#include <functional>

#include "fastmv/types.hpp"

namespace fastmv {
namespace detail {
struct CudaState;
}

namespace cuda {

// Queues on the state's stream the copy of `count` vectors of `width` bytes, the
// host ones `host_pitch` bytes apart, the device ones `device_pitch` apart; returns
// once the host array may be reused (the copies may still be in flight: synchronize
// the stream before reading the device memory from the host).
//
// Pinned host memory is copied directly. Pageable memory goes through the state's
// pinned staging buffers: `threads` OpenMP threads pack the next chunk of vectors into
// one buffer while the copy engine drains the others, since a single thread's
// memcpy (~10 GB/s) would be slower than PCIe. The caller holds state.mutex.
//
// `queued`, when given, is called after the copy of each chunk of vectors [first,
// first + count) has been queued on the state's stream (pinned memory is then copied
// in chunks too), so that the caller can queue work on the chunk behind its copy,
// on another stream, while the next chunks travel.
using ChunkQueued = std::function<void(index_t first, index_t count)>;
void upload_vectors(detail::CudaState& state, void* device, std::size_t device_pitch,
                    const void* host, std::size_t host_pitch, std::size_t width, index_t count,
                    int threads, const ChunkQueued& queued = {});

}  // namespace cuda
}  // namespace fastmv
