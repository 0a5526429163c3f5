// Per-architecture timing parameters for warpscope's timing model, measured on the GPU
// at hand: dependent-chain latencies (clock64 around a chain run by one thread), memory
// latencies by pointer chasing (L1 hit, L2 hit with L1 bypassed, DRAM), shared memory,
// and DRAM / L2 bandwidth by streaming copies. Prints one "name value unit" line each.
//
//   nvcc -O3 -arch=sm_90 -o latency_bench latency_bench.cu && ./latency_bench
//
// Empty-kernel duration (launch overhead) is measured with ncu on the `empty` kernel.
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <cuda_runtime.h>

#define CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
    printf("error %s at %s:%d\n", cudaGetErrorString(e), __FILE__, __LINE__); exit(1); } } while (0)

const int CHAIN = 4096;

__global__ void empty() {}
__global__ void empty_many() {}                       // block dispatch rate: many empty blocks
__global__ void store_many(float* out) {              // the same, plus one coalesced store each
    out[blockIdx.x * (size_t)blockDim.x + threadIdx.x] = 1.0f;
}

__global__ void ffma_chain(float* out, float a, float b, long long* cycles) {
    float v = out[0];
    long long t0 = clock64();
    #pragma unroll 64
    for (int i = 0; i < CHAIN; ++i) v = fmaf(v, a, b);
    long long t1 = clock64();
    out[0] = v; *cycles = t1 - t0;
}

__global__ void iadd_chain(int* out, int a, long long* cycles) {
    int v = out[0];
    long long t0 = clock64();
    #pragma unroll 64
    for (int i = 0; i < CHAIN; ++i) v = (v ^ a) + i;  // two dependent integer ops
    long long t1 = clock64();
    out[0] = v; *cycles = t1 - t0;
}

__global__ void sqrt_chain(float* out, long long* cycles) {
    float v = out[0];
    long long t0 = clock64();
    #pragma unroll 16
    for (int i = 0; i < CHAIN; ++i) v = sqrtf(v) + 0.5f;
    long long t1 = clock64();
    out[0] = v; *cycles = t1 - t0;
}

__global__ void chase(const unsigned* __restrict__ next, int steps, unsigned* sink, long long* cycles, int bypass_l1) {
    unsigned p = 0;
    for (int i = 0; i < steps; ++i) p = bypass_l1 ? __ldcg(next + p) : next[p];  // warm
    long long t0 = clock64();
    for (int i = 0; i < steps; ++i) p = bypass_l1 ? __ldcg(next + p) : next[p];
    long long t1 = clock64();
    *sink = p; *cycles = t1 - t0;
}

__global__ void chase_shared(unsigned* sink, long long* cycles) {
    __shared__ unsigned s[1024];
    for (int i = 0; i < 1024; ++i) s[i] = (i * 33 + 1) % 1024;
    __syncthreads();
    unsigned p = 0;
    long long t0 = clock64();
    for (int i = 0; i < CHAIN; ++i) p = s[p];
    long long t1 = clock64();
    *sink = p; *cycles = t1 - t0;
}

__global__ void copy(const float4* __restrict__ a, float4* __restrict__ b, size_t n) {
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

__global__ void read_loop(const float4* __restrict__ a, size_t n, int reps, float* sink) {
    float acc = 0.f;
    for (int r = 0; r < reps; ++r)
        for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
            float4 v = __ldcg(a + i); acc += v.x + v.y + v.z + v.w;
        }
    if (acc == 1234.5f) *sink = acc;
}

// Bytes read per second by one long launch (launch overhead amortised): L2 when the
// buffer fits in it and L1 is bypassed, DRAM when it does not.
static double read_gbps(size_t bytes, int reps) {
    float4* a; float* sink; size_t n = bytes / sizeof(float4);
    CHECK(cudaMalloc(&a, bytes)); CHECK(cudaMalloc(&sink, 4)); CHECK(cudaMemset(a, 0, bytes));
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    read_loop<<<sms * 8, 256>>>(a, n, 1, sink);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0);
    read_loop<<<sms * 8, 256>>>(a, n, reps, sink);
    cudaEventRecord(e1); CHECK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaFree(a); cudaFree(sink);
    return (double)bytes * reps / (ms * 1e-3) / 1e9;
}

// Conversion (I2F) and MUFU (rsqrt) throughput: eight independent chains per thread, full SMs.
__global__ void cvt_throughput(float* out, int x, int reps) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int i = 0; i < reps; ++i)
        #pragma unroll
        for (int k = 0; k < 8; ++k) acc[k] += __int2float_rn((i << 3) + k + x);
    float s = 0; for (int k = 0; k < 8; ++k) s += acc[k];
    if (s == 1234.5f) out[0] = s;
}

__global__ void mufu_throughput(float* out, float x, int reps) {
    float acc[8] = {x, x + 1, x + 2, x + 3, x + 4, x + 5, x + 6, x + 7};
    for (int i = 0; i < reps; ++i)
        #pragma unroll
        for (int k = 0; k < 8; ++k) acc[k] = rsqrtf(acc[k]);
    float s = 0; for (int k = 0; k < 8; ++k) s += acc[k];
    if (s == 1234.5f) out[0] = s;
}

static double per_sm_per_cycle(void (*launch)(float*, int), int reps, int clock_khz) {
    float* out; CHECK(cudaMalloc(&out, 4));
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    launch(out, 1);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaEventRecord(e0); launch(out, reps); cudaEventRecord(e1); CHECK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1); cudaFree(out);
    double ops = (double)sms * 8 * 256 * reps * 8;   // blocks x threads x reps x chains
    return ops / (ms * 1e-3 * clock_khz * 1e3) / sms;
}

