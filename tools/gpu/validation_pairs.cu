// Held-out before/after pairs: written after the estimates were calibrated on
// calibration_pairs.cu, to see whether they come true on fixes they were not fitted to.
// Each "after" applies one fix of docs/checklist.md to the same computation (checked on the
// host); every launch takes >= 30 us on an H100.
//
//   nvcc -O3 -arch=sm_90 -lineinfo -o validation validation_pairs.cu
//   ./validation time   # CUDA events: two rounds of 25 launches after 5 warm-ups, CSV
//   ./validation once   # one launch of each kernel (under ncu)
#include "pairs_harness.h"

static const int N = 1 << 24;
static const int T = 256;

// ---- V01 coalescing: every other float of an array vs the even elements packed ----------
__global__ void v01_everyOther_before(const float *in2, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in2[2 * (size_t)i] * 3.f;
}
__global__ void v01_packed_after(const float *even, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = even[i] * 3.f;
}

// ---- V02 coalescing: one field of a 12-byte structure vs that field as an array ---------
struct Vec3 { float x, y, z; };
__global__ void v02_aos3_before(const Vec3 *p, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = p[i].y + 1.f;
}
__global__ void v02_soa_after(const float *py, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = py[i] + 1.f;
}

// ---- V03 reduction: one thread sums a 512-thread block vs warp shuffles (32-bit ints) -------
__global__ void v03_serial512_before(const int *in, int *part) {
  __shared__ int s[512];
  int t = threadIdx.x;
  s[t] = in[blockIdx.x * 512 + t];
  __syncthreads();
  if (t == 0) {
    int sum = 0;
    for (int k = 0; k < 512; ++k) sum += s[k];
    part[blockIdx.x] = sum;
  }
}
__global__ void v03_shuffle512_after(const int *in, int *part) {
  __shared__ int warp_sums[16];
  int t = threadIdx.x;
  int v = in[blockIdx.x * 512 + t];
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
  if ((t & 31) == 0) warp_sums[t >> 5] = v;
  __syncthreads();
  if (t < 32) {
    v = t < 16 ? warp_sums[t] : 0;
    for (int o = 8; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
    if (t == 0) part[blockIdx.x] = v;
  }
}

// ---- V04 bank conflicts: 2-way (lanes two words apart) in a shared-bound loop vs padded ---
// each block stages 1,024 floats and every thread sums 256 of them, neighbouring lanes two
// words apart (lanes l and l + 16 on one bank); the padded layout puts word j at j + j/32,
// which sends the two half-warps to even and odd banks
__global__ void v04_stride2_before(const float *in, float *out) {
  __shared__ float s[1024];
  int t = threadIdx.x;
  for (int k = t; k < 1024; k += blockDim.x) s[k] = in[blockIdx.x * 1024 + k];
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < 256; ++k) acc += s[(2 * t + 64 * k) & 1023];
  out[blockIdx.x * blockDim.x + t] = acc;
}
__global__ void v04_padded_after(const float *in, float *out) {
  __shared__ float s[1024 + 32];
  int t = threadIdx.x;
  for (int k = t; k < 1024; k += blockDim.x) s[k + (k >> 5)] = in[blockIdx.x * 1024 + k];
  __syncthreads();
  float acc = 0.f;
  for (int k = 0; k < 256; ++k) {
    int j = (2 * t + 64 * k) & 1023;
    acc += s[j + (j >> 5)];
  }
  out[blockIdx.x * blockDim.x + t] = acc;
}

// ---- V05 divergence: a four-way switch on the lane vs the same cases grouped by warp -------
// four structurally different loops, so the compiler cannot merge the cases into one
__device__ __forceinline__ float cases(int i, float v) {
  switch (i & 3) {
    case 0:
      for (int k = 0; k < 96; ++k) v = v * 1.0001f + 0.5f;
      return v;
    case 1:
      for (int k = 0; k < 96; ++k) v = v * 0.9999f - v * v * 1e-4f;
      return v;
    case 2:
      for (int k = 0; k < 96; ++k) v = __fdividef(v, 1.0001f) + 0.125f;
      return v;
    default:
      for (int k = 0; k < 96; ++k) v = fabsf(v - 0.5f) * 1.0002f;
      return v;
  }
}
__global__ void v05_laneSwitch_before(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = cases(i, x[i]);
}
__global__ void v05_warpSwitch_after(const float *x, float *y, int n) {
  // the block's warps split in four quarters, each taking one residue of i mod 4
  int t = threadIdx.x, q = blockDim.x / 4;
  int i = blockIdx.x * blockDim.x + 4 * (t % q) + t / q;
  if (i < n) y[i] = cases(i, x[i]);
}

