// A real program on the libraries people call, beside kernels of its own: the kind of profile
// warpscope's advice must hold up on (vendor kernels get advice about the call; the user's own
// kernels get advice about the code). One pass of a small signal pipeline:
//   Thrust: generate, sort by key, reduce;     CUB: DeviceHistogram, DeviceRadixSort;
//   cuFFT: a batched 1D C2C FFT;               cuBLAS: SGEMM (FP32, default math);
//   own kernels: a global-atomics histogram, a 5-point stencil reading global memory only,
//   a dynamically indexed local ring buffer, and a one-thread finalisation step.
// Build: nvcc -O3 -arch=sm_90 -lineinfo -o libmix libmix.cu -lcublas -lcufft
// Run:   ./libmix            (prints a checksum per stage; exit 0 when every check passes)
#include <cub/cub.cuh>
#include <cublas_v2.h>
#include <cufft.h>
#include <thrust/device_vector.h>
#include <thrust/reduce.h>
#include <thrust/sequence.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <cstdio>
#include <cstdlib>
#include <vector>

#define CHECK(x)                                                                      \
  do {                                                                                \
    auto e_ = (x);                                                                    \
    if (e_ != 0) {                                                                    \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, (int)e_); \
      std::exit(1);                                                                   \
    }                                                                                 \
  } while (0)

static const int N = 1 << 22;  // samples
static const int BINS = 64;
static const int W = 2048, H = 2048;  // stencil grid
static const int M = 2048;            // GEMM size

__global__ void histogramAtomics(const int *keys, unsigned *bins, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(&bins[keys[i] & (BINS - 1)], 1u);
}

__global__ void stencil5(const float *in, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < 1 || y < 1 || x >= w - 1 || y >= h - 1) return;
  int i = y * w + x;
  out[i] = 0.2f * (in[i] + in[i - 1] + in[i + 1] + in[i - w] + in[i + w]);
}

__global__ void ringFir(const float *x, const float *c, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float ring[16];
  for (int k = 0; k < 16; ++k) ring[k] = 0.f;
  int head = 0;
  float acc = 0.f;
  for (int s = 0; s < 32; ++s) {
    ring[head] = x[(size_t)s * n + i];
    float out = 0.f;
    for (int k = 0; k < 16; ++k) out = fmaf(c[k], ring[(head - k) & 15], out);
    acc += out;
    head = (head + 1) & 15;
  }
  y[i] = acc;
}

__global__ void finalise(const unsigned *bins, const float *sum, float *result) {
  unsigned total = 0;
  for (int b = 0; b < BINS; ++b) total += bins[b];
  result[0] = *sum / (float)total;
}

struct Scale {
  __host__ __device__ float operator()(float v) const { return 0.5f * v + 1.f; }
};

