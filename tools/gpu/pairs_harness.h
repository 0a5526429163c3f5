// The before/after pair harness shared by calibration_pairs.cu and the held-out sets: device
// buffers, a pair (its two launches and the check that they computed the same result), and the
// loop that runs every pair once (under ncu) or times it with CUDA events.
#pragma once
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <vector>
#include <cuda_runtime.h>

#define CUDA_CHECK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { \
  fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e)); exit(1); } } while (0)

template <typename X>
static X *dev(size_t count) {
  X *p;
  CUDA_CHECK(cudaMalloc(&p, count * sizeof(X)));
  return p;
}

struct Pair {
  const char *id;
  const char *before, *after;
  std::function<void()> run_before, run_after;
  std::function<bool()> same;  // results of the last before and after launches agree
};

template <typename X>
static bool same_exact(const X *a, const X *b, size_t n) {
  std::vector<X> ha(n), hb(n);
  CUDA_CHECK(cudaMemcpy(ha.data(), a, n * sizeof(X), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(hb.data(), b, n * sizeof(X), cudaMemcpyDeviceToHost));
  return memcmp(ha.data(), hb.data(), n * sizeof(X)) == 0;
}

static float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

// Every pair once (`timing` false: one launch of each kernel, for ncu), or timed: 5 warm-up
// launches, then two rounds of 25 launches, each round's median printed as CSV. Returns the
// exit status: 1 if any pair's two kernels disagree.
static int run_pairs(std::vector<Pair> &pairs, bool timing) {
  cudaEvent_t e0, e1;
  CUDA_CHECK(cudaEventCreate(&e0));
  CUDA_CHECK(cudaEventCreate(&e1));
  if (timing) printf("pair,variant,kernel,round,median_us\n");
  int bad = 0;
  for (auto &p : pairs) {
    for (int v = 0; v < 2; ++v) {
      auto &run = v == 0 ? p.run_before : p.run_after;
      const char *name = v == 0 ? p.before : p.after;
      if (!timing) {
        run();
        CUDA_CHECK(cudaGetLastError());
        CUDA_CHECK(cudaDeviceSynchronize());
        continue;
      }
      for (int w = 0; w < 5; ++w) run();
      CUDA_CHECK(cudaGetLastError());
      CUDA_CHECK(cudaDeviceSynchronize());
      for (int round = 1; round <= 2; ++round) {
        std::vector<float> us;
        for (int k = 0; k < 25; ++k) {
          CUDA_CHECK(cudaEventRecord(e0));
          run();
          CUDA_CHECK(cudaEventRecord(e1));
          CUDA_CHECK(cudaEventSynchronize(e1));
          float ms = 0.f;
          CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
          us.push_back(ms * 1000.f);
        }
        printf("%s,%s,%s,%d,%.3f\n", p.id, v == 0 ? "before" : "after", name, round, median(us));
      }
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    if (!p.same()) {
      fprintf(stderr, "%s: before and after disagree\n", p.id);
      ++bad;
    }
  }
  fprintf(stderr, "%zu pairs, %d disagree\n", pairs.size(), bad);
  return bad ? 1 : 0;
}
