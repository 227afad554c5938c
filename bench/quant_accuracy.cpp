// fp32 vs fp16 vs int8 on one model, in one process (issue 8's accuracy and speed bars):
// int8 is calibrated with quantize_int8 on --calib random batches and evaluated on --eval
// *other* random batches (a different seed); for each quantized program it prints the cosine
// similarity of its outputs to fp32's (all outputs of a batch as one vector: the smallest over
// the batches and the one over all of them) and the largest absolute difference, then times
// fp32 and the quantized programs alternately (--runs each, medians).
//
// usage: migx_quant_accuracy MODEL.onnx [--target cpu] [--calib 16] [--eval 4] [--runs 20]
//            [--int8-target T] [--no-fp16] [--no-int8] [--time-fp16] [--int8-fp16] [--seed S] [--int-max N]
//            [--min-cos-int8 C] [--min-cos-fp16 C]
//            quantize_int8 options: [--method max|mse|percentile:P] [--min-cosine C]
//            [--max-float-fraction F] [--no-bias-correction] [--signed] [--int8-residuals]
// Random inputs: float N(0, 1) (the exporter's own input distribution); integer inputs named
// *mask* all ones, other integer inputs uniform in [0, --int-max) (token ids).
// Exit 1 when a --min-cos-* bar is missed (the smallest per-batch cosine counts), 77 when the
// model file or the target is missing.
#include "bench_util.hpp"
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <random>
#include <string>
#include <vector>

