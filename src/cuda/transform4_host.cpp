// The Cuda backend's batched 4 x 4 transform when an array is in host memory. Seed 001
// found the transfers dominate: over PCIe a vec4 costs 16 bytes each way against 32
// bytes of device memory traffic at 100 times the bandwidth, so the call is as fast as
// the copies are, and the copies are only fast when both directions and the kernel
// run at once. The arrays therefore go in chunks through the context's host pipeline
// (CudaState::HostPipeline): chunk k on stream k mod 4, copy up, kernel, copy down, so
// that while chunk k comes down chunk k + 1 goes up and the copy engines never wait.
//
//   pinned arrays:   the copy engines read and write them directly; the whole call is
//                    queued without waiting and synchronized once at the end.
//   pageable arrays: the copy engines cannot reach them, so each chunk is staged
//                    through the slot's pinned buffers by the helper threads (one
//                    thread's memcpy moves ~8 GB/s, PCIe ~50 each way). When a slot
//                    takes its next chunk, its previous result is copied out of the
//                    down buffer while the new input goes into the up buffer.
//   device arrays:   read or written by the kernel directly (only the other side moves).
//
// Plain C++ with the CUDA runtime API, so that the staging copies run on the CPU
// backend's helper threads (cpu/work_sharing.hpp).
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cpu/work_sharing.hpp"
#include "cuda/state.hpp"
#include "fastmv/error.hpp"
#include "kernels/transform4_kernels.hpp"

namespace fastmv::kernels::cuda {
namespace {

using fastmv::cuda::check;
using fastmv::cuda::Residence;
using Pipeline = fastmv::detail::CudaState::HostPipeline;

constexpr const char* kFunction = "fastmv::transform4";

// A copy to do: `bytes` from `from` to `to`; `stream`: with non-temporal stores (the
// caller's pageable output, which nothing reads soon: no read for ownership, and the
// pinned buffers stay in the cache for the copy engines).
struct Copy {
  void* to;
  const void* from;
  std::size_t bytes;
  bool stream;
};

void copy_bytes(void* to, const void* from, std::size_t bytes, bool stream) {
#if defined(__SSE2__)
  if (stream) {
    auto* destination = static_cast<unsigned char*>(to);
    const auto* source = static_cast<const unsigned char*>(from);
    const std::size_t head = std::min(bytes, (16 - reinterpret_cast<std::uintptr_t>(destination) % 16) % 16);
    std::memcpy(destination, source, head);
    std::size_t done = head;
    for (; done + 64 <= bytes; done += 64) {
      const __m128i a = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + done));
      const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + done + 16));
      const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + done + 32));
      const __m128i d = _mm_loadu_si128(reinterpret_cast<const __m128i*>(source + done + 48));
      _mm_stream_si128(reinterpret_cast<__m128i*>(destination + done), a);
      _mm_stream_si128(reinterpret_cast<__m128i*>(destination + done + 16), b);
      _mm_stream_si128(reinterpret_cast<__m128i*>(destination + done + 32), c);
      _mm_stream_si128(reinterpret_cast<__m128i*>(destination + done + 48), d);
    }
    std::memcpy(destination + done, source + done, bytes - done);
    _mm_sfence();  // the streamed stores are weakly ordered: visible before the piece counts as done
    return;
  }
#endif
  (void)stream;
  std::memcpy(to, from, bytes);
}

// Does `copies` with up to `threads` threads, in pieces of 256 KiB: one job for all of
// them, since waking the helper threads costs tens of microseconds.
void parallel_copy(const std::vector<Copy>& copies, int threads) {
  constexpr std::size_t kPiece = std::size_t(256) << 10;
  std::vector<std::size_t> first_piece;  // of each copy
  std::size_t pieces = 0;
  for (const Copy& copy : copies) {
    first_piece.push_back(pieces);
    pieces += (copy.bytes + kPiece - 1) / kPiece;
  }
  if (pieces == 0) return;
  const int used = static_cast<int>(std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)), pieces));
  cpu::parallel_chunks(used, pieces, [&](std::size_t piece) {
    std::size_t c = copies.size() - 1;
    while (first_piece[c] > piece) --c;
    const Copy& copy = copies[c];
    const std::size_t begin = (piece - first_piece[c]) * kPiece;
    copy_bytes(static_cast<unsigned char*>(copy.to) + begin, static_cast<const unsigned char*>(copy.from) + begin,
               std::min(kPiece, copy.bytes - begin), copy.stream);
  });
}

// Bytes of a chunk: an eighth of the array, so that even a small one flows through
// the slots in several pieces, from 512 KiB (a copy call costs a few microseconds,
// 512 KiB take 10 over PCIe) to the slot size. FASTMV_TRANSFORM4_CHUNK_BYTES replaces
// it, for measurements (the tuning log in docs/PERFORMANCE.md); anything but a number
// of bytes from 4096 to the slot size is refused.
std::size_t chunk_bytes(std::size_t array_bytes) {
  const char* text = std::getenv("FASTMV_TRANSFORM4_CHUNK_BYTES");
  if (text == nullptr || *text == '\0') {
    return std::clamp<std::size_t>(array_bytes / 8, std::size_t(512) << 10, Pipeline::kSlotBytes);
  }
  char* end = nullptr;
  const unsigned long long value = std::strtoull(text, &end, 10);
  if (*end != '\0' || text[0] == '-' || value < 4096 || value > Pipeline::kSlotBytes) {
    throw InvalidArgument(kFunction, "FASTMV_TRANSFORM4_CHUNK_BYTES", text,
                          "must be a number of bytes from 4096 to " + std::to_string(Pipeline::kSlotBytes) +
                              " (or unset)");
  }
  return static_cast<std::size_t>(value);
}

