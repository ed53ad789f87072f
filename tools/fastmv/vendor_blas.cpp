// OpenBLAS and BLIS both export cblas_sgemv and cblas_dgemv. Each is opened with
// RTLD_LOCAL | RTLD_DEEPBIND so that its symbols stay private to its handle and its own
// internal calls bind to itself, never to the other library: both run in one process.
#include "vendor_blas.hpp"

#include <dlfcn.h>

#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace fastmv_tool {
namespace {

// The CBLAS ABI with 32-bit integers (LP64), as both Debian builds export it. The enums
// are C enums, passed as int.
constexpr int kCblasRowMajor = 101;
constexpr int kCblasColMajor = 102;
constexpr int kCblasNoTrans = 111;
constexpr int kCblasTrans = 112;
using CblasSgemv = void (*)(int, int, int, int, float, const float*, int, const float*, int, float,
                            float*, int);
using CblasDgemv = void (*)(int, int, int, int, double, const double*, int, const double*, int,
                            double, double*, int);
using SetThreads = void (*)(int);

int to_cblas_int(index_t value, const char* what) {
  if (value < INT_MIN || value > INT_MAX) {
    throw std::runtime_error(std::string(what) + " = " + std::to_string(value) +
                             " does not fit the vendor's 32-bit CBLAS interface");
  }
  return static_cast<int>(value);
}

// What a vendor library needs to be opened and driven.
struct VendorSpec {
  const char* name;
  std::vector<const char*> sonames;
  const char* set_threads_symbol;
  // Fills `description`; returns false when this build of the library cannot be used.
  bool (*describe)(void* handle, std::string& description);
};

bool describe_openblas(void* handle, std::string& description) {
  using GetConfig = const char* (*)();
  const auto get_config = reinterpret_cast<GetConfig>(dlsym(handle, "openblas_get_config"));
  description = get_config != nullptr ? get_config() : "OpenBLAS (version unknown)";
  if (description.find("USE64BITINT") != std::string::npos) {
    description += ": 64-bit integer (ILP64) build, not supported";
    return false;
  }
  return true;
}

bool describe_blis(void* handle, std::string& description) {
  using GetVersion = const char* (*)();
  using GetIntSize = long (*)();  // gint_t, 64-bit in every BLIS build on x86-64
  const auto get_version = reinterpret_cast<GetVersion>(dlsym(handle, "bli_info_get_version_str"));
  const auto get_int_size =
      reinterpret_cast<GetIntSize>(dlsym(handle, "bli_info_get_blas_int_type_size"));
  description = std::string("BLIS ") + (get_version != nullptr ? get_version() : "(version unknown)");
  if (get_int_size != nullptr && get_int_size() != 32) {
    description += ": " + std::to_string(get_int_size()) + "-bit BLAS integers, not supported";
    return false;
  }
  return true;
}

class VendorBlas final : public GemvImplementation {
 public:
  explicit VendorBlas(const VendorSpec& spec) : name_(spec.name) {
    std::string errors;
    for (const char* soname : spec.sonames) {
      handle_ = dlopen(soname, RTLD_NOW | RTLD_LOCAL | RTLD_DEEPBIND);
      if (handle_ != nullptr) break;
      errors += std::string(errors.empty() ? "" : "; ") + dlerror();
    }
    if (handle_ == nullptr) {
      description_ = "not found (" + errors + ")";
      return;
    }
    sgemv_ = reinterpret_cast<CblasSgemv>(dlsym(handle_, "cblas_sgemv"));
    dgemv_ = reinterpret_cast<CblasDgemv>(dlsym(handle_, "cblas_dgemv"));
    set_threads_ = reinterpret_cast<SetThreads>(dlsym(handle_, spec.set_threads_symbol));
    const bool usable = spec.describe(handle_, description_);
    if (sgemv_ == nullptr || dgemv_ == nullptr) {
      description_ += ": no cblas_sgemv / cblas_dgemv";
    }
    available_ = usable && sgemv_ != nullptr && dgemv_ != nullptr;
  }
  // The handle is never closed: OpenBLAS's and BLIS's thread pools do not survive dlclose.

  std::string name() const override { return name_; }
  bool available() const override { return available_; }
  std::string description() const override { return description_; }
  void set_threads(int threads) override {
    if (set_threads_ != nullptr) set_threads_(threads);
  }

  void gemv(const GemvCall<float>& c) override {
    sgemv_(layout(c.layout), op(c.op), to_cblas_int(c.m, "m"), to_cblas_int(c.n, "n"), c.alpha,
           c.A, to_cblas_int(c.lda, "lda"), c.x, to_cblas_int(c.incx, "incx"), c.beta, c.y,
           to_cblas_int(c.incy, "incy"));
  }
  void gemv(const GemvCall<double>& c) override {
    dgemv_(layout(c.layout), op(c.op), to_cblas_int(c.m, "m"), to_cblas_int(c.n, "n"), c.alpha,
           c.A, to_cblas_int(c.lda, "lda"), c.x, to_cblas_int(c.incx, "incx"), c.beta, c.y,
           to_cblas_int(c.incy, "incy"));
  }

 private:
  static int layout(fastmv::Layout layout) {
    return layout == fastmv::Layout::RowMajor ? kCblasRowMajor : kCblasColMajor;
  }
  // Real types: ConjTrans is Trans.
  static int op(fastmv::Op op) { return op == fastmv::Op::NoTrans ? kCblasNoTrans : kCblasTrans; }

  std::string name_;
  std::string description_;
  bool available_ = false;
  void* handle_ = nullptr;
  CblasSgemv sgemv_ = nullptr;
  CblasDgemv dgemv_ = nullptr;
  SetThreads set_threads_ = nullptr;
};

}  // namespace

std::unique_ptr<GemvImplementation> make_openblas() {
  // OpenBLAS's worker threads spin for 2^28 cycles (~0.1 s) after each call before they
  // sleep. Samples go round-robin (timing.hpp), so they would hold the cores while the
  // next implementation runs: measured on the 2-core machine, fastmv's second thread got
  // no core and dgemv at 4096 fell from ~25 to ~13 GB/s in half the runs. 2^20 cycles
  // (~0.4 ms) keeps them awake through a sample (each is preceded by warm-up calls)
  // and asleep soon after; 2^4 would make every call wake them (1 GB/s at 128^2).
  // Read when the library is loaded; a value the user set is kept.
  setenv("OPENBLAS_THREAD_TIMEOUT", "20", /*overwrite=*/0);
  return std::make_unique<VendorBlas>(VendorSpec{
      "openblas", {"libopenblas.so.0", "libopenblas.so"}, "openblas_set_num_threads",
      describe_openblas});
}

std::unique_ptr<GemvImplementation> make_blis() {
  return std::make_unique<VendorBlas>(
      VendorSpec{"blis", {"libblis.so.4", "libblis.so"}, "bli_thread_set_num_threads", describe_blis});
}

}  // namespace fastmv_tool
