// Labelled probe kernels for benchmarks/advice_precision.py: each pair is a problem the
// advice must find and its look-alike that it must not flag (vector loads that need more
// sectors per request, 8-byte shared loads that need two wavefronts, a persistent grid
// that launches few blocks on purpose, a library GEMM). Built and profiled on an H100 by
// tools/gpu/make_advice_samples.sh; the labels are in benchmarks/advice_labels.csv.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>
#ifdef WITH_CUBLAS
#include <cublas_v2.h>
#endif

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)
#define LAUNCHED() CUDA_CHECK(cudaGetLastError())

// ---- global loads: widths and patterns --------------------------------------------------
__global__ void copyScalar(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void copyFloat2(const float2 *in, float2 *out, int n) {  // 8 sectors/request, ideal
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void copyFloat4(const float4 *in, float4 *out, int n) {  // 16 sectors/request, ideal
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void copyDouble(const double *in, double *out, int n) {  // 8-byte scalar, ideal
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i];
}
__global__ void loadStride2(const float *in, float *out, int n) {  // 8 sectors/request, 4 used
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(2 * (size_t)i) % n];
}
__global__ void loadStride8(const float *in, float *out, int n) {  // 32 sectors/request
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(8 * (size_t)i) % n];
}
__global__ void loadOffset3(const float *in, float *out, int n) {  // misaligned: 5 sectors for 4
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i + 3 < n) out[i] = in[i + 3];
}
__global__ void loadFloat4Stride2(const float4 *in, float4 *out, int n) {  // 32 sectors for 16
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[(2 * (size_t)i) % n];
}
__global__ void gatherRandom(const float *in, const int *idx, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[idx[i]];
}

// ---- shared memory: widths and conflicts ------------------------------------------------
__global__ void sharedFloat2Row(const float2 *in, float2 *out, int n) {  // 8-byte, 2 wavefronts
  __shared__ float2 s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : make_float2(0.f, 0.f);
  __syncthreads();
  float2 v = s[(threadIdx.x + 1) & 255];
  if (i < n) out[i] = v;
}
__global__ void sharedDoubleRow(const double *in, double *out, int n) {  // 8-byte, 2 wavefronts
  __shared__ double s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.0;
  __syncthreads();
  double v = s[255 - threadIdx.x];
  if (i < n) out[i] = v;
}
__global__ void sharedFloat4Row(const float4 *in, float4 *out, int n) {  // 16-byte, 4 wavefronts
  __shared__ float4 s[256];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : make_float4(0.f, 0.f, 0.f, 0.f);
  __syncthreads();
  float4 v = s[(threadIdx.x + 32) & 255];
  if (i < n) out[i] = v;
}
__global__ void sharedStride2(const float *in, float *out, int n) {  // 2-way conflicts
  __shared__ float s[512];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  s[threadIdx.x] = i < n ? in[i] : 0.f;
  s[threadIdx.x + 256] = 0.f;
  __syncthreads();
  float v = s[(2 * threadIdx.x) & 511];
  if (i < n) out[i] = v;
}
__global__ void sharedStride32(const float *in, float *out, int n) {  // 32-way conflicts
  __shared__ float s[32 * 33];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int k = threadIdx.x; k < 32 * 33; k += blockDim.x) s[k] = 0.f;
  __syncthreads();
  s[lane * 32 + w] = i < n ? in[i] : 0.f;  // column write, stride 32 words
  __syncthreads();
  if (i < n) out[i] = s[lane * 32 + ((w + 1) & 7)];
}
__global__ void sharedStride33(const float *in, float *out, int n) {  // padded: no conflicts
  __shared__ float s[32 * 33];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x & 31, w = threadIdx.x >> 5;
  for (int k = threadIdx.x; k < 32 * 33; k += blockDim.x) s[k] = 0.f;
  __syncthreads();
  s[lane * 33 + w] = i < n ? in[i] : 0.f;
  __syncthreads();
  if (i < n) out[i] = s[lane * 33 + ((w + 1) & 7)];
}

// ---- divergence ------------------------------------------------------------------------
__global__ void laneDivergent(float *data, int n) {  // odd lanes take a long loop
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = data[i];
  if (threadIdx.x & 1) {
    for (int k = 0; k < 64 + (int)(x * 0.f); k++) x = sinf(x) * 0.5f + 1.0f;
  } else {
    for (int k = 0; k < 64 + (int)(x * 0.f); k++) x = cosf(x) * 0.5f - 1.0f;
  }
  data[i] = x;
}
__global__ void warpUniform(float *data, int n) {  // the same work, branch on warp index
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float x = data[i];
  if ((threadIdx.x >> 5) & 1) {
    for (int k = 0; k < 64 + (int)(x * 0.f); k++) x = sinf(x) * 0.5f + 1.0f;
  } else {
    for (int k = 0; k < 64 + (int)(x * 0.f); k++) x = cosf(x) * 0.5f - 1.0f;
  }
  data[i] = x;
}

