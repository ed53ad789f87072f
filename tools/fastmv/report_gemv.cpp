#include "report_gemv.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

#include "gpu_acceptance.hpp"

namespace fastmv_tool {
namespace {

// The bytes `result` moved: its own count where it differs from the point's (GPU).
double gbps(const PointResult& point, const ImplementationResult& result, double seconds) {
  const double bytes = result.bytes > 0 ? result.bytes : point.bytes;
  return seconds > 0 ? bytes / seconds * 1e-9 : 0;
}
double gflops(const PointResult& point, double seconds) {
  return seconds > 0 ? point.flops / seconds * 1e-9 : 0;
}

bool ran(const ImplementationResult& result) { return result.error.empty(); }

// fastmv's GB/s over the read floor's (PointResult::read_floor: A's bytes over its time),
// as the criterion sets it over the ceiling; 0 where either is missing.
double floor_fraction(const PointResult& point) {
  const ImplementationResult& fastmv_result = point.implementations.front();
  if (point.read_floor.samples == 0 || !fastmv_result.correct || point.matrix_bytes <= 0)
    return 0;
  return gbps(point, fastmv_result, fastmv_result.timing.median_s) /
         (point.matrix_bytes / point.read_floor.median_s * 1e-9);
}

// fastmv under another policy (`fastmv bench gemv --variant`), not a vendor.
bool is_variant(const ImplementationResult& result) { return is_variant_name(result.name); }

// The fastest vendor that gave the right result; nullptr when none did.
const ImplementationResult* best_other(const PointResult& point) {
  const ImplementationResult* best = nullptr;
  for (std::size_t i = 1; i < point.implementations.size(); ++i) {
    const auto& candidate = point.implementations[i];
    if (!candidate.correct || is_variant(candidate)) continue;
    if (best == nullptr || candidate.timing.median_s < best->timing.median_s) best = &candidate;
  }
  return best;
}

const char* short_layout(fastmv::Layout layout) {
  return layout == fastmv::Layout::RowMajor ? "row" : "col";
}

std::string point_name(const PointResult& point) {
  return point.dtype + " " + short_layout(point.layout) + " " + fastmv::to_string(point.op) + " " +
         std::to_string(point.shape.m) + "x" + std::to_string(point.shape.n);
}

std::ofstream open_output(const std::string& path) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error("cannot write '" + path + "'");
  return file;
}

// The CPU table: fastmv's GB/s and GFLOP/s, each vendor's GB/s, fastmv over the best.
void print_cpu_table(const GemvBenchReport& report, std::FILE* out) {
  const MachineInfo& machine = report.machine;
  std::fprintf(out, "fastmv bench gemv (%s sweep), %s on %s\n", to_string(report.sweep),
               machine.date_utc.c_str(), machine.hostname.c_str());
  std::fprintf(out, "CPU: %s, %d cores, L%d %s; SIMD %s (compiled: %s)\n", machine.cpu_model.c_str(),
               machine.cores, machine.llc_level, format_bytes(machine.llc_bytes).c_str(),
               fastmv::cpu_simd_target().c_str(), fastmv::cpu_simd_targets_compiled().c_str());
  const std::string pool = report.pool_bytes == 0 ? "no pool (one set, cache-hot)"
                                                   : "pool " + format_bytes(report.pool_bytes) + " rotated";
  std::fprintf(out, "fastmv %s, backend %s, %d threads (vendors too); %s; alpha %g, beta %g\n",
               FASTMV_VERSION_STRING, report.backend.c_str(), report.threads, pool.c_str(),
               report.alpha, report.beta);
  std::fprintf(out, "Read ceiling: %.1f GB/s (median of %d passes over %s, %d threads)\n",
               report.read_ceiling.median_gbps, report.read_ceiling.runs,
               format_bytes(report.read_ceiling.bytes).c_str(), report.read_ceiling.threads);
  for (const auto& status : report.implementations) {
    std::fprintf(out, "  %-9s %s\n", status.name.c_str(), status.description.c_str());
  }
  std::fprintf(out,
               "Median per call of >= %d samples (>= %.3g s of samples per implementation and "
               "point; a sample is a batch of calls lasting >= %.0f us), samples round-robin "
               "across implementations; median of %d round(s) of the sweep. GB/s counts A, x "
               "and y once.\n\n",
               report.sampling.repeats, report.sampling.min_time_s,
               report.sampling.min_sample_s * 1e6, report.rounds);

  std::vector<std::string> vendors;
  for (const auto& status : report.implementations) {
    if (status.used && status.name != "fastmv") vendors.push_back(status.name);
  }
  std::fprintf(out, "%-6s %-3s %-2s %8s %8s | %8s %8s |", "dtype", "lay", "op", "m", "n",
               "fastmv", "GFLOP/s");
  for (const auto& vendor : vendors) std::fprintf(out, " %8s", vendor.c_str());
  std::fprintf(out, " | %7s %6s\n", "vs best", "of ceil");
  std::fprintf(out, "%-6s %-3s %-2s %8s %8s | %8s %8s |", "", "", "", "", "", "GB/s", "");
  for (std::size_t i = 0; i < vendors.size(); ++i) std::fprintf(out, " %8s", "GB/s");
  std::fprintf(out, " | %7s %6s\n", "", "");

  auto cell = [&](const PointResult& point, const ImplementationResult& result) {
    if (!ran(result)) return std::string("ERROR");
    if (!result.correct) return std::string("WRONG");
    char text[32];
    std::snprintf(text, sizeof text, "%.2f", gbps(point, result, result.timing.median_s));
    return std::string(text);
  };
  for (const auto& point : report.points) {
    const ImplementationResult& fastmv_result = point.implementations.front();
    std::fprintf(out, "%-6s %-3s %-2s %8lld %8lld | %8s ", point.dtype.c_str(),
                 short_layout(point.layout), fastmv::to_string(point.op),
                 static_cast<long long>(point.shape.m), static_cast<long long>(point.shape.n),
                 cell(point, fastmv_result).c_str());
    if (fastmv_result.correct) {
      std::fprintf(out, "%8.2f |", gflops(point, fastmv_result.timing.median_s));
    } else {
      std::fprintf(out, "%8s |", "-");
    }
    for (std::size_t i = 1; i < point.implementations.size(); ++i) {
      std::fprintf(out, " %8s", cell(point, point.implementations[i]).c_str());
    }
    const ImplementationResult* best = best_other(point);
    if (fastmv_result.correct && best != nullptr) {
      std::fprintf(out, " | %7.2f", best->timing.median_s / fastmv_result.timing.median_s);
    } else {
      std::fprintf(out, " | %7s", "-");
    }
    if (fastmv_result.correct && report.read_ceiling.median_gbps > 0) {
      std::fprintf(out, " %5.0f%%\n",
                   100 * gbps(point, fastmv_result, fastmv_result.timing.median_s) /
                       report.read_ceiling.median_gbps);
    } else {
      std::fprintf(out, " %6s\n", "-");
    }
  }
}

std::string cublas_version_string(int version) {  // 130100 -> "13.1.0"
  return std::to_string(version / 10000) + "." + std::to_string(version / 100 % 100) + "." +
         std::to_string(version % 100);
}

std::string cuda_version_string(int version) {  // 13000 -> "13.0"
  return std::to_string(version / 1000) + "." + std::to_string(version % 1000 / 10);
}

// The GPU table: fastmv and cuBLAS, GB/s and time per call, their ratio, fastmv's
// fraction of the read ceiling.
void print_gpu_table(const GemvBenchReport& report, std::FILE* out) {
  const GpuInfo& gpu = *report.gpu;
  std::fprintf(out, "fastmv bench gemv (%s sweep), %s on %s\n", to_string(report.sweep),
               report.machine.date_utc.c_str(), report.machine.hostname.c_str());
  std::fprintf(out,
               "GPU %d: %s, sm_%d%d, %d SMs, L2 %s, %s (datasheet %.0f GB/s); driver %s, CUDA "
               "driver %s, runtime %s, cuBLAS %s\n",
               gpu.device, gpu.name.c_str(), gpu.compute_capability_major,
               gpu.compute_capability_minor, gpu.multiprocessors,
               format_bytes(gpu.l2_bytes).c_str(), format_bytes(gpu.memory_bytes).c_str(),
               gpu.memory_peak_gbps, gpu.driver_version.c_str(),
               cuda_version_string(gpu.cuda_driver_version).c_str(),
               cuda_version_string(gpu.cuda_runtime_version).c_str(),
               cublas_version_string(gpu.cublas_version).c_str());
  const std::string pool = report.pool_bytes == 0 ? "no pool (one set, L2-hot)"
                                                   : "pool " + format_bytes(report.pool_bytes) +
                                                         " (and >= 2 sets) rotated";
  std::fprintf(out, "fastmv %s, backend %s; %s; alpha %g, beta %g\n", FASTMV_VERSION_STRING,
               report.backend.c_str(), pool.c_str(), report.alpha, report.beta);
  std::fprintf(out, "Read ceiling: %.1f GB/s (median of %d passes over %s; %s)\n",
               report.read_ceiling.median_gbps, report.read_ceiling.runs,
               format_bytes(report.read_ceiling.bytes).c_str(), report.read_ceiling.method.c_str());
  for (const auto& status : report.implementations) {
    std::fprintf(out, "  %-9s %s\n", status.name.c_str(), status.description.c_str());
  }
  std::fprintf(
      out,
      "Median per call of >= %d samples (>= %.3g s of samples; a sample is a batch of "
      "back-to-back calls lasting >= %.0f us, between CUDA events, as many calls for every "
      "implementation), round-robin across "
      "implementations; median of %d round(s). GB/s counts A, x and y once, each in "
      "its own type (cuBLAS reads x in bf16 / fp16); ratio = fastmv GB/s / cuBLAS GB/s; of "
      "ceil = fastmv GB/s / the read ceiling; of floor (A >= 8 MiB) = fastmv GB/s / the GB/s "
      "of a kernel that only reads A, launched per call as fastmv's are, in the same "
      "round-robin.\n\n",
      report.sampling.repeats, report.sampling.min_time_s, report.sampling.min_sample_s * 1e6,
      report.rounds);

  std::fprintf(out, "%-6s %-3s %-2s %9s %9s | %8s %9s | %8s %9s %-21s | %6s %7s %8s\n", "dtype",
               "lay", "op", "m", "n", "fastmv", "us/call", "cublas", "us/call", "routine", "ratio",
               "of ceil", "of floor");
  std::fprintf(out, "%-6s %-3s %-2s %9s %9s | %8s %9s | %8s %9s %-21s | %6s %7s %8s\n", "", "", "",
               "", "", "GB/s", "", "GB/s", "", "", "", "", "");
  auto cell = [&](const PointResult& point, const ImplementationResult& result) {
    char text[48];
    if (!ran(result)) {
      std::snprintf(text, sizeof text, "%8s %9s", "ERROR", "-");
    } else if (!result.correct) {
      std::snprintf(text, sizeof text, "%8s %9s", "WRONG", "-");
    } else {
      std::snprintf(text, sizeof text, "%8.1f %9.2f", gbps(point, result, result.timing.median_s),
                    result.timing.median_s * 1e6);
    }
    return std::string(text);
  };
  for (const auto& point : report.points) {
    const ImplementationResult& fastmv_result = point.implementations.front();
    std::fprintf(out, "%-6s %-3s %-2s %9lld %9lld | %s |", point.dtype.c_str(),
                 short_layout(point.layout), fastmv::to_string(point.op),
                 static_cast<long long>(point.shape.m), static_cast<long long>(point.shape.n),
                 cell(point, fastmv_result).c_str());
    const ImplementationResult* cublas = nullptr;
    for (const auto& candidate : point.implementations) {
      if (candidate.name == "cublas") cublas = &candidate;
    }
    if (cublas != nullptr) {
      const std::string routine =
          cublas->routine.rfind("cublas", 0) == 0 ? cublas->routine.substr(6) : cublas->routine;
      std::fprintf(out, " %s %-21s |", cell(point, *cublas).c_str(), routine.c_str());
    } else {
      std::fprintf(out, " %8s %9s %-21s |", "-", "-", "");
    }
    if (cublas != nullptr && cublas->correct && fastmv_result.correct) {
      std::fprintf(out, " %6.2f", gbps(point, fastmv_result, fastmv_result.timing.median_s) /
                                      gbps(point, *cublas, cublas->timing.median_s));
    } else {
      std::fprintf(out, " %6s", "-");
    }
    if (fastmv_result.correct && report.read_ceiling.median_gbps > 0) {
      std::fprintf(out, " %6.1f%%",
                   100 * gbps(point, fastmv_result, fastmv_result.timing.median_s) /
                       report.read_ceiling.median_gbps);
    } else {
      std::fprintf(out, " %7s", "-");
    }
    const double of_floor = floor_fraction(point);
    if (of_floor > 0) {
      std::fprintf(out, " %7.1f%%\n", 100 * of_floor);
    } else {
      std::fprintf(out, " %8s\n", "-");
    }
  }
}

// --variant: each variant's time over fastmv's (the environment's policy) at every point
// where both ran correctly, from the same round-robin, then per dtype the geometric mean
// and how many points moved by more than 1 %.
void print_variants(const GemvBenchReport& report, std::FILE* out) {
  std::vector<std::string> labels;
  for (const auto& implementation : report.implementations) {
    if (is_variant_name(implementation.name)) labels.push_back(implementation.name);
  }
  if (labels.empty()) return;
  std::fprintf(out, "\nVariants, us per call (time over fastmv's), same round-robin:\n");
  struct Moved {
    double log_sum = 0;
    int points = 0, faster = 0, slower = 0;
  };
  std::vector<std::pair<std::string, Moved>> moved;  // (dtype + label, ...), in order met
  for (const auto& point : report.points) {
    const ImplementationResult& base = point.implementations.front();
    std::fprintf(out, "%-6s %-3s %-2s %9lld %9lld  fastmv %9.2f", point.dtype.c_str(),
                 short_layout(point.layout), fastmv::to_string(point.op),
                 static_cast<long long>(point.shape.m), static_cast<long long>(point.shape.n),
                 base.correct ? base.timing.median_s * 1e6 : 0.0);
    for (const auto& label : labels) {
      const ImplementationResult* variant = nullptr;
      for (const auto& candidate : point.implementations) {
        if (candidate.name == label) variant = &candidate;
      }
      if (variant == nullptr || !variant->correct || !base.correct) {
        std::fprintf(out, "  %s %9s", label.c_str() + kVariantPrefix.size(), "-");
        continue;
      }
      const double ratio = variant->timing.median_s / base.timing.median_s;
      std::fprintf(out, "  %s %9.2f (%.3f)", label.c_str() + kVariantPrefix.size(), variant->timing.median_s * 1e6, ratio);
      const std::string key = point.dtype + " " + label;
      auto found = std::find_if(moved.begin(), moved.end(), [&](const auto& m) { return m.first == key; });
      if (found == moved.end()) found = moved.insert(moved.end(), {key, Moved{}});
      found->second.log_sum += std::log(ratio);
      ++found->second.points;
      found->second.faster += ratio < 0.99 ? 1 : 0;
      found->second.slower += ratio > 1.01 ? 1 : 0;
    }
    std::fprintf(out, "\n");
  }
  for (const auto& [key, m] : moved) {
    std::fprintf(out, "%s: geometric mean %.4f of fastmv's time over %d points; %d faster and %d slower by more than 1 %%\n",
                 key.c_str(), std::exp(m.log_sum / m.points), m.points, m.faster, m.slower);
  }
}

void print_acceptance(const std::vector<AcceptanceItem>& items, std::FILE* out) {
  std::fprintf(out, "\nAcceptance (issue 3), on this run's points:\n");
  for (const auto& item : items) {
    std::fprintf(out, "  %-4s %d. %s\n       %s\n", to_string(item.status), item.number,
                 item.requirement.c_str(), item.summary.c_str());
    if (item.status != AcceptanceItem::Status::Fail) continue;
    for (const auto& offender : item.offenders)
      std::fprintf(out, "         %s\n", offender.c_str());
  }
}

// Below the table: the run's size and time, and every wrong result or error.
void print_failures(const GemvBenchReport& report, std::FILE* out) {
  std::fprintf(out, "\n%zu points in %.1f s.\n", report.points.size(), report.elapsed_s);
  if (report.all_correct()) {
    std::fprintf(out, "Every implementation matched the reference at every point.\n");
    return;
  }
  std::fprintf(out, "WRONG RESULTS:\n");
  for (const auto& point : report.points) {
    for (const auto& result : point.implementations) {
      if (result.correct) continue;
      if (ran(result)) {
        std::fprintf(out, "  %-9s %s: max error %.3g > tolerance %.3g\n", result.name.c_str(),
                     point_name(point).c_str(), result.max_error, result.tolerance);
      } else {
        std::fprintf(out, "  %-9s %s: %s\n", result.name.c_str(), point_name(point).c_str(),
                     result.error.c_str());
      }
    }
  }
}

}  // namespace

