// The launch floor: what the shortest launches take on this GPU. An empty kernel and a kernel
// that writes one word, at one block and at a block per SM; timed with CUDA events (median of
// 1,000 launches, one by one) and profiled by tools/gpu/make_launch_floor.sh with ncu
// (gpu__time_duration.sum). No fix takes a launch below this.
#include <algorithm>
#include <cstdio>
#include <vector>
#include <cuda_runtime.h>

__global__ void floorEmpty() {}
__global__ void floorOneStore(int *out) {
  if (threadIdx.x == 0) out[blockIdx.x] = blockIdx.x;
}

int main(int argc, char **argv) {
  bool timing = argc > 1;
  int sms = 0, *out;
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
  cudaMalloc(&out, sms * sizeof(int));
  cudaEvent_t a, b;
  cudaEventCreate(&a);
  cudaEventCreate(&b);
  auto median = [&](auto launch) {
    std::vector<float> us;
    for (int k = 0; k < 1100; ++k) {
      cudaEventRecord(a);
      launch();
      cudaEventRecord(b);
      cudaEventSynchronize(b);
      float ms;
      cudaEventElapsedTime(&ms, a, b);
      if (k >= 100) us.push_back(ms * 1000.f);
    }
    std::sort(us.begin(), us.end());
    return us[us.size() / 2];
  };
  if (!timing) {  // under ncu: each once
    floorEmpty<<<1, 32>>>();
    floorEmpty<<<sms, 256>>>();
    floorOneStore<<<1, 32>>>(out);
    floorOneStore<<<sms, 256>>>(out);
    return cudaDeviceSynchronize() != cudaSuccess;
  }
  printf("kernel,grid,block,median_us\n");
  printf("floorEmpty,1,32,%.3f\n", median([&] { floorEmpty<<<1, 32>>>(); }));
  printf("floorEmpty,%d,256,%.3f\n", sms, median([&] { floorEmpty<<<sms, 256>>>(); }));
  printf("floorOneStore,1,32,%.3f\n", median([&] { floorOneStore<<<1, 32>>>(out); }));
  printf("floorOneStore,%d,256,%.3f\n", sms, median([&] { floorOneStore<<<sms, 256>>>(out); }));
  return 0;
}
