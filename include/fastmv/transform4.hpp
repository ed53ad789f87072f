// fastmv: batched 4 x 4 transforms of vertices (seed 001).
//
//   transform4:        out[i] = M in[i] for n vec4 (x, y, z, w), 16 bytes each;
//   transform_points:  (x', y', z', w') = M (x, y, z, 1) for n points of three floats
//                      (12 bytes each), out[i] = (x', y', z'), or (x'/w', y'/w', z'/w')
//                      with `perspective_divide`.
//
// M is 16 floats in host memory on every backend (it is a uniform: the Cuda backend
// passes it to its kernel by value), stored in `layout`: RowMajor has M(r, c) at
// M[4 r + c], ColMajor (OpenGL's order) at M[4 c + r].
//
// Arrays: in and out may be the same array (in place) but must not overlap otherwise;
// no alignment is required (16-byte aligned vec4 arrays take the fastest paths). Host
// memory on the Reference and Cpu backends. On the Cuda backend:
//   - both in device memory of the context's device (or managed memory): the call is
//     queued on the context's stream and returns at once, as fastmv::gemv does;
//   - one in device memory, the other in host memory, or both in pinned memory: the
//     arrays are streamed through the device in chunks, copies up and down and the
//     kernels overlapped on the context's own streams (pageable chunks go through
//     pinned buffers the context keeps: 64 MiB of device memory once, 128 MiB of
//     pinned memory once a pageable array is seen). Pinned arrays
//     (fastmv::cuda::PinnedBuffer) run at the PCIe limit in both directions at once;
//     pageable ones at the host's copy bandwidth (docs/PERFORMANCE.md);
//   - both in host memory, at least one of them pageable: the vertices are transformed
//     on the host's cores (the context's threads, the Cpu backend's kernels), since
//     staging pageable memory for the device costs the host three times the memory
//     traffic of doing the work (on the H100's host: 62-68 GB/s each way on the cores
//     against 26-32 through the device). On hosts with FMA (AVX2 and up) the results
//     are the same bits either way: both evaluate each output as the same chain of
//     fused multiply-adds.
//   In every case the call follows the work queued on the context's stream and, with
//   a host array, returns when out holds the result.
// FASTMV_TRANSFORM4_GRAIN (Cpu: vertices a thread takes at a time),
// FASTMV_TRANSFORM4_CHUNK_BYTES (Cuda, host arrays through the device) and
// FASTMV_TRANSFORM4_PAGEABLE=staged (Cuda: pageable arrays through the device even
// when both are in host memory) override fastmv's choices for measurements; a value
// that is not a valid one is an InvalidArgument.
//
// Arithmetic: IEEE single precision, every product and sum performed (0 * Inf is NaN,
// NaN propagates, nothing is flushed or reordered by fast-math); the fast paths fuse
// multiplies and adds (FMA), so results may differ from the reference loop's in the
// last bits. The divide is a true division (w' = 0 gives +-Inf or NaN).
//
// Errors (fastmv::InvalidArgument, nothing written): n < 0, a null pointer when
// n > 0, in and out overlapping without being equal, a layout that is not one, and on
// the Cuda backend device memory of another device. n = 0 does nothing.
#pragma once

#include "fastmv/context.hpp"
#include "fastmv/export.hpp"
#include "fastmv/types.hpp"

namespace fastmv {

FASTMV_API void transform4(const Context& context, Layout layout, const float* M, index_t n,
                           const float* in, float* out);

FASTMV_API void transform_points(const Context& context, Layout layout, const float* M, index_t n,
                                 const float* in, float* out, bool perspective_divide = false);

}  // namespace fastmv