void print_gemv_table(const GemvBenchReport& report, std::FILE* out) {
  if (report.gpu) {
    print_gpu_table(report, out);
  } else {
    print_cpu_table(report, out);
  }
  print_failures(report, out);
  if (report.gpu) print_variants(report, out);
  if (report.gpu) print_acceptance(check_gpu_acceptance(report), out);
}

void write_gemv_json(const GemvBenchReport& report, const std::string& path) {
  using json = nlohmann::ordered_json;  // keys in the order written, for people reading it
  const MachineInfo& machine = report.machine;
  json metadata = {
      {"program", "fastmv bench gemv"},
      {"command_line", report.command_line},
      {"date_utc", machine.date_utc},
      {"hostname", machine.hostname},
      {"cpu_model", machine.cpu_model},
      {"cores", machine.cores},
      {"llc_level", machine.llc_level},
      {"llc_bytes", machine.llc_bytes},
      {"fastmv_version", FASTMV_VERSION_STRING},
      {"simd_target", fastmv::cpu_simd_target()},
      {"simd_targets_compiled", fastmv::cpu_simd_targets_compiled()},
      {"backend", report.backend},
      {"threads", report.threads},
      {"sweep", to_string(report.sweep)},
      {"pool_bytes", report.pool_bytes},
      {"repeats", report.sampling.repeats},
      {"rounds", report.rounds},
      {"min_time_s", report.sampling.min_time_s},
      {"warm_up_s", report.sampling.warm_up_s},
      {"min_sample_s", report.sampling.min_sample_s},
      {"alpha", report.alpha},
      {"beta", report.beta},
      {"elapsed_s", report.elapsed_s},
      {"all_correct", report.all_correct()},
  };
  const ReadCeiling& ceiling = report.read_ceiling;
  json implementations = json::array();
  for (const auto& status : report.implementations) {
    implementations.push_back(
        {{"name", status.name}, {"used", status.used}, {"description", status.description}});
  }
  json points = json::array();
  for (const auto& point : report.points) {
    json results = json::array();
    for (const auto& result : point.implementations) {
      const double median = result.timing.median_s;
      json entry = {
          {"implementation", result.name},
          {"correct", result.correct},
          {"error", result.error},
          {"max_error", result.max_error},
          {"tolerance", result.tolerance},
          {"median_s", median},
          {"min_s", result.timing.min_s},
          {"samples", result.timing.samples},
          {"calls_per_sample", result.timing.calls_per_sample},
          {"gbps", gbps(point, result, median)},
          {"gbps_best", gbps(point, result, result.timing.min_s)},
          {"gflops", gflops(point, median)},
          {"fraction_of_read_ceiling",
           ceiling.median_gbps > 0 ? gbps(point, result, median) / ceiling.median_gbps : 0.0},
      };
      if (report.gpu) {
        entry["routine"] = result.routine;
        entry["bytes"] = result.bytes > 0 ? result.bytes : point.bytes;
        json routines = json::array();
        for (const auto& [routine, timing] : result.routines) {
          routines.push_back({{"routine", routine},
                              {"median_s", timing.median_s},
                              {"min_s", timing.min_s},
                              {"samples", timing.samples},
                              {"calls_per_sample", timing.calls_per_sample},
                              {"gbps", gbps(point, result, timing.median_s)}});
        }
        entry["routines"] = routines;
      }
      results.push_back(entry);
    }
    const ImplementationResult* best = best_other(point);
    const ImplementationResult& fastmv_result = point.implementations.front();
    json entry = {
        {"dtype", point.dtype},
        {"layout", fastmv::to_string(point.layout)},
        {"op", fastmv::to_string(point.op)},
        {"m", point.shape.m},
        {"n", point.shape.n},
        {"lda", point.lda},
        {"bytes", point.bytes},
        {"flops", point.flops},
        {"pool_sets", point.pool_sets},
        {"best_other", best != nullptr ? json(best->name) : json(nullptr)},
        {"fastmv_over_best_other", best != nullptr && fastmv_result.correct
                                       ? json(best->timing.median_s / fastmv_result.timing.median_s)
                                       : json(nullptr)},
    };
    if (report.gpu) {
      entry["matrix_bytes"] = point.matrix_bytes;
      if (point.read_floor.samples > 0) {
        entry["read_floor"] = {{"median_s", point.read_floor.median_s},
                               {"min_s", point.read_floor.min_s},
                               {"samples", point.read_floor.samples},
                               {"calls_per_sample", point.read_floor.calls_per_sample},
                               {"fastmv_fraction", floor_fraction(point)}};
      }
      entry["fastmv_over_best_other_gbps"] =
          best != nullptr && fastmv_result.correct
              ? json(gbps(point, fastmv_result, fastmv_result.timing.median_s) /
                     gbps(point, *best, best->timing.median_s))
              : json(nullptr);
    }
    entry["results"] = results;
    points.push_back(entry);
  }
  json read_ceiling = {{"bytes", ceiling.bytes},
                      {"threads", ceiling.threads},
                      {"runs", ceiling.runs},
                      {"median_gbps", ceiling.median_gbps},
                      {"max_gbps", ceiling.max_gbps}};
  json document = {{"format", "fastmv-bench-gemv/1"}, {"metadata", metadata}};
  if (report.gpu) {
    const GpuInfo& gpu = *report.gpu;
    document["gpu"] = {
        {"device", gpu.device},
        {"name", gpu.name},
        {"compute_capability", std::to_string(gpu.compute_capability_major) + "." +
                                   std::to_string(gpu.compute_capability_minor)},
        {"multiprocessors", gpu.multiprocessors},
        {"l2_bytes", gpu.l2_bytes},
        {"memory_bytes", gpu.memory_bytes},
        {"memory_peak_gbps", gpu.memory_peak_gbps},
        {"driver_version", gpu.driver_version},
        {"cuda_driver_version", cuda_version_string(gpu.cuda_driver_version)},
        {"cuda_runtime_version", cuda_version_string(gpu.cuda_runtime_version)},
        {"cublas_version", cublas_version_string(gpu.cublas_version)},
    };
    read_ceiling["method"] = ceiling.method;
  }
  document["read_ceiling"] = read_ceiling;
  document["implementations"] = implementations;
  if (report.gpu) {
    json acceptance = json::array();
    for (const auto& item : check_gpu_acceptance(report)) {
      acceptance.push_back({{"item", item.number},
                            {"requirement", item.requirement},
                            {"status", to_string(item.status)},
                            {"points", item.points},
                            {"summary", item.summary},
                            {"offenders", item.offenders}});
    }
    document["acceptance"] = acceptance;
  }
  document["points"] = points;
  open_output(path) << document.dump(2) << '\n';
}

