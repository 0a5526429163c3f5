// Calibration pairs for "an FP32 GEMM on SIMT cores -> TF32 tensor cores" (issue 37): the same
// cublasSgemm with cuBLAS's default math (CUBLAS_DEFAULT_MATH: FP32 on the SIMT FMA pipe) and
// with CUBLAS_TF32_TENSOR_OP_MATH (the switch PyTorch's torch.backends.cuda.matmul.allow_tf32 and
// torch.set_float32_matmul_precision("high") flip), at three square sizes (all >= 30 us).
// The results agree with the FP32 ones to TF32's precision (checked on the host against a
// double-precision dot product on sampled entries: relative error < 1e-2 with TF32, < 1e-4
// without).
//
//   ./tf32_pairs time   5 warm-up calls, then two rounds of 25 calls timed one by one with CUDA
//                       events; prints CSV pair,variant,kernel,round,median_us
//   ./tf32_pairs once   one call of each (for ncu)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <cublas_v2.h>
#include <cuda_runtime.h>

#define CHECK(x)                                                                 \
  do {                                                                           \
    auto r = (x);                                                                \
    if ((int)r != 0) {                                                           \
      fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)r); \
      exit(1);                                                                   \
    }                                                                            \
  } while (0)

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

int main(int argc, char** argv) {
  bool timing = argc > 1 && strcmp(argv[1], "time") == 0;
  const int sizes[] = {1024, 2048, 4096};
  cublasHandle_t h;
  CHECK(cublasCreate(&h));
  cudaEvent_t e0, e1;
  CHECK(cudaEventCreate(&e0));
  CHECK(cudaEventCreate(&e1));
  if (timing) printf("pair,variant,kernel,round,median_us\n");
  for (int n : sizes) {
    size_t count = (size_t)n * n;
    std::vector<float> a(count), b(count), c(count);
    srand(n);
    for (size_t i = 0; i < count; i++) {
      a[i] = (float)rand() / RAND_MAX - 0.5f;
      b[i] = (float)rand() / RAND_MAX - 0.5f;
    }
    float *da, *db, *dc;
    CHECK(cudaMalloc(&da, count * 4));
    CHECK(cudaMalloc(&db, count * 4));
    CHECK(cudaMalloc(&dc, count * 4));
    CHECK(cudaMemcpy(da, a.data(), count * 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(db, b.data(), count * 4, cudaMemcpyHostToDevice));
    const float one = 1.0f, zero = 0.0f;
    for (int variant = 0; variant < 2; variant++) {
      CHECK(cublasSetMathMode(h, variant == 0 ? CUBLAS_DEFAULT_MATH : CUBLAS_TF32_TENSOR_OP_MATH));
      auto call = [&]() { CHECK(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n, &zero, dc, n)); };
      char name[64];
      snprintf(name, sizeof name, "sgemm%d_%s", n, variant == 0 ? "fp32" : "tf32");
      if (timing) {
        for (int i = 0; i < 5; i++) call();
        CHECK(cudaDeviceSynchronize());
        for (int round = 1; round <= 2; round++) {
          std::vector<float> us;
          for (int i = 0; i < 25; i++) {
            CHECK(cudaEventRecord(e0));
            call();
            CHECK(cudaEventRecord(e1));
            CHECK(cudaEventSynchronize(e1));
            float ms;
            CHECK(cudaEventElapsedTime(&ms, e0, e1));
            us.push_back(ms * 1000);
          }
          printf("t%d,%s,%s,%d,%.3f\n", n, variant == 0 ? "before" : "after", name, round, median(us));
        }
      } else {
        call();
      }
      CHECK(cudaDeviceSynchronize());
      CHECK(cudaMemcpy(c.data(), dc, count * 4, cudaMemcpyDeviceToHost));
      double worst = 0;  // column-major: C[i + j*n] = sum_k A[i + k*n] * B[k + j*n]
      for (int s = 0; s < 64; s++) {
        int i = (s * 7919) % n, j = (s * 104729) % n;
        double ref = 0, mag = 0;
        for (int k = 0; k < n; k++) {
          ref += (double)a[i + (size_t)k * n] * b[k + (size_t)j * n];
          mag += std::fabs((double)a[i + (size_t)k * n] * b[k + (size_t)j * n]);
        }
        worst = std::max(worst, std::fabs(c[i + (size_t)j * n] - ref) / mag);
      }
      double limit = variant == 0 ? 1e-4 : 1e-2;
      if (worst > limit) {
        fprintf(stderr, "%s: relative error %.3g above %.0g\n", name, worst, limit);
        return 1;
      }
      fprintf(stderr, "%s: checked, relative error %.3g\n", name, worst);
    }
    CHECK(cudaFree(da));
    CHECK(cudaFree(db));
    CHECK(cudaFree(dc));
  }
  return 0;
}
