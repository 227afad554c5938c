// lowering_check: which ops of an ONNX model the gpu target would run on the host, found without a
// GPU. Parses the model (optionally quantized to fp16), runs the gpu target's passes that need no
// device (gpu::passes_before_device: simplify, fuse_pointwise, layout_nhwc, lowering) and prints
// a count of every op in the main module after lowering (generated kernels by their symbol) and
// each host fallback (gpu::ref::<op>, with its input shapes; for a fused pointwise op, the ops in
// its body). Exit status: 0 no host fallback, 1 some, 2 usage or parse error.
//
// Usage: lowering_check MODEL.onnx [--fp16] [--int8] [--int8-residuals] [--fp8] [--sm N] [--batch N]
//                       [--input-dim NAME D1,D2,...]... [--offload-copy on|off] [--print] [--quiet] [--nvrtc]
//   --fp8           quantize_fp8 without calibration (scale 1: the structure, not the accuracy)
//   --sm N          the device's compute capability as major*10+minor (default 0: unknown; fp8
//                   products need 89 or later)
//   --batch N       value of every symbolic dim not given by --input-dim (default 1)
//   --print         print the lowered main module
//   --quiet         only the fallbacks and the summary line
//   --nvrtc         also compile every generated kernel with NVRTC for sm_90 (no device needed;
//                   uses the kernel cache as the target does); a failure is reported, exit 2
//
// Build (needs build-gpu's libmigraphx with the gpu target; internal headers from src/):
//   tools/gpu/build_lowering_check.sh            -> build-gpu/lowering_check
#include <migraphx/instruction.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/quantization.hpp>
#include <migraphx/ref/target.hpp>
#include "passes/pass_manager.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include "targets/gpu/lowering.hpp"
#include <cstdlib>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

namespace {

int usage(const char* msg)
{
    if(msg != nullptr)
        std::cerr << "lowering_check: " << msg << "\n";
    std::cerr << "usage: lowering_check MODEL.onnx [--fp16] [--int8] [--int8-residuals] [--fp8] [--sm N] [--batch N] [--input-dim NAME D1,D2,...]... "
                 "[--offload-copy on|off] [--print] [--quiet] [--nvrtc]\n";
    return 2;
}

std::vector<std::size_t> parse_dims(const std::string& s)
{
    std::vector<std::size_t> r;
    std::stringstream ss(s);
    std::string item;
    while(std::getline(ss, item, ','))
        r.push_back(static_cast<std::size_t>(std::stoull(item)));
    return r;
}

std::string shape_text(const migraphx::shape& s)
{
    std::ostringstream os;
    os << s.type_string() << "[";
    for(std::size_t i = 0; i < s.lens().size(); i++)
        os << (i ? "," : "") << s.lens()[i];
    os << "]";
    if(not s.standard() and not s.scalar())
    {
        os << "{";
        for(std::size_t i = 0; i < s.strides().size(); i++)
            os << (i ? "," : "") << s.strides()[i];
        os << "}";
    }
    return os.str();
}

/// The ops of a pointwise body with their result types: "where:float(convert:bool, ...)".
std::string body_text(const migraphx::module& m)
{
    std::ostringstream os;
    bool first = true;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        if(it->name() == "@param" or it->name() == "@return")
            continue;
        os << (first ? "" : ", ") << it->name() << "->" << it->get_shape().type_string();
        first = false;
    }
    return os.str();
}

bool is_host_op(const migraphx::instruction& ins)
{
    const auto& n = ins.name();
    if(n.empty() or n.front() == '@' or n.rfind("gpu::ref::", 0) == 0)
        return n.rfind("gpu::ref::", 0) == 0;
    if(n.rfind("gpu::", 0) == 0 or n.rfind("hip::", 0) == 0)
        return false;
    return not migraphx::gpu::device_view(ins);
}

} // namespace

