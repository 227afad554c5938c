// Runs one exported real model (tools/export_models.py's layout: DIR/model.onnx,
// DIR/test_data_set_0/input_*.pb, output_*.pb) on one target and compares every output with the
// exporter's (torch's) reference output.
//
//   model_test --model DIR --target NAME [--rtol R] [--atol A]
//
// Passes when every value satisfies |got - want| <= atol + rtol * |want|.
// Exit codes: 0 pass, 1 fail, 77 skipped (the target is not registered in this build, or the
// model was not exported because torch is missing), 2 bad usage.

#include "onnx_tensor_io.hpp"
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <iostream>
#include <sys/stat.h>

namespace {

constexpr int skipped = 77;

bool exists(const std::string& p)
{
    struct stat st{};
    return stat(p.c_str(), &st) == 0;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<migraphx::argument> load_all(const std::string& dir, const std::string& prefix, std::vector<std::string>* names)
{
    std::vector<migraphx::argument> r;
    for(std::size_t i = 0;; i++)
    {
        auto f = dir + "/" + prefix + std::to_string(i) + ".pb";
        if(not exists(f))
            break;
        std::string name;
        r.push_back(migx_test::load_tensor(f, &name));
        if(names != nullptr)
            names->push_back(name);
    }
    return r;
}

/// Compares one output; prints its statistics and returns whether it is within tolerance.
bool compare(const std::string& label, const migraphx::argument& got, const migraphx::argument& want, double rtol, double atol)
{
    if(got.get_shape().lens() != want.get_shape().lens())
    {
        std::cout << label << ": shape " << got.get_shape() << ", expected " << want.get_shape() << "\n";
        return false;
    }
    auto g = got.to_vector<double>();
    auto w = want.to_vector<double>();
    std::size_t bad = 0, first = 0;
    double max_abs = 0, mean_abs_want = 0;
    for(std::size_t i = 0; i < w.size(); i++)
    {
        double d = std::abs(g[i] - w[i]);
        mean_abs_want += std::abs(w[i]);
        if(std::isnan(d) or d > atol + rtol * std::abs(w[i]))
        {
            if(bad++ == 0)
                first = i;
        }
        if(not std::isnan(d))
            max_abs = std::max(max_abs, d);
    }
    mean_abs_want /= static_cast<double>(std::max<std::size_t>(w.size(), 1));
    std::cout << label << ": " << w.size() << " values, mean |want| " << mean_abs_want << ", max abs diff " << max_abs
              << ", " << bad << " outside tolerance";
    if(bad > 0)
        std::cout << " (first at " << first << ": got " << g[first] << ", want " << w[first] << ")";
    std::cout << "\n";
    // Outputs of random-weight models can collapse to ~0, where any tolerance passes: refuse them.
    if(mean_abs_want < 1e-4)
    {
        std::cout << label << ": the reference output is ~0 (mean |want| " << mean_abs_want
                  << "); re-export the model with a usable scale\n";
        return false;
    }
    return bad == 0;
}

int run(const std::string& dir, const std::string& target_name, double rtol, double atol)
{
    auto model = dir + "/model.onnx";
    auto data  = dir + "/test_data_set_0";
    if(not exists(model) or not exists(data + "/output_0.pb"))
    {
        std::cout << "SKIPPED: " << dir << " has no exported model (tools/export_models.py needs python3-torch)\n";
        return skipped;
    }
    auto targets = migraphx::get_targets();
    if(std::find(targets.begin(), targets.end(), target_name) == targets.end())
    {
        std::cout << "SKIPPED: target '" << target_name << "' is not registered in this build\n";
        return skipped;
    }
    auto t = migraphx::get_target(target_name);

    std::vector<std::string> input_names;
    auto inputs = load_all(data, "input_", &input_names);
    auto wants  = load_all(data, "output_", nullptr);

    auto t0 = std::chrono::steady_clock::now();
    auto p  = migraphx::parse_onnx(model);
    std::cout << "parsed " << model << " in " << seconds_since(t0) << "s\n";
    t0 = std::chrono::steady_clock::now();
    migraphx::compile_options options;
    options.offload_copy = true;
    p.compile(t, options);
    std::cout << "compiled for " << target_name << " in " << seconds_since(t0) << "s\n";

    auto pshapes = p.get_parameter_shapes();
    migraphx::parameter_map params;
    for(std::size_t i = 0; i < inputs.size(); i++)
    {
        if(pshapes.count(input_names[i]) == 0)
            throw migraphx::exception("test data input '" + input_names[i] + "' is not a parameter of the model");
        params[input_names[i]] = inputs[i];
    }
    t0           = std::chrono::steady_clock::now();
    auto results = p.eval(params);
    std::cout << "ran in " << seconds_since(t0) << "s\n";

    if(results.size() != wants.size())
    {
        std::cout << "FAILED: " << results.size() << " outputs, expected " << wants.size() << "\n";
        return 1;
    }
    auto names = p.get_output_names();
    bool ok    = true;
    for(std::size_t i = 0; i < wants.size(); i++)
    {
        auto label = i < names.size() ? names[i] : "output " + std::to_string(i);
        ok         = compare(label, t.copy_from(results[i]), wants[i], rtol, atol) and ok;
    }
    std::cout << (ok ? "PASSED" : "FAILED") << " (" << dir << " on " << target_name << ", rtol " << rtol << ", atol "
              << atol << ")\n";
    return ok ? 0 : 1;
}

} // namespace

int main(int argc, char** argv)
{
    std::string dir, target = "ref";
    double rtol = 1e-3, atol = 1e-4;
    for(int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        auto next     = [&]() -> std::string {
            if(i + 1 >= argc)
            {
                std::cerr << "model_test: " << a << " needs a value\n";
                std::exit(2);
            }
            return argv[++i];
        };
        if(a == "--model")
            dir = next();
        else if(a == "--target")
            target = next();
        else if(a == "--rtol")
            rtol = std::stod(next());
        else if(a == "--atol")
            atol = std::stod(next());
        else
        {
            std::cerr << "usage: model_test --model DIR --target NAME [--rtol R] [--atol A]\n";
            return 2;
        }
    }
    if(dir.empty())
    {
        std::cerr << "model_test: --model DIR is required\n";
        return 2;
    }
    try
    {
        return run(dir, target, rtol, atol);
    }
    catch(const std::exception& e)
    {
        std::cout << "FAILED: " << e.what() << "\n";
        return 1;
    }
}
