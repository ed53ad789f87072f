#include "gpu_sweep.hpp"

#include <algorithm>

namespace fastmv_tool {
namespace {

// Down to one column or row, 2-16-element vectors of up to 64 MiB (fp32), where a tile
// of outputs per block leaves most lanes past the vector's end, and 40-128-element
// vectors of a million (tall-skinny activations, small heads), whose tiles are too few.
const std::vector<Shape> kSkinnyShapes = {
    {16777216, 1}, {1, 16777216}, {8, 65536},    {65536, 8},    {100003, 3},   {3, 100003},
    {4194304, 4},  {4, 4194304},  {2097152, 8},  {8, 2097152},  {1048576, 16}, {16, 1048576},
    {1048576, 40}, {40, 1048576}, {1048576, 64}, {64, 1048576}, {1048576, 128}, {128, 1048576}};
// Tall matrices with few outputs (and their transposes): 256-2056 outputs over 8192-131072
// vectors, where a tile per block leaves most SMs idle and the reduction must be split.
const std::vector<Shape> kTallShapes = {
    {16384, 1024}, {1024, 16384}, {16384, 1544}, {1544, 16384}, {8192, 2056}, {2056, 8192},
    {65536, 1032}, {1032, 65536}, {131072, 512}, {512, 131072}, {65536, 256}, {256, 65536}};
// Llama-2 7B (4096, 11008 MLP), Llama-3 8B (14336 MLP, 128256 vocabulary), a 32000 vocabulary.
const std::vector<Shape> kLlmDecodeShapes = {{4096, 4096},  {11008, 4096}, {4096, 11008},
                                             {14336, 4096}, {32000, 4096}, {128256, 4096}};
// One regime each: launch-bound, L2-sized, a cliff candidate and its neighbours, a large
// square, and the skinny and decode shapes cuBLAS handles worst and best.
const std::vector<Shape> kQuickShapes = {
    {16, 16},     {256, 256},    {1024, 1024},  {2048, 2048}, {2049, 2049},  {2056, 2056},
    {8192, 8192}, {16777216, 1}, {1, 16777216}, {8, 65536},   {11008, 4096}, {128256, 4096}};

bool same(Shape a, Shape b) { return a.m == b.m && a.n == b.n; }

}  // namespace

std::vector<Shape> gpu_sweep_shapes(Sweep sweep) {
  if (sweep == Sweep::Quick) return kQuickShapes;
  std::vector<Shape> shapes;
  for (index_t order : {16, 32, 64, 128}) shapes.push_back({order, order});
  for (index_t order = 256; order <= 12800; order += 256) {
    for (index_t neighbour : {order, order + 1, order + 8}) {
      shapes.push_back({neighbour, neighbour});
    }
  }
  shapes.insert(shapes.end(), kSkinnyShapes.begin(), kSkinnyShapes.end());
  shapes.insert(shapes.end(), kTallShapes.begin(), kTallShapes.end());
  for (Shape shape : kLlmDecodeShapes) {  // 4096 x 4096 is a square order already
    if (std::none_of(shapes.begin(), shapes.end(), [&](Shape s) { return same(s, shape); })) {
      shapes.push_back(shape);
    }
  }
  return shapes;
}

const std::vector<Shape>& llm_decode_shapes() { return kLlmDecodeShapes; }

bool is_llm_decode_shape(Shape shape) {
  return std::any_of(kLlmDecodeShapes.begin(), kLlmDecodeShapes.end(),
                     [&](Shape s) { return same(s, shape); });
}

// A sample is a batch of back-to-back calls lasting >= min_sample_s of GPU time, every
// implementation at a point the same number of calls (time_on_stream). 400 us: with 100
// us, a sample of 4-10 calls at the 16-26 us points carried a start-up cost that moved
// a call by 3-5 % with the sample's place in the round-robin (an identical --variant
// read 0.955x the default's time at fp32 4097^2); from 400 us such variants agree within
// 0.7 % (H100, seventieth session; docs/PERFORMANCE.md, tuning log). At least 15 samples
// and 10 ms of them per implementation and point, predicted to take about as long as 25
// samples and 10 ms did at 100 us (not yet timed on a whole sweep; with 25 samples of 400
// us the fp32 and bf16 acceptance sweep overran 430 s, where it had taken 230-241 s).
SamplingPolicy gpu_sampling_for(Sweep sweep) {
  SamplingPolicy policy;
  policy.min_sample_s = 400e-6;
  policy.warm_up_per_sample_s = 0;  // unused: the stream is kept busy between samples
  policy.max_samples = 2000;
  if (sweep == Sweep::Quick) {
    policy.repeats = 7;
    policy.min_time_s = 0.003;
    policy.warm_up_s = 0.001;
  } else {
    policy.repeats = 15;
    policy.min_time_s = 0.01;
    policy.warm_up_s = 0.002;
  }
  return policy;
}

}  // namespace fastmv_tool
