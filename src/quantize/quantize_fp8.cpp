// quantize_fp8: each selected product (dot, convolution) by constant weights reads both of its
// operands through fp8 e4m3:
//   x -> quantizelinear(x, sx, 0 as fp8e4m3fn) -> dequantizelinear(., sx, 0) -> product
//   w (constant) -> an fp8e4m3fn literal of round(w / sw) -> dequantizelinear(., sw, 0) -> product
// with one scale per tensor, range / 448 (e4m3's largest finite value): cuBLASLt's fp8 products
// on Hopper take one scale per operand. An activation's range comes from calibration (its
// largest |x|, or a percentile of |x|); a weight's from its values. Every target runs the
// rewritten program as it is (the products in float or half on fp8-rounded operands, which is
// what an fp8 product with float accumulation computes); a target may fuse the pairs into
// fp8 products.
#include <migraphx/quantization.hpp>
#include <migraphx/make_op.hpp>
#include "passes/dead_code_elimination.hpp"
#include "quantize/calibrate.hpp"
#include "quantize/constant_expr.hpp"
#include <algorithm>
#include <cmath>
#include <iostream>
#include <map>
#include <unordered_map>

namespace migraphx {
namespace {

constexpr float e4m3_max = fp8e4m3fn::max_finite;

float scale_of(float range) { return range_scale(range, e4m3_max); }

bool float_like(instruction_ref x)
{
    auto t = x->get_shape().type();
    return (t == shape::float_type or t == shape::half_type) and not x->get_shape().dynamic();
}

bool selected(instruction_ref ins, const std::vector<std::string>& names)
{
    const auto& n = ins->name();
    if((n != "convolution" and n != "dot") or std::find(names.begin(), names.end(), n) == names.end())
        return false;
    auto x = ins->inputs()[0], w = ins->inputs()[1];
    // Products of two activations (attention's) stay as they are: a target fuses them into its
    // attention kernel, and neither operand has a range known before the run.
    return float_like(x) and float_like(w) and float_like(ins) and x->get_shape().type() == w->get_shape().type() and
           not is_constant(x) and is_constant(w);
}

/// Constant weights as a product reads them: the value under its broadcasts (outermost first)
/// and float/half converts, the converts applied as they round.
struct weight_values
{
    instruction_ref root;
    std::vector<instruction_ref> views;
    std::vector<float> values;
    float abs_max = 0;
};

weight_values read_weights(instruction_ref w, instruction_ref ins)
{
    weight_values r;
    std::vector<shape::type_t> conversions; // outermost first
    r.root = w;
    while(r.root->name() == "multibroadcast" or r.root->name() == "broadcast" or
          (r.root->name() == "convert" and float_like(r.root) and float_like(r.root->inputs().front())))
    {
        if(r.root->name() == "convert")
            conversions.push_back(r.root->get_shape().type());
        else
            r.views.push_back(r.root);
        r.root = r.root->inputs().front();
    }
    auto value = eval_constant(r.root);
    if(not value)
        MIGRAPHX_THROW("quantize_fp8: the weights of '" + ins->name() + "' could not be evaluated");
    r.values = value->to_vector<float>();
    for(auto c = conversions.rbegin(); c != conversions.rend(); ++c)
        if(*c == shape::half_type)
            std::transform(r.values.begin(), r.values.end(), r.values.begin(),
                           [](float f) { return static_cast<float>(half(f)); });
    for(auto f : r.values)
        r.abs_max = std::max(r.abs_max, std::abs(f)); // NaN never wins a max with std::max here
    return r;
}

/// Products (dot) that read one activation with constant weights of one shape, such as a
/// transformer's Q, K and V, get one weight scale, from the largest |w| of them all: then their
/// alphas (activation scale times weight scale) are equal and a target may run them as one
/// product, as it does in half (gpu::merge_parallel_dots). e4m3 is a floating-point format, so a
/// larger scale costs a tensor precision only in values below its normal range (2^-6 times the
/// scale): nothing in its largest values. The range each target's weights are quantized for.
std::unordered_map<const instruction*, float> shared_weight_range(const std::vector<instruction_ref>& targets)
{
    std::map<std::pair<const instruction*, std::vector<std::size_t>>, std::vector<instruction_ref>> groups;
    for(auto ins : targets)
        if(ins->name() == "dot")
            groups[{&*ins->inputs()[0], ins->inputs()[1]->get_shape().lens()}].push_back(ins);
    std::unordered_map<const instruction*, float> r;
    for(const auto& g : groups)
    {
        if(g.second.size() < 2)
            continue;
        float range = 0;
        for(auto ins : g.second)
            range = std::max(range, read_weights(ins->inputs()[1], ins).abs_max);
        for(auto ins : g.second)
            r[&*ins] = range;
    }
    return r;
}

class fp8_rewriter
{
    public:
    explicit fp8_rewriter(module& m) : m_(m) {}

    /// x read through quantizelinear/dequantizelinear with scale s, once per value however many
    /// products read it (the gpu then casts it once).
    instruction_ref activation(instruction_ref x, float s)
    {
        auto it = done_.find(&*x);
        if(it != done_.end())
            return it->second;
        auto pos = std::next(x);
        auto sb  = scalar(pos, s, x->get_shape().type(), x->get_shape().lens());
        auto zb  = scalar(pos, 0, shape::fp8e4m3fn_type, x->get_shape().lens());
        auto q   = m_.insert_instruction(pos, make_op("quantizelinear"), {x, sb, zb});
        auto dq  = m_.insert_instruction(pos, make_op("dequantizelinear"), {q, sb, zb});
        return done_[&*x] = dq;
    }

