// Reading, compiling and writing programs for the driver's subcommands.
#include "driver/load.hpp"
#include "driver/progress.hpp"
#include <migraphx/onnx.hpp>
#include <algorithm>
#include <iterator>
#include <fstream>
#include <iostream>
#include <sstream>

#if __has_include(<migraphx/load_save.hpp>)
#include <migraphx/load_save.hpp>
#define MIGRAPHX_DRIVER_HAS_LOAD_SAVE 1
#endif
#if __has_include(<migraphx/quantization.hpp>)
#include <migraphx/quantization.hpp>
#define MIGRAPHX_DRIVER_HAS_QUANTIZATION 1
#endif

// A build with MIGRAPHX_ENABLE_ONNX=OFF has no parser; weak references let the driver still
// link and say so instead of failing to build.
namespace migraphx {
program parse_onnx(const std::string& path, const onnx_options& options) __attribute__((weak));
std::vector<std::string> get_onnx_operators() __attribute__((weak));
} // namespace migraphx

namespace migraphx {
namespace driver {

namespace {

// Checks that every --input-dim names an input and took effect.
void check_input_dims(const program& p, const std::unordered_map<std::string, std::vector<std::size_t>>& dims)
{
    auto inputs = p.get_inputs();
    for(const auto& [name, want] : dims)
    {
        auto it = inputs.find(name);
        if(it == inputs.end())
            throw error("--input-dim @" + name + ": the model has no input '" + name + "' (inputs: " +
                        join(input_names(p)) + ")");
        const auto& s = it->second;
        auto rank     = s.dynamic() ? s.dyn_dims().size() : s.lens().size();
        bool inside   = true;
        for(std::size_t i = 0; s.dynamic() and i < rank and i < want.size(); i++)
            inside = inside and s.dyn_dims()[i].within(want[i]);
        if(rank == want.size() and not inside)
        {
            std::ostringstream ss;
            ss << "--input-dim @" << name << ": {";
            for(std::size_t i = 0; i < want.size(); i++)
                ss << (i ? ", " : "") << want[i];
            ss << "} is outside the input's range (" << s << ")";
            throw error(ss.str());
        }
        if(rank != want.size() or (not s.dynamic() and s.lens() != want))
        {
            std::ostringstream ss;
            ss << "--input-dim @" << name << ": " << want.size() << " dims do not fit the model's input " << name
               << " (" << s << ")";
            throw error(ss.str());
        }
    }
}

} // namespace

bool have_onnx_parser() { return &migraphx::parse_onnx != nullptr; }

std::vector<std::string> onnx_operators()
{
    if(&migraphx::get_onnx_operators == nullptr)
        return {};
    return migraphx::get_onnx_operators();
}

program load_mxr(const std::string& path)
{
#ifdef MIGRAPHX_DRIVER_HAS_LOAD_SAVE
    check_readable(path);
    return migraphx::load(path);
#else
    throw error("reading .mxr files (" + path + ") is not supported yet in this build");
#endif
}

serialize::mxr_header read_mxr_header(const std::string& path)
{
    check_readable(path);
    // The binary format's header is at the front: try the first 64 KiB before reading a whole
    // (possibly 100 MB) file; the json format, one object, needs all of it.
    std::ifstream f(path, std::ios::binary);
    std::vector<char> head(64 * 1024);
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(f.gcount()));
    if(f.eof())
        return serialize::read_mxr_header(head.data(), head.size());
    try
    {
        return serialize::read_mxr_header(head.data(), head.size());
    }
    catch(const std::exception&)
    {
        f.clear();
        f.seekg(0);
        std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
        return serialize::read_mxr_header(bytes.data(), bytes.size());
    }
}

void save_mxr(const program& p, const std::string& path)
{
#ifdef MIGRAPHX_DRIVER_HAS_LOAD_SAVE
    // --binary --output x.json writes the same content as JSON, for reading by eye
    file_options options;
    if(path.size() >= 5 and path.compare(path.size() - 5, 5, ".json") == 0)
        options.format = "json";
    migraphx::save(p, path, options);
#else
    (void)p;
    throw error("writing .mxr files (" + path + ") is not supported yet in this build");
#endif
}

void apply_output_names(program& p, const std::vector<std::string>& names)
{
    if(names.empty())
        return;
    if(p.is_compiled())
        throw error("--output-names: a compiled (.mxr) program's outputs cannot be changed");
    auto* mm        = p.get_main_module();
    auto outputs    = p.get_output_names();
    auto ret        = mm->get_return();
    auto ins_names  = mm->instruction_names();
    std::vector<instruction_ref> picks;
    for(const auto& n : names)
    {
        auto it = std::find(outputs.begin(), outputs.end(), n);
        if(it != outputs.end())
        {
            auto i = static_cast<std::size_t>(it - outputs.begin());
            picks.push_back(ret == mm->end() ? std::prev(mm->end()) : ret->inputs().at(i));
            continue;
        }
        auto found = mm->end();
        for(auto ins = mm->begin(); ins != mm->end(); ++ins)
            if(ins_names.at(&*ins) == n and ins->name() != "@return")
                found = ins;
        if(found == mm->end())
            throw error("--output-names: '" + n + "' is neither an output (" + join(outputs) +
                        ") nor an instruction (main:@N) of the model");
        picks.push_back(found);
    }
    if(ret == mm->end())
        mm->add_return(picks);
    else
        mm->replace_return(picks);
    p.set_output_names(names);
}

program load_model(const model_options& o)
{
    auto dims = parse_input_dims(o.input_dims);
    program p;
    if(not o.onnx.empty())
    {
        check_readable(o.onnx);
        if(not have_onnx_parser())
            throw error("this build has no ONNX parser (configured with MIGRAPHX_ENABLE_ONNX=OFF)");
        std::cout << "Reading: " << o.onnx << std::endl;
        onnx_options opts;
        opts.map_dyn_input_dims = parse_dyn_input_dims(o.dyn_input_dims);
        // --input-dim of an input given a range is the shape to run, not a parse option.
        for(const auto& [name, d] : dims)
            if(opts.map_dyn_input_dims.count(name) == 0)
                opts.map_input_dims[name] = d;
        if(o.batch != 0)
            opts.default_dim_value = o.batch;
        p = parse_onnx(o.onnx, opts);
        check_input_dims(p, dims);
    }
    else
    {
        if(not o.dyn_input_dims.empty())
            throw error("--dyn-input-dim applies to ONNX models only; a .mxr program keeps the ranges it was "
                        "saved with");
        check_readable(o.mxr);
        std::cout << "Reading: " << o.mxr << std::endl;
        p = load_mxr(o.mxr);
        auto inputs = p.get_inputs();
        for(const auto& [name, d] : dims)
            if(inputs.count(name) != 0 and not inputs.at(name).dynamic())
                throw error("--input-dim @" + name + ": a .mxr program's static input cannot change shape");
        check_input_dims(p, dims);
    }
    apply_output_names(p, o.output_names);
    if(o.batch != 0)
    {
        model_options none;
        auto first = batch_size(none, p);
        if(not input_names(p).empty() and first != o.batch)
            std::cerr << "migraphx-driver: warning: --batch " << o.batch << " but the model's first input has "
                      << first << " as its first dimension; the report uses " << o.batch << "\n";
    }
    return p;
}

program compile_model(program p, const target& t, const target_options& o, const param_options& calibration)
{
    if(p.is_compiled())
    {
        if(p.target_name() != t.name() and (o.gpu or o.cpu or o.ref))
            std::cerr << "migraphx-driver: note: the program is already compiled for " << p.target_name()
                      << "; running it there\n";
        if(o.exhaustive_tune or o.tf32)
            std::cerr << "migraphx-driver: note: --exhaustive-tune and --tf32 apply when compiling; the program keeps "
                         "the options it was compiled with\n";
        return p;
    }
    if((o.int8_residuals or o.int8_min_cosine >= 0) and not o.int8)
        throw error("--int8-residuals and --int8-min-cosine need --int8");
    if(o.int8 and o.fp8)
        throw error("--int8 and --fp8 are two ways to quantize the same products; choose one");
    if(o.fp16 or o.int8 or o.fp8)
    {
#ifdef MIGRAPHX_DRIVER_HAS_QUANTIZATION
        if(o.fp16)
            quantize_fp16(p);
        if(o.int8) // with --fp16: int8 convolutions and products, half for the rest
        {
            std::cerr << "migraphx-driver: --int8: calibrating on generated input data (one run); "
                         "real data gives better scales\n";
            quantize_int8_options q;
            q.int8_residuals = o.int8_residuals;
            if(o.int8_min_cosine >= 0)
                q.min_cosine = o.int8_min_cosine;
            quantize_int8(p, t, {make_host_params(p, calibration)}, q);
        }
        if(o.fp8) // with --fp16: e4m3 operands for the products, half for the rest
        {
            std::cerr << "migraphx-driver: --fp8: calibrating on generated input data (one run); "
                         "real data gives better scales\n";
            quantize_fp8(p, t, {make_host_params(p, calibration)});
        }
#else
        (void)calibration;
        throw error(std::string(o.int8 ? "--int8" : o.fp8 ? "--fp8" : "--fp16") +
                    ": quantization is not supported yet in this build");
#endif
    }
    compile_options co;
    co.offload_copy = o.offload_copy;
    co.cuda_graph   = not o.no_cuda_graph;
    co.fast_math    = not o.no_fast_math;
    co.exhaustive_tune = o.exhaustive_tune;
    co.tf32            = o.tf32;
    progress show(o.quiet, "Compiling");
    p.compile(t, co);
    return p;
}

void check_output_options(const output_options& o)
{
    if(not o.binary)
        return;
    if(o.output.empty())
        throw error("--binary needs --output FILE");
#ifndef MIGRAPHX_DRIVER_HAS_LOAD_SAVE
    throw error("writing .mxr files (" + o.output + ") is not supported yet in this build");
#endif
}

void write_program(const program& p, const output_options& o)
{
    if(o.binary)
    {
        if(o.output.empty())
            throw error("--binary needs --output FILE");
        save_mxr(p, o.output);
        return;
    }
    if(o.output.empty())
    {
        std::cout << p << std::flush;
        return;
    }
    std::ofstream f(o.output);
    if(not f)
        throw error("cannot write '" + o.output + "'");
    f << p;
    if(not f)
        throw error("cannot write '" + o.output + "'");
}

} // namespace driver
} // namespace migraphx
