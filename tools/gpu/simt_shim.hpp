// What the host emulators of generated kernels share (rows_emulate.cpp, attention_emulate.cpp,
// layout_emulate.cpp): simt_shim, the CUDA built-ins of a kernel whose source, its CUDA prelude
// replaced by this text and a launcher appended, compiles as host C++ in which each thread of a
// block is a std::thread (a tool's launcher calls migx_run_grid; each tool adds its kernels' own
// helpers); plant_bug, to see that a check catches a planted bug; compile_and_load.
#ifndef MIGX_TOOLS_GPU_SIMT_SHIM_HPP
#define MIGX_TOOLS_GPU_SIMT_SHIM_HPP

#include <dlfcn.h>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

namespace migx_tools {

inline const char* simt_shim = R"(
#include <barrier>
#include <cmath>
#include <cstring>
#include <math.h>
#include <memory>
#include <thread>
#include <vector>
#define __device__
#define __forceinline__ inline
#define __global__
#define __launch_bounds__(...)
#define __shared__ static
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__
typedef unsigned short migx_half;
struct uint4 { unsigned x, y, z, w; };
static inline float h2f(migx_half h) { _Float16 f; std::memcpy(&f, &h, 2); return (float)f; }
static inline migx_half f2h(float x) { _Float16 f = (_Float16)x; migx_half h; std::memcpy(&h, &f, 2); return h; }
static inline float __int_as_float(unsigned x) { float f; std::memcpy(&f, &x, 4); return f; }
static inline float rh(float x) { return h2f(f2h(x)); }
struct migx_dim { unsigned x; };
static migx_dim blockIdx{0}, blockDim{1}, gridDim{1};
static thread_local migx_dim threadIdx{0};
static std::barrier<>* migx_block_barrier = nullptr;
static std::vector<std::barrier<>*> migx_warp_barriers;
static inline void __syncthreads() { migx_block_barrier->arrive_and_wait(); }
static inline void migx_warp_sync() { migx_warp_barriers[threadIdx.x / 32]->arrive_and_wait(); }
// Runs `thread` for every thread of every block: the blocks one after another, a block's threads
// at once (threadIdx set), with the block's and its warps' barriers.
template <class F>
static void migx_run_grid(unsigned grid, unsigned block, F thread)
{
    blockDim.x = block;
    gridDim.x  = grid;
    std::barrier<> bb(block);
    migx_block_barrier = &bb;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    migx_warp_barriers.clear();
    for(unsigned w = 0; w < (block + 31) / 32; w++)
    {
        warps.push_back(std::make_unique<std::barrier<>>(block - w * 32 < 32 ? block - w * 32 : 32));
        migx_warp_barriers.push_back(warps.back().get());
    }
    for(unsigned b = 0; b < grid; b++)
    {
        blockIdx.x = b;
        std::vector<std::thread> threads;
        for(unsigned t = 0; t < block; t++)
            threads.emplace_back([&, t] {
                threadIdx.x = t;
                thread();
            });
        for(auto& th : threads)
            th.join();
    }
}
)";

/// MIGX_EMULATE_PLANT="from|to": every `from` in src becomes `to`. False when the variable is set
/// but names nothing in src (the plant would test nothing).
inline bool plant_bug(std::string& src)
{
    const char* plant = std::getenv("MIGX_EMULATE_PLANT");
    if(plant == nullptr)
        return true;
    std::string pl = plant;
    auto bar       = pl.find('|');
    if(bar == std::string::npos)
        return false;
    auto from = pl.substr(0, bar), to = pl.substr(bar + 1);
    bool found = false;
    for(auto pos = src.find(from); pos != std::string::npos; pos = src.find(from, pos + to.size()))
    {
        src.replace(pos, from.size(), to);
        found = true;
    }
    return found;
}

/// Writes src to file.cpp, compiles it into file.so with g++ `flags` and loads it; nullptr (the
/// reason on stdout) when it does not compile or load.
inline void* compile_and_load(const std::string& file, const std::string& src, const std::string& flags)
{
    std::ofstream((file + ".cpp").c_str()) << src;
    auto cmd = "g++ " + flags + " -shared -fPIC -w -o " + file + ".so " + file + ".cpp";
    if(std::system(cmd.c_str()) != 0)
    {
        std::cout << file << ".cpp: host compile failed\n";
        return nullptr;
    }
    void* h = dlopen((file + ".so").c_str(), RTLD_NOW | RTLD_LOCAL);
    if(h == nullptr)
        std::cout << file << ".so: cannot load: " << dlerror() << "\n";
    return h;
}

} // namespace migx_tools

#endif
