// migx's side of bench/gpu/run.py: one model, one precision, compiled for gpu with parameters
// and outputs in device memory (offload_copy=false, as a serving loop would hold them), warmed
// up, then timed run by run. A run's time is the host's wall time of one eval, which returns
// with the results ready in device memory (eval waits for the stream); run.py times PyTorch the
// same way (call, then synchronize). Prints one line of key=value pairs for run.py to read.
//
// usage: migx_gpu_bench MODEL.onnx [--fp16] [--int8 [--calib N]] [--fp8 [--calib N]] [--int8-residuals] [--min-cosine C] [--runs N] [--warmup N] [--no-cuda-graph]
//                       [--exhaustive-tune] [--tf32] (compile_options)
//                       [--input NAME=FILE]... [--save-output FILE] [--check N]
//   --check: after timing, runs N other random inputs (seeds neither the calibration nor the timed
//            input used) through the timed program and through the model compiled in fp32, and
//            prints the cosine similarity of their outputs (the smallest per input, and over all):
//            the accuracy of exactly the program that was timed
//   --input: the input's raw bytes (its type, standard layout; else generated values)
//   --save-output: writes the first output as float32 bytes (run.py's accuracy column)
#include "../bench_util.hpp"
#include <migraphx/generate.hpp>
#include <migraphx/gpu/hip.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

