#include "driver/verify.hpp"
#include "driver/load.hpp"
#include "driver/progress.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/module.hpp>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <sstream>

namespace migraphx {
namespace driver {

namespace {

struct comparison
{
    bool passed         = true;
    double max_abs      = 0;
    double max_rel      = 0;
    double rms_rel      = 0; // ||got - ref|| / ||ref||: the error of the whole tensor (fp16, int8)
    double rms_of_max   = 0; // ||got - ref|| / (sqrt(n) * the largest magnitude): MIGraphX's measure
    std::size_t bad     = 0;
    std::size_t count   = 0;
    std::string problem; // set when the results cannot be compared element by element
};

/// rms_tol < 0: an output passes when every element does (|x - ref| <= atol + rtol |ref|);
/// else when its rms_of_max is at most rms_tol (MIGraphX's driver criterion).
comparison compare(const argument& got, const argument& want, double rtol, double atol, double rms_tol = -1)
{
    comparison c;
    const auto& gs = got.get_shape();
    const auto& ws = want.get_shape();
    if(gs.type() == shape::tuple_type or ws.type() == shape::tuple_type)
    {
        c.problem = "a tuple (not compared)";
        return c;
    }
    if(gs.lens() != ws.lens())
    {
        std::ostringstream ss;
        ss << "shape " << gs << " but ref has " << ws;
        c.problem = ss.str();
        c.passed  = false;
        return c;
    }
    auto x = got.to_vector<double>();
    auto y = want.to_vector<double>();
    c.count = x.size();
    double diff2 = 0, ref2 = 0, mag = 0;
    bool nan_mismatch = false;
    for(std::size_t i = 0; i < x.size(); i++)
    {
        if(not std::isnan(x[i]) and not std::isnan(y[i]))
        {
            diff2 += (x[i] - y[i]) * (x[i] - y[i]);
            ref2 += y[i] * y[i];
            mag = std::max({mag, std::fabs(x[i]), std::fabs(y[i])});
        }
        else if(std::isnan(x[i]) != std::isnan(y[i]))
            nan_mismatch = true;
        bool same = (std::isnan(x[i]) and std::isnan(y[i])) or x[i] == y[i];
        double d  = std::fabs(x[i] - y[i]);
        bool ok   = same or d <= atol + rtol * std::fabs(y[i]);
        if(not ok)
            c.bad++;
        if(same)
            continue;
        if(std::isnan(d))
            d = std::numeric_limits<double>::infinity();
        c.max_abs = std::max(c.max_abs, d);
        c.max_rel = std::max(c.max_rel, y[i] != 0 ? d / std::fabs(y[i]) : std::numeric_limits<double>::infinity());
    }
    c.rms_rel = ref2 > 0 ? std::sqrt(diff2 / ref2) : (diff2 > 0 ? std::numeric_limits<double>::infinity() : 0.0);
    c.rms_of_max = x.empty() ? 0.0
                             : std::sqrt(diff2) / (std::sqrt(static_cast<double>(x.size())) *
                                                    std::max(mag, std::numeric_limits<double>::min()));
    if(nan_mismatch)
        c.rms_of_max = std::numeric_limits<double>::infinity();
    c.passed = rms_tol < 0 ? c.bad == 0 : c.rms_of_max <= rms_tol;
    return c;
}

std::ostream& operator<<(std::ostream& os, const comparison& c)
{
    if(not c.problem.empty())
        os << c.problem;
    else
        os << "max abs diff " << c.max_abs << ", max rel diff " << c.max_rel << ", rms rel " << c.rms_rel
           << ", rms of max " << c.rms_of_max << ", " << c.bad << "/" << c.count << " mismatched";
    return os << ": " << (c.passed ? "PASSED" : "FAILED");
}

program compile_ref(program p, bool quiet)
{
    progress show(quiet, "Compiling for ref");
    p.compile(get_target("ref"));
    return p;
}

// Runs p on its target and ref on the same inputs; results come back on the host.
std::pair<std::vector<argument>, std::vector<argument>> run_both(const program& p,
                                                                 const target& t,
                                                                 const target_options& to,
                                                                 const param_options& po)
{
    auto host     = make_host_params(p, po);
    auto compiled = compile_model(p, t, to, po);
    auto ref      = compile_ref(p, to.quiet);
    auto got      = compiled.eval(place_params(compiled, host, t, to.offload_copy));
    for(auto& a : got)
        a = t.copy_from(a);
    return {got, ref.eval(host)};
}

// Where a difference starts: every instruction of the main module made an output.
bool check_each_instruction(const program& p,
                            const target& t,
                            const target_options& to,
                            const param_options& po,
                            double rtol,
                            double atol,
                            double rms_tol)
{
    program q  = p;
    auto* mm   = q.get_main_module();
    auto names = mm->instruction_names();
    std::vector<instruction_ref> outs;
    std::vector<std::string> labels, lines;
    for(auto ins = mm->begin(); ins != mm->end(); ++ins)
    {
        if(ins->name().front() == '@' or ins->get_shape().type() == shape::tuple_type)
            continue;
        std::ostringstream ss;
        mm->print_instruction(ss, ins, names);
        outs.push_back(ins);
        labels.push_back(names.at(&*ins));
        lines.push_back(ss.str());
    }
    if(outs.empty())
    {
        std::cout << "No instruction to check.\n";
        return true;
    }
    if(mm->get_return() == mm->end())
        mm->add_return(outs);
    else
        mm->replace_return(outs);
    q.set_output_names(labels);
    std::cout << "\nInstruction by instruction (every instruction's result made an output):\n";
    auto [got, want] = run_both(q, t, to, po);
    for(std::size_t i = 0; i < outs.size(); i++)
    {
        auto c = compare(got.at(i), want.at(i), rtol, atol, rms_tol);
        std::cout << lines[i] << ": " << c << "\n";
        if(not c.passed)
        {
            std::cout << "First departing instruction: " << lines[i] << std::endl;
            return false;
        }
    }
    std::cout << "No instruction departs from ref." << std::endl;
    return true;
}

} // namespace

int verify_model(const model_options& mo, const target_options& to, const param_options& po, verify_options vo)
{
    double dflt = to.int8 ? 1e-1 : to.fp16 ? 1e-2 : 1e-3;
    // e4m3 keeps 3 mantissa bits: each operand is off by up to 2^-4 of itself, so an element
    // near zero can be off by more than any per-element bound that still means something. Its
    // default is the whole-tensor criterion at e4m3's unit roundoff, 2^-4, unless tolerances
    // are given.
    if(to.fp8 and vo.rtol < 0 and vo.atol < 0 and vo.rms_tol < 0)
        vo.rms_tol = 0.0625;
    double rtol = vo.rtol < 0 ? dflt : vo.rtol;
    double atol = vo.atol < 0 ? dflt : vo.atol;
    std::cout << "Compiling ..." << std::endl;
    auto p = load_model(mo);
    if(p.is_compiled())
        throw error("verify needs a model to compile (ONNX); this program is already compiled for " + p.target_name());
    auto t = choose_target(to);
    if(vo.rms_tol >= 0)
        std::cout << "Verifying " << t.name() << " against ref (rms of max <= " << vo.rms_tol << ")" << std::endl;
    else
        std::cout << "Verifying " << t.name() << " against ref (rtol=" << rtol << ", atol=" << atol << ")" << std::endl;
    auto [got, want] = run_both(p, t, to, po);
    auto names       = p.get_output_names();
    bool passed      = true;
    for(std::size_t i = 0; i < want.size(); i++)
    {
        auto c = compare(got.at(i), want.at(i), rtol, atol, vo.rms_tol);
        std::cout << (i < names.size() ? names[i] : "output " + std::to_string(i)) << ": " << c << "\n";
        passed = passed and c.passed;
    }
    if(vo.per_instruction)
        passed = check_each_instruction(p, t, to, po, rtol, atol, vo.rms_tol) and passed;
    std::cout << (passed ? "PASSED" : "FAILED") << std::endl;
    return passed ? 0 : 1;
}

} // namespace driver
} // namespace migraphx
