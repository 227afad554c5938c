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
    instruction_ref weights(instruction_ref w, instruction_ref ins)
    {
        auto it = done_.find(&*w);
        if(it != done_.end())
            return it->second;
        std::vector<instruction_ref> views;    // outermost first
        std::vector<shape::type_t> conversions; // outermost first
        auto root = w;
        while(root->name() == "multibroadcast" or root->name() == "broadcast" or
              (root->name() == "convert" and float_like(root) and float_like(root->inputs().front())))
        {
            if(root->name() == "convert")
                conversions.push_back(root->get_shape().type());
            else
                views.push_back(root);
            root = root->inputs().front();
        }
        auto value = eval_constant(root);
        if(not value)
            MIGRAPHX_THROW("quantize_fp8: the weights of '" + ins->name() + "' could not be evaluated");
        auto v = value->to_vector<float>();
        for(auto c = conversions.rbegin(); c != conversions.rend(); ++c)
            if(*c == shape::half_type)
                std::transform(v.begin(), v.end(), v.begin(), [](float f) { return static_cast<float>(half(f)); });
        float abs_max = 0;
        for(auto f : v)
            abs_max = std::max(abs_max, std::abs(f)); // NaN never wins a max with std::max here
        // the scale as the product's type stores it, so the literal is rounded against that
        auto t  = w->get_shape().type();
        float s = scale_of(abs_max);
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
        fp8_rewriter r{*m};
        for(auto ins : targets)
        {
            auto x     = ins->inputs()[0];
            auto i     = static_cast<std::size_t>(std::find(watched.begin(), watched.end(), x) - watched.begin());
            auto inputs = ins->inputs();
            inputs[0]   = r.activation(x, scale_of(range[i]));
            inputs[1]   = r.weights(inputs[1], ins);
            m->replace_instruction(ins, ins->get_operator(), inputs);
        }
        dead_code_elimination{}.apply(*m);
        report.quantized = targets.size();
    }
    if(options.report != nullptr)
        *options.report = report;
}

} // namespace migraphx
