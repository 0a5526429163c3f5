// Writes the reference table warpscope's occupancy calculator is tested against:
// CUDA's own calculator (cuda_occupancy.h from the toolkit, included, not copied) run
// over a fixed set of launch configurations on every architecture warpscope knows.
//
//   g++ -O2 -std=c++17 -I$CUDA_HOME/include tools/occupancy_reference/generate.cpp -o /tmp/occref
//   /tmp/occref | gzip -9n > tests/data/occupancy_reference.csv.gz
//
// The device properties below are typed from the CUDA C++ Programming Guide's
// "Technical Specifications per Compute Capability" (what cudaGetDeviceProperties
// reports), independently of warpscope/occupancy/arch.py: the test compares two
// hand-entered sources as well as two implementations.
#include <climits>
#include <cstdio>
#include <cstdint>
#include <string_view>
#include <cuda_occupancy.h>

struct Dev { const char *name; int major, minor, threadsPerSM, regsPerBlock; int smemPerSM_KB, optin_KB; };

static const Dev DEVS[] = {
    {"sm_50", 5, 0, 2048, 65536, 64, 48},  {"sm_52", 5, 2, 2048, 65536, 96, 48},
    {"sm_53", 5, 3, 2048, 32768, 64, 48},  {"sm_60", 6, 0, 2048, 65536, 64, 48},
    {"sm_61", 6, 1, 2048, 65536, 96, 48},  {"sm_62", 6, 2, 2048, 32768, 64, 48},
    {"sm_70", 7, 0, 2048, 65536, 96, 96},  {"sm_72", 7, 2, 2048, 65536, 96, 96},
    {"sm_75", 7, 5, 1024, 65536, 64, 64},  {"sm_80", 8, 0, 2048, 65536, 164, 163},
    {"sm_86", 8, 6, 1536, 65536, 100, 99}, {"sm_87", 8, 7, 1536, 65536, 164, 163},
    {"sm_88", 8, 8, 1536, 65536, 100, 99}, {"sm_89", 8, 9, 1536, 65536, 100, 99},
    {"sm_90", 9, 0, 2048, 65536, 228, 227}, {"sm_100", 10, 0, 2048, 65536, 228, 227},
    {"sm_103", 10, 3, 2048, 65536, 228, 227}, {"sm_110", 11, 0, 1536, 65536, 228, 227},
    {"sm_120", 12, 0, 1536, 65536, 100, 99}, {"sm_121", 12, 1, 1536, 65536, 100, 99},
};

struct Cfg { int block, regs; long stat, dyn; int carveout, barriers; };

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; }
template <class T, size_t N> static T pick(const T (&a)[N]) { return a[next() % N]; }

static int lim(int v) { return v == INT_MAX ? -1 : v; }

static void run(const Dev &d, const Cfg &c) {
    cudaOccDeviceProp p;
    p.computeMajor = d.major; p.computeMinor = d.minor;
    p.maxThreadsPerBlock = 1024; p.maxThreadsPerMultiprocessor = d.threadsPerSM;
    p.regsPerBlock = d.regsPerBlock; p.regsPerMultiprocessor = 65536; p.warpSize = 32;
    p.sharedMemPerBlock = 48 * 1024; p.sharedMemPerMultiprocessor = (size_t)d.smemPerSM_KB * 1024;
    p.numSms = 1; p.sharedMemPerBlockOptin = (size_t)d.optin_KB * 1024;
    p.reservedSharedMemPerBlock = d.major >= 8 ? 1024 : 0;
    cudaOccFuncAttributes f;
    f.maxThreadsPerBlock = 1024; f.numRegs = c.regs; f.sharedSizeBytes = c.stat;
    f.partitionedGCConfig = PARTITIONED_GC_OFF;
    f.shmemLimitConfig = FUNC_SHMEM_LIMIT_OPTIN;   // the kernel opted in to what it launches with
    f.maxDynamicSharedSizeBytes = c.dyn;
    f.numBlockBarriers = c.barriers;
    cudaOccDeviceState s;
    s.carveoutConfig = c.carveout;
    cudaOccResult r{};
    cudaOccError e = cudaOccMaxActiveBlocksPerMultiprocessor(&r, &p, &f, &s, c.block, c.dyn);
    if (e != CUDA_OCC_SUCCESS) { fprintf(stderr, "error %d on %s\n", (int)e, d.name); return; }
    printf("%s,%d,%d,%ld,%ld,%d,%d,%d,%u,%d,%d,%d,%d,%d,%d,%zu\n", d.name, c.block, c.regs, c.stat,
           c.dyn, c.carveout, c.barriers, r.activeBlocksPerMultiprocessor, r.limitingFactors,
           lim(r.blockLimitWarps), lim(r.blockLimitRegs), lim(r.blockLimitSharedMem),
           lim(r.blockLimitBlocks), lim(r.blockLimitBarriers), r.allocatedRegistersPerBlock,
           r.allocatedSharedMemPerBlock);
}