    /// The constant w as an fp8 literal and its dequantizelinear, in front of `ins`. Broadcasts
    /// of the weights (a linear layer's over the batch; quantize_fp16's convert may sit above
    /// or below them) are kept after the dequantize: the literal holds each weight once, and a
    /// constant-folding pass folds the dequantize into one half/float copy of that, not one per
    /// batch. The converts between float and half are applied as they round.
    /// `range`: at least the weights' own largest |w| (a group's, shared_weight_range).
    instruction_ref weights(instruction_ref w, instruction_ref ins, float range = 0)
    {
        auto it = done_.find(&*w);
        if(it != done_.end())
            return it->second;
        auto c    = read_weights(w, ins);
        auto& v   = c.values;
        auto root = c.root;
        const auto& views = c.views;
        // the scale as the product's type stores it, so the literal is rounded against that
        auto t  = w->get_shape().type();
        float s = scale_of(std::max(range, c.abs_max));
        if(t == shape::half_type)
            s = static_cast<float>(half(s));
        std::vector<fp8e4m3fn> q(v.size());
        std::transform(v.begin(), v.end(), q.begin(), [&](float f) { return fp8e4m3fn(f / s); });
        const auto& lens = root->get_shape().lens();
        auto lit = m_.add_literal(literal{shape{shape::fp8e4m3fn_type, lens}, q});
        auto sb  = scalar(ins, s, t, lens);
        auto zb  = scalar(ins, 0, shape::fp8e4m3fn_type, lens);
        auto dq  = m_.insert_instruction(ins, make_op("dequantizelinear"), {lit, sb, zb});
        for(auto view = views.rbegin(); view != views.rend(); ++view)
            dq = m_.insert_instruction(ins, (*view)->get_operator(), {dq});
        return done_[&*w] = dq;
    }

    private:
    instruction_ref scalar(instruction_ref pos, float x, shape::type_t t, const std::vector<std::size_t>& lens)
    {
        auto li = m_.add_literal(literal{shape{t, {1}}, std::vector<float>{x}}); // rounded to t
        return m_.insert_instruction(pos, make_op("multibroadcast", {{"out_lens", lens}}), {li});
    }

    module& m_;
    std::unordered_map<const instruction*, instruction_ref> done_;
};

} // namespace

void quantize_fp8(program& prog,
                  const target& t,
                  const std::vector<parameter_map>& calibration,
                  const std::vector<std::string>& ins_names)
{
    quantize_fp8_options o;
    o.ins_names = ins_names;
    quantize_fp8(prog, t, calibration, o);
}

void quantize_fp8(program& prog,
                  const target& t,
                  const std::vector<parameter_map>& calibration,
                  const quantize_fp8_options& options)
{
    if(prog.is_compiled())
        MIGRAPHX_THROW("quantize_fp8: the program is already compiled; quantize before compile");
    for(const auto& n : options.ins_names)
        if(n != "convolution" and n != "dot")
            MIGRAPHX_THROW("quantize_fp8: cannot quantize '" + n + "' (only convolution and dot)");
    const auto& method = options.calibration_method;
    if(method != "max" and method.rfind("percentile:", 0) != 0)
        MIGRAPHX_THROW("quantize_fp8: unknown calibration method '" + method +
                       "' (max or percentile:P; int8's mse assumes evenly spaced levels, which e4m3 has not)");
    choose_threshold({}, 1, method); // a malformed percentile fails here
    check_calibration(prog, calibration);

    auto* m = prog.get_main_module();
    std::vector<instruction_ref> targets;
    for(auto ins = m->begin(); ins != m->end(); ++ins)
        if(selected(ins, options.ins_names))
            targets.push_back(ins);
    quantize_fp8_report report;
    if(not targets.empty())
    {
        std::vector<instruction_ref> watched;
        for(auto ins : targets)
            if(std::find(watched.begin(), watched.end(), ins->inputs()[0]) == watched.end())
                watched.push_back(ins->inputs()[0]);
        std::vector<float> range(watched.size(), e4m3_max); // scale 1 without calibration data
        if(calibration.empty())
            std::cerr << "migraphx: warning: quantize_fp8 has no calibration data; using scale 1 (the range "
                         "[-448, 448]) for every quantized input, which may lose much accuracy\n";
        else
        {
            auto seen = calibrate_ranges(prog, t, calibration, watched, method != "max");
            for(std::size_t i = 0; i < watched.size(); i++)
                range[i] = choose_threshold(seen[i], 1, method);
        }
        auto shared = shared_weight_range(targets);
        fp8_rewriter r{*m};
        for(auto ins : targets)
        {
            auto x     = ins->inputs()[0];
            auto i     = static_cast<std::size_t>(std::find(watched.begin(), watched.end(), x) - watched.begin());
            auto inputs = ins->inputs();
            auto group  = shared.find(&*ins);
            inputs[0]   = r.activation(x, scale_of(range[i]));
            inputs[1]   = r.weights(inputs[1], ins, group == shared.end() ? 0.0f : group->second);
            m->replace_instruction(ins, ins->get_operator(), inputs);
        }
        dead_code_elimination{}.apply(*m);
        report.quantized = targets.size();
    }
    if(options.report != nullptr)
        *options.report = report;
}

} // namespace migraphx