// ---- launch configuration ----------------------------------------------------------------
__global__ void gridStride(const float *in, float *out, int n) {  // persistent: grid = SMs x 8
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * 2.0f + 1.0f;
}
__global__ void tooFewBlocks(const float *in, float *out, int n) {  // 8 blocks for 132 SMs
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    out[i] = in[i] * 2.0f + 1.0f;
}
__global__ void hugeGrid(const float *in, float *out, int n) {  // one element per thread
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f + 1.0f;
}

int main() {
  const int N = 1 << 24, BIG = 1 << 26;
  int sms = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  float *a, *b;
  int *idx;
  CUDA_CHECK(cudaMalloc(&a, (size_t)BIG * 4));
  CUDA_CHECK(cudaMalloc(&b, (size_t)BIG * 4));
  CUDA_CHECK(cudaMalloc(&idx, (size_t)N * 4));
  CUDA_CHECK(cudaMemset(a, 0, (size_t)BIG * 4));
  int *h = (int *)malloc((size_t)N * 4);
  srand(1234);
  for (int i = 0; i < N; i++) h[i] = (int)(((unsigned)rand() * 2654435761u) % N);
  CUDA_CHECK(cudaMemcpy(idx, h, (size_t)N * 4, cudaMemcpyHostToDevice));
  free(h);
  const int B = 256;
  copyScalar<<<N / B, B>>>(a, b, N); LAUNCHED();
  copyFloat2<<<N / 2 / B, B>>>((float2 *)a, (float2 *)b, N / 2); LAUNCHED();
  copyFloat4<<<N / 4 / B, B>>>((float4 *)a, (float4 *)b, N / 4); LAUNCHED();
  copyDouble<<<N / 2 / B, B>>>((double *)a, (double *)b, N / 2); LAUNCHED();
  loadStride2<<<N / B, B>>>(a, b, N); LAUNCHED();
  loadStride8<<<N / B, B>>>(a, b, N); LAUNCHED();
  loadOffset3<<<N / B, B>>>(a, b, N); LAUNCHED();
  loadFloat4Stride2<<<N / 4 / B, B>>>((float4 *)a, (float4 *)b, N / 4); LAUNCHED();
  gatherRandom<<<N / B, B>>>(a, idx, b, N); LAUNCHED();
  sharedFloat2Row<<<N / 2 / B, B>>>((float2 *)a, (float2 *)b, N / 2); LAUNCHED();
  sharedDoubleRow<<<N / 2 / B, B>>>((double *)a, (double *)b, N / 2); LAUNCHED();
  sharedFloat4Row<<<N / 4 / B, B>>>((float4 *)a, (float4 *)b, N / 4); LAUNCHED();
  sharedStride2<<<N / B, B>>>(a, b, N); LAUNCHED();
  sharedStride32<<<N / B, B>>>(a, b, N); LAUNCHED();
  sharedStride33<<<N / B, B>>>(a, b, N); LAUNCHED();
  laneDivergent<<<N / 16 / B, B>>>(a, N / 16); LAUNCHED();
  warpUniform<<<N / 16 / B, B>>>(a, N / 16); LAUNCHED();
  gridStride<<<sms * 8, B>>>(a, b, BIG); LAUNCHED();
  tooFewBlocks<<<8, B>>>(a, b, N / 4); LAUNCHED();
  hugeGrid<<<BIG / B, B>>>(a, b, BIG); LAUNCHED();
#ifdef WITH_CUBLAS
  {
    const int M = 4096;
    cublasHandle_t handle;
    if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasCreate failed\n"); return 1; }
    const float one = 1.0f, zero = 0.0f;
    // C = A * B on the first 3 x M x M floats of the two buffers
    if (cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, M, M, M, &one, a, M, a + (size_t)M * M, M, &zero, b,
                    M) != CUBLAS_STATUS_SUCCESS) { fprintf(stderr, "cublasSgemm failed\n"); return 1; }
    cublasDestroy(handle);
  }
#endif
  CUDA_CHECK(cudaDeviceSynchronize());
  printf("advice_kernels: all launches completed on %d SMs\n", sms);
  return 0;
}
