// Every error path of sgemv_, dgemv_, cblas_sgemv and cblas_dgemv.
//
// This program defines its own xerbla_ and cblas_xerbla, which replace the
// library's (interposition, as LAPACK's BLAS test programs rely on): they record
// the routine name and parameter number and return, after which the routine must
// return with y untouched. The library's default handlers, which print the
// reference message and exit, are checked by running blas_default_handler_probe,
// a program that does not define them.
//
// The project compiles with -fvisibility=hidden; a replacement handler must be
// visible to the dynamic linker, so both are declared with default visibility.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdarg>
#include <cstdio>
#include <string>
#include <vector>

#include "blas_prototypes.hpp"
#include "blas_test_support.hpp"

namespace {

struct HandlerCall {
  int calls = 0;
  std::string routine;
  int info = 0;
  std::string message;  // the formatted `form` of cblas_xerbla
};

HandlerCall fortran_handler;
HandlerCall cblas_handler;

void reset_handlers() {
  fortran_handler = HandlerCall{};
  cblas_handler = HandlerCall{};
}

}  // namespace

extern "C" __attribute__((visibility("default"))) void xerbla_(const char* srname, const int* info,
                                                               std::size_t srname_len) {
  ++fortran_handler.calls;
  fortran_handler.routine.assign(srname, srname_len);
  fortran_handler.info = *info;
}

extern "C" __attribute__((visibility("default"))) void cblas_xerbla(int info, const char* rout,
                                                                    const char* form, ...) {
  ++cblas_handler.calls;
  cblas_handler.routine = rout;
  cblas_handler.info = info;
  char message[256];
  std::va_list arguments;
  va_start(arguments, form);
  std::vsnprintf(message, sizeof message, form, arguments);
  va_end(arguments);
  cblas_handler.message = message;
}

namespace {

// Operands large enough for every call below, and y poisoned to detect writes.
template <typename T>
struct Buffers {
  std::vector<T> a = std::vector<T>(64, T(0.5));
  std::vector<T> x = std::vector<T>(16, T(0.25));
  std::vector<T> y = std::vector<T>(16, T(-3.75));
  const std::vector<T> y_before = y;
};

struct FortranArguments {
  char trans;
  int m;
  int n;
  int lda;
  int incx;
  int incy;
};

struct FortranError {
  const char* what;
  FortranArguments arguments;
  int info;  // expected parameter number
};

// Valid: trans 'N', m 4, n 3, lda 4, incx 1, incy 1. Several invalid arguments at
// once check the reference order: the first one in the argument list is reported.
const FortranError kFortranErrors[] = {
    {"TRANS 'X'", {'X', 4, 3, 4, 1, 1}, 1},
    {"TRANS blank", {' ', 4, 3, 4, 1, 1}, 1},
    {"TRANS 'X' and all else invalid", {'X', -1, -1, 0, 0, 0}, 1},
    {"M < 0", {'N', -1, 3, 4, 1, 1}, 2},
    {"M < 0 and all after invalid", {'T', -1, -1, 0, 0, 0}, 2},
    {"N < 0", {'N', 4, -1, 4, 1, 1}, 3},
    {"N < 0 and all after invalid", {'C', 4, -1, 0, 0, 0}, 3},
    {"LDA < M", {'N', 4, 3, 3, 1, 1}, 6},
    {"LDA 0 with M 0", {'N', 0, 3, 0, 1, 1}, 6},
    {"LDA < M and increments 0", {'t', 4, 3, 3, 0, 0}, 6},
    {"INCX 0", {'N', 4, 3, 4, 0, 1}, 8},
    {"INCX 0 and INCY 0", {'n', 4, 3, 4, 0, 0}, 8},
    {"INCY 0", {'c', 4, 3, 4, 1, 0}, 11},
};

// Without this, the library's handlers would run and exit (status 0 for xerbla_).
TEST(BlasGemvErrors, HandlersOfThisProgramReplaceTheLibrarys) {
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "xerbla_"), reinterpret_cast<void*>(&xerbla_));
  EXPECT_EQ(dlsym(RTLD_DEFAULT, "cblas_xerbla"), reinterpret_cast<void*>(&cblas_xerbla));
}

template <typename T>
void check_fortran_errors(const char* routine) {
  for (const FortranError& error : kFortranErrors) {
    SCOPED_TRACE(std::string(routine) + ": " + error.what);
    Buffers<T> buffers;
    reset_handlers();
    const FortranArguments& arg = error.arguments;
    fortran_gemv(arg.trans, arg.m, arg.n, T(1), buffers.a.data(), arg.lda, buffers.x.data(),
                 arg.incx, T(0), buffers.y.data(), arg.incy);
    EXPECT_EQ(fortran_handler.calls, 1);
    EXPECT_EQ(fortran_handler.routine, routine);  // blank-padded to 6, hidden length 6
    EXPECT_EQ(fortran_handler.info, error.info);
    EXPECT_EQ(cblas_handler.calls, 0);
    EXPECT_TRUE(blas_test::same_bits(buffers.y, buffers.y_before)) << "y changed";
  }
}

