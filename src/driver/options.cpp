#include "driver/options.hpp"
#include "driver/validators.hpp"
#include "ir/target_availability.hpp"
#include <migraphx/generate.hpp>
#include <migraphx/onnx.hpp>
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

// Weak, as load.cpp's parse_onnx: a build without the ONNX parser still links and says so.
namespace migraphx {
argument read_onnx_tensor(const std::string& path) __attribute__((weak));
} // namespace migraphx

namespace migraphx {
namespace driver {

std::string join(const std::vector<std::string>& xs)
{
    std::string r;
    for(const auto& x : xs)
        r += (r.empty() ? "" : ", ") + x;
    return r;
}

void add_model_options(CLI::App& app, model_options& o)
{
    app.add_option("file", o.file, "Model file; .onnx or .mxr tells the format");
    app.add_option("--onnx", o.onnx, "Read an ONNX model");
    app.add_option("--migraphx", o.mxr, "Read a saved program (.mxr)");
    app.add_option("--input-dim", o.input_dims, "Fix an input's dims: --input-dim @name d1 d2 ... (repeatable)");
    app.add_option("--dyn-input-dim", o.dyn_input_dims,
                   "Make an input dynamic: --dyn-input-dim @name 1:8 3 224:512 224:512 (N, MIN:MAX or "
                   "MIN:MAX:OPT1,OPT2 per dim); --input-dim then sets the shape to run");
    app.add_option("--batch", o.batch, "Value of unknown (symbolic) dims; the batch size of the perf report")
        ->check(at_least(1, "a positive integer"));
    app.add_option("--output-names", o.output_names, "Outputs to produce: model output or instruction names");
}

void add_target_options(CLI::App& app, target_options& o)
{
    auto* gpu = app.add_flag("--gpu", o.gpu, "Compile for the GPU (default where one is present)");
    auto* cpu = app.add_flag("--cpu", o.cpu, "Compile for the CPU");
    auto* ref = app.add_flag("--ref", o.ref, "Compile for the reference target");
    gpu->excludes(cpu)->excludes(ref);
    cpu->excludes(ref);
    app.add_flag("--enable-offload-copy", o.offload_copy, "Parameters and results live on the host");
    app.add_flag("--disable-cuda-graph", o.no_cuda_graph, "gpu: launch kernel by kernel instead of replaying a CUDA graph");
    app.add_flag("--disable-fast-math", o.no_fast_math, "compile_options.fast_math = false (e.g. gpu: erf GELU, not cuBLASLt's tanh GELU)");
    app.add_flag("--exhaustive-tune", o.exhaustive_tune,
                 "compile_options.exhaustive_tune = true (gpu: time every cuDNN engine and cuBLASLt algorithm offered; "
                 "a slower compile)");
    app.add_flag("--tf32", o.tf32, "compile_options.tf32 = true (gpu: float convolutions and products on TF32 tensor cores)");
    app.add_flag("--fp16", o.fp16, "Quantize to half precision before compiling");
    app.add_flag("--int8", o.int8,
                 "Quantize to int8 (calibrated on the run's inputs); with --fp16, what stays float runs in half");
    app.add_flag("--fp8", o.fp8,
                 "Quantize products by constant weights to fp8 e4m3 (calibrated on the run's inputs); "
                 "with --fp16, the rest runs in half");
    app.add_flag("--int8-residuals", o.int8_residuals,
                 "With --int8: residual streams stored in int8 (quantize_int8_options::int8_residuals)");
    app.add_option("--int8-min-cosine", o.int8_min_cosine,
                   "With --int8: the accuracy check's cosine bar (default 0.995; 0 turns the check off)")
        ->check(CLI::Range(0.0, 1.0));
    app.add_flag("--quiet", o.quiet, "No compile progress on stderr");
}

void add_param_options(CLI::App& app, param_options& o)
{
    app.add_option("--fill0", o.fill0, "Inputs to fill with 0");
    app.add_option("--fill1", o.fill1, "Inputs to fill with 1");
    app.add_option("--input", o.input_files,
                   "Run with an input's values from an ONNX TensorProto file: --input NAME=FILE.pb (repeatable; "
                   "the ONNX test-data layout's input_0.pb files are such files)");
}

namespace {

bool has_extension(const std::string& f, const std::string& ext)
{
    return f.size() > ext.size() and f.compare(f.size() - ext.size(), ext.size(), ext) == 0;
}

bool looks_like_model(const std::string& f) { return has_extension(f, ".onnx") or has_extension(f, ".mxr"); }

// CLI11 gives a many-valued flag every value up to the next flag, so in
// `perf --input-dim @x 1 3 model.onnx` the model lands in --input-dim: take it back.
void reclaim_model_file(std::vector<std::string>& values, model_options& m)
{
    if(m.file.empty() and m.onnx.empty() and m.mxr.empty() and not values.empty() and looks_like_model(values.back()))
    {
        m.file = values.back();
        values.pop_back();
    }
}

} // namespace

void check_readable(const std::string& path)
{
    std::error_code ec;
    if(not std::filesystem::exists(path, ec))
        throw error("cannot read '" + path + "': no such file");
    if(std::filesystem::is_directory(path, ec))
        throw error("cannot read '" + path + "': it is a directory");
    std::ifstream f(path, std::ios::binary);
    if(not f)
        throw error("cannot read '" + path + "': permission denied or unreadable");
}

void finish_options(model_options& m, param_options* p)
{
    reclaim_model_file(m.input_dims, m);
    reclaim_model_file(m.dyn_input_dims, m);
    reclaim_model_file(m.output_names, m);
    if(p != nullptr)
    {
        reclaim_model_file(p->fill0, m);
        reclaim_model_file(p->fill1, m);
        reclaim_model_file(p->input_files, m);
    }
    int given = int(not m.file.empty()) + int(not m.onnx.empty()) + int(not m.mxr.empty());
    if(given == 0)
        throw error("no model given: name a file, or use --onnx FILE or --migraphx FILE");
    if(given > 1)
        throw error("more than one model given: use one of FILE, --onnx FILE, --migraphx FILE");
    if(not m.file.empty())
    {
        if(has_extension(m.file, ".onnx"))
            m.onnx = m.file;
        else if(has_extension(m.file, ".mxr"))
            m.mxr = m.file;
        else
            throw error("cannot tell the format of '" + m.file +
                        "' from its extension (.onnx or .mxr); use --onnx FILE or --migraphx FILE");
    }
    parse_input_dims(m.input_dims); // syntax errors before any reading
    parse_dyn_input_dims(m.dyn_input_dims);
    check_readable(m.onnx.empty() ? m.mxr : m.onnx);
}

namespace {

// "@x 1 3 @y 2" -> {x: ["1", "3"], y: ["2"]}, for the flag named in messages.
std::unordered_map<std::string, std::vector<std::string>> group_by_input(const std::vector<std::string>& tokens,
                                                                         const std::string& flag)
{
    std::unordered_map<std::string, std::vector<std::string>> r;
    std::string name;
    for(const auto& t : tokens)
    {
        if(not t.empty() and t.front() == '@')
        {
            if(not name.empty() and r[name].empty())
                throw error(flag + " @" + name + ": no dimensions given");
            name = t.substr(1);
            if(name.empty())
                throw error(flag + ": '@' must be followed by an input name");
            if(r.count(name) != 0)
                throw error(flag + " @" + name + ": given twice");
            r[name];
            continue;
        }
        if(name.empty())
            throw error(flag + ": expected @name before the dimensions, got '" + t + "'");
        r[name].push_back(t);
    }
    if(not name.empty() and r[name].empty())
        throw error(flag + " @" + name + ": no dimensions given");
    return r;
}

// A positive integer, or an error naming the flag and input.
std::size_t positive(const std::string& t, const std::string& where)
{
    std::size_t d  = 0;
    const auto* e  = t.data() + t.size();
    auto [ptr, ec] = std::from_chars(t.data(), e, d);
    if(ec != std::errc{} or ptr != e or d == 0)
        throw error(where + ": '" + t + "' is not a dimension (a positive integer)");
    return d;
}

std::vector<std::string> split(const std::string& s, char sep)
{
    std::vector<std::string> r;
    std::size_t b = 0;
    for(std::size_t i = 0; i <= s.size(); i++)
        if(i == s.size() or s[i] == sep)
        {
            r.push_back(s.substr(b, i - b));
            b = i + 1;
        }
    return r;
}

} // namespace

std::unordered_map<std::string, std::vector<std::size_t>> parse_input_dims(const std::vector<std::string>& tokens)
{
    std::unordered_map<std::string, std::vector<std::size_t>> r;
    for(const auto& [name, dims] : group_by_input(tokens, "--input-dim"))
        for(const auto& t : dims)
            r[name].push_back(positive(t, "--input-dim @" + name));
    return r;
}

std::unordered_map<std::string, std::vector<shape::dynamic_dimension>>
parse_dyn_input_dims(const std::vector<std::string>& tokens)
{
    std::unordered_map<std::string, std::vector<shape::dynamic_dimension>> r;
    for(const auto& [name, dims] : group_by_input(tokens, "--dyn-input-dim"))
        for(const auto& t : dims)
        {
            auto where = "--dyn-input-dim @" + name;
            auto parts = split(t, ':');
            if(parts.size() > 3)
                throw error(where + ": '" + t + "' is not N, MIN:MAX or MIN:MAX:OPT1,OPT2...");
            shape::dynamic_dimension d;
            d.min = positive(parts[0], where);
            d.max = parts.size() > 1 ? positive(parts[1], where) : d.min;
            if(d.min > d.max)
                throw error(where + ": '" + t + "' has its minimum above its maximum");
            if(parts.size() == 3)
                for(const auto& o : split(parts[2], ','))
                {
                    auto v = positive(o, where);
                    if(not d.within(v))
                        throw error(where + ": optimal " + o + " is outside " + parts[0] + ":" + parts[1]);
                    d.optimals.insert(v);
                }
            r[name].push_back(d);
        }
    return r;
}

target choose_target(const target_options& o)
{
    auto names = get_targets();
    auto has   = [&](const std::string& n) { return std::find(names.begin(), names.end(), n) != names.end(); };
    std::string want = o.gpu ? "gpu" : o.cpu ? "cpu" : o.ref ? "ref" : (has("gpu") ? "gpu" : "cpu");
    if(want == "cpu" and not has("cpu") and has("ref"))
    {
        std::cerr << "migraphx-driver: note: the cpu target is not available in this build; using ref\n";
        want = "ref";
    }
    if(not has(want))
    {
        auto why = unavailable_target_reason(want);
        if(not why.empty())
            throw error("the " + want + " target is not available here: " + why + " (available: " + join(names) + ")");
        throw error("the " + want + " target is not available in this build (available: " + join(names) + ")");
    }
    return get_target(want);
}

target target_of(const program& p) { return get_target(p.target_name()); }

std::vector<std::string> input_names(const program& p)
{
    auto inputs = p.get_inputs();
    std::vector<std::string> r;
    for(const auto& n : p.get_parameter_names())
        if(inputs.count(n) != 0)
            r.push_back(n);
    return r;
}

namespace {

// A shape to make data for: a dynamic input runs at the dims --input-dim gave, else its largest.
shape runnable_shape(const std::string& name, const shape& s, const param_options& o)
{
    if(not s.dynamic())
        return s;
    auto run = o.run_dims.find(name);
    if(run != o.run_dims.end())
        return shape{s.type(), run->second};
    std::vector<std::size_t> lens;
    for(const auto& d : s.dyn_dims())
    {
        if(d.max == 0 or d.max > (std::size_t{1} << 32))
            throw error("input '" + name + "' has an unbounded dynamic dimension; fix it with --input-dim @" + name +
                        " d1 d2 ...");
        lens.push_back(d.max);
    }
    return shape{s.type(), lens};
}

// --input NAME=FILE, checked: NAME is an input, given once.
std::unordered_map<std::string, std::string> input_files(const param_options& o,
                                                         const std::unordered_map<std::string, shape>& inputs,
                                                         const std::vector<std::string>& names)
{
    std::unordered_map<std::string, std::string> r;
    for(const auto& v : o.input_files)
    {
        auto eq = v.find('=');
        if(eq == std::string::npos or eq == 0 or eq + 1 == v.size())
            throw error("--input: expected NAME=FILE, got '" + v + "'");
        auto name = v.substr(0, eq);
        if(inputs.count(name) == 0)
            throw error("--input: '" + name + "' is not an input of the model (inputs: " + join(names) + ")");
        if(not r.emplace(name, v.substr(eq + 1)).second)
            throw error("--input: '" + name + "' given twice");
    }
    return r;
}

// The values of --input NAME=FILE, which must have the input's type and the dims it runs at (a
// dynamic input without --input-dim runs at the file's dims, within its range).
argument read_input_file(const std::string& name, const shape& s, const std::string& path, const param_options& o)
{
    if(&migraphx::read_onnx_tensor == nullptr)
        throw error("--input: this build has no ONNX support to read '" + path + "'");
    check_readable(path);
    argument a;
    try
    {
        a = read_onnx_tensor(path);
    }
    catch(const std::exception& e)
    {
        throw error("--input " + name + ": " + e.what());
    }
    const auto& got = a.get_shape();
    bool fits       = got.type() == s.type();
    if(fits and s.dynamic() and o.run_dims.count(name) == 0)
    {
        const auto& dd = s.dyn_dims();
        fits           = dd.size() == got.lens().size();
        for(std::size_t i = 0; fits and i < dd.size(); i++)
            fits = got.lens()[i] >= dd[i].min and got.lens()[i] <= dd[i].max;
    }
    else if(fits)
        fits = got.lens() == runnable_shape(name, s, o).lens();
    if(not fits)
    {
        std::ostringstream ss;
        ss << "--input " << name << ": '" << path << "' holds " << got << " but the input is " << s;
        if(s.dynamic() and o.run_dims.count(name) != 0)
            ss << " run at " << runnable_shape(name, s, o);
        throw error(ss.str());
    }
    return a;
}

// The same pseudo-random data for the same input name, run after run (FNV-1a).
unsigned long seed_of(const std::string& name)
{
    unsigned long h = 2166136261UL;
    for(char c : name)
        h = (h ^ static_cast<unsigned char>(c)) * 16777619UL;
    return h & 0xffffffffUL;
}

argument filled(const shape& s, double x)
{
    argument a{s};
    a.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        for(std::size_t i = 0; i < v.size(); i++)
            v[i] = type_cast<T>(x);
    });
    return a;
}

} // namespace

