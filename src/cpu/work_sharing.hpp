// Work sharing for the CPU kernels: run body(chunk) for chunk < chunks on the calling
// thread and up to threads - 1 helper threads.
//
// Why not an OpenMP parallel region: its closing barrier waits for every thread of
// the team, so when the machine is oversubscribed a helper that gets no core for a
// scheduler time slice stalls the call for milliseconds (measured on the 2-core
// machine under load: 256 x 256 sgemv fell from ~10 GB/s to 0.03 GB/s, see
// docs/PERFORMANCE.md). Here the caller claims chunks itself and waits only for chunks
// a helper has already claimed; helpers that wake late find no work. On a busy machine
// a call degrades to single-thread speed instead of collapsing.
//
// Chunks are claimed dynamically, so a body must not depend on which thread runs it;
// bodies that write disjoint outputs per chunk give results independent of scheduling.
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

namespace fastmv::kernels::cpu {

namespace detail {
using ChunkFunction = void (*)(void* body, std::size_t chunk);
void run_chunks(int threads, std::size_t chunks, ChunkFunction function, void* body);
}  // namespace detail

template <typename Body>
void parallel_chunks(int threads, std::size_t chunks, Body&& body) {
  if (threads <= 1 || chunks <= 1) {
    for (std::size_t chunk = 0; chunk < chunks; ++chunk) body(chunk);
    return;
  }
  using Callable = std::remove_reference_t<Body>;
  detail::run_chunks(
      threads, chunks,
      [](void* callable, std::size_t chunk) { (*static_cast<Callable*>(callable))(chunk); },
      const_cast<void*>(static_cast<const void*>(&body)));
}

}  // namespace fastmv::kernels::cpu
