// Would a batch split in two halves, the halves run at once on two streams, beat the whole batch
// on one? (issue 7: BERT-base b64's non-gemm third, memory-bound, could overlap the other half's
// gemms.) Compiles WHOLE.onnx and HALF.onnx twice (two programs, so two contexts and two streams;
// parameters and outputs in device memory), then, round by round, times:
//   whole       N runs of the whole batch back to back, one thread
//   halves_seq  N pairs of half runs back to back, one thread
//   halves_par  two threads, each N half runs of its own program back to back, at once
// and prints ms per whole batch (wall time over the N runs or pairs / N).
// Built by tools/gpu/make_install.sh into the install:
//   concurrent_probe WHOLE.onnx HALF.onnx [--fp16] [--runs N] [--rounds R]
#include "../../bench/bench_util.hpp" // make_input, ms_since: the inputs migx_gpu_bench times
#include <migraphx/gpu/hip.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/target.hpp>
#include <cstdio>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

namespace {

using migx_bench::clock_type;
using migx_bench::make_input;
using migx_bench::ms_since;

struct loaded
{
    migraphx::program prog;
    migraphx::parameter_map params;
    void run() { prog.eval(params); }
};

loaded load(const std::string& path, bool fp16)
{
    loaded l{migraphx::parse_onnx(path), {}};
    if(fp16)
        migraphx::quantize_fp16(l.prog);
    migraphx::compile_options opts;
    opts.offload_copy = false;
    l.prog.compile(migraphx::get_target("gpu"), opts);
    auto inputs   = l.prog.get_inputs();
    unsigned seed = 0;
    for(const auto& [name, s] : l.prog.get_parameter_shapes())
    {
        if(inputs.count(name) == 0)
            l.params[name] = migraphx::gpu::allocate_gpu(s); // an output buffer
        else
            l.params[name] = migraphx::gpu::to_gpu(make_input(s, seed++));
    }
    for(int i = 0; i < 20; i++)
        l.run();
    return l;
}

int run(int argc, char** argv)
{
    if(argc < 3)
    {
        std::cerr << "usage: concurrent_probe WHOLE.onnx HALF.onnx [--fp16] [--runs N] [--rounds R]\n";
        return 2;
    }
    bool fp16 = false;
    int runs = 200, rounds = 3;
    for(int i = 3; i < argc; i++)
    {
        std::string a = argv[i];
        if(a == "--fp16")
            fp16 = true;
        else if(a == "--runs" and i + 1 < argc)
            runs = std::stoi(argv[++i]);
        else if(a == "--rounds" and i + 1 < argc)
            rounds = std::stoi(argv[++i]);
        else
            throw std::runtime_error("unknown option " + a);
    }
    if(runs < 1 or rounds < 1)
        throw std::runtime_error("--runs and --rounds must be at least 1");
    auto whole = load(argv[1], fp16);
    auto h1    = load(argv[2], fp16);
    auto h2    = load(argv[2], fp16);
    for(int r = 1; r <= rounds; r++)
    {
        auto t0 = clock_type::now();
        for(int i = 0; i < runs; i++)
            whole.run();
        double w = ms_since(t0) / runs;
        t0       = clock_type::now();
        for(int i = 0; i < runs; i++)
        {
            h1.run();
            h2.run();
        }
        double seq = ms_since(t0) / runs;
        t0         = clock_type::now();
        std::thread t1([&] {
            for(int i = 0; i < runs; i++)
                h1.run();
        });
        std::thread t2([&] {
            for(int i = 0; i < runs; i++)
                h2.run();
        });
        t1.join();
        t2.join();
        double par = ms_since(t0) / runs;
        std::printf("round=%d whole_ms=%.4f halves_seq_ms=%.4f halves_par_ms=%.4f par/whole=%.3f\n", r, w, seq, par,
                    par / w);
        std::fflush(stdout);
    }
    return 0;
}

} // namespace

int main(int argc, char** argv)
{
    try
    {
        return run(argc, argv);
    }
    catch(const std::exception& e)
    {
        std::cerr << "concurrent_probe: " << e.what() << "\n";
        return 1;
    }
}
