#include "report_gemv.hpp"

#include <cstddef>
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <vector>

namespace fastmv_tool {
namespace {

double gbps(const PointResult& point, double seconds) {
  return seconds > 0 ? point.bytes / seconds * 1e-9 : 0;
}
double gflops(const PointResult& point, double seconds) {
  return seconds > 0 ? point.flops / seconds * 1e-9 : 0;
}

bool ran(const ImplementationResult& result) { return result.error.empty(); }

// The fastest vendor that gave the right result; nullptr when none did.
const ImplementationResult* best_other(const PointResult& point) {
  const ImplementationResult* best = nullptr;
  for (std::size_t i = 1; i < point.implementations.size(); ++i) {
    const auto& candidate = point.implementations[i];
    if (!candidate.correct) continue;
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

}  // namespace

void print_gemv_table(const GemvBenchReport& report, std::FILE* out) {
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
               "Median per call of >= %d samples (>= %.3g s each), samples round-robin across "
               "implementations; median of %d round(s) of the sweep. GB/s counts A, x and y "
               "once.\n\n",
               report.sampling.repeats, report.sampling.min_time_s, report.rounds);

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
    std::snprintf(text, sizeof text, "%.2f", gbps(point, result.timing.median_s));
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
                   100 * gbps(point, fastmv_result.timing.median_s) / report.read_ceiling.median_gbps);
    } else {
      std::fprintf(out, " %6s\n", "-");
    }
  }

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
      results.push_back({
          {"implementation", result.name},
          {"correct", result.correct},
          {"error", result.error},
          {"max_error", result.max_error},
          {"tolerance", result.tolerance},
          {"median_s", median},
          {"min_s", result.timing.min_s},
          {"samples", result.timing.samples},
          {"calls_per_sample", result.timing.calls_per_sample},
          {"gbps", gbps(point, median)},
          {"gbps_best", gbps(point, result.timing.min_s)},
          {"gflops", gflops(point, median)},
          {"fraction_of_read_ceiling",
           ceiling.median_gbps > 0 ? gbps(point, median) / ceiling.median_gbps : 0.0},
      });
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
        {"results", results},
    };
    points.push_back(entry);
  }
  const json document = {
      {"format", "fastmv-bench-gemv/1"},
      {"metadata", metadata},
      {"read_ceiling",
       {{"bytes", ceiling.bytes},
        {"threads", ceiling.threads},
        {"runs", ceiling.runs},
        {"median_gbps", ceiling.median_gbps},
        {"max_gbps", ceiling.max_gbps}}},
      {"implementations", implementations},
      {"points", points},
  };
  open_output(path) << document.dump(2) << '\n';
}

void write_gemv_csv(const GemvBenchReport& report, const std::string& path) {
  std::ofstream file = open_output(path);
  file << "dtype,layout,op,m,n,lda,implementation,correct,median_s,min_s,samples,"
          "calls_per_sample,gbps,gflops,fraction_of_read_ceiling,error\n";
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
           << result.timing.calls_per_sample << ',' << gbps(point, median) << ','
           << gflops(point, median) << ','
           << (report.read_ceiling.median_gbps > 0 ? gbps(point, median) / report.read_ceiling.median_gbps
                                                   : 0.0)
           << ",\"" << error << "\"\n";
    }
  }
}

}  // namespace fastmv_tool