int main(int argc, char** argv)
{
    std::string path;
    bool fp16 = false, int8 = false, int8_residuals = false, fp8 = false, offload = true, print = false, quiet = false,
         nvrtc = false;
    int sm = 0;
    migraphx::onnx_options opts;
    opts.default_dim_value = 1;
    for(int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        auto next     = [&]() -> std::string {
            if(i + 1 >= argc)
                throw std::runtime_error(a + " needs a value");
            return argv[++i];
        };
        try
        {
            if(a == "--fp16")
                fp16 = true;
            else if(a == "--int8")
                int8 = true;
            else if(a == "--int8-residuals")
                int8 = int8_residuals = true;
            else if(a == "--fp8")
                fp8 = true;
            else if(a == "--sm")
                sm = std::stoi(next());
            else if(a == "--batch")
                opts.default_dim_value = static_cast<std::size_t>(std::stoull(next()));
            else if(a == "--input-dim")
            {
                auto name                 = next();
                opts.map_input_dims[name] = parse_dims(next());
            }
            else if(a == "--offload-copy")
            {
                auto v = next();
                if(v != "on" and v != "off")
                    return usage("--offload-copy takes on or off");
                offload = v == "on";
            }
            else if(a == "--print")
                print = true;
            else if(a == "--quiet")
                quiet = true;
            else if(a == "--nvrtc")
                nvrtc = true;
            else if(a == "-h" or a == "--help")
                return usage(nullptr), 0;
            else if(not a.empty() and a.front() == '-')
                return usage(("unknown option " + a).c_str());
            else if(path.empty())
                path = a;
            else
                return usage("more than one model");
        }
        catch(const std::exception& e)
        {
            return usage(e.what());
        }
    }
    if(path.empty())
        return usage("no model");

    migraphx::program p;
    try
    {
        p = migraphx::parse_onnx(path, opts);
        if(fp16)
            migraphx::quantize_fp16(p);
        if(int8)
        {
            // the gpu's int8 program structure (signed activations), default ranges: no run
            migraphx::quantize_int8_options q;
            q.unsigned_activations = false;
            q.min_cosine           = 0;
            q.int8_residuals       = int8_residuals;
            migraphx::quantize_int8(p, migraphx::ref::target{}, {}, q);
        }
        if(fp8)
            migraphx::quantize_fp8(p, migraphx::ref::target{}, {});
        migraphx::run_passes(p, migraphx::gpu::passes_before_device(offload, true, sm));
    }
    catch(const std::exception& e)
    {
        std::cerr << "lowering_check: " << path << ": " << e.what() << "\n";
        return 2;
    }
    const auto* m = p.get_main_module();
    if(print)
        std::cout << *m << "\n";

    std::map<std::string, std::size_t> counts;
    std::vector<std::string> fallbacks;
    std::map<std::string, std::size_t> fallback_counts;
    std::size_t ops = 0, compiled = 0;
    bool compile_failed = false;
    for(auto it = m->begin(); it != m->end(); ++it)
    {
        const auto& n = it->name();
        if(n.front() == '@' or n == "hip::hip_allocate_memory")
            continue;
        ops++;
        std::string key = n;
        if(n == "gpu::code_object")
        {
            auto v = it->get_operator().to_value();
            key += "[" + v.at("symbol_name").get_string() + "]";
            if(nvrtc)
            {
                try
                {
                    migraphx::gpu::compile_cuda(v.at("source").get_string(), v.at("symbol_name").get_string(), 9, 0);
                    compiled++;
                }
                catch(const std::exception& e)
                {
                    std::cerr << "lowering_check: NVRTC failed: " << e.what() << "\n";
                    compile_failed = true;
                }
            }
        }
        else if(n == "gpu::gemm")
        {
            auto e = it->get_operator().to_value();
            if(e.is_object() and e.contains("epilogue") and not e.at("epilogue").get_string().empty())
                key += "[" + e.at("epilogue").get_string() + "]";
        }
        counts[key]++;
        if(not is_host_op(*it))
            continue;
        fallback_counts[n]++;
        std::ostringstream os;
        os << n << "(";
        auto inputs = it->inputs();
        // A fallback's last input is its output buffer (hip::hip_allocate_memory).
        if(not inputs.empty() and inputs.back()->name() == "hip::hip_allocate_memory")
            inputs.pop_back();
        for(std::size_t k = 0; k < inputs.size(); k++)
            os << (k ? ", " : "") << shape_text(inputs[k]->get_shape());
        os << ") -> " << shape_text(it->get_shape());
        const auto* f = it->get_operator().any_cast<migraphx::gpu::ref_fallback>();
        if(f != nullptr and f->mod != nullptr)
            os << "\n      body: " << body_text(*f->mod);
        else if(not it->module_inputs().empty())
            os << "\n      body: " << body_text(*it->module_inputs().front());
        fallbacks.push_back(os.str());
    }

    std::cout << "model: " << path << (fp16 ? " (fp16)" : " (fp32)") << ", offload_copy=" << (offload ? "on" : "off")
              << "\n";
    if(not quiet)
    {
        std::cout << "ops after gpu lowering (main module, views and allocations included, literals and "
                     "parameters not):\n";
        for(const auto& [k, c] : counts)
            std::cout << "  " << std::setw(5) << c << "  " << k << "\n";
    }
    if(not fallbacks.empty())
    {
        std::cout << "host fallbacks (" << fallbacks.size() << "):\n";
        for(const auto& f : fallbacks)
            std::cout << "  " << f << "\n";
    }
    std::cout << "summary: " << ops << " ops, " << fallbacks.size() << " host fallback(s)";
    for(const auto& [k, c] : fallback_counts)
        std::cout << ", " << c << " " << k;
    if(nvrtc)
        std::cout << ", " << compiled << " kernel(s) compiled by NVRTC" << (compile_failed ? ", SOME FAILED" : "");
    std::cout << "\n";
    if(compile_failed)
        return 2;
    return fallbacks.empty() ? 0 : 1;
}
