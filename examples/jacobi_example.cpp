// Solve A x = b with Jacobi's method on the best backend this machine has: the GPU
// when there is one, else the CPU.
//
//   jacobi_example                      a generated 2000 x 2000 system (the seed paper's,
//                                       alpha = 1.2: diagonally dominant)
//   jacobi_example A.mtx [b.mtx]        A (and b; default b = A * ones) from Matrix Market
#include <fastmv/fastmv.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  try {
    fastmv::DenseMatrix<double> A;
    std::vector<double> b;
    if (argc > 1) {
      A = fastmv::read_matrix_market(argv[1]);  // column-major doubles
      if (argc > 2) {
        b = fastmv::read_matrix_market_vector(argv[2]);
      } else {
        b.assign(static_cast<std::size_t>(A.rows), 0.0);
        for (fastmv::index_t i = 0; i < A.rows; ++i)
          for (fastmv::index_t j = 0; j < A.cols; ++j) b[i] += A(i, j);
      }
    } else {
      auto system = fastmv::generate_jacobi_system<double>(2000, 1.2, /*seed=*/42);
      A = std::move(system.A);
      b = std::move(system.b);
    }

    fastmv::Context context;  // Backend::Auto
    fastmv::JacobiOptions options;
    options.tolerance = 1e-10;     // relative residual ||b - A x|| / ||b||
    options.max_iterations = 5000;
    std::vector<double> x;         // sized by the solver
    const fastmv::JacobiResult result = fastmv::jacobi(context, A, b, x, options);

    std::printf("backend %s: %s after %lld iterations, relative residual %.3e\n",
                fastmv::to_string(context.backend()), fastmv::to_string(result.status),
                static_cast<long long>(result.iterations), result.residual);
    std::printf("time %.3f ms (transfer %.3f, setup %.3f, iterations %.3f)\n",
                1e3 * result.total_seconds(), 1e3 * result.transfer_seconds,
                1e3 * result.setup_seconds, 1e3 * result.iteration_seconds);
    std::printf("x[0..2] = %.9f %.9f %.9f\n", x[0], x[1 % x.size()], x[2 % x.size()]);
    return result.status == fastmv::JacobiStatus::Converged ? 0 : 1;
  } catch (const fastmv::Error& error) {  // bad input, unreadable files, CUDA failures
    std::fprintf(stderr, "%s\n", error.what());
    return 2;
  }
}