namespace {

using migx_bench::agreement;
using migx_bench::clock_type;
using migx_bench::flat_outputs;
using migx_bench::make_input;
using migx_bench::ms_since;



migraphx::argument read_input(const std::string& path, const migraphx::shape& s)
{
    std::ifstream f(path, std::ios::binary);
    if(not f)
        throw std::runtime_error("cannot open " + path);
    migraphx::argument a{s};
    f.read(a.data(), static_cast<std::streamsize>(s.bytes()));
    if(static_cast<std::size_t>(f.gcount()) != s.bytes() or f.peek() != EOF)
        throw std::runtime_error(path + " does not hold exactly " + std::to_string(s.bytes()) + " bytes");
    return a;
}

int run(int argc, char** argv)
{
    if(argc < 2)
    {
        std::cerr << "usage: migx_gpu_bench MODEL.onnx [--fp16] [--int8 [--calib N]] [--fp8 [--calib N]] [--int8-residuals] [--min-cosine C] [--runs N] [--warmup N] [--no-cuda-graph] [--exhaustive-tune] [--tf32] [--check N] "
                     "[--save-output FILE]\n";
        return 2;
    }
    std::string model = argv[1], save_output;
    std::map<std::string, std::string> input_files;
    bool fp16 = false, int8 = false, fp8 = false, int8_residuals = false, graph = true, exhaustive = false, tf32 = false;
    int calib = 16;
    double min_cosine = -1; // quantize_int8's accuracy check: its default unless given
    int runs = 200, warmup = 20, check = 0;
    for(int i = 2; i < argc; i++)
    {
        std::string a = argv[i];
        auto next     = [&]() -> std::string {
            if(i + 1 >= argc)
                throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        if(a == "--fp16")
            fp16 = true;
        else if(a == "--int8")
            int8 = true;
        else if(a == "--fp8")
            fp8 = true;
        else if(a == "--int8-residuals")
            int8 = int8_residuals = true;
        else if(a == "--calib")
            calib = std::stoi(next());
        else if(a == "--min-cosine")
            min_cosine = std::stod(next());
        else if(a == "--no-cuda-graph")
            graph = false;
        else if(a == "--exhaustive-tune")
            exhaustive = true;
        else if(a == "--tf32")
            tf32 = true;
        else if(a == "--runs")
            runs = std::stoi(next());
        else if(a == "--warmup")
            warmup = std::stoi(next());
        else if(a == "--save-output")
            save_output = next();
        else if(a == "--check")
            check = std::stoi(next());
        else if(a == "--input")
        {
            auto v  = next();
            auto eq = v.find('=');
            if(eq == std::string::npos)
                throw std::runtime_error("--input wants NAME=FILE, got " + v);
            input_files[v.substr(0, eq)] = v.substr(eq + 1);
        }
        else
            throw std::runtime_error("unknown option " + a);
    }
    if(runs < 1)
        throw std::runtime_error("--runs must be at least 1");

    auto t0   = clock_type::now();
    auto prog = migraphx::parse_onnx(model);
    auto parse_ms = ms_since(t0);
    if(fp16)
        migraphx::quantize_fp16(prog);
    if(int8 and fp8)
        throw std::runtime_error("--int8 and --fp8 quantize the same products; choose one");
    double quantize_ms = 0;
    // calibration: --calib random batches (other seeds than the timed input)
    auto calibration_maps = [&] {
        std::vector<migraphx::parameter_map> maps;
        for(int c = 0; c < calib; c++)
        {
            migraphx::parameter_map m;
            unsigned s = 1000 + static_cast<unsigned>(c) * 17;
            for(const auto& [name, sh] : prog.get_inputs())
                m[name] = make_input(sh, s++);
            maps.push_back(m);
        }
        return maps;
    };
    if(fp8)
    {
        auto q0 = clock_type::now();
        migraphx::quantize_fp8_report rep;
        migraphx::quantize_fp8_options qo;
        qo.report = &rep;
        migraphx::quantize_fp8(prog, migraphx::get_target("gpu"), calibration_maps(), qo);
        quantize_ms = ms_since(q0);
        std::printf("fp8: quantized=%zu\n", rep.quantized);
    }
    if(int8)
    {
        auto q0   = clock_type::now();
        auto maps = calibration_maps();
        migraphx::quantize_int8_options qo;
        qo.int8_residuals = int8_residuals;
        if(min_cosine >= 0)
            qo.min_cosine = min_cosine;
        migraphx::quantize_int8_report rep;
        qo.report = &rep;
        migraphx::quantize_int8(prog, migraphx::get_target("gpu"), maps, qo);
        quantize_ms = ms_since(q0);
        std::printf("int8: quantized=%zu kept_float=%zu check_cosine=%.6f (wanted %.4f) checks=%zu\n", rep.quantized,
                    rep.kept_float, rep.check_cosine, qo.min_cosine, rep.checks);
    }
    migraphx::compile_options opts;
    opts.offload_copy = false;
    opts.cuda_graph   = graph;
    opts.exhaustive_tune = exhaustive;
    opts.tf32            = tf32;
    t0                = clock_type::now();
    prog.compile(migraphx::get_target("gpu"), opts);
    auto compile_ms = ms_since(t0);

    auto inputs = prog.get_inputs();
    migraphx::parameter_map params;
    unsigned seed = 0;
    for(const auto& [name, s] : prog.get_parameter_shapes())
    {
        if(input_files.count(name) != 0)
            params[name] = migraphx::gpu::to_gpu(read_input(input_files[name], s));
        else if(inputs.count(name) != 0)
            params[name] = migraphx::gpu::to_gpu(make_input(s, seed++));
        else
            params[name] = migraphx::gpu::allocate_gpu(s); // an output buffer
    }

    std::vector<migraphx::argument> out;
    for(int i = 0; i < warmup; i++)
        out = prog.eval(params);
    std::vector<double> times;
    times.reserve(runs);
    // the timed runs' wall-clock span, to match against samples of the GPU's clock and power
    auto epoch_s = [] {
        return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
    };
    double timed_from = epoch_s();
    for(int i = 0; i < runs; i++)
    {
        auto t = clock_type::now();
        out    = prog.eval(params);
        times.push_back(ms_since(t));
    }
    double timed_to = epoch_s();
    std::sort(times.begin(), times.end());
    double med = times[times.size() / 2];

    if(not save_output.empty() and not out.empty())
    {
        auto host = migraphx::gpu::from_gpu(out.front());
        std::vector<float> values;
        host.visit([&](auto v) {
            for(std::size_t i = 0; i < v.size(); i++)
                values.push_back(static_cast<float>(v[i]));
        });
        std::ofstream f(save_output, std::ios::binary);
        f.write(reinterpret_cast<const char*>(values.data()),
                static_cast<std::streamsize>(values.size() * sizeof(float)));
    }
    if(check > 0)
    {
        auto ref = migraphx::parse_onnx(model);
        migraphx::compile_options ro;
        ro.offload_copy = true; // fp32, host inputs and outputs
        ref.compile(migraphx::get_target("gpu"), ro);
        agreement agree;
        for(int c = 0; c < check; c++)
        {
            migraphx::parameter_map host, dev = params;
            unsigned s = 5000 + static_cast<unsigned>(c) * 17;
            for(const auto& [name, sh] : inputs)
            {
                host[name] = make_input(sh, s++);
                dev[name]  = migraphx::gpu::to_gpu(host[name]);
            }
            std::vector<migraphx::argument> got;
            for(const auto& a : prog.eval(dev))
                got.push_back(migraphx::gpu::from_gpu(a));
            agree.add(flat_outputs(ref.eval(host)), flat_outputs(got));
        }
        std::printf("check: %d held-out inputs against fp32: min_cosine=%.6f cosine=%.6f max_abs_err=%.4g\n", check,
                    agree.worst(), agree.cos(), agree.max_abs);
    }
    std::printf("migx model=%s precision=%s cuda_graph=%d parse_ms=%.1f quantize_ms=%.1f compile_ms=%.1f median_ms=%.4f "
                "min_ms=%.4f p90_ms=%.4f runs=%d timed_from_s=%.3f timed_to_s=%.3f\n",
                model.c_str(),
                int8 ? (fp16 ? "int8+fp16" : "int8") : fp16 ? "fp16" : "fp32",
                graph ? 1 : 0,
                parse_ms,
                quantize_ms,
                compile_ms,
                med,
                times.front(),
                times[times.size() * 9 / 10],
                runs,
                timed_from,
                timed_to);
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
        std::cerr << "migx_gpu_bench: " << e.what() << "\n";
        return 1;
    }
}