int main() {
  // Thrust: keys, sort by key, reduce
  thrust::device_vector<int> keys(N);
  thrust::sequence(keys.begin(), keys.end(), 0, 7919);
  thrust::device_vector<float> vals(N, 1.f);
  thrust::transform(vals.begin(), vals.end(), vals.begin(), Scale());
  thrust::sort_by_key(keys.begin(), keys.end(), vals.begin());
  float sum = thrust::reduce(vals.begin(), vals.end(), 0.f);

  // own kernel: histogram with one global atomic per element
  unsigned *bins;
  CHECK(cudaMalloc(&bins, BINS * sizeof(unsigned)));
  CHECK(cudaMemset(bins, 0, BINS * sizeof(unsigned)));
  histogramAtomics<<<(N + 255) / 256, 256>>>(thrust::raw_pointer_cast(keys.data()), bins, N);

  // CUB: the same histogram, and a radix sort
  int *levels_keys = thrust::raw_pointer_cast(keys.data());
  thrust::device_vector<int> masked(N);
  thrust::transform(keys.begin(), keys.end(), masked.begin(), [] __device__(int k) { return k & (BINS - 1); });
  unsigned *cubBins;
  CHECK(cudaMalloc(&cubBins, BINS * sizeof(unsigned)));
  void *tmp = nullptr;
  size_t tmpBytes = 0, need = 0;
  CHECK(cub::DeviceHistogram::HistogramEven(nullptr, need, thrust::raw_pointer_cast(masked.data()), cubBins,
                                            BINS + 1, 0, BINS, N));
  tmpBytes = need;
  thrust::device_vector<int> sortedKeys(N);
  CHECK(cub::DeviceRadixSort::SortKeys(nullptr, need, levels_keys, thrust::raw_pointer_cast(sortedKeys.data()), N));
  tmpBytes = need > tmpBytes ? need : tmpBytes;
  CHECK(cudaMalloc(&tmp, tmpBytes));
  CHECK(cub::DeviceHistogram::HistogramEven(tmp, tmpBytes, thrust::raw_pointer_cast(masked.data()), cubBins,
                                            BINS + 1, 0, BINS, N));
  CHECK(cub::DeviceRadixSort::SortKeys(tmp, tmpBytes, levels_keys, thrust::raw_pointer_cast(sortedKeys.data()), N));

  // cuFFT: 1024 transforms of 4096 points
  cufftComplex *sig;
  CHECK(cudaMalloc(&sig, sizeof(cufftComplex) * 4096 * 1024));
  CHECK(cudaMemset(sig, 0, sizeof(cufftComplex) * 4096 * 1024));
  cufftHandle plan;
  CHECK(cufftPlan1d(&plan, 4096, CUFFT_C2C, 1024));
  CHECK(cufftExecC2C(plan, sig, sig, CUFFT_FORWARD));

  // cuBLAS: FP32 SGEMM with the default math mode
  float *A, *B, *C;
  CHECK(cudaMalloc(&A, sizeof(float) * M * M));
  CHECK(cudaMalloc(&B, sizeof(float) * M * M));
  CHECK(cudaMalloc(&C, sizeof(float) * M * M));
  std::vector<float> host(M * M, 0.001f);
  CHECK(cudaMemcpy(A, host.data(), sizeof(float) * M * M, cudaMemcpyHostToDevice));
  CHECK(cudaMemcpy(B, host.data(), sizeof(float) * M * M, cudaMemcpyHostToDevice));
  cublasHandle_t blas;
  CHECK(cublasCreate(&blas));
  const float one = 1.f, zero = 0.f;
  CHECK(cublasSgemm(blas, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, A, M, B, M, &zero, C, M));

  // own kernels: stencil, local-memory ring buffer, one-thread finalisation
  float *grid, *grid2, *coef, *fir, *result, *dsum;
  CHECK(cudaMalloc(&grid, sizeof(float) * W * H));
  CHECK(cudaMalloc(&grid2, sizeof(float) * W * H));
  CHECK(cudaMemcpy(grid, host.data(), sizeof(float) * W * H, cudaMemcpyHostToDevice));
  stencil5<<<dim3(W / 32, H / 8), dim3(32, 8)>>>(grid, grid2, W, H);
  CHECK(cudaMalloc(&coef, sizeof(float) * 16));
  CHECK(cudaMemcpy(coef, host.data(), sizeof(float) * 16, cudaMemcpyHostToDevice));
  CHECK(cudaMalloc(&fir, sizeof(float) * (N / 32)));
  ringFir<<<(N / 32 + 255) / 256, 256>>>(A, coef, fir, N / 32);
  CHECK(cudaMalloc(&result, sizeof(float)));
  CHECK(cudaMalloc(&dsum, sizeof(float)));
  CHECK(cudaMemcpy(dsum, &sum, sizeof(float), cudaMemcpyHostToDevice));
  finalise<<<1, 1>>>(bins, dsum, result);
  CHECK(cudaDeviceSynchronize());

  // checks: both histograms count every element; the GEMM's corner; the stencil's centre
  std::vector<unsigned> h1(BINS), h2(BINS);
  CHECK(cudaMemcpy(h1.data(), bins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(h2.data(), cubBins, BINS * sizeof(unsigned), cudaMemcpyDeviceToHost));
  unsigned long long t1 = 0, t2 = 0;
  int bad = 0;
  for (int b = 0; b < BINS; ++b) t1 += h1[b], t2 += h2[b], bad += h1[b] != h2[b];
  float c0, s0;
  CHECK(cudaMemcpy(&c0, C, sizeof(float), cudaMemcpyDeviceToHost));
  CHECK(cudaMemcpy(&s0, grid2 + W + 1, sizeof(float), cudaMemcpyDeviceToHost));
  std::printf("sum %.1f histogram %llu/%llu (%d bins differ) gemm %.6f stencil %.6f\n", sum, t1, t2, bad, c0, s0);
  return (t1 == (unsigned long long)N && bad == 0) ? 0 : 1;
}
