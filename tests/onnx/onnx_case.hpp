#ifndef MIGX_TESTS_ONNX_CASE_HPP
#define MIGX_TESTS_ONNX_CASE_HPP

// One conformance case: parse, compile, run every test_data_set, compare.

#include "onnx_tensor_io.hpp"
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <cmath>
#include <dirent.h>
#include <set>
#include <sstream>
#include <sys/stat.h>

namespace migx_test {

struct tolerance
{
    double rtol = 1e-3;
    double atol = 1e-7;
};

inline bool exists(const std::string& p)
{
    struct stat st{};
    return stat(p.c_str(), &st) == 0;
}

inline std::string shape_str(const migraphx::shape& s)
{
    std::ostringstream ss;
    ss << s;
    return ss.str();
}

/// "" if got matches want, else why not.
inline std::string compare(const migraphx::argument& got, const migraphx::argument& want, const tolerance& tol)
{
    const auto& gs = got.get_shape();
    const auto& ws = want.get_shape();
    if(gs.type() != ws.type())
        return "type " + gs.type_string() + ", expected " + ws.type_string();
    if(gs.lens() != ws.lens())
        return "shape " + shape_str(gs) + ", expected " + shape_str(ws);
    auto g = got.to_vector<double>();
    auto w = want.to_vector<double>();
    bool exact = not migraphx::shape::is_floating(ws.type());
    std::size_t bad = 0, first = 0;
    double worst = 0;
    for(std::size_t i = 0; i < w.size(); i++)
    {
        bool ok;
        if(std::isnan(w[i]) or std::isnan(g[i]))
            ok = std::isnan(w[i]) and std::isnan(g[i]);
        else if(std::isinf(w[i]) or std::isinf(g[i]))
            ok = g[i] == w[i];
        else if(exact)
            ok = g[i] == w[i];
        else
            ok = std::abs(g[i] - w[i]) <= tol.atol + tol.rtol * std::abs(w[i]);
        if(not ok)
        {
            if(bad == 0)
                first = i;
            bad++;
            if(not std::isnan(g[i] - w[i]))
                worst = std::max(worst, std::abs(g[i] - w[i]));
        }
    }
    if(bad == 0)
        return "";
    std::ostringstream ss;
    ss << bad << "/" << w.size() << " values differ (first at " << first << ": got " << g[first] << ", expected "
       << w[first] << "; max abs diff " << worst << ")";
    return ss.str();
}

/// Non-initializer graph inputs, in order.
inline std::vector<std::string> graph_inputs(const onnx::ModelProto& m)
{
    std::set<std::string> inits;
    for(const auto& t : m.graph().initializer())
        inits.insert(t.name());
    std::vector<std::string> r;
    for(const auto& i : m.graph().input())
        if(inits.count(i.name()) == 0)
            r.push_back(i.name());
    return r;
}

/// The graph inputs that an error message says a value that must be constant depends on.
inline std::vector<std::string> constant_inputs_wanted(const std::string& msg)
{
    std::vector<std::string> r;
    auto p = msg.find("must be a constant (");
    if(p == std::string::npos)
        return r;
    auto end = msg.find(')', p);
    const std::string key = "graph input '";
    while((p = msg.find(key, p)) != std::string::npos and p < end)
    {
        p += key.size();
        auto e = msg.find('\'', p);
        if(e == std::string::npos)
            break;
        r.push_back(msg.substr(p, e - p));
        p = e;
    }
    return r;
}

inline std::string run_data_set(const std::string& model_path,
                                const std::string& set_dir,
                                const std::vector<std::string>& inputs,
                                const std::string& target,
                                const tolerance& tol,
                                std::set<std::string>& fixed)
{
    std::map<std::string, migraphx::argument> given;
    for(std::size_t i = 0;; i++)
    {
        auto f = set_dir + "/input_" + std::to_string(i) + ".pb";
        if(not exists(f))
            break;
        std::string name;
        auto a = load_tensor(f, &name);
        if(name.empty() or std::find(inputs.begin(), inputs.end(), name) == inputs.end())
        {
            if(i >= inputs.size())
                return "test data has more inputs than the model";
            name = inputs[i];
        }
        given[name] = a;
    }
    // Static shapes need shape-deciding inputs as constants: fix those the parser asks for.
    // Inputs get the test data's dims (symbolic dims in the model take them from here).
    migraphx::onnx_options options;
    for(const auto& [name, a] : given)
        options.map_input_dims[name] = a.get_shape().lens();
    migraphx::program p;
    for(int attempt = 0;; attempt++)
    {
        try
        {
            p = migraphx::parse_onnx(model_path, options);
            break;
        }
        catch(const migraphx::exception& e)
        {
            bool added = false;
            for(const auto& name : constant_inputs_wanted(e.what()))
            {
                if(given.count(name) == 0 or options.map_input_constants.count(name) > 0)
                    continue;
                options.map_input_constants[name] = given[name];
                fixed.insert(name);
                added = true;
            }
            if(attempt > 32 or not added)
                return std::string("parse: ") + e.what();
        }
    }
    // The runner hands host data in and reads host data out: on gpu that is offload_copy.
    migraphx::compile_options copts;
    copts.offload_copy = target == "gpu";
    p.compile(migraphx::get_target(target), copts);
    migraphx::parameter_map params;
    auto pshapes = p.get_parameter_shapes();
    for(const auto& kv : given)
        if(pshapes.count(kv.first) > 0)
            params[kv.first] = kv.second;
    auto results = p.eval(params);
    std::vector<migraphx::argument> wants;
    for(std::size_t i = 0;; i++)
    {
        auto f = set_dir + "/output_" + std::to_string(i) + ".pb";
        if(not exists(f))
            break;
        wants.push_back(load_tensor(f));
    }
    if(results.size() != wants.size())
        return std::to_string(results.size()) + " outputs, expected " + std::to_string(wants.size());
    for(std::size_t i = 0; i < wants.size(); i++)
    {
        auto why = compare(results[i], wants[i], tol);
        if(not why.empty())
            return "output " + std::to_string(i) + ": " + why;
    }
    return "";
}

/// "PASS" (with the inputs it had to fix as constants, if any) or why the case failed.
inline std::string run_case(const std::string& dir, const std::string& target, const tolerance& tol)
{
    try
    {
        auto model_path = dir + "/model.onnx";
        onnx::ModelProto m;
        if(not m.ParseFromString(read_file(model_path)))
            return "the test's model.onnx does not load";
        auto inputs = graph_inputs(m);
        std::vector<std::string> sets;
        DIR* d = opendir(dir.c_str());
        if(d == nullptr)
            return "cannot list " + dir;
        while(auto* e = readdir(d))
            if(std::string(e->d_name).rfind("test_data_set_", 0) == 0)
                sets.push_back(e->d_name);
        closedir(d);
        std::sort(sets.begin(), sets.end());
        if(sets.empty())
            return "no test data sets";
        std::set<std::string> fixed;
        for(const auto& s : sets)
        {
            auto why = run_data_set(model_path, dir + "/" + s, inputs, target, tol, fixed);
            if(not why.empty())
                return s + ": " + why;
        }
        if(fixed.empty())
            return "PASS";
        std::string r = "PASS (inputs fixed as constants:";
        for(const auto& f : fixed)
            r += " " + f;
        return r + ")";
    }
    catch(const std::exception& e)
    {
        return e.what();
    }
}

} // namespace migx_test

#endif
