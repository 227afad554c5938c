#include "targets/gpu/kernel_compiler.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "ir/env.hpp"
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <unistd.h>

namespace migraphx {
namespace gpu {

namespace fs = std::filesystem;

std::uint64_t stable_hash(const std::string& s)
{
    std::uint64_t h = 1469598103934665603ull;
    for(unsigned char c : s)
    {
        h ^= c;
        h *= 1099511628211ull;
    }
    return h;
}

std::string gpu_cache_dir()
{
    auto v = env_string("MIGRAPHX_GPU_CACHE_DIR");
    if(not v.empty())
        return v;
    auto xdg = env_string("XDG_CACHE_HOME");
    if(not xdg.empty())
        return (fs::path(xdg) / "migx" / "kernels").string();
    auto home = env_string("HOME");
    if(not home.empty())
        return (fs::path(home) / ".cache" / "migx" / "kernels").string();
    return (fs::path("/tmp") / ("migx-kernels-" + std::to_string(getuid()))).string();
}

namespace {

std::string hex(std::uint64_t x)
{
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

bool read_file(const fs::path& p, std::string& out)
{
    std::ifstream f(p, std::ios::binary);
    if(not f)
        return false;
    std::ostringstream ss;
    ss << f.rdbuf();
    out = ss.str();
    return not out.empty();
}

/// Written under a temporary name, then renamed: a concurrent reader sees all or nothing.
void write_file(const fs::path& p, const std::string& data)
{
    std::error_code ec;
    fs::create_directories(p.parent_path(), ec);
    auto tmp = p;
    tmp += ".tmp" + std::to_string(getpid());
    {
        std::ofstream f(tmp, std::ios::binary);
        if(not f)
            return; // an unwritable cache only costs a recompile
        f.write(data.data(), static_cast<std::streamsize>(data.size()));
    }
    fs::rename(tmp, p, ec);
    if(ec)
        fs::remove(tmp, ec);
}

std::string nvrtc_compile(const std::string& source, const std::string& name, const std::vector<std::string>& opts)
{
    nvrtcProgram prog = nullptr;
    MIGX_CUDA_CHECK(nvrtcCreateProgram(&prog, source.c_str(), (name + ".cu").c_str(), 0, nullptr, nullptr));
    std::vector<const char*> copts;
    for(const auto& o : opts)
        copts.push_back(o.c_str());
    auto rc = nvrtcCompileProgram(prog, static_cast<int>(copts.size()), copts.data());
    if(rc != NVRTC_SUCCESS)
    {
        std::size_t n = 0;
        nvrtcGetProgramLogSize(prog, &n);
        std::string log(n, '\0');
        nvrtcGetProgramLog(prog, log.data());
        nvrtcDestroyProgram(&prog);
        MIGRAPHX_THROW("gpu: NVRTC could not compile " + name + ": " + nvrtcGetErrorString(rc) + "\n" + log +
                       "\n--- source ---\n" + source);
    }
    std::size_t n = 0;
    MIGX_CUDA_CHECK(nvrtcGetCUBINSize(prog, &n));
    std::string cubin(n, '\0');
    MIGX_CUDA_CHECK(nvrtcGetCUBIN(prog, cubin.data()));
    nvrtcDestroyProgram(&prog);
    return cubin;
}

} // namespace

bool needs_sm90a(const std::string& source) { return source.find("wgmma.") != std::string::npos; }

std::string compile_cuda(const std::string& source, const std::string& kernel_name, int major, int minor)
{
    // Warpgroup MMA (generate_attention_wgmma) exists on sm_90 only, compiled for its "a" target.
    const bool hopper_only = needs_sm90a(source);
    if(hopper_only and (major != 9 or minor != 0))
        MIGRAPHX_THROW("gpu: kernel " + kernel_name + " uses Hopper (sm_90a) instructions; this device is sm_" +
                       std::to_string(major) + std::to_string(minor) +
                       ": compile the model again on this device (or with MIGRAPHX_GPU_ATTENTION_WGMMA=0)");
    std::vector<std::string> opts = {"--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor) +
                                         (hopper_only ? "a" : ""),
                                     "--std=c++17"};
    int vmaj = 0, vmin = 0;
    nvrtcVersion(&vmaj, &vmin);
    std::string key_text = source + "\n//";
    for(const auto& o : opts)
        key_text += " " + o;
    key_text += " nvrtc " + std::to_string(vmaj) + "." + std::to_string(vmin);
    auto key = hex(stable_hash(key_text));

    fs::path dir     = gpu_cache_dir();
    bool cache       = env_string("MIGRAPHX_GPU_CACHE_DIR") != "off";
    auto dump        = env_string("MIGRAPHX_GPU_DUMP_SRC");
    if(not dump.empty() and dump != "0")
    {
        fs::path ddir = (dump == "1" or dump == "on" or dump == "true") ? dir : fs::path(dump);
        auto p        = ddir / (kernel_name + "-" + key + ".cu");
        write_file(p, source);
        std::cerr << "migx: kernel source " << p.string() << "\n";
    }
    auto file = dir / (key + ".cubin");
    std::string cubin;
    if(cache and read_file(file, cubin))
        return cubin;
    cubin = nvrtc_compile(source, kernel_name, opts);
    if(cache)
        write_file(file, cubin);
    return cubin;
}

loaded_kernel::loaded_kernel(const std::string& cubin, const std::string& kernel_name)
{
    load(cubin.data(), kernel_name);
}

loaded_kernel::loaded_kernel(const char* data,
                             std::size_t size,
                             const std::string& kernel_name,
                             std::shared_ptr<const void> keep)
    : image_owner(std::move(keep))
{
    // The driver takes no size: a cubin (64-bit ELF) says how long it is itself. Check that its
    // header and its program and section header tables lie within the bytes, so that bytes of
    // something else are refused here instead of read past their end.
    auto field = [&](std::size_t at, std::size_t n) {
        std::uint64_t x = 0;
        std::memcpy(&x, data + at, n); // ELF of x86-64 and Arm64 hosts: little-endian like them
        return x;
    };
    bool ok = data != nullptr and size >= 64 and std::memcmp(data, "\x7f" "ELF", 4) == 0 and data[4] == 2;
    if(ok)
    {
        auto table_fits = [&](std::uint64_t off, std::uint64_t entry, std::uint64_t count) {
            return off <= size and entry * count <= size - off;
        };
        ok = table_fits(field(0x20, 8), field(0x36, 2), field(0x38, 2)) and
             table_fits(field(0x28, 8), field(0x3a, 2), field(0x3c, 2));
    }
    if(not ok)
        MIGRAPHX_THROW("gpu: the kernel binary for " + kernel_name + " is not a cubin");
    load(data, kernel_name);
}

void loaded_kernel::load(const void* image, const std::string& kernel_name)
{
    cudaLibrary_t l = nullptr;
    auto rc         = cudaLibraryLoadData(&l, image, nullptr, nullptr, 0, nullptr, nullptr, 0);
    if(rc != cudaSuccess)
    {
        cudaGetLastError(); // not sticky: clear it, the caller may compile the source instead
        MIGRAPHX_THROW("gpu: the driver does not load the binary of kernel " + kernel_name + ": " +
                       cudaGetErrorString(rc));
    }
    lib            = l;
    cudaKernel_t k = nullptr;
    rc             = cudaLibraryGetKernel(&k, l, kernel_name.c_str());
    if(rc != cudaSuccess)
    {
        cudaGetLastError();
        cudaLibraryUnload(l);
        lib = nullptr;
        MIGRAPHX_THROW("gpu: the binary has no kernel " + kernel_name + ": " + cudaGetErrorString(rc));
    }
    kernel = k;
    name   = kernel_name;
}

loaded_kernel::~loaded_kernel()
{
    if(lib != nullptr)
        cudaLibraryUnload(static_cast<cudaLibrary_t>(lib));
}

void loaded_kernel::launch(void* stream, std::size_t grid, std::size_t block, void** params, std::size_t shared) const
{
    MIGX_CUDA_CHECK(cudaLaunchKernel(static_cast<const void*>(kernel),
                                     dim3(static_cast<unsigned>(grid)),
                                     dim3(static_cast<unsigned>(block)),
                                     params,
                                     shared,
                                     static_cast<cudaStream_t>(stream)));
}

void loaded_kernel::allow_shared(std::size_t bytes) const
{
    int device = 0, most = 0;
    MIGX_CUDA_CHECK(cudaGetDevice(&device));
    MIGX_CUDA_CHECK(cudaDeviceGetAttribute(&most, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    if(bytes > static_cast<std::size_t>(most))
        MIGRAPHX_THROW("gpu: kernel " + name + " needs " + std::to_string(bytes) +
                       " bytes of shared memory a block; this device allows " + std::to_string(most));
    auto rc = cudaKernelSetAttributeForDevice(static_cast<cudaKernel_t>(kernel),
                                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                                              static_cast<int>(bytes),
                                              device);
    if(rc != cudaSuccess)
    {
        cudaGetLastError();
        MIGRAPHX_THROW("gpu: kernel " + name + ": cannot allow " + std::to_string(bytes) +
                       " bytes of dynamic shared memory: " + cudaGetErrorString(rc));
    }
}

} // namespace gpu
} // namespace migraphx