namespace {

using migx_bench::agreement;
using migx_bench::clock_type;
using migx_bench::flat_outputs;
using migx_bench::ms_since;

/// The 1-minute load average (Linux), or -1.
double load_average()
{
    double l = -1;
    if(std::FILE* f = std::fopen("/proc/loadavg", "r"))
    {
        if(std::fscanf(f, "%lf", &l) != 1)
            l = -1;
        std::fclose(f);
    }
    return l;
}

double median(std::vector<double> xs)
{
    std::sort(xs.begin(), xs.end());
    return xs.empty() ? 0.0 : xs[xs.size() / 2];
}

struct options
{
    std::string model;
    std::string target = "cpu";
    std::string int8_target; // compile (not calibrate) the int8 program for another target
    int calib          = 16;
    int eval           = 4;
    int runs           = 20;
    bool fp16          = true;
    bool int8          = true;
    bool time_fp16     = false;
    bool int8_half     = false; // also int8 on top of fp16 (the rest in half)
    unsigned seed      = 1;
    std::int64_t int_max = 30000;
    double min_cos_int8  = -2;
    double min_cos_fp16  = -2;
    migraphx::quantize_int8_options qopts;
};

migraphx::parameter_map random_inputs(const migraphx::program& p, std::mt19937& gen, std::int64_t int_max)
{
    migraphx::parameter_map m;
    for(const auto& [name, s] : p.get_inputs())
    {
        migraphx::argument a{s};
        bool mask = name.find("mask") != std::string::npos;
        a.visit([&](auto v) {
            using T = typename decltype(v)::value_type;
            std::normal_distribution<float> normal(0.0f, 1.0f);
            std::uniform_int_distribution<std::int64_t> ids(0, int_max - 1);
            for(std::size_t i = 0; i < v.size(); i++)
            {
                if constexpr(std::is_integral<T>{})
                    v[i] = static_cast<T>(mask ? 1 : ids(gen));
                else
                    v[i] = static_cast<T>(normal(gen));
            }
        });
        m[name] = a;
    }
    return m;
}

int run(const options& o)
{
    if(std::FILE* f = std::fopen(o.model.c_str(), "rb"))
        std::fclose(f);
    else
    {
        std::printf("SKIPPED: %s does not exist (tools/export_models.py needs python3-torch)\n", o.model.c_str());
        return 77;
    }
    auto targets = migraphx::get_targets();
    if(std::find(targets.begin(), targets.end(), o.target) == targets.end())
    {
        std::printf("SKIPPED: target '%s' is not registered in this build\n", o.target.c_str());
        return 77;
    }
    auto t = migraphx::get_target(o.target);
    migraphx::compile_options co;
    co.offload_copy = true;

    auto t0  = clock_type::now();
    auto f32 = migraphx::parse_onnx(o.model);
    std::printf("model %s, target %s\n", o.model.c_str(), o.target.c_str());
    for(const auto& [name, s] : f32.get_inputs())
        std::cout << "  input " << name << ": " << s << "\n";

    std::mt19937 calib_gen(o.seed);
    std::mt19937 eval_gen(o.seed + 1000003u); // other inputs than calibration
    std::vector<migraphx::parameter_map> calib, evals;
    for(int i = 0; i < o.calib; i++)
        calib.push_back(random_inputs(f32, calib_gen, o.int_max));
    for(int i = 0; i < o.eval; i++)
        evals.push_back(random_inputs(f32, eval_gen, o.int_max));

    struct variant
    {
        std::string name;
        migraphx::program prog;
        double prepare_ms = 0;
        agreement agree;
        std::vector<double> times;
    };
    std::vector<variant> vs;
    vs.push_back({"fp32", f32, 0, {}, {}});
    if(o.fp16)
    {
        auto p = f32;
        auto a = clock_type::now();
        migraphx::quantize_fp16(p);
        vs.push_back({"fp16", p, ms_since(a), {}, {}});
    }
    if(o.int8)
    {
        auto p = f32;
        auto a = clock_type::now();
        migraphx::quantize_int8_report report;
        auto qo   = o.qopts;
        qo.report = &report;
        migraphx::quantize_int8(p, t, calib, qo);
        vs.push_back({"int8", p, ms_since(a), {}, {}});
        std::printf("  int8: %zu ops quantized, %zu kept in float by the accuracy check (%zu checks, cosine %.6f "
                    "on the calibration data), %zu uint8 activations; calibration %s\n",
                    report.quantized, report.kept_float, report.checks, report.check_cosine, report.unsigned_inputs,
                    qo.calibration_method.c_str());
    }
    if(o.int8_half)
    {
        auto p = f32;
        auto a = clock_type::now();
        migraphx::quantize_fp16(p);
        migraphx::quantize_int8_report report;
        auto qo   = o.qopts;
        qo.report = &report;
        migraphx::quantize_int8(p, t, calib, qo);
        vs.push_back({"int8+fp16", p, ms_since(a), {}, {}});
        std::printf("  int8+fp16: %zu ops quantized, %zu kept in half by the accuracy check (cosine %.6f)\n",
                    report.quantized, report.kept_float, report.check_cosine);
    }
    for(auto& v : vs)
    {
        auto a = clock_type::now();
        v.prog.compile(v.name.rfind("int8", 0) == 0 and not o.int8_target.empty() ? migraphx::get_target(o.int8_target) : t, co);
        std::printf("  %s: quantize %.0f ms, compile %.0f ms\n", v.name.c_str(), v.prepare_ms, ms_since(a));
    }
    std::printf("  parse+quantize+compile total %.1f s\n", ms_since(t0) / 1000);

    // For scale: how alike fp32's outputs for two different inputs are (a program that ignored
    // its input would score about this).
    std::vector<double> first_ref;
    agreement across;
    for(const auto& params : evals)
    {
        auto ref = flat_outputs(vs[0].prog.eval(params));
        if(first_ref.empty())
            first_ref = ref;
        else
            across.add(first_ref, ref);
        for(std::size_t i = 1; i < vs.size(); i++)
            vs[i].agree.add(ref, flat_outputs(vs[i].prog.eval(params)));
    }

    // timing: fp32 and the quantized programs alternately on the first eval batch
    std::vector<std::size_t> timed = {0};
    for(std::size_t i = 1; i < vs.size(); i++)
        if(vs[i].name != "fp16" or o.time_fp16)
            timed.push_back(i);
    double load_before = load_average();
    if(o.runs > 0)
    {
        for(auto i : timed) // warm-up
            vs[i].prog.eval(evals[0]);
        for(int r = 0; r < o.runs; r++)
            for(auto i : timed)
            {
                auto a = clock_type::now();
                vs[i].prog.eval(evals[0]);
                vs[i].times.push_back(ms_since(a));
            }
    }

    if(o.runs > 0)
        std::printf("timing: %d runs each, alternating; load average %.2f before, %.2f after\n", o.runs, load_before,
                    load_average());
    std::printf("| variant | cosine (all %d batches) | min cosine per batch | max abs err | max abs fp32 | median ms "
                "| / fp32 |\n|---|---|---|---|---|---|---|\n",
                o.eval);
    if(o.eval > 1)
        std::printf("(fp32 vs fp32 on another input: cosine %.6f; 1 - cosine of a quantized program is "
                    "to be read against %.6f)\n",
                    across.cos(), 1 - across.cos());
    bool ok    = true;
    double f32_ms = median(vs[0].times);
    for(const auto& v : vs)
    {
        char timing[64] = "-";
        char ratio[64]  = "-";
        if(not v.times.empty())
        {
            std::snprintf(timing, sizeof(timing), "%.2f", median(v.times));
            std::snprintf(ratio, sizeof(ratio), "%.3f", median(v.times) / f32_ms);
        }
        if(v.name == "fp32")
        {
            std::printf("| fp32 | 1 | 1 | 0 | - | %s | 1 |\n", timing);
            continue;
        }
        std::printf("| %s | %.6f | %.6f | %.4g | %.4g | %s | %s |\n", v.name.c_str(), v.agree.cos(), v.agree.worst(),
                    v.agree.max_abs, v.agree.max_ref, timing, ratio);
        double bar = v.name.rfind("int8", 0) == 0 ? o.min_cos_int8 : o.min_cos_fp16;
        if(v.agree.worst() < bar)
        {
            std::printf("FAILED: %s cosine %.6f < %.6f\n", v.name.c_str(), v.agree.worst(), bar);
            ok = false;
        }
    }
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    options o;
    try
    {
        for(int i = 1; i < argc; i++)
        {
            std::string a = argv[i];
            auto next     = [&]() -> std::string {
                if(i + 1 >= argc)
                    throw std::runtime_error(a + " needs a value");
                return argv[++i];
            };
            if(a == "--target")
                o.target = next();
            else if(a == "--int8-target")
                o.int8_target = next();
            else if(a == "--calib")
                o.calib = std::stoi(next());
            else if(a == "--eval")
                o.eval = std::stoi(next());
            else if(a == "--runs")
                o.runs = std::stoi(next());
            else if(a == "--no-fp16")
                o.fp16 = false;
            else if(a == "--no-int8")
                o.int8 = false;
            else if(a == "--time-fp16")
                o.time_fp16 = true;
            else if(a == "--int8-fp16")
                o.int8_half = true;
            else if(a == "--seed")
                o.seed = static_cast<unsigned>(std::stoul(next()));
            else if(a == "--int-max")
                o.int_max = std::stoll(next());
            else if(a == "--method")
                o.qopts.calibration_method = next();
            else if(a == "--min-cosine")
                o.qopts.min_cosine = std::stod(next());
            else if(a == "--max-float-fraction")
                o.qopts.max_float_fraction = std::stod(next());
            else if(a == "--no-bias-correction")
                o.qopts.bias_correction = false;
            else if(a == "--int8-residuals")
                o.qopts.int8_residuals = true;
            else if(a == "--signed")
                o.qopts.unsigned_activations = false;
            else if(a == "--min-cos-int8")
                o.min_cos_int8 = std::stod(next());
            else if(a == "--min-cos-fp16")
                o.min_cos_fp16 = std::stod(next());
            else if(not a.empty() and a[0] != '-' and o.model.empty())
                o.model = a;
            else
                throw std::runtime_error("unknown argument '" + a + "'");
        }
        if(o.model.empty())
            throw std::runtime_error("a model is required");
        if(o.eval < 1)
            throw std::runtime_error("--eval must be at least 1");
    }
    catch(const std::exception& e)
    {
        std::cerr << "migx_quant_accuracy: " << e.what()
                  << "\nusage: migx_quant_accuracy MODEL.onnx [--target cpu] [--calib 16] [--eval 4] [--runs 20] "
                     "[--int8-target T] [--no-fp16] [--no-int8] [--time-fp16] [--seed S] [--int-max N] [--min-cos-int8 C] "
                     "[--min-cos-fp16 C] [--method M] [--min-cosine C] [--max-float-fraction F] [--no-bias-correction] "
                     "[--signed]\n";
        return 2;
    }
    try
    {
        return run(o);
    }
    catch(const std::exception& e)
    {
        std::cerr << "migx_quant_accuracy: " << e.what() << "\n";
        return 1;
    }
}