// ---- V06 occupancy: 48 KB of shared memory reserved and unused in a streaming kernel -------
__global__ void v06_bigShared_before(const float *in, float *out, int n) {
  extern __shared__ float reserved[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0 && n < 0) reserved[0] = 0.f;  // keeps the allocation, never runs
  if (i < n) out[i] = in[i] * 2.f + 1.f;
}
__global__ void v06_smallShared_after(const float *in, float *out, int n) {
  extern __shared__ float reserved[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (threadIdx.x == 0 && n < 0) reserved[0] = 0.f;
  if (i < n) out[i] = in[i] * 2.f + 1.f;
}

// ---- V07 vector width: a two-input add with float vs float4 ------------------------------
__global__ void v07_add_before(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void v07_add4_after(const float4 *a, const float4 *b, float4 *c, int n4) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n4) {
    float4 u = a[i], v = b[i];
    c[i] = make_float4(u.x + v.x, u.y + v.y, u.z + v.z, u.w + v.w);
  }
}

// =========================================================================================
int main(int argc, char **argv) {
  bool timing = argc > 1 && strcmp(argv[1], "time") == 0;
  srand(20261127);
  float *x2 = dev<float>(2 * (size_t)N), *even = dev<float>(N), *x = dev<float>(N), *x4 = dev<float>(N);
  float *y1 = dev<float>(N), *y2 = dev<float>(N);
  Vec3 *p3 = dev<Vec3>(N);
  float *py = dev<float>(N);
  int *ints = dev<int>(N), *ip1 = dev<int>(N / 512), *ip2 = dev<int>(N / 512);
  {
    std::vector<float> h(2 * (size_t)N);
    for (auto &v : h) v = (float)rand() / ((float)RAND_MAX + 1.f);
    CUDA_CHECK(cudaMemcpy(x2, h.data(), h.size() * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(x, h.data(), (size_t)N * 4, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(x4, h.data() + N, (size_t)N * 4, cudaMemcpyHostToDevice));
    std::vector<int> hi(N);
    for (auto &v : hi) v = rand() & 0xff;
    CUDA_CHECK(cudaMemcpy(ints, hi.data(), (size_t)N * 4, cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMemcpy2D(even, 4, x2, 8, 4, N, cudaMemcpyDeviceToDevice));
  {
    std::vector<Vec3> hp(N);
    for (auto &v : hp) v = {(float)rand() / RAND_MAX, (float)rand() / RAND_MAX, (float)rand() / RAND_MAX};
    CUDA_CHECK(cudaMemcpy(p3, hp.data(), (size_t)N * sizeof(Vec3), cudaMemcpyHostToDevice));
  }
  CUDA_CHECK(cudaMemcpy2D(py, 4, &p3[0].y, sizeof(Vec3), 4, N, cudaMemcpyDeviceToDevice));
  CUDA_CHECK(cudaFuncSetAttribute(v06_bigShared_before, cudaFuncAttributeMaxDynamicSharedMemorySize, 48 * 1024));

  auto G = [](long long n, int t) { return (unsigned)((n + t - 1) / t); };
  std::vector<Pair> pairs = {
      {"v01", "v01_everyOther_before", "v01_packed_after",
       [&] { v01_everyOther_before<<<G(N, T), T>>>(x2, y1, N); },
       [&] { v01_packed_after<<<G(N, T), T>>>(even, y2, N); }, [&] { return same_exact(y1, y2, N); }},
      {"v02", "v02_aos3_before", "v02_soa_after", [&] { v02_aos3_before<<<G(N, T), T>>>(p3, y1, N); },
       [&] { v02_soa_after<<<G(N, T), T>>>(py, y2, N); }, [&] { return same_exact(y1, y2, N); }},
      {"v03", "v03_serial512_before", "v03_shuffle512_after",
       [&] { v03_serial512_before<<<N / 512, 512>>>(ints, ip1); },
       [&] { v03_shuffle512_after<<<N / 512, 512>>>(ints, ip2); }, [&] { return same_exact(ip1, ip2, N / 512); }},
      {"v04", "v04_stride2_before", "v04_padded_after", [&] { v04_stride2_before<<<N / 1024, T>>>(x, y1); },
       [&] { v04_padded_after<<<N / 1024, T>>>(x, y2); }, [&] { return same_exact(y1, y2, (size_t)N / 4); }},
      {"v05", "v05_laneSwitch_before", "v05_warpSwitch_after",
       [&] { v05_laneSwitch_before<<<G(N, T), T>>>(x, y1, N); },
       [&] { v05_warpSwitch_after<<<G(N, T), T>>>(x, y2, N); }, [&] { return same_exact(y1, y2, N); }},
      {"v06", "v06_bigShared_before", "v06_smallShared_after",
       [&] { v06_bigShared_before<<<G(N, T), T, 48 * 1024>>>(x, y1, N); },
       [&] { v06_smallShared_after<<<G(N, T), T, 1024>>>(x, y2, N); }, [&] { return same_exact(y1, y2, N); }},
      {"v07", "v07_add_before", "v07_add4_after", [&] { v07_add_before<<<G(N, T), T>>>(x, x4, y1, N); },
       [&] {
         v07_add4_after<<<G(N / 4, T), T>>>(reinterpret_cast<const float4 *>(x), reinterpret_cast<const float4 *>(x4),
                                            reinterpret_cast<float4 *>(y2), N / 4);
       },
       [&] { return same_exact(y1, y2, N); }},
  };

  return run_pairs(pairs, timing);
}
