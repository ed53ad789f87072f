// fastmv: the command-line program.
//   fastmv info                          this build, this machine, the vendor libraries found
//   fastmv bench gemv [--quick ...]      fastmv against OpenBLAS, BLIS and Eigen, or on a
//                                        GPU (--backend cuda) against cuBLAS
//   fastmv solve jacobi [--order N --alpha A | --matrix A.mtx]
//                                        Jacobi's method on fastmv's backends, against the
//                                        seed paper's cuBLAS loop and an OpenBLAS loop
//   fastmv bench transform4 [--quick ...] batched 4x4 transforms: seed 001's ladder and
//                                        fastmv on the CPU, fastmv against cuBLAS and the
//                                        copy bandwidths on a GPU
//   fastmv plot gemv RESULTS.json -o OUT.png
//   fastmv plot transform4 RESULTS.json -o OUT.png
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "bench_gemv.hpp"
#include "bench_transform4.hpp"
#include "fastmv/fastmv.hpp"
#include "plot_command.hpp"
#include "report_gemv.hpp"
#include "solve_jacobi.hpp"
#include "sysinfo.hpp"
#include "vendor_blas.hpp"
#include "vendor_eigen.hpp"

namespace {

using namespace fastmv_tool;

// Exit statuses: 1 when an implementation gave a wrong result, 2 for anything else.
constexpr int kWrongResult = 1;
constexpr int kFailure = 2;

int run_info() {
  const MachineInfo machine = machine_info();
  const fastmv::Context automatic;
  std::printf("fastmv %s\n", FASTMV_VERSION_STRING);
  std::printf("CPU:            %s, %d cores, L%d %s\n", machine.cpu_model.c_str(), machine.cores,
              machine.llc_level, format_bytes(machine.llc_bytes).c_str());
  std::printf("SIMD target:    %s (compiled: %s)\n", fastmv::cpu_simd_target().c_str(),
              fastmv::cpu_simd_targets_compiled().c_str());
  std::printf("Threads:        %d (OpenMP default)\n", automatic.threads());
  std::printf("CUDA:           %s, %d device(s)\n", fastmv::cuda_built() ? "built" : "not built",
              fastmv::cuda_device_count());
  std::printf("Backends:       reference %s, cpu %s, cuda %s; auto runs on %s\n",
              fastmv::Context::available(fastmv::Backend::Reference) ? "yes" : "no",
              fastmv::Context::available(fastmv::Backend::Cpu) ? "yes" : "no",
              fastmv::Context::available(fastmv::Backend::Cuda) ? "yes" : "no",
              fastmv::to_string(automatic.backend()));
  std::printf("Vendors:\n");
  for (const auto& vendor : {make_openblas(), make_blis(), make_eigen()}) {
    std::printf("  %-9s %s%s\n", vendor->name().c_str(), vendor->available() ? "" : "missing: ",
                vendor->description().c_str());
  }
  return 0;
}

std::string join_arguments(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i == 0 ? "" : " ") + std::string(argv[i]);
  return line;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"fastmv: fast matrix-vector kernels; benchmarks against the vendor libraries"};
  app.require_subcommand(1);

  CLI::App* info = app.add_subcommand("info", "Show this build, the machine and the vendor libraries found");

  CLI::App* bench = app.add_subcommand("bench", "Benchmark an operation")->require_subcommand(1);
  CLI::App* bench_gemv =
      bench->add_subcommand("gemv", "GEMV: fastmv against OpenBLAS, BLIS and Eigen (CPU) or "
                                    "cuBLAS (GPU), side by side");
  GemvBenchOptions options;
  bool quick = false;
  bool acceptance = false;
  std::string backend = "auto";
  std::vector<std::string> layouts = {"row", "col"};
  std::vector<std::string> ops = {"N", "T"};
  std::vector<long long> sizes;
  std::vector<std::string> shapes;
  int repeats = 0;
  double min_time = 0;
  std::string pool_bytes;
  std::string json_path;
  std::string csv_path;
  bool progress = false;
  bool no_progress = false;
  auto* quick_option = bench_gemv->add_flag(
      "--quick", quick,
      "CPU: orders 16, 64, 256, 1024 and 4096 only, under a minute on two cores. GPU: a dozen "
      "shapes, seconds");
  bench_gemv->add_flag("--acceptance", acceptance,
                       "CPU: the performance acceptance points, orders 16..256 sampled, 4096 and "
                       "16384. GPU: the whole sweep of issue 3 (also the default), with its "
                       "acceptance summary")
      ->excludes(quick_option);
  bench_gemv->add_option("--backend", backend,
                         "fastmv backend; auto is cuda when a GPU is present, else cpu")
      ->check(CLI::IsMember({"auto", "reference", "cpu", "cuda"}))->capture_default_str();
  bench_gemv->add_option("--threads", options.threads,
                         "Threads for fastmv and every vendor; 0: fastmv's default (OpenMP)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  std::vector<std::string> dtypes;
  bench_gemv->add_option("--dtype", dtypes,
                         "Element types (default: float,double on the CPU; float,bf16,fp16 on a "
                         "GPU). bf16, fp16: A in that type, x and y float; GPU only")
      ->delimiter(',')->check(CLI::IsMember({"float", "fp32", "double", "fp64", "bf16", "fp16"}));
  bench_gemv->add_option("--layout", layouts, "Storage orders")
      ->delimiter(',')->check(CLI::IsMember({"row", "col"}))->capture_default_str();
  bench_gemv->add_option("--op", ops, "op(A): N = A, T = A^T")
      ->delimiter(',')->check(CLI::IsMember({"N", "T"}, CLI::ignore_case))->capture_default_str();
  bench_gemv->add_option("--sizes", sizes, "Square orders, replacing the sweep's shapes")
      ->delimiter(',')->check(CLI::PositiveNumber);
  bench_gemv->add_option("--shapes", shapes, "ROWSxCOLS shapes (e.g. 100003x3), replacing the sweep's")
      ->delimiter(',');
  bench_gemv->add_option("--repeats", repeats, "Samples per implementation and point, at least")
      ->check(CLI::PositiveNumber);
  bench_gemv->add_option("--min-time", min_time, "Seconds of samples per implementation and point, at least")
      ->check(CLI::NonNegativeNumber);
  double min_sample_time = 0;
  bench_gemv->add_option("--min-sample-time", min_sample_time,
                         "Seconds a sample (a batch of back-to-back calls) lasts, at least "
                         "(default: 400e-6 on the GPU, 20e-6 on the CPU)")
      ->check(CLI::Range(1e-6, 1.0));
  int rounds = 0;
  bench_gemv->add_option("--rounds", rounds,
                         "Measure the whole sweep this many times; each point reports its median "
                         "round (default 3 for --acceptance on the CPU, else 1)")
      ->check(CLI::PositiveNumber);
  bench_gemv->add_option("--pool-bytes", pool_bytes,
                         "Operands rotated per point, e.g. 512M (default max(4 x LLC, 256M) on "
                         "the CPU, max(8 x L2, 512M) and >= 2 sets on a GPU); 0: one set, "
                         "cache-hot");
  bench_gemv->add_option("--alpha", options.alpha, "alpha of y = alpha op(A) x + beta y")
      ->capture_default_str();
  bench_gemv->add_option("--beta", options.beta, "beta; != 0 makes every call read y too")
      ->capture_default_str();
  bench_gemv->add_option("--json", json_path, "Write the results as JSON (input of fastmv plot)");
  bench_gemv->add_option("--csv", csv_path, "Write one CSV row per point and implementation");
  bench_gemv->add_option("--vendors", options.vendors, "Vendors to run (default: every one found)")
      ->delimiter(',')->check(CLI::IsMember({"openblas", "blis", "eigen", "cublas"}));
  std::vector<std::string> variant_texts;
  bench_gemv->add_option("--variant", variant_texts,
                         "GPU: also time fastmv under LABEL=POLICY (FASTMV_CUDA_GEMV_POLICY's "
                         "syntax over the defaults; may be empty), as fastmv:LABEL in the same "
                         "round-robin; repeat for more")
      ->take_all();
  auto* progress_option =
      bench_gemv->add_flag("--progress", progress, "Progress on stderr even when it is not a terminal");
  bench_gemv->add_flag("--no-progress", no_progress, "No progress on stderr")->excludes(progress_option);

  CLI::App* bench_t4 = bench->add_subcommand(
      "transform4", "Batched 4x4 transforms: seed 001's CPU ladder, fastmv on the CPU and the GPU, "
                    "cublasSgemm, the copy bandwidths, side by side");
  Transform4BenchOptions t4;
  bool t4_quick = false, t4_no_cpu = false, t4_no_gpu = false, t4_no_grain = false;
  bench_t4->add_flag("--quick", t4_quick, "256K and 1M vertices, the ladder at 256K, the grain curve at 1M, 3 samples");
  bench_t4->add_option("--sizes", t4.sizes, "Vertices of fastmv, the vendor and the ceilings")
      ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  bench_t4->add_option("--ladder-sizes", t4.ladder_sizes, "Vertices of seed 001's CPU ladder")
      ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  bench_t4->add_option("--grain-sizes", t4.grain_sizes, "Vertices of the grain-size curve")
      ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  bench_t4->add_option("--threads", t4.threads, "CPU threads; 0: fastmv's default (OpenMP)")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  bench_t4->add_option("--repetitions", t4.repetitions, "Calls per sample: exactly this many at the ladder's sizes (the seed: 100), at most elsewhere")
      ->check(CLI::PositiveNumber)->capture_default_str();
  bench_t4->add_option("--samples", t4.samples, "Samples per implementation and size; the median is shown")
      ->check(CLI::PositiveNumber)->capture_default_str();
  bench_t4->add_option("--min-sample-time", t4.min_sample_s,
                       "Seconds a sample should last; fewer calls than --repetitions when they would last longer")
      ->check(CLI::PositiveNumber)->capture_default_str();
  bench_t4->add_flag("--no-cpu", t4_no_cpu, "Leave out the CPU ladder and fastmv on the CPU");
  bench_t4->add_flag("--no-gpu", t4_no_gpu, "Leave out the GPU even when there is one");
  bench_t4->add_flag("--no-grain", t4_no_grain, "Leave out the grain-size curve");
  bench_t4->add_option("--json", t4.json_path, "Write the results as JSON (input of fastmv plot transform4)");

  CLI::App* plot = app.add_subcommand("plot", "Plot benchmark results")->require_subcommand(1);
  CLI::App* plot_gemv = plot->add_subcommand("gemv", "Throughput against order, one line per implementation");
  std::string plot_input;
  std::string plot_output = "gemv.png";
  std::string plot_metric = "gbps";
  plot_gemv->add_option("results", plot_input, "JSON written by fastmv bench gemv --json")
      ->required()->check(CLI::ExistingFile);
  plot_gemv->add_option("-o,--output", plot_output, "PNG to write")->capture_default_str();
  plot_gemv->add_option("--metric", plot_metric, "gbps or gflops")
      ->check(CLI::IsMember({"gbps", "gflops"}))->capture_default_str();

  CLI::App* plot_t4 = plot->add_subcommand("transform4", "Bar charts of fastmv bench transform4's results");
  std::string plot_t4_input;
  std::string plot_t4_output = "transform4.png";
  plot_t4->add_option("results", plot_t4_input, "JSON written by fastmv bench transform4 --json")
      ->required()->check(CLI::ExistingFile);
  plot_t4->add_option("-o,--output", plot_t4_output, "PNG to write")->capture_default_str();

  CLI::App* solve = app.add_subcommand("solve", "Solve linear systems")->require_subcommand(1);
  CLI::App* solve_jacobi = solve->add_subcommand(
      "jacobi", "Jacobi's method on fastmv's backends and the seed paper's baselines, side by side");
  JacobiCommandOptions jacobi;
  bool paper = false;
  std::string jacobi_backend = "all";
  std::string jacobi_layout = "row";
  std::string jacobi_stop = "residual";
  bool no_baselines = false;
  auto* orders_option = solve_jacobi->add_option("--order", jacobi.orders, "Orders of the generated systems")
      ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  auto* alphas_option = solve_jacobi->add_option("--alpha", jacobi.alphas,
                             "Diagonal dominance of the generated systems: a_ii = alpha * sum_j a_ij "
                             "(the paper: 1.1, 1.2, 1.4; below 1 diverges)")
      ->delimiter(',')->check(CLI::PositiveNumber)->capture_default_str();
  auto* paper_option = solve_jacobi->add_flag(
      "--paper", paper, "The paper's experiment: orders 1024, 2048, 4096, 8192, 12800 x alphas 1.1, 1.2, 1.4");
  paper_option->excludes(orders_option)->excludes(alphas_option);
  solve_jacobi->add_option("--seed", jacobi.seed, "Seed of the generated systems")->capture_default_str();
  auto* matrix_option = solve_jacobi->add_option("--matrix", jacobi.matrix_path, "A from a Matrix Market file")
      ->check(CLI::ExistingFile)->excludes(paper_option)->excludes(orders_option)->excludes(alphas_option);
  solve_jacobi->add_option("--rhs", jacobi.rhs_path, "b from a Matrix Market file (default: A * ones)")
      ->check(CLI::ExistingFile)->needs(matrix_option);
  solve_jacobi->add_option("--dtype", jacobi.dtype, "Element type")
      ->check(CLI::IsMember({"float", "double"}))->capture_default_str();
  solve_jacobi->add_option("--layout", jacobi_layout, "Storage order of A")
      ->check(CLI::IsMember({"row", "col"}))->capture_default_str();
  solve_jacobi->add_option("--backend", jacobi_backend,
                           "fastmv backends: all (cpu, and cuda when there is a GPU), or one")
      ->check(CLI::IsMember({"all", "auto", "reference", "cpu", "cuda"}))->capture_default_str();
  solve_jacobi->add_flag("--no-baselines", no_baselines,
                         "Leave out the cuBLAS loop with the update on the host and the OpenBLAS loop");
  solve_jacobi->add_option("--stop", jacobi_stop, "Stopping rule (the baselines always use residual)")
      ->check(CLI::IsMember({"residual", "update", "both", "either"}))->capture_default_str();
  solve_jacobi->add_option("--tolerance", jacobi.solver.tolerance, "Tolerance of the stopping rule")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  solve_jacobi->add_option("--max-iterations", jacobi.solver.max_iterations, "Iteration limit")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  solve_jacobi->add_option("--check-every", jacobi.solver.check_every,
                           "Iterations between convergence checks; 0: fastmv chooses")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  solve_jacobi->add_option("--threads", jacobi.threads, "CPU threads; 0: the OpenMP default")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  solve_jacobi->add_option("--repeats", jacobi.repeats, "Timed solves per implementation; the median is shown")
      ->check(CLI::PositiveNumber)->capture_default_str();
  solve_jacobi->add_option("--warmups", jacobi.warmups, "Untimed solves first")
      ->check(CLI::NonNegativeNumber)->capture_default_str();
  solve_jacobi->add_option("--json", jacobi.json_path, "Write the results as JSON");

  CLI11_PARSE(app, argc, argv);

  try {
    if (info->parsed()) return run_info();
    if (plot_gemv->parsed()) return run_plot_gemv(plot_input, plot_output, plot_metric);
    if (plot_t4->parsed()) return run_plot_script("plot_transform4.py", {plot_t4_input, "-o", plot_t4_output});
    if (bench_t4->parsed()) {
      if (t4_quick) {
        t4.sizes = {1 << 18, 1 << 20};
        t4.ladder_sizes = {1 << 18};
        t4.grain_sizes = {1 << 20};
        t4.samples = 3;
      }
      t4.cpu = !t4_no_cpu;
      t4.gpu = !t4_no_gpu;
      t4.grain = !t4_no_grain;
      if (t4_no_cpu) t4.ladder_sizes.clear();
      if (t4_no_grain) t4.grain_sizes.clear();
      t4.command_line = join_arguments(argc, argv);
      return run_transform4_bench(t4);
    }
    if (solve_jacobi->parsed()) {
      if (paper) {
        jacobi.orders = {1024, 2048, 4096, 8192, 12800};
        jacobi.alphas = {1.1, 1.2, 1.4};
      }
      jacobi.layout = jacobi_layout == "row" ? fastmv::Layout::RowMajor : fastmv::Layout::ColMajor;
      jacobi.solver.stop = jacobi_stop == "update" ? fastmv::JacobiStop::Update
                           : jacobi_stop == "both" ? fastmv::JacobiStop::ResidualAndUpdate
                           : jacobi_stop == "either" ? fastmv::JacobiStop::ResidualOrUpdate
                                                     : fastmv::JacobiStop::Residual;
      if (jacobi_backend == "all") {
        jacobi.backends = {"cpu"};
        if (fastmv::Context::available(fastmv::Backend::Cuda)) jacobi.backends.insert(jacobi.backends.begin(), "cuda");
      } else if (jacobi_backend == "auto") {
        jacobi.backends = {fastmv::to_string(fastmv::Context().backend())};
      } else {
        jacobi.backends = {jacobi_backend};
      }
      jacobi.baselines = !no_baselines;
      jacobi.command_line = join_arguments(argc, argv);
      return run_solve_jacobi(jacobi);
    }

    options.sweep = acceptance ? Sweep::Acceptance : quick ? Sweep::Quick : Sweep::Full;
    options.backend = backend == "reference" ? fastmv::Backend::Reference
                      : backend == "cpu"     ? fastmv::Backend::Cpu
                      : backend == "cuda"    ? fastmv::Backend::Cuda
                                             : fastmv::Backend::Auto;
    for (const auto& dtype : dtypes) {
      options.dtypes.push_back(dtype == "fp32" ? "float" : dtype == "fp64" ? "double" : dtype);
    }
    options.layouts.clear();
    for (const auto& layout : layouts) {
      options.layouts.push_back(layout == "row" ? fastmv::Layout::RowMajor : fastmv::Layout::ColMajor);
    }
    options.ops.clear();
    for (const auto& op : ops) {
      options.ops.push_back(op == "N" || op == "n" ? fastmv::Op::NoTrans : fastmv::Op::Trans);
    }
    for (long long order : sizes) options.shapes.push_back({order, order});
    for (const auto& shape : shapes) options.shapes.push_back(parse_shape(shape));
    if (bench_gemv->count("--repeats") > 0) options.repeats = repeats;
    if (bench_gemv->count("--min-time") > 0) options.min_time_s = min_time;
    if (bench_gemv->count("--min-sample-time") > 0) options.min_sample_s = min_sample_time;
    options.rounds = rounds;
    if (!pool_bytes.empty()) options.pool_bytes = parse_bytes(pool_bytes);
    for (const auto& text : variant_texts) options.variants.push_back(parse_variant(text, options.variants));
    if (options.alpha == 0) {
      throw std::invalid_argument("--alpha 0 reads neither A nor x: nothing to measure");
    }
    options.progress = !no_progress && (progress || isatty(STDERR_FILENO) != 0);
    options.command_line = join_arguments(argc, argv);

    const GemvBenchReport report = run_gemv_bench(options);
    print_gemv_table(report, stdout);
    if (!json_path.empty()) write_gemv_json(report, json_path);
    if (!csv_path.empty()) write_gemv_csv(report, csv_path);
    return report.all_correct() ? 0 : kWrongResult;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "fastmv: %s\n", error.what());
    return kFailure;
  }
}
