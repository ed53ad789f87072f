#include "gemv_implementation.hpp"

#include <chrono>

namespace fastmv_tool {
namespace {

template <typename T>
double time_host_calls(GemvImplementation& implementation, const GemvPool<T>& pool,
                       std::size_t first, std::size_t calls) {
  std::size_t set = first % pool.sets;
  const auto start = std::chrono::steady_clock::now();
  for (std::size_t i = 0; i < calls; ++i) {
    implementation.gemv(pool.call(set));
    set = set + 1 == pool.sets ? 0 : set + 1;
  }
  const auto stop = std::chrono::steady_clock::now();
  return std::chrono::duration<double>(stop - start).count();
}

class FastmvGemv final : public GemvImplementation {
 public:
  explicit FastmvGemv(const fastmv::Context& context) : context_(context) {}

  std::string name() const override { return "fastmv"; }
  bool available() const override { return true; }
  std::string description() const override {
    return std::string("fastmv ") + FASTMV_VERSION_STRING + ", backend " +
           fastmv::to_string(context_.backend()) + ", SIMD " + fastmv::cpu_simd_target();
  }
  void set_threads(int threads) override { context_.set_threads(threads); }

  void gemv(const GemvCall<float>& c) override { run(c); }
  void gemv(const GemvCall<double>& c) override { run(c); }

 private:
  template <typename T>
  void run(const GemvCall<T>& c) {
    fastmv::gemv(context_, c.layout, c.op, c.m, c.n, c.alpha, c.A, c.lda, c.x, c.incx, c.beta,
                 c.y, c.incy);
  }

  fastmv::Context context_;
};

}  // namespace

double GemvImplementation::time_calls(const GemvPool<float>& pool, std::size_t first,
                                      std::size_t calls) {
  return time_host_calls(*this, pool, first, calls);
}

double GemvImplementation::time_calls(const GemvPool<double>& pool, std::size_t first,
                                      std::size_t calls) {
  return time_host_calls(*this, pool, first, calls);
}

std::unique_ptr<GemvImplementation> make_fastmv_implementation(const fastmv::Context& context) {
  return std::make_unique<FastmvGemv>(context);
}

}  // namespace fastmv_tool