parameter_map make_host_params(const program& p, const param_options& o)
{
    auto inputs = p.get_inputs();
    auto names  = input_names(p);
    for(const auto* list : {&o.fill0, &o.fill1})
        for(const auto& n : *list)
            if(inputs.count(n) == 0)
                throw error(std::string(list == &o.fill0 ? "--fill0" : "--fill1") + ": '" + n +
                            "' is not an input of the model (inputs: " + join(names) + ")");
    auto files = input_files(o, inputs, names);
    parameter_map m;
    for(const auto& [name, s0] : inputs)
    {
        if(auto f = files.find(name); f != files.end())
        {
            m[name] = read_input_file(name, s0, f->second, o);
            continue;
        }
        auto s   = runnable_shape(name, s0, o);
        auto has = [&, n = name](const std::vector<std::string>& xs) {
            return std::find(xs.begin(), xs.end(), n) != xs.end();
        };
        if(has(o.fill0))
            m[name] = filled(s, 0);
        else if(has(o.fill1))
            m[name] = filled(s, 1);
        else
            m[name] = generate_argument(s, seed_of(name));
    }
    return m;
}

parameter_map make_params(const program& p, const param_options& o, const target& t, bool offload_copy)
{
    return place_params(p, make_host_params(p, o), t, offload_copy);
}