int main() {
    static const int blocks[] = {1, 31, 32, 33, 64, 96, 128, 160, 192, 256, 288, 320, 384, 480,
                                 512, 640, 672, 768, 896, 1024, 1056};
    static const int regs[] = {0, 1, 8, 16, 18, 22, 24, 30, 32, 33, 40, 48, 56, 63, 64, 72, 80,
                               96, 128, 168, 200, 232, 255};
    static const long stat[] = {0, 0, 0, 1, 1024, 2048, 3072, 4096, 4224, 8448, 20480, 49152};
    static const long dyn[] = {0, 0, 0, 1, 2048, 16384, 40000, 49152, 65536, 98304, 101376,
                               131072, 166912, 200000, 205696, 232448, 233472};
    static const int carve[] = {-1, -1, -1, 0, 10, 25, 50, 75, 100};
    static const int bars[] = {0, 1, 1, 1, 2, 3, 7, 16};
    printf("arch,block_size,registers_per_thread,static_smem,dynamic_smem,carveout,barriers,"
           "active_blocks,limiting_factors,limit_warps,limit_registers,limit_shared_mem,"
           "limit_blocks,limit_barriers,allocated_registers_per_block,allocated_shared_mem_per_block\n");
    for (const Dev &d : DEVS) {
        // fixed cases: the seed errata (docs/checklist.md) and the granularity examples of docs/occupancy.md
        const Cfg fixed[] = {{256, 40, 0, 0, -1, 1}, {256, 33, 0, 0, -1, 1}, {32, 200, 0, 0, -1, 1},
                             {640, 32, 0, 0, -1, 1}, {256, 16, 20480, 0, -1, 1},
                             {256, 16, 20480, 0, 50, 1}, {256, 16, 0, 98304, -1, 1},
                             {32, 16, 0, 0, -1, 1}, {1024, 64, 0, 0, -1, 1}, {1024, 255, 0, 0, -1, 1}};
        for (const Cfg &c : fixed) run(d, c);
        for (int i = 0; i < 300; ++i)
            run(d, {pick(blocks), pick(regs), pick(stat), pick(dyn), pick(carve), pick(bars)});
    }
    // the calculator's three graphs, densely, on three generations
    for (const char *name : {"sm_75", "sm_86", "sm_90"}) {
        const Dev *d = nullptr;
        for (const Dev &x : DEVS) if (std::string_view(x.name) == name) d = &x;
        for (int b = 1; b <= 1024; b += (b < 64 ? 1 : 7)) run(*d, {b, 32, 0, 0, -1, 1});
        for (int r = 0; r <= 255; ++r) run(*d, {256, r, 0, 0, -1, 1});
        for (long s = 0; s <= 233472; s += 1531) run(*d, {128, 32, 0, s, -1, 1});
    }
    return 0;
}
