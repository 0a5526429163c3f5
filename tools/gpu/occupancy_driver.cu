// The CUDA driver's own occupancy answer on a real GPU, for warpscope's calculator tests.
// For kernels of several register and static shared-memory footprints, prints
// cudaOccupancyMaxActiveBlocksPerMultiprocessor over block sizes, dynamic shared memory and
// carveout preferences, with the kernel's attributes as the driver reports them.
//   nvcc -O3 -arch=native tools/gpu/occupancy_driver.cu -o occ && ./occ > h100_driver_occupancy.csv
#include <cstdio>
#include <cuda_runtime.h>

__global__ void light(float *out) { out[threadIdx.x] = threadIdx.x; }

template <int N>
__global__ void heavy(const float *in, float *out) {
    float acc[N];
#pragma unroll
    for (int i = 0; i < N; ++i) acc[i] = in[threadIdx.x * N + i];
#pragma unroll
    for (int k = 0; k < 8; ++k)
#pragma unroll
        for (int i = 0; i < N; ++i) acc[i] = acc[i] * acc[(i + k + 1) % N] + 1.0f;
    float s = 0;
#pragma unroll
    for (int i = 0; i < N; ++i) s += acc[i] * (i + 1);
    out[threadIdx.x] = s;
}

template <int BYTES>
__global__ void tiled(float *out) {
    __shared__ float tile[BYTES / 4];
    tile[threadIdx.x % (BYTES / 4)] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = tile[(threadIdx.x + 1) % (BYTES / 4)];
}

template <class K>
static void sweep(const char *name, K kernel) {
    cudaFuncAttributes attr;
    cudaFuncGetAttributes(&attr, kernel);
    int dev; cudaGetDevice(&dev);
    int optin; cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
    const int dyns[] = {0, 1, 1000, 3072, 20000, 40000, 48000, 65536, 100000, 150000, 200000, 232448};
    const int carves[] = {-1, 0, 10, 25, 50, 75, 100};
    for (int carve : carves) {
        cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout, carve);
        for (int dyn : dyns) {
            if ((size_t)dyn + attr.sharedSizeBytes > (size_t)optin) continue;
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, dyn);
            for (int block = 32; block <= attr.maxThreadsPerBlock; block += 32) {
                int blocks = -1;
                cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, block, dyn);
                printf("%s,%d,%d,%zu,%d,%d,%d,%s\n", name, block, attr.numRegs, attr.sharedSizeBytes,
                       dyn, carve, e == cudaSuccess ? blocks : -1, e == cudaSuccess ? "" : cudaGetErrorName(e));
            }
        }
    }
}

int main() {
    cudaDeviceProp p;
    cudaGetDeviceProperties(&p, 0);
    fprintf(stderr, "%s cc %d.%d smem/SM %zu optin %zu reserved %zu regs/SM %d threads/SM %d blocks/SM %d\n",
            p.name, p.major, p.minor, p.sharedMemPerMultiprocessor, p.sharedMemPerBlockOptin,
            p.reservedSharedMemPerBlock, p.regsPerMultiprocessor, p.maxThreadsPerMultiProcessor,
            p.maxBlocksPerMultiProcessor);
    printf("kernel,block_size,registers_per_thread,static_smem,dynamic_smem,carveout,active_blocks,error\n");
    sweep("light", light);
    sweep("heavy8", heavy<8>);
    sweep("heavy24", heavy<24>);
    sweep("heavy48", heavy<48>);
    sweep("heavy96", heavy<96>);
    sweep("tiled4224", tiled<4224>);
    sweep("tiled20480", tiled<20480>);
    return 0;
}