TEST(BlasGemvErrors, SgemvReportsEachParameter) { check_fortran_errors<float>("SGEMV "); }
TEST(BlasGemvErrors, DgemvReportsEachParameter) { check_fortran_errors<double>("DGEMV "); }

struct CblasArguments {
  int layout;
  int trans;
  int m;
  int n;
  int lda;
  int incx;
  int incy;
};

struct CblasError {
  const char* what;
  CblasArguments arguments;
  int info;             // expected parameter number in CBLAS numbering
  const char* message;  // expected text after the "Parameter ..." line
};

constexpr int kRow = CblasRowMajor;
constexpr int kCol = CblasColMajor;
constexpr int kNo = CblasNoTrans;

// Valid: m 4, n 3, lda 4 (column-major) or 3 (row-major). Reference CBLAS checks
// a row-major call as the Fortran routine on (N, M), so N < 0 is found before
// M < 0 and lda is compared with N; the numbers are mapped back to CBLAS order:
// layout 1, trans 2, M 3, N 4, lda 7, incX 9, incY 12.
const CblasError kCblasErrors[] = {
    {"layout 0", {0, kNo, 4, 3, 4, 1, 1}, 1, "Illegal layout setting, 0\n"},
    {"layout 5 and trans invalid", {5, 0, -1, -1, 0, 0, 0}, 1, "Illegal layout setting, 5\n"},
    {"column-major trans 0", {kCol, 0, 4, 3, 4, 1, 1}, 2, "Illegal TransA setting, 0\n"},
    {"column-major trans 114 and all after invalid", {kCol, 114, -1, -1, 0, 0, 0}, 2,
     "Illegal TransA setting, 114\n"},
    {"row-major trans 110", {kRow, 110, 4, 3, 3, 1, 1}, 2, "Illegal TransA setting, 110\n"},
    {"column-major M < 0", {kCol, kNo, -1, 3, 4, 1, 1}, 3, ""},
    {"column-major N < 0", {kCol, CblasTrans, 4, -1, 4, 1, 1}, 4, ""},
    {"column-major M < 0 and N < 0", {kCol, kNo, -1, -1, 4, 1, 1}, 3, ""},
    {"column-major lda < M", {kCol, CblasConjTrans, 4, 3, 3, 1, 1}, 7, ""},
    {"column-major lda 0 with M 0", {kCol, kNo, 0, 3, 0, 1, 1}, 7, ""},
    {"column-major incX 0", {kCol, kNo, 4, 3, 4, 0, 0}, 9, ""},
    {"column-major incY 0", {kCol, kNo, 4, 3, 4, 1, 0}, 12, ""},
    {"row-major M < 0", {kRow, kNo, -1, 3, 3, 1, 1}, 3, ""},
    {"row-major N < 0", {kRow, CblasTrans, 4, -1, 3, 1, 1}, 4, ""},
    {"row-major M < 0 and N < 0", {kRow, kNo, -1, -1, 3, 1, 1}, 4, ""},
    {"row-major lda < N", {kRow, CblasConjTrans, 4, 3, 2, 1, 1}, 7, ""},
    {"row-major lda 0 with N 0", {kRow, kNo, 4, 0, 0, 1, 1}, 7, ""},
    {"row-major incX 0", {kRow, kNo, 4, 3, 3, 0, 0}, 9, ""},
    {"row-major incY 0", {kRow, CblasTrans, 4, 3, 3, 1, 0}, 12, ""},
};

template <typename T>
void check_cblas_errors(const char* routine) {
  for (const CblasError& error : kCblasErrors) {
    SCOPED_TRACE(std::string(routine) + ": " + error.what);
    Buffers<T> buffers;
    reset_handlers();
    const CblasArguments& arg = error.arguments;
    cblas_gemv(static_cast<CBLAS_LAYOUT>(arg.layout), static_cast<CBLAS_TRANSPOSE>(arg.trans),
               arg.m, arg.n, T(1), buffers.a.data(), arg.lda, buffers.x.data(), arg.incx, T(0),
               buffers.y.data(), arg.incy);
    EXPECT_EQ(cblas_handler.calls, 1);
    EXPECT_EQ(cblas_handler.routine, routine);
    EXPECT_EQ(cblas_handler.info, error.info);
    EXPECT_EQ(cblas_handler.message, error.message);
    EXPECT_EQ(fortran_handler.calls, 0);
    EXPECT_TRUE(blas_test::same_bits(buffers.y, buffers.y_before)) << "y changed";
  }
}

TEST(BlasGemvErrors, CblasSgemvReportsEachParameter) { check_cblas_errors<float>("cblas_sgemv"); }
TEST(BlasGemvErrors, CblasDgemvReportsEachParameter) { check_cblas_errors<double>("cblas_dgemv"); }