static void run_cvt(float* out, int reps) { int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0); cvt_throughput<<<sms * 8, 256>>>(out, 3, reps); }
static void run_mufu(float* out, int reps) { int sms; cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0); mufu_throughput<<<sms * 8, 256>>>(out, 2.0f, reps); }

static double chase_cycles(size_t bytes, size_t stride, int bypass, int steps) {
    size_t n = bytes / sizeof(unsigned), hop = stride / sizeof(unsigned), m = n / hop;
    std::vector<size_t> order(m);
    for (size_t i = 0; i < m; ++i) order[i] = i;
    srand(1);
    for (size_t i = m - 1; i > 0; --i) { size_t j = rand() % (i + 1); std::swap(order[i], order[j]); }
    std::vector<unsigned> h(n, 0);
    for (size_t i = 0; i < m; ++i) h[order[i] * hop] = (unsigned)(order[(i + 1) % m] * hop);
    unsigned *d, *sink; long long* cyc;
    CHECK(cudaMalloc(&d, bytes)); CHECK(cudaMalloc(&sink, 4)); CHECK(cudaMalloc(&cyc, 8));
    CHECK(cudaMemcpy(d, h.data(), bytes, cudaMemcpyHostToDevice));
    chase<<<1, 1>>>(d, steps, sink, cyc, bypass);
    CHECK(cudaDeviceSynchronize());
    long long c; CHECK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    cudaFree(d); cudaFree(sink); cudaFree(cyc);
    return (double)c / steps;
}

static double copy_gbps(size_t bytes) {
    float4 *a, *b; size_t n = bytes / sizeof(float4);
    CHECK(cudaMalloc(&a, bytes)); CHECK(cudaMalloc(&b, bytes));
    CHECK(cudaMemset(a, 0, bytes));
    int sms; CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    copy<<<sms * 8, 256>>>(a, b, n);
    cudaEvent_t e0, e1; cudaEventCreate(&e0); cudaEventCreate(&e1);
    const int reps = 20;
    cudaEventRecord(e0);
    for (int r = 0; r < reps; ++r) copy<<<sms * 8, 256>>>(a, b, n);
    cudaEventRecord(e1); CHECK(cudaEventSynchronize(e1));
    float ms; cudaEventElapsedTime(&ms, e0, e1);
    cudaFree(a); cudaFree(b);
    return 2.0 * bytes * reps / (ms * 1e-3) / 1e9;  // read + write
}

int main() {
    cudaDeviceProp prop; CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz; CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    printf("device %s sm_%d%d sms %d l2_bytes %d clock_khz %d\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, prop.l2CacheSize, clock_khz);
    float* f; int* i; long long* cyc; long long c;
    CHECK(cudaMalloc(&f, 4)); CHECK(cudaMalloc(&i, 4)); CHECK(cudaMalloc(&cyc, 8));
    CHECK(cudaMemset(f, 0, 4)); CHECK(cudaMemset(i, 0, 4));
    empty<<<1, 32>>>(); CHECK(cudaDeviceSynchronize());
    {
        int sms = prop.multiProcessorCount; float* big;
        CHECK(cudaMalloc(&big, (size_t)sms * 256 * 256 * 4));
        empty_many<<<sms * 256, 64>>>(); empty_many<<<sms * 256, 256>>>();
        store_many<<<sms * 256, 64>>>(big); store_many<<<sms * 256, 256>>>(big);
        CHECK(cudaDeviceSynchronize()); cudaFree(big);
    }
    ffma_chain<<<1, 1>>>(f, 1.0001f, 0.5f, cyc); CHECK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("ffma_latency %.2f cycles\n", (double)c / CHAIN);
    iadd_chain<<<1, 1>>>(i, 7, cyc); CHECK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("int_alu_latency %.2f cycles (per op; two ops per step)\n", (double)c / CHAIN / 2);
    sqrt_chain<<<1, 1>>>(f, cyc); CHECK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("sqrtf_plus_fadd_latency %.2f cycles\n", (double)c / CHAIN);
    unsigned* sink; CHECK(cudaMalloc(&sink, 4));
    chase_shared<<<1, 1>>>(sink, cyc); CHECK(cudaMemcpy(&c, cyc, 8, cudaMemcpyDeviceToHost));
    printf("shared_load_latency %.2f cycles\n", (double)c / CHAIN);
    printf("l1_hit_latency %.2f cycles\n", chase_cycles(16 << 10, 128, 0, 4096));
    printf("l2_hit_latency %.2f cycles\n", chase_cycles(8 << 20, 128, 1, 4096));
    printf("dram_latency %.2f cycles (1 GB, 64 KB stride)\n", chase_cycles(1ull << 30, 1 << 16, 1, 2048));
    printf("dram_latency_small_pages %.2f cycles (256 MB, 4 KB stride)\n", chase_cycles(256u << 20, 4096, 1, 4096));
    printf("i2f_per_sm_per_cycle %.1f\n", per_sm_per_cycle(run_cvt, 4096, clock_khz));
    printf("mufu_rsqrt_per_sm_per_cycle %.1f\n", per_sm_per_cycle(run_mufu, 4096, clock_khz));
    printf("dram_copy_bandwidth %.1f GB/s\n", copy_gbps(1ull << 30));
    printf("l2_read_bandwidth %.1f GB/s (8 MB read 200 times)\n", read_gbps(8 << 20, 200));
    printf("dram_read_bandwidth %.1f GB/s (2 GB read 2 times)\n", read_gbps(2ull << 30, 2));
    return 0;
}
