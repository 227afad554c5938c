#include "targets/gpu/kernel_compiler.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "ir/env.hpp"
#include <cstdio>
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

namespace {

std::string hex(std::uint64_t x)
{
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

fs::path cache_dir()
{
    auto v = env_string("MIGRAPHX_GPU_CACHE_DIR");
    if(not v.empty())
        return v;
    auto xdg = env_string("XDG_CACHE_HOME");
    if(not xdg.empty())
        return fs::path(xdg) / "migx" / "kernels";
    auto home = env_string("HOME");
    if(not home.empty())
        return fs::path(home) / ".cache" / "migx" / "kernels";
    return fs::path("/tmp") / ("migx-kernels-" + std::to_string(getuid()));
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

std::string compile_cuda(const std::string& source, const std::string& kernel_name, int major, int minor)
{
    std::vector<std::string> opts = {"--gpu-architecture=sm_" + std::to_string(major) + std::to_string(minor),
                                     "--std=c++17"};
    int vmaj = 0, vmin = 0;
    nvrtcVersion(&vmaj, &vmin);
    std::string key_text = source + "\n//";
    for(const auto& o : opts)
        key_text += " " + o;
    key_text += " nvrtc " + std::to_string(vmaj) + "." + std::to_string(vmin);
    auto key = hex(stable_hash(key_text));

    auto dir         = cache_dir();
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
    cudaLibrary_t l = nullptr;
    MIGX_CUDA_CHECK(cudaLibraryLoadData(&l, cubin.data(), nullptr, nullptr, 0, nullptr, nullptr, 0));
    lib = l;
    cudaKernel_t k = nullptr;
    MIGX_CUDA_CHECK(cudaLibraryGetKernel(&k, l, kernel_name.c_str()));
    kernel = k;
}

loaded_kernel::~loaded_kernel()
{
    if(lib != nullptr)
        cudaLibraryUnload(static_cast<cudaLibrary_t>(lib));
}

void loaded_kernel::launch(void* stream, std::size_t grid, std::size_t block, void** params) const
{
    MIGX_CUDA_CHECK(cudaLaunchKernel(static_cast<const void*>(kernel),
                                     dim3(static_cast<unsigned>(grid)),
                                     dim3(static_cast<unsigned>(block)),
                                     params,
                                     0,
                                     static_cast<cudaStream_t>(stream)));
}

} // namespace gpu
} // namespace migraphx
