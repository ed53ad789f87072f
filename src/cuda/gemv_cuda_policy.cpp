#include "cuda/gemv_cuda_policy.hpp"

#include <atomic>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "fastmv/cuda.hpp"
#include "fastmv/error.hpp"

namespace fastmv::kernels::cuda {
namespace {

bool unroll_ok(index_t unroll) { return unroll == 4 || unroll == 8; }

GemvPolicy parse(const char* text) {
  GemvPolicy policy;
  if (text == nullptr) return policy;
  const std::vector<std::pair<const char*, index_t*>> fields = {
      {"fast_memory_min_gbps_per_sm", &policy.fast_memory_min_gbps_per_sm},
      {"target_threads_per_sm", &policy.target_threads_per_sm},
      {"axpy_few_columns_per_round", &policy.axpy_few_columns_per_round},
      {"dot_min_words_per_thread", &policy.dot_min_words_per_thread},
      {"dot_min_words_per_thread_2rows", &policy.dot_min_words_per_thread_2rows},
      {"dot_split_min_words_per_thread", &policy.dot_split_min_words_per_thread},
      {"dot_split_align_bytes", &policy.dot_split_align_bytes},
      {"dot_split_short_rows_max_slots_percent", &policy.dot_split_short_rows_max_slots_percent},
      {"dot_rows", &policy.dot_rows},
      {"dot_one_row_4byte_min_words", &policy.dot_one_row_4byte_min_words},
      {"dot_threads", &policy.dot_threads},
      {"dot_threads_128_4byte_min_words", &policy.dot_threads_128_4byte_min_words},
      {"dot_threads_128_4byte_min_rows_per_sm", &policy.dot_threads_128_4byte_min_rows_per_sm},
      {"dot_two_rows_2byte_max_rows_per_sm", &policy.dot_two_rows_2byte_max_rows_per_sm},
      {"dot_two_rows_2byte_max_words", &policy.dot_two_rows_2byte_max_words},
      {"dot_two_rows_8byte_min_groups_k", &policy.dot_two_rows_8byte_min_groups_k},
      {"dot_two_rows_8byte_max_rows_per_sm", &policy.dot_two_rows_8byte_max_rows_per_sm},
      {"dot_two_rows_8byte_few_min_rows", &policy.dot_two_rows_8byte_few_min_rows},
      {"dot_unroll", &policy.dot_unroll},
      {"dot_balanced", &policy.dot_balanced},
      {"dot_shared_x", &policy.dot_shared_x},
      {"dot_held_x", &policy.dot_held_x},
      {"dot_held_x_min_bytes", &policy.dot_held_x_min_bytes},
      {"dot_held_x_max_bytes", &policy.dot_held_x_max_bytes},
      {"dot_held_x_long_rows", &policy.dot_held_x_long_rows},
      {"dot_held_x_short_rows", &policy.dot_held_x_short_rows},
      {"dot_held_x_4byte_max_k", &policy.dot_held_x_4byte_max_k},
      {"dot_held_x_4byte_max_k_slow_memory", &policy.dot_held_x_4byte_max_k_slow_memory},
      {"dot_held_x_4byte_any_memory", &policy.dot_held_x_4byte_any_memory},
      {"dot_held_x_4byte_aligned_min_words", &policy.dot_held_x_4byte_aligned_min_words},
      {"dot_held_x_fast_memory_blocks_per_sm", &policy.dot_held_x_fast_memory_blocks_per_sm},
      {"dot_held_x_two_rows_max_k", &policy.dot_held_x_two_rows_max_k},
      {"dot_held_x_short_min_bytes", &policy.dot_held_x_short_min_bytes},
      {"dot_held_x_shifted", &policy.dot_held_x_shifted},
      {"dot_held_x_shifted_min_bytes", &policy.dot_held_x_shifted_min_bytes},
      {"dot_held_x_min_fill_percent", &policy.dot_held_x_min_fill_percent},
      {"dot_held_x_fast_memory_min_fill_percent", &policy.dot_held_x_fast_memory_min_fill_percent},
      {"dot_held_x_blocks_per_sm", &policy.dot_held_x_blocks_per_sm},
      {"dot_held_x_narrow", &policy.dot_held_x_narrow},
      {"dot_held_x_narrow_blocks_per_sm", &policy.dot_held_x_narrow_blocks_per_sm},
      {"dot_held_x_narrow_min_bytes", &policy.dot_held_x_narrow_min_bytes},
      {"dot_held_x_narrow_flat_max_bytes", &policy.dot_held_x_narrow_flat_max_bytes},
      {"dot_held_x_narrow_min_fill_percent", &policy.dot_held_x_narrow_min_fill_percent},
      {"dot_shared_x_min_rows_per_sm", &policy.dot_shared_x_min_rows_per_sm},
      {"dot_shared_x_max_rows_per_sm", &policy.dot_shared_x_max_rows_per_sm},
      {"dot_shared_x_max_bytes", &policy.dot_shared_x_max_bytes},
      {"dot_shared_x_max_shared_bytes", &policy.dot_shared_x_max_shared_bytes},
      {"dot_shared_x_unroll", &policy.dot_shared_x_unroll},
      {"dot_tma", &policy.dot_tma},
      {"dot_tma_min_bytes", &policy.dot_tma_min_bytes},
      {"dot_tma_2byte_min_band_rows", &policy.dot_tma_2byte_min_band_rows},
      {"dot_tma_2byte_max_band_rows", &policy.dot_tma_2byte_max_band_rows},
      {"dot_tma_blocks_per_sm", &policy.dot_tma_blocks_per_sm},
      {"dot_tma_words", &policy.dot_tma_words},
      {"dot_tma_stages", &policy.dot_tma_stages},
      {"dot_balanced_threads", &policy.dot_balanced_threads},
      {"dot_balanced_min_gain_percent", &policy.dot_balanced_min_gain_percent},
      {"dot_balanced_spare_min_gain_percent", &policy.dot_balanced_spare_min_gain_percent},
      {"dot_balanced_one_row_spare_min_gain_percent", &policy.dot_balanced_one_row_spare_min_gain_percent},
      {"dot_balanced_many_waves", &policy.dot_balanced_many_waves},
      {"dot_balanced_many_waves_max_rounds", &policy.dot_balanced_many_waves_max_rounds},
      {"dot_balanced_fast_memory_max_bytes", &policy.dot_balanced_fast_memory_max_bytes},
      {"dot_balanced_align", &policy.dot_balanced_align},
      {"dot_balanced_spare_per_lane_2byte", &policy.dot_balanced_spare_per_lane_2byte},
      {"blocks_per_sm", &policy.blocks_per_sm},
      {"dot_warp_lanes_min_words", &policy.dot_warp_lanes_min_words},
      {"dot_quad_lanes_max_words", &policy.dot_quad_lanes_max_words},
      {"dot_octet_lanes_max_words", &policy.dot_octet_lanes_max_words},
      {"dot_octet_lanes_min_rows_per_sm", &policy.dot_octet_lanes_min_rows_per_sm},
      {"staged_max_lda_over_length", &policy.staged_max_lda_over_length},
      {"staged_blocks_per_sm", &policy.staged_blocks_per_sm},
      {"axpy_min_vectors_per_group", &policy.axpy_min_vectors_per_group},
      {"axpy_min_vectors_per_group_2byte", &policy.axpy_min_vectors_per_group_2byte},
      {"axpy_long_splits_min_bytes", &policy.axpy_long_splits_min_bytes},
      {"axpy_min_vectors_per_group_unaligned_short", &policy.axpy_min_vectors_per_group_unaligned_short},
      {"axpy_lanes", &policy.axpy_lanes},
      {"axpy_blocks_per_sm", &policy.axpy_blocks_per_sm},
      {"axpy_unroll", &policy.axpy_unroll},
      {"axpy_large_unroll", &policy.axpy_large_unroll},
      {"axpy_large_unroll_8byte_min_bytes", &policy.axpy_large_unroll_8byte_min_bytes},
      {"axpy_aligned_fp16_held", &policy.axpy_aligned_fp16_held},
      {"axpy_large_unaligned_unroll", &policy.axpy_large_unaligned_unroll},
      {"axpy_interleave_unaligned", &policy.axpy_interleave_unaligned},
      {"axpy_interleave_min_lanes", &policy.axpy_interleave_min_lanes},
      {"axpy_narrow", &policy.axpy_narrow},
      {"axpy_narrow_min_bytes", &policy.axpy_narrow_min_bytes},
      {"axpy_narrow_max_bytes", &policy.axpy_narrow_max_bytes},
      {"axpy_narrow_threads", &policy.axpy_narrow_threads},
      {"axpy_narrow_lanes", &policy.axpy_narrow_lanes},
      {"axpy_narrow_min_fill_percent", &policy.axpy_narrow_min_fill_percent},
      {"axpy_narrow_8byte_min_fill_percent", &policy.axpy_narrow_8byte_min_fill_percent},
      {"axpy_narrow_low_fill_percent", &policy.axpy_narrow_low_fill_percent},
      {"axpy_narrow_low_fill_max_bytes", &policy.axpy_narrow_low_fill_max_bytes},
      {"axpy_narrow_short_max_tile_bytes", &policy.axpy_narrow_short_max_tile_bytes},
      {"axpy_narrow_short_min_bytes", &policy.axpy_narrow_short_min_bytes},
      {"axpy_narrow_short_min_fill_percent", &policy.axpy_narrow_short_min_fill_percent},
      {"axpy_narrow_aligned_2byte", &policy.axpy_narrow_aligned_2byte},
      {"axpy_narrow_aligned_2byte_max_bytes", &policy.axpy_narrow_aligned_2byte_max_bytes},
      {"axpy_narrow_aligned_4byte_max_bytes", &policy.axpy_narrow_aligned_4byte_max_bytes},
      {"axpy_narrow_unroll", &policy.axpy_narrow_unroll},
      {"axpy_narrow_splits", &policy.axpy_narrow_splits},
      {"axpy_narrow_x_words", &policy.axpy_narrow_x_words},
      {"axpy_narrow_fold_tail", &policy.axpy_narrow_fold_tail},
      {"axpy_narrow_pipelined", &policy.axpy_narrow_pipelined},
      {"axpy_masked_select", &policy.axpy_masked_select},
      {"dot_shifted", &policy.dot_shifted},
      {"dot_shifted_rows", &policy.dot_shifted_rows},
      {"dot_shifted_rows4_min_rows_per_sm", &policy.dot_shifted_rows4_min_rows_per_sm},
      {"dot_shifted_rows4_max_rows_per_sm", &policy.dot_shifted_rows4_max_rows_per_sm},
      {"dot_shifted_4byte_max_rows_per_sm", &policy.dot_shifted_4byte_max_rows_per_sm},
      {"dot_shifted_4byte_fast_memory", &policy.dot_shifted_4byte_fast_memory},
      {"dot_shifted_8byte_max_rows_per_sm", &policy.dot_shifted_8byte_max_rows_per_sm},
      {"dot_tail_split", &policy.dot_tail_split},
      {"dot_tail_split_max_waves", &policy.dot_tail_split_max_waves},
      {"dot_tail_split_max_percent", &policy.dot_tail_split_max_percent},
      {"dot_tail_max_splits", &policy.dot_tail_max_splits},
      {"dot_shifted_2byte_min_rows_per_sm", &policy.dot_shifted_2byte_min_rows_per_sm},
      {"dot_shifted_2byte_max_rows_per_sm", &policy.dot_shifted_2byte_max_rows_per_sm},
      {"axpy_realigned_held_min_bytes", &policy.axpy_realigned_held_min_bytes},
      {"axpy_sum_kernel", &policy.axpy_sum_kernel},
      {"axpy_sum_min_splits", &policy.axpy_sum_min_splits},
      {"axpy_sum_max_bytes", &policy.axpy_sum_max_bytes},
      {"axpy_sum_max_fill_percent", &policy.axpy_sum_max_fill_percent},
      {"axpy_whole_rounds", &policy.axpy_whole_rounds},
      {"axpy_small_unaligned_unroll", &policy.axpy_small_unaligned_unroll},
      {"axpy_small_unaligned_unroll_2byte", &policy.axpy_small_unaligned_unroll_2byte},
      {"axpy_tma_min_bytes", &policy.axpy_tma_min_bytes},
      {"axpy_tma_stages", &policy.axpy_tma_stages},
      {"axpy_tma_min_stages_per_split", &policy.axpy_tma_min_stages_per_split},
      {"axpy_tma_split_min_bytes", &policy.axpy_tma_split_min_bytes},
      {"axpy_tma_split_max_tiles_percent", &policy.axpy_tma_split_max_tiles_percent},
      {"axpy_tma_split_wide", &policy.axpy_tma_split_wide},
      {"axpy_tma_split_blocks_per_sm", &policy.axpy_tma_split_blocks_per_sm},
      {"axpy_tma_split_16word_fast_memory", &policy.axpy_tma_split_16word_fast_memory},
      {"axpy_tma_split_16word_min_tiles", &policy.axpy_tma_split_16word_min_tiles},
      {"axpy_tma_splits", &policy.axpy_tma_splits},
      {"axpy_tma_sum_kernel", &policy.axpy_tma_sum_kernel},
      {"axpy_tma_sum_min_splits", &policy.axpy_tma_sum_min_splits},
      {"axpy_tma_sum_max_splits", &policy.axpy_tma_sum_max_splits},
      {"axpy_tma_sum_max_bytes", &policy.axpy_tma_sum_max_bytes},
      {"axpy_tma_deep_ring_max_blocks_percent", &policy.axpy_tma_deep_ring_max_blocks_percent},
      {"axpy_tma_deep_ring_stages", &policy.axpy_tma_deep_ring_stages},
      {"axpy_tma_deep_ring_2byte_max_stages", &policy.axpy_tma_deep_ring_2byte_max_stages},
      {"axpy_tma_deep_ring_4word_max_blocks_percent", &policy.axpy_tma_deep_ring_4word_max_blocks_percent},
      {"axpy_tma_mid_ring_min_blocks_percent", &policy.axpy_tma_mid_ring_min_blocks_percent},
      {"axpy_tma_mid_ring6_max_blocks_percent", &policy.axpy_tma_mid_ring6_max_blocks_percent},
      {"axpy_tma_mid_ring5_max_blocks_percent", &policy.axpy_tma_mid_ring5_max_blocks_percent},
      {"axpy_tma_mid_ring_fast_memory", &policy.axpy_tma_mid_ring_fast_memory},
      {"axpy_tma_deep_ring_min_bytes", &policy.axpy_tma_deep_ring_min_bytes},
      {"axpy_tma_max_bytes", &policy.axpy_tma_max_bytes},
      {"axpy_tma_max_bytes_2byte", &policy.axpy_tma_max_bytes_2byte},
      {"axpy_tma_words", &policy.axpy_tma_words},
      {"axpy_tma_wide_tiles_percent", &policy.axpy_tma_wide_tiles_percent},
      {"axpy_tma_widest_tiles_percent", &policy.axpy_tma_widest_tiles_percent},
      {"axpy_tma_straddle_min_words", &policy.axpy_tma_straddle_min_words},
      {"axpy_tma_straddle_min_tiles_percent", &policy.axpy_tma_straddle_min_tiles_percent},
      {"axpy_staged_max_vector_bytes", &policy.axpy_staged_max_vector_bytes},
      {"axpy_staged_min_bytes", &policy.axpy_staged_min_bytes},
      {"dot_split_one_wave", &policy.dot_split_one_wave},
      {"dot_split_one_wave_min_bytes", &policy.dot_split_one_wave_min_bytes},
      {"cluster_one_wave", &policy.cluster_one_wave},
      {"dot_flat", &policy.dot_flat},
      {"dot_flat_min_row_bytes", &policy.dot_flat_min_row_bytes},
      {"dot_flat_max_row_bytes", &policy.dot_flat_max_row_bytes},
      {"dot_flat_min_bytes", &policy.dot_flat_min_bytes},
      {"dot_flat_min_bytes_2byte", &policy.dot_flat_min_bytes_2byte},
      {"dot_flat_blocks_per_sm", &policy.dot_flat_blocks_per_sm},
      {"axpy_flat", &policy.axpy_flat},
      {"axpy_flat_min_vector_bytes", &policy.axpy_flat_min_vector_bytes},
      {"axpy_flat_max_vector_bytes", &policy.axpy_flat_max_vector_bytes},
      {"axpy_flat_min_bytes", &policy.axpy_flat_min_bytes},
      {"flat_one_group_min_bytes", &policy.flat_one_group_min_bytes},
      {"axpy_flat_one_group_min_bytes_2byte", &policy.axpy_flat_one_group_min_bytes_2byte},
      {"axpy_staged_one_group_min_bytes_2byte", &policy.axpy_staged_one_group_min_bytes_2byte},
      {"axpy_staged_one_group_min_bytes_4byte", &policy.axpy_staged_one_group_min_bytes_4byte},
      {"axpy_staged_chunk_bytes", &policy.axpy_staged_chunk_bytes},
      {"axpy_staged_one_group_chunk_bytes", &policy.axpy_staged_one_group_chunk_bytes},
      {"axpy_staged_sum_kernel", &policy.axpy_staged_sum_kernel},
      {"axpy_staged_async_copy", &policy.axpy_staged_async_copy},
      {"axpy_staged_two_groups", &policy.axpy_staged_two_groups},
      {"axpy_flat_blocks_per_sm", &policy.axpy_flat_blocks_per_sm},
      {"axpy_flat_large_max_vector_bytes", &policy.axpy_flat_large_max_vector_bytes},
      {"axpy_flat_fast_memory_256_min_bytes", &policy.axpy_flat_fast_memory_256_min_bytes},
      {"axpy_tma_large_max_tiles_percent", &policy.axpy_tma_large_max_tiles_percent},
      {"axpy_tma_large_4byte_few_vectors", &policy.axpy_tma_large_4byte_few_vectors},
      {"axpy_tma_large_4byte_few_vectors_max_tiles_percent", &policy.axpy_tma_large_4byte_few_vectors_max_tiles_percent},
      {"axpy_tma_large_split_2byte", &policy.axpy_tma_large_split_2byte},
      {"axpy_tma_large_16word_fast_memory", &policy.axpy_tma_large_16word_fast_memory},
      {"axpy_tma_fast_memory_register_min_bytes", &policy.axpy_tma_fast_memory_register_min_bytes},
      {"axpy_tma_fast_memory_register_4byte_min_tiles_percent",
       &policy.axpy_tma_fast_memory_register_4byte_min_tiles_percent},
      {"axpy_tma_fast_memory_register_4byte_min_bytes",
       &policy.axpy_tma_fast_memory_register_4byte_min_bytes},
      {"axpy_tma_4byte_max_tiles_percent", &policy.axpy_tma_4byte_max_tiles_percent},
      {"axpy_tma_4byte_max_tiles_min_bytes", &policy.axpy_tma_4byte_max_tiles_min_bytes},
      {"axpy_small_matrix_bytes", &policy.axpy_small_matrix_bytes},
      {"axpy_small_min_vectors_per_group", &policy.axpy_small_min_vectors_per_group},
      {"axpy_max_partial_bytes_per_tile", &policy.axpy_max_partial_bytes_per_tile},
      {"max_splits", &policy.max_splits},
      {"split_fill_waves", &policy.split_fill_waves},
      {"split_fill_waves_fast_memory_max_waves", &policy.split_fill_waves_fast_memory_max_waves},
      {"axpy_realigned_max_waves", &policy.axpy_realigned_max_waves},
      {"axpy_realigned_one_wave_min_fill_percent", &policy.axpy_realigned_one_wave_min_fill_percent},
      {"axpy_interleaved_max_waves", &policy.axpy_interleaved_max_waves},
      {"axpy_interleaved_one_wave_min_fill_percent", &policy.axpy_interleaved_one_wave_min_fill_percent},
      {"axpy_interleaved_one_wave_any_memory_max_bytes", &policy.axpy_interleaved_one_wave_any_memory_max_bytes},
      {"axpy_aligned_max_waves", &policy.axpy_aligned_max_waves},
      {"axpy_aligned_one_wave_min_fill_percent", &policy.axpy_aligned_one_wave_min_fill_percent},
      {"axpy_one_wave_unroll8_max_rounds", &policy.axpy_one_wave_unroll8_max_rounds},
      {"axpy_one_wave_unroll8_min_fill_percent", &policy.axpy_one_wave_unroll8_min_fill_percent},
      {"axpy_one_wave_unroll8_4byte", &policy.axpy_one_wave_unroll8_4byte},
      {"cluster_max_splits", &policy.cluster_max_splits},
      {"trace", &policy.trace},
      {"early_launch", &policy.early_launch},
      {"early_launch_tma", &policy.early_launch_tma},
      {"early_launch_tma_narrow_max_blocks", &policy.early_launch_tma_narrow_max_blocks},
      {"early_launch_next_register", &policy.early_launch_next_register},
      {"early_launch_tma_next", &policy.early_launch_tma_next},
      {"early_launch_tma_next_split", &policy.early_launch_tma_next_split},
      {"early_launch_narrow16", &policy.early_launch_narrow16},
      {"early_launch_narrow32_unaligned", &policy.early_launch_narrow32_unaligned},
      {"axpy_tma_unaligned", &policy.axpy_tma_unaligned},
      {"axpy_tma_unaligned_min_bytes", &policy.axpy_tma_unaligned_min_bytes},
      {"axpy_tma_unaligned_min_bytes_8byte", &policy.axpy_tma_unaligned_min_bytes_8byte},
      {"axpy_tma_unaligned_fast_memory_min_tiles_percent", &policy.axpy_tma_unaligned_fast_memory_min_tiles_percent},
      {"axpy_tma_unaligned_fast_memory_max_tiles_percent", &policy.axpy_tma_unaligned_fast_memory_max_tiles_percent},
      {"max_workspace_bytes", &policy.max_workspace_bytes},
  };
  std::stringstream items(text);
  std::string item;
  while (std::getline(items, item, ',')) {
    if (item.empty()) continue;
    const auto equals = item.find('=');
    const std::string name = item.substr(0, equals);
    index_t* field = nullptr;
    for (const auto& [known, pointer] : fields) {
      if (name == known) field = pointer;
    }
    long long value = 0;
    std::size_t used = 0;
    bool valid = field != nullptr && equals != std::string::npos;
    if (valid) {
      try {
        value = std::stoll(item.substr(equals + 1), &used);
      } catch (const std::exception&) {
        valid = false;
      }
      valid = valid && used == item.size() - equals - 1 && value >= 0;
    }
    if (!valid) {
      throw InvalidArgument("FASTMV_CUDA_GEMV_POLICY", name,
                            equals == std::string::npos ? std::string("(no value)") : item.substr(equals + 1),
                            "must be name=value with a known name and a value >= 0");
    }
    *field = value;
  }
  if (policy.target_threads_per_sm < 256 || policy.axpy_lanes < 4 || policy.axpy_lanes > 256 ||
      (policy.axpy_lanes & (policy.axpy_lanes - 1)) != 0 || policy.max_splits < 1 ||
      policy.dot_min_words_per_thread < 1 || policy.dot_min_words_per_thread_2rows < 1 ||
      policy.dot_split_min_words_per_thread < 1 ||
      policy.axpy_min_vectors_per_group < 1 || policy.axpy_min_vectors_per_group_2byte < 1 ||
      policy.axpy_min_vectors_per_group_unaligned_short < 1 ||
      policy.axpy_small_min_vectors_per_group < 1 || policy.axpy_interleave_min_lanes < 1 ||
      (policy.dot_rows != 0 && policy.dot_rows != 1 && policy.dot_rows != 2 && policy.dot_rows != 4) ||
      (policy.dot_shifted_rows != 0 && policy.dot_shifted_rows != 1 && policy.dot_shifted_rows != 2 &&
       policy.dot_shifted_rows != 4) ||
      policy.dot_shifted > 2 || policy.dot_tail_split > 2 || policy.dot_tail_max_splits < 2 ||
      (policy.dot_unroll != 0 && policy.dot_unroll != 4 && policy.dot_unroll != 8) || policy.blocks_per_sm > 32 ||
      policy.axpy_blocks_per_sm < 1 || !unroll_ok(policy.axpy_unroll) ||
      !unroll_ok(policy.axpy_large_unroll) || !unroll_ok(policy.axpy_large_unaligned_unroll) ||
      !unroll_ok(policy.axpy_small_unaligned_unroll) || !unroll_ok(policy.axpy_small_unaligned_unroll_2byte) ||
      policy.axpy_tma_stages < 2 || policy.axpy_tma_stages > 12 || policy.axpy_tma_deep_ring_stages > 8 ||
      policy.axpy_tma_mid_ring_fast_memory > 2 ||
      policy.axpy_tma_min_stages_per_split < 1 || policy.axpy_tma_split_wide > 1 ||
      policy.axpy_tma_split_blocks_per_sm < 1 || policy.early_launch > 2 || policy.early_launch_tma > 2 ||
      policy.early_launch_next_register > 1 || policy.early_launch_tma_next > 2 || policy.early_launch_tma_next_split > 2 || policy.early_launch_narrow16 > 2 || policy.early_launch_narrow32_unaligned > 2 ||
      policy.dot_held_x_4byte_any_memory > 1 || (policy.dot_threads != 0 && policy.dot_threads != 128 && policy.dot_threads != 256) ||
      policy.axpy_few_columns_per_round > 1 || policy.dot_balanced > 2 || policy.dot_held_x > 2 || policy.dot_held_x_long_rows > 1 || policy.dot_held_x_short_rows > 1 || policy.dot_held_x_4byte_max_k < 0 || policy.dot_held_x_4byte_max_k > 7 || policy.dot_held_x_4byte_max_k_slow_memory > 7 || policy.dot_held_x_fast_memory_blocks_per_sm < 1 || policy.dot_held_x_fast_memory_blocks_per_sm > 8 || policy.dot_held_x_two_rows_max_k < 0 || policy.dot_held_x_two_rows_max_k > 3 || policy.dot_held_x_shifted > 1 || policy.dot_held_x_narrow < 0 || policy.dot_held_x_narrow > 2 || policy.dot_held_x_narrow_blocks_per_sm < 1 || policy.dot_held_x_narrow_blocks_per_sm > 8 || policy.dot_held_x_blocks_per_sm < 1 || policy.dot_held_x_blocks_per_sm > 8 || policy.dot_tma > 2 || policy.dot_shared_x > 2 || !unroll_ok(policy.dot_shared_x_unroll) ||
      policy.dot_shared_x_max_shared_bytes > (index_t(227) << 10) || policy.dot_tma_blocks_per_sm < 1 ||
      policy.dot_tma_blocks_per_sm > 4 || policy.dot_tma_stages < 2 || policy.dot_tma_stages > 8 ||
      (policy.dot_tma_words != 0 && policy.dot_tma_words != 32 && policy.dot_tma_words != 64 &&
       policy.dot_tma_words != 128) || policy.dot_balanced_many_waves > 1 ||
      policy.dot_balanced_spare_per_lane_2byte < 1 || policy.dot_balanced_spare_per_lane_2byte > 2 || policy.dot_balanced_align < 16 || policy.dot_balanced_align > 4096 ||
      (policy.dot_balanced_align & (policy.dot_balanced_align - 1)) != 0 ||
      policy.dot_split_align_bytes < 16 || policy.dot_split_align_bytes > 4096 ||
      (policy.dot_split_align_bytes & (policy.dot_split_align_bytes - 1)) != 0 ||
      (policy.dot_balanced_threads != 256 && policy.dot_balanced_threads != 512 &&
       policy.dot_balanced_threads != 1024) ||
      policy.axpy_interleave_unaligned > 2 || policy.axpy_aligned_fp16_held > 1 || policy.axpy_tma_large_split_2byte > 1 || policy.axpy_narrow > 2 || policy.axpy_narrow_x_words > 1 || policy.axpy_narrow_fold_tail > 1 || policy.axpy_narrow_pipelined > 2 || policy.axpy_masked_select > 2 ||
      policy.axpy_sum_kernel > 2 || policy.axpy_staged_sum_kernel > 2 || policy.axpy_staged_async_copy > 2 || policy.axpy_staged_two_groups > 1 || policy.axpy_staged_chunk_bytes < 16 ||
      policy.axpy_staged_chunk_bytes > kAxpyStagedMaxChunkBytes || policy.axpy_staged_one_group_chunk_bytes < 16 ||
      policy.axpy_staged_one_group_chunk_bytes > kAxpyStagedMaxChunkBytes ||
      policy.axpy_narrow_aligned_2byte > 2 ||
      (policy.axpy_narrow_threads != 256 && policy.axpy_narrow_threads != 512) ||
      (policy.axpy_narrow_lanes != 0 && policy.axpy_narrow_lanes != 16 && policy.axpy_narrow_lanes != 32) ||
      (policy.axpy_narrow_unroll != 8 && policy.axpy_narrow_unroll != 16 && policy.axpy_narrow_unroll != 32) || policy.axpy_whole_rounds > 1 || policy.axpy_flat > 2 || policy.dot_flat > 2 ||
      policy.dot_split_one_wave > 1 || policy.cluster_one_wave > 1 ||
      policy.axpy_flat_blocks_per_sm < 1 || policy.axpy_tma_unaligned > 2 ||
      (policy.axpy_tma_words != 0 && policy.axpy_tma_words != 4 && policy.axpy_tma_words != 8 &&
       policy.axpy_tma_words != 16) ||
      (policy.axpy_tma_straddle_min_words != 0 && policy.axpy_tma_straddle_min_words != 4 &&
       policy.axpy_tma_straddle_min_words != 8 && policy.axpy_tma_straddle_min_words != 16)) {
    throw InvalidArgument("FASTMV_CUDA_GEMV_POLICY", "value", text,
                          "target_threads_per_sm >= 256, axpy_lanes a power of 2 in 4..256, "
                          "dot_rows and dot_shifted_rows 0, 1, 2 or 4, dot_shifted and dot_tail_split 0, 1 or 2, dot_tail_max_splits >= 2, "
                          "dot_unroll 0, 4 or 8, dot_threads 0, 128 or 256, blocks_per_sm <= 32, "
                          "axpy_unroll, axpy_large_unroll, axpy_large_unaligned_unroll and "
                          "axpy_small_unaligned_unroll(_2byte) 4 or 8, axpy_tma_stages 2..12, axpy_tma_deep_ring_stages <= 8 (the ring every variant fits), "
                          "axpy_tma_words and axpy_tma_straddle_min_words 0, 4, 8 or 16, axpy_tma_unaligned 0, 1 or 2, axpy_tma_split_wide 0 or 1, early_launch, early_launch_tma, early_launch_tma_next(_split), early_launch_narrow16 and early_launch_narrow32_unaligned 0, 1 or 2, early_launch_next_register 0 or 1, "
                          "axpy_few_columns_per_round 0 or 1, dot_balanced, dot_held_x, dot_tma and dot_shared_x 0, 1 or 2, dot_held_x_blocks_per_sm and dot_held_x_fast_memory_blocks_per_sm 1..8, dot_held_x_two_rows_max_k 0..3, dot_held_x_narrow 0, 1 or 2, dot_held_x_narrow_blocks_per_sm 1..8, dot_held_x_4byte_max_k(_slow_memory) 0..7, dot_shared_x_unroll 4 or 8, dot_shared_x_max_shared_bytes <= 232448, dot_tma_blocks_per_sm 1..4, dot_tma_stages 2..8, dot_tma_words 0, 32, 64 or 128, dot_balanced_many_waves, dot_held_x_long_rows, dot_held_x_short_rows and dot_held_x_shifted 0 or 1, dot_balanced_align and dot_split_align_bytes a power of 2 in 16..4096, dot_balanced_spare_per_lane_2byte 1 or 2, "
                          "dot_balanced_threads 256, 512 or 1024, axpy_interleave_unaligned 0, 1 or 2, axpy_aligned_fp16_held and axpy_tma_large_split_2byte 0 or 1, "
                          "axpy_narrow, axpy_narrow_aligned_2byte, axpy_narrow_pipelined, axpy_masked_select and axpy_sum_kernel 0, 1 or 2, axpy_narrow_x_words and axpy_narrow_fold_tail 0 or 1, axpy_narrow_threads 256 or 512, axpy_narrow_lanes 0, 16 or 32, "
                          "axpy_narrow_unroll 8, 16 or 32, axpy_whole_rounds, dot_split_one_wave, cluster_one_wave, "
                          "dot_held_x_4byte_any_memory 0 or 1, axpy_flat and dot_flat 0, 1 or 2, "
                          "axpy_staged_sum_kernel and axpy_staged_async_copy 0, 1 or 2, axpy_staged_two_groups 0 or 1, axpy_staged_chunk_bytes and axpy_staged_one_group_chunk_bytes 16..98304, "
                          "the others >= 1");
  }
  return policy;
}

}  // namespace

namespace {

// The policy set() installed (nullptr: the environment's), and every policy it parsed,
// kept for the process: a call that read one before the next set() may still use it.
std::atomic<const GemvPolicy*> installed{nullptr};
// This thread's Pin, if any.
thread_local const GemvPolicy* pinned = nullptr;

const GemvPolicy& in_force() {
  if (const GemvPolicy* policy = installed.load(std::memory_order_acquire)) return *policy;
  static const GemvPolicy policy = parse(std::getenv("FASTMV_CUDA_GEMV_POLICY"));
  return policy;
}

}  // namespace

const GemvPolicy& GemvPolicy::get() { return pinned != nullptr ? *pinned : in_force(); }

GemvPolicy::Pin::Pin() : saved_(pinned) { pinned = &in_force(); }
GemvPolicy::Pin::~Pin() { pinned = saved_; }

void GemvPolicy::set(const char* text) {
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<const GemvPolicy>> parsed;
  if (text == nullptr) {
    installed.store(nullptr, std::memory_order_release);
    return;
  }
  std::lock_guard<std::mutex> lock(mutex);
  auto found = parsed.find(text);
  if (found == parsed.end()) {
    auto policy = std::make_unique<const GemvPolicy>(parse(text));  // throws before any change
    found = parsed.emplace(text, std::move(policy)).first;
  }
  installed.store(found->second.get(), std::memory_order_release);
}

}  // namespace fastmv::kernels::cuda

namespace fastmv::cuda {

void set_gemv_policy(const char* policy) { kernels::cuda::GemvPolicy::set(policy); }

}  // namespace fastmv::cuda