void write_gemv_csv(const GemvBenchReport& report, const std::string& path) {
  std::ofstream file = open_output(path);
  file << "dtype,layout,op,m,n,lda,implementation,correct,median_s,min_s,samples,"
          "calls_per_sample,gbps,gflops,fraction_of_read_ceiling,"
       << (report.gpu ? "bytes,routine,read_floor_s," : "") << "error\n";
  for (const auto& point : report.points) {
    for (const auto& result : point.implementations) {
      const double median = result.timing.median_s;
      std::string error = result.error;
      for (auto& c : error) {
        if (c == '"' || c == '\n') c = '\'';
      }
      file << point.dtype << ',' << fastmv::to_string(point.layout) << ','
           << fastmv::to_string(point.op) << ',' << point.shape.m << ',' << point.shape.n << ','
           << point.lda << ',' << result.name << ',' << (result.correct ? "true" : "false") << ','
           << median << ',' << result.timing.min_s << ',' << result.timing.samples << ','
           << result.timing.calls_per_sample << ',' << gbps(point, result, median) << ','
           << gflops(point, median) << ','
           << (report.read_ceiling.median_gbps > 0
                   ? gbps(point, result, median) / report.read_ceiling.median_gbps
                   : 0.0);
      if (report.gpu)
        file << ',' << (result.bytes > 0 ? result.bytes : point.bytes) << ',' << result.routine
             << ',' << point.read_floor.median_s;
      file << ",\"" << error << "\"\n";
    }
  }
}

}  // namespace fastmv_tool
