#include "targets/cpu/layernorm_kernel.hpp"
#include "targets/cpu/omp_region.hpp"
#include "passes/layernorm_match.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <cmath>
#include <optional>

namespace migraphx {
namespace cpu {
namespace {

/// A row's normalized values, times scale[i] and plus shift[i] where given (nullptr: none).
__attribute__((target_clones("avx2", "default"))) void
normalize_row(const float* x, float* y, std::int64_t n, float eps, const float* scale, const float* shift)
{
    float sum = 0;
    for(std::int64_t i = 0; i < n; i++)
        sum += x[i];
    float mean = sum / static_cast<float>(n);
    float sq   = 0;
    for(std::int64_t i = 0; i < n; i++)
    {
        float d = x[i] - mean;
        sq += d * d;
    }
    float inv = 1.0f / std::sqrt(sq / static_cast<float>(n) + eps);
    if(scale == nullptr)
        for(std::int64_t i = 0; i < n; i++)
            y[i] = (x[i] - mean) * inv;
    else if(shift == nullptr)
        for(std::int64_t i = 0; i < n; i++)
            y[i] = (x[i] - mean) * inv * scale[i];
    else
        for(std::int64_t i = 0; i < n; i++)
            y[i] = (x[i] - mean) * inv * scale[i] + shift[i];
}

/// Whether a is a float scale or shift for x: x's lens, one value per position of the last axis
/// (unit stride there), every other dim broadcast.
bool column_values(const shape& a, const shape& x)
{
    if(a.type() != shape::float_type or a.lens() != x.lens() or a.strides().back() != 1)
        return false;
    for(std::size_t d = 0; d + 1 < a.lens().size(); d++)
        if(a.strides()[d] != 0 and a.lens()[d] != 1)
            return false;
    return true;
}

} // namespace

shape layernorm_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.empty() or in.size() > 3 or in[0].type() != shape::float_type or not in[0].standard() or
       in[0].lens().empty() or in[0].lens().back() == 0)
        MIGRAPHX_THROW("cpu::layernorm: expects one standard float tensor with a non-empty last axis (and maybe "
                       "its scale and shift)");
    for(std::size_t i = 1; i < in.size(); i++)
        if(not column_values(in[i], in[0]))
            MIGRAPHX_THROW("cpu::layernorm: expects a float scale and shift with one value per position of the "
                           "last axis");
    return planned_shape(name(), in[0], all, planned);
}

argument layernorm_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = result_buffer(out, args, planned);
    const auto* x   = reinterpret_cast<const float*>(args[0].data());
    auto* y         = reinterpret_cast<float*>(result.data());
    auto cols       = static_cast<std::int64_t>(out.lens().back());
    auto rows       = static_cast<std::int64_t>(out.elements()) / cols;
    // the scale and shift, where given, are inputs 1 and 2 (the planned buffer comes after them)
    auto own          = args.size() - (planned ? 1 : 0);
    const auto* scale = own > 1 ? reinterpret_cast<const float*>(args[1].data()) : nullptr;
    const auto* shift = own > 2 ? reinterpret_cast<const float*>(args[2].data()) : nullptr;
    omp_for(rows * cols > 16384, rows, [&](std::int64_t r) {
        normalize_row(x + r * cols, y + r * cols, cols, epsilon, scale, shift);
    });
    return result;
}

MIGRAPHX_REGISTER_OP(layernorm_kernel)

void fuse_layernorm::apply(module& m) const
{
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        auto found = match_layernorm(ins);
        if(not found or found->x->get_shape().type() != shape::float_type)
            continue;
        auto x = found->x;
        if(not x->get_shape().standard())
            x = m.insert_instruction(found->y, make_op("contiguous"), {x});
        // The scale and shift after it in the same pass over the row (a trained model's weights).
        auto a = match_layernorm_affine(found->y);
        if(a and column_values(a->scale->get_shape(), x->get_shape()) and
           (not a->shift or column_values((*a->shift)->get_shape(), x->get_shape())))
        {
            std::vector<instruction_ref> args{x, a->scale};
            if(a->shift)
                args.push_back(*a->shift);
            m.replace_instruction(a->out, operation{layernorm_kernel{found->epsilon}}, args);
        }
        else
            m.replace_instruction(found->y, operation{layernorm_kernel{found->epsilon}}, {x});
    }
}

} // namespace cpu
} // namespace migraphx