// Limits that are valid: no handler is called.
TEST(BlasGemvErrors, ValidLimitsCallNoHandler) {
  Buffers<double> buffers;
  reset_handlers();
  // lda = max(1, m) for column-major, max(1, n) for row-major (less than m here).
  fortran_gemv('N', 4, 9, 1.0, buffers.a.data(), 4, buffers.x.data(), 1, 0.0, buffers.y.data(), 1);
  fortran_gemv('T', 0, 3, 1.0, buffers.a.data(), 1, buffers.x.data(), -1, 0.0, buffers.y.data(), 1);
  cblas_gemv(CblasColMajor, CblasNoTrans, 4, 9, 1.0, buffers.a.data(), 4, buffers.x.data(), 1, 0.0,
             buffers.y.data(), 1);
  cblas_gemv(CblasRowMajor, CblasTrans, 9, 4, 1.0, buffers.a.data(), 4, buffers.x.data(), 1, 0.0,
             buffers.y.data(), -2);
  cblas_gemv(CblasRowMajor, CblasNoTrans, 5, 0, 1.0, buffers.a.data(), 1, buffers.x.data(), 1, 0.0,
             buffers.y.data(), 1);
  EXPECT_EQ(fortran_handler.calls, 0);
  EXPECT_EQ(cblas_handler.calls, 0);
}

// The library's default handlers, in blas_default_handler_probe, which does not
// define its own.
struct ProbeRun {
  int exit_status;
  std::string out;  // standard output
  std::string err;  // standard error
};

std::string read_all(int fd) {
  std::string text;
  char chunk[512];
  for (ssize_t got; (got = read(fd, chunk, sizeof chunk)) > 0;) text.append(chunk, got);
  return text;
}

ProbeRun run_probe(const char* mode) {
  int out_pipe[2];
  int err_pipe[2];
  if (pipe(out_pipe) != 0 || pipe(err_pipe) != 0) return {-1, "", "pipe failed"};
  const pid_t child = fork();
  if (child == 0) {
    dup2(out_pipe[1], STDOUT_FILENO);
    dup2(err_pipe[1], STDERR_FILENO);
    close(out_pipe[0]);
    close(err_pipe[0]);
    execl(FASTMV_BLAS_PROBE, FASTMV_BLAS_PROBE, mode, static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out_pipe[1]);
  close(err_pipe[1]);
  ProbeRun run{-1, read_all(out_pipe[0]), read_all(err_pipe[0])};
  close(out_pipe[0]);
  close(err_pipe[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status)) run.exit_status = WEXITSTATUS(status);
  return run;
}

// The probe's output goes to standard error, which death tests capture.
void run_probe_for_death_test(const char* mode) {
  dup2(STDERR_FILENO, STDOUT_FILENO);
  execl(FASTMV_BLAS_PROBE, FASTMV_BLAS_PROBE, mode, static_cast<char*>(nullptr));
  _exit(127);
}

// BLAS/SRC/xerbla.f: WRITE(*) to standard output, then STOP (exit status 0).
TEST(BlasGemvDefaultHandlers, XerblaPrintsReferenceMessageAndStops) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_probe_for_death_test("sgemv_lda"), ::testing::ExitedWithCode(0),
              " \\*\\* On entry to SGEMV parameter number  6 had an illegal value\n");

  const ProbeRun sgemv = run_probe("sgemv_lda");
  EXPECT_EQ(sgemv.exit_status, 0);
  EXPECT_EQ(sgemv.out, " ** On entry to SGEMV parameter number  6 had an illegal value\n");
  EXPECT_EQ(sgemv.err, "");
  const ProbeRun dgemv = run_probe("dgemv_incy");
  EXPECT_EQ(dgemv.exit_status, 0);
  EXPECT_EQ(dgemv.out, " ** On entry to DGEMV parameter number 11 had an illegal value\n");
  EXPECT_EQ(dgemv.err, "");
}

// CBLAS/src/cblas_xerbla.c: the message to standard error, then exit(-1).
TEST(BlasGemvDefaultHandlers, CblasXerblaPrintsReferenceMessageAndExits) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(run_probe_for_death_test("cblas_sgemv_layout"), ::testing::ExitedWithCode(255),
              "Parameter 1 to routine cblas_sgemv was incorrect\nIllegal layout setting, 5\n");

  const ProbeRun layout = run_probe("cblas_sgemv_layout");
  EXPECT_EQ(layout.exit_status, 255);
  EXPECT_EQ(layout.out, "");
  EXPECT_EQ(layout.err,
            "Parameter 1 to routine cblas_sgemv was incorrect\nIllegal layout setting, 5\n");
  const ProbeRun row_major = run_probe("cblas_dgemv_rowmajor_m");
  EXPECT_EQ(row_major.exit_status, 255);
  EXPECT_EQ(row_major.out, "");
  EXPECT_EQ(row_major.err, "Parameter 3 to routine cblas_dgemv was incorrect\n");
}

}  // namespace
