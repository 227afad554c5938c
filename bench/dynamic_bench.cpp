// Dynamic vs static, side by side in one process (issue 10's speed bar): for each shape, a
// program compiled statically for it and one dynamic program compiled once for the whole range
// run alternately; prints the median times, their ratio, the dynamic program's first run at
// that shape (which specialises and compiles it) and the largest output difference (0: the
// same bits). --memory instead runs the dynamic program once at each shape and prints the memory
// the process holds after each: resident host memory and (gpu builds) device memory in use, so
// the cost of each variant (compiled on first use) shows.
//
// usage: migx_dynamic_bench TARGET MODEL.onnx RANGES SHAPE... [--runs N] [--memory]
//   RANGES  name=1:8x3x224:448x224:448[;name2=...]   (a dim is N or MIN:MAX)
//   SHAPE   name=4x3x224x224[;name2=...]
// Integer inputs get i % 100 (token ids, masks), float inputs pseudo-random values.
#include "bench_util.hpp"
#include <migraphx/generate.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>
#ifdef MIGX_BENCH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace {

using migx_bench::clock_type;
using migx_bench::make_input;
using migx_bench::ms_since;

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> r;
    std::stringstream ss(s);
    std::string x;
    while(std::getline(ss, x, sep))
        if(not x.empty())
            r.push_back(x);
    return r;
}

// "a=1:8x3;b=2" -> {a: ["1:8", "3"], b: ["2"]}
std::map<std::string, std::vector<std::string>> parse_spec(const std::string& s)
{
    std::map<std::string, std::vector<std::string>> r;
    for(const auto& item : split(s, ';'))
    {
        auto eq = item.find('=');
        if(eq == std::string::npos)
            throw std::runtime_error("expected name=dims, got '" + item + "'");
        r[item.substr(0, eq)] = split(item.substr(eq + 1), 'x');
    }
    return r;
}



/// Resident host memory and device memory in use (0 without the gpu), in MiB.
std::pair<double, double> memory_mib()
{
    std::ifstream statm("/proc/self/statm");
    double pages = 0, resident = 0;
    statm >> pages >> resident;
    double device = 0;
#ifdef MIGX_BENCH_CUDA
    std::size_t free = 0, total = 0;
    if(cudaMemGetInfo(&free, &total) == cudaSuccess)
        device = static_cast<double>(total - free) / (1 << 20);
#endif
    return {resident * 4096 / (1 << 20), device};
}

void print_memory(const std::string& when)
{
    auto [host, device] = memory_mib();
    std::printf("| %s | %.0f | %.0f |\n", when.c_str(), host, device);
    std::fflush(stdout);
}

double median(std::vector<double> xs)
{
    std::sort(xs.begin(), xs.end());
    return xs[xs.size() / 2];
}

} // namespace

int main(int argc, char** argv)
{
    std::vector<std::string> args(argv + 1, argv + argc);
    int runs = 30;
    for(std::size_t i = 0; i + 1 < args.size(); i++)
        if(args[i] == "--runs")
        {
            runs = std::stoi(args[i + 1]);
            args.erase(args.begin() + static_cast<long>(i), args.begin() + static_cast<long>(i) + 2);
            break;
        }
    auto memory_flag = std::find(args.begin(), args.end(), "--memory");
    bool memory      = memory_flag != args.end();
    if(memory)
        args.erase(memory_flag);
    if(args.size() < 4)
    {
        std::cerr << "usage: migx_dynamic_bench TARGET MODEL.onnx RANGES SHAPE... [--runs N] [--memory]\n";
        return 2;
    }
    try
    {
        auto t     = migraphx::get_target(args[0]);
        auto model = args[1];
        migraphx::onnx_options dyn_opts;
        for(const auto& [name, dims] : parse_spec(args[2]))
            for(const auto& d : dims)
            {
                auto mm = split(d, ':');
                auto lo = std::stoul(mm.at(0));
                dyn_opts.map_dyn_input_dims[name].push_back({lo, mm.size() > 1 ? std::stoul(mm[1]) : lo, {}});
            }
        migraphx::compile_options copts;
        copts.offload_copy = true;
        auto t0  = clock_type::now();
        auto dyn = migraphx::parse_onnx(model, dyn_opts);
        dyn.compile(t, copts);
        std::printf("%s on %s: dynamic program parsed and compiled in %.0f ms\n", model.c_str(), args[0].c_str(),
                    ms_since(t0));
        if(memory)
        {
            std::printf("| after | host MiB (resident) | device MiB (in use) |\n|---|---|---|\n");
            print_memory("compile");
            auto inputs = dyn.get_inputs();
            for(std::size_t si = 3; si < args.size(); si++)
            {
                migraphx::parameter_map params;
                unsigned seed = 1;
                for(const auto& [name, dims] : parse_spec(args[si]))
                {
                    std::vector<std::size_t> lens;
                    for(const auto& d : dims)
                        lens.push_back(std::stoul(d));
                    params[name] = make_input(migraphx::shape{inputs.at(name).type(), lens}, seed++);
                }
                dyn.eval(params);
                print_memory("first run at " + args[si]);
            }
            return 0;
        }
        std::printf("| shape | static ms | dynamic ms | dynamic/static | first dynamic run ms | max abs diff |\n");
        std::printf("|---|---|---|---|---|---|\n");
        for(std::size_t si = 3; si < args.size(); si++)
        {
            migraphx::onnx_options fixed;
            migraphx::parameter_map params;
            unsigned seed = 1;
            auto inputs   = dyn.get_inputs();
            for(const auto& [name, dims] : parse_spec(args[si]))
            {
                std::vector<std::size_t> lens;
                for(const auto& d : dims)
                {
                    lens.push_back(std::stoul(d));
                    fixed.map_dyn_input_dims[name].push_back({lens.back(), lens.back(), {}});
                }
                params[name] = make_input(migraphx::shape{inputs.at(name).type(), lens}, seed++);
            }
            auto stat = migraphx::parse_onnx(model, fixed);
            stat.compile(t, copts);
            auto t1    = clock_type::now();
            auto first = dyn.eval(params);
            double first_ms = ms_since(t1);
            auto want       = stat.eval(params);
            // Bit-identical outputs print 0; any other difference its largest size.
            double max_diff = want.size() == first.size() ? 0.0 : -1.0;
            for(std::size_t i = 0; max_diff >= 0 and i < want.size(); i++)
            {
                auto a = want[i].to_vector<double>(), b = first[i].to_vector<double>();
                if(a.size() != b.size())
                    max_diff = -1;
                for(std::size_t j = 0; max_diff >= 0 and j < a.size(); j++)
                    max_diff = std::max(max_diff, std::abs(a[j] - b[j]));
            }
            for(int w = 0; w < 3; w++)
            {
                stat.eval(params);
                dyn.eval(params);
            }
            std::vector<double> ts, td;
            for(int r = 0; r < runs; r++)
            {
                auto a = clock_type::now();
                stat.eval(params);
                ts.push_back(ms_since(a));
                auto b = clock_type::now();
                dyn.eval(params);
                td.push_back(ms_since(b));
            }
            double ms = median(ts), md = median(td);
            std::printf("| %s | %.3f | %.3f | %.3f | %.0f | %s |\n", args[si].c_str(), ms, md, md / ms, first_ms,
                        max_diff < 0 ? "shapes differ" : std::to_string(max_diff).c_str());
            std::fflush(stdout);
        }
    }
    catch(const std::exception& e)
    {
        std::cerr << "migx_dynamic_bench: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