parameter_map place_params(const program& p, parameter_map m, const target& t, bool offload_copy)
{
    if(not offload_copy)
        for(auto& kv : m)
            kv.second = t.copy_to(kv.second);
    auto inputs = p.get_inputs();
    for(const auto& [name, s] : p.get_parameter_shapes())
        if(inputs.count(name) == 0)
            m[name] = t.allocate(s);
    return m;
}

std::unordered_map<std::string, std::vector<std::size_t>> run_dims_of(const model_options& o, const program& p)
{
    std::unordered_map<std::string, std::vector<std::size_t>> r;
    auto inputs = p.get_inputs();
    for(const auto& [name, d] : parse_input_dims(o.input_dims))
        if(inputs.count(name) != 0 and inputs.at(name).dynamic())
            r[name] = d;
    return r;
}

std::size_t batch_size(const model_options& o, const program& p)
{
    if(o.batch != 0)
        return o.batch;
    auto names = input_names(p);
    if(names.empty())
        return 1;
    auto run = run_dims_of(o, p);
    if(run.count(names.front()) != 0 and not run.at(names.front()).empty())
        return run.at(names.front()).front();
    auto s = p.get_inputs().at(names.front());
    if(s.dynamic())
        return s.dyn_dims().empty() ? 1 : std::max<std::size_t>(1, s.dyn_dims().front().max);
    return s.lens().empty() ? 1 : std::max<std::size_t>(1, s.lens().front());
}

} // namespace driver
} // namespace migraphx