// Waits for the pipeline's streams when the call leaves by an exception, so that no
// copy still reads or writes the caller's arrays or the pinned buffers afterwards.
class Drain {
 public:
  explicit Drain(Pipeline& pipeline) : pipeline_(pipeline) {}
  ~Drain() {
    if (!armed_) return;
    for (cudaStream_t stream : pipeline_.streams) cudaStreamSynchronize(stream);
    cudaGetLastError();
  }
  Drain(const Drain&) = delete;
  Drain& operator=(const Drain&) = delete;
  void disarm() { armed_ = false; }

 private:
  Pipeline& pipeline_;
  bool armed_ = true;
};

}  // namespace

void transform4_host(const Transform4Problem& problem, fastmv::detail::CudaState& state, Residence in,
                     Residence out, int threads) {
  std::lock_guard<std::mutex> lock(state.mutex);
  fastmv::cuda::DeviceGuard guard(state.device);
  const bool staged = in == Residence::Pageable || out == Residence::Pageable;
  Pipeline& pipeline = state.host_pipeline(staged);
  const int width = floats_per_vertex(problem.kind);
  const std::size_t vertex_bytes = sizeof(float) * static_cast<std::size_t>(width);
  // Whole groups of four vertices, so that every chunk starts 16-byte aligned in the
  // slot's buffers (four points are three float4) and takes the kernels' fast paths.
  const index_t per_chunk =
      static_cast<index_t>(chunk_bytes(static_cast<std::size_t>(problem.n) * vertex_bytes) / (4 * vertex_bytes)) * 4;

  // After everything queued on the context's stream (a kernel writing `in`, say).
  check(cudaEventRecord(pipeline.ready, state.stream), "fastmv::transform4: cudaEventRecord");
  for (cudaStream_t stream : pipeline.streams) {
    check(cudaStreamWaitEvent(stream, pipeline.ready, 0), "fastmv::transform4: cudaStreamWaitEvent");
  }
  Drain drain(pipeline);

  // The chunk each slot's pinned buffer holds, and whose result still has to reach
  // `out` when that is pageable (count 0: none).
  struct Held {
    index_t first = 0;
    index_t count = 0;
  };
  std::array<Held, Pipeline::kSlots> held{};
  std::vector<Copy> copies;
  // Waits until the slot's pinned buffer is free and queues in `copies` the copy of
  // the result it holds to `out`, when that is pageable.
  auto release = [&](int slot) {
    Held& chunk = held[slot];
    if (chunk.count == 0) return;
    check(cudaEventSynchronize(pipeline.done[slot]), "fastmv::transform4: cudaEventSynchronize");
    if (out == Residence::Pageable) {
      copies.push_back(Copy{problem.out + width * chunk.first, pipeline.pinned_down[slot],
                            static_cast<std::size_t>(chunk.count) * vertex_bytes, true});
    }
    chunk = Held{};
  };

  int slot = 0;
  for (index_t first = 0; first < problem.n; first += per_chunk) {
    const index_t count = std::min(per_chunk, problem.n - first);
    const std::size_t bytes = static_cast<std::size_t>(count) * vertex_bytes;
    cudaStream_t stream = pipeline.streams[slot];
    auto* buffer = static_cast<float*>(static_cast<void*>(static_cast<unsigned char*>(pipeline.device) +
                                                          slot * Pipeline::kSlotBytes));
    Transform4Problem piece = problem;
    piece.n = count;
    piece.in = problem.in + width * first;
    piece.out = problem.out + width * first;
    if (staged) {
      // The slot's previous result out of its down buffer and this chunk's input into
      // its up buffer, as one job (both buffers are free once the slot's event is).
      copies.clear();
      release(slot);
      if (in == Residence::Pageable) copies.push_back(Copy{pipeline.pinned_up[slot], piece.in, bytes, false});
      parallel_copy(copies, threads);
    }
    if (in != Residence::Device) {
      const void* up = in == Residence::Pageable ? pipeline.pinned_up[slot] : static_cast<const void*>(piece.in);
      check(cudaMemcpyAsync(buffer, up, bytes, cudaMemcpyHostToDevice, stream),
            "fastmv::transform4: cudaMemcpyAsync to the device");
      piece.in = buffer;
    }
    if (out != Residence::Device) piece.out = buffer;
    transform4(piece, state, stream);
    if (out != Residence::Device) {
      void* down = out == Residence::Pageable ? pipeline.pinned_down[slot] : problem.out + width * first;
      check(cudaMemcpyAsync(down, buffer, bytes, cudaMemcpyDeviceToHost, stream),
            "fastmv::transform4: cudaMemcpyAsync to the host");
    }
    check(cudaEventRecord(pipeline.done[slot], stream), "fastmv::transform4: cudaEventRecord");
    if (staged) held[slot] = Held{first, count};
    slot = (slot + 1) % Pipeline::kSlots;
  }
  // The chunks still in flight, oldest first.
  copies.clear();
  for (int k = 0; k < Pipeline::kSlots; ++k) release((slot + k) % Pipeline::kSlots);
  parallel_copy(copies, threads);
  for (cudaStream_t stream : pipeline.streams) {
    check(cudaStreamSynchronize(stream), "fastmv::transform4: cudaStreamSynchronize");
  }
  drain.disarm();
}

}  // namespace fastmv::kernels::cuda
