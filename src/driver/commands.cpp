#include "driver/commands.hpp"
#include "driver/perf.hpp"
#include "driver/version.hpp"
#include <migraphx/make_op.hpp>
#include "ir/dynamic_program.hpp"
#include <cstdlib>
#include <iostream>

namespace migraphx {
namespace driver {

namespace {

// Like MIGRAPHX_TRACE_EVAL: everything up to 10 values, else the first and last 5.
void print_values(std::ostream& os, const argument& a)
{
    if(a.get_shape().type() == shape::tuple_type)
    {
        os << "(tuple of " << a.get_sub_objects().size() << ")\n";
        return;
    }
    auto xs    = a.to_vector<double>();
    auto range = [&](std::size_t b, std::size_t e) {
        for(std::size_t i = b; i < e; i++)
            os << (i == b ? "" : ", ") << xs[i];
    };
    if(xs.size() <= 10)
        range(0, xs.size());
    else
    {
        range(0, 5);
        os << ", ..., ";
        range(xs.size() - 5, xs.size());
    }
    os << "\n";
}

struct compiled_model
{
    program prog;
    target tgt;
};

compiled_model load_and_compile(const model_options& mo, const target_options& to, const param_options& po)
{
    std::cout << "Compiling ..." << std::endl;
    auto p = load_model(mo);
    auto t = p.is_compiled() ? target_of(p) : choose_target(to);
    return {compile_model(std::move(p), t, to, po), t};
}

param_options with_run_dims(param_options po, const model_options& mo, const program& p)
{
    po.run_dims = run_dims_of(mo, p);
    return po;
}

} // namespace

int read_command(const model_options& mo, const output_options& out)
{
    check_output_options(out);
    write_program(load_model(mo), out);
    return 0;
}

int params_command(const model_options& mo)
{
    auto p = load_model(mo);
    std::cout << "inputs:\n";
    auto inputs = p.get_inputs();
    for(const auto& n : input_names(p))
        std::cout << n << ": " << inputs.at(n) << "\n";
    std::cout << "\noutputs:\n";
    auto shapes = p.get_output_shapes();
    auto names  = p.get_output_names();
    for(std::size_t i = 0; i < shapes.size() and i < names.size(); i++)
        std::cout << names[i] << ": " << shapes[i] << "\n";
    std::cout << std::flush;
    return 0;
}

int compile_command(const model_options& mo, const target_options& to, const output_options& out)
{
    check_output_options(out); // before a compile that would be wasted
    auto m = load_and_compile(mo, to, param_options{});
    write_program(m.prog, out);
    return 0;
}

int run_command(const model_options& mo, const target_options& to, const param_options& po0)
{
    auto m  = load_and_compile(mo, to, po0);
    auto po = with_run_dims(po0, mo, m.prog);
    std::cout << "Allocating params ..." << std::endl;
    auto params = make_params(m.prog, po, m.tgt, to.offload_copy);
    std::cout << "Running ..." << std::endl;
    auto results = m.prog.eval(params);
    auto names   = m.prog.get_output_names();
    for(std::size_t i = 0; i < results.size(); i++)
    {
        auto r = m.tgt.copy_from(results[i]);
        std::cout << (i < names.size() ? names[i] : "output " + std::to_string(i)) << ": " << r.get_shape() << "\n";
        print_values(std::cout, r);
    }
    std::cout << std::flush;
    return 0;
}

int perf_command(const model_options& mo, const target_options& to, const param_options& po0, std::size_t n,
                 bool enqueue_times)
{
    auto m  = load_and_compile(mo, to, po0);
    auto po = with_run_dims(po0, mo, m.prog);
    auto params = make_params(m.prog, po, m.tgt, to.offload_copy);
    // A dynamic program runs the static variant compiled for these shapes: report on that one.
    auto variant    = variant_for(m.prog, params);
    const auto& run = variant ? *variant : m.prog;
    std::cout << run << std::flush;
    std::cout << "Allocating params ..." << std::endl;
    std::cout << "Running performance report ..." << std::endl;
    // Only the gpu target replays runs, unless told not to (a loaded .mxr keeps its own setting).
    bool replays = run.target_name() == "gpu" and not to.no_cuda_graph and
                   std::getenv("MIGRAPHX_DISABLE_CUDA_GRAPH") == nullptr;
    perf_report(std::cout, run, params_for(run, params), n, batch_size(mo, m.prog), replays);
    if(enqueue_times)
        enqueue_report(std::cout, run, params_for(run, params), n);
    return 0;
}

int version_command(const std::string& mxr)
{
    if(not mxr.empty())
    {
        // Only the file's header is read, so a file of another format version is described too.
        auto h = read_mxr_header(mxr);
        std::cout << "MIGraphX version: " << (h.migx_version.empty() ? "unknown" : h.migx_version) << "\n";
        std::cout << "MXR version: " << h.mxr_version << "\n";
        std::cout << "Target: " << (h.target.empty() ? "none (not compiled)" : h.target) << "\n";
        if(h.mxr_version != mxr_version)
            std::cout << "This build (MXR version " << mxr_version << ") cannot load this file\n";
        std::cout << std::flush;
        return 0;
    }
    std::cout << "MIGraphX version: " << migraphx_version << "\n";
    std::cout << "ONNX Opset version: " << onnx_opset_version << "\n";
    std::cout << "MXR version: " << mxr_version << "\n";
    std::cout << "Targets: " << join(get_targets()) << std::endl;
    return 0;
}

int onnx_command(bool list)
{
    if(not list)
        throw error("onnx: nothing to do; use onnx -l to list the supported ONNX operators");
    if(not have_onnx_parser())
        std::cerr << "migraphx-driver: note: this build has no ONNX parser\n";
    for(const auto& n : onnx_operators())
        std::cout << n << "\n";
    std::cout << std::flush;
    return 0;
}

int op_command(bool list, const std::string& name)
{
    if(list)
    {
        for(const auto& n : get_operators())
            std::cout << n << "\n";
        std::cout << std::flush;
        return 0;
    }
    if(name.empty())
        throw error("op: nothing to do; use op -l to list the operators, or op NAME to show one");
    std::cout << make_op(name) << std::endl;
    return 0;
}

} // namespace driver
} // namespace migraphx
