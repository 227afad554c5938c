#include "targets/cpu/layernorm_kernel.hpp"
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

__attribute__((target_clones("avx2", "default"))) void
normalize_row(const float* x, float* y, std::int64_t n, float eps)
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
    for(std::int64_t i = 0; i < n; i++)
        y[i] = (x[i] - mean) * inv;
}

} // namespace

shape layernorm_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.size() != 1 or in[0].type() != shape::float_type or not in[0].standard() or in[0].lens().empty() or
       in[0].lens().back() == 0)
        MIGRAPHX_THROW("cpu::layernorm: expects one standard float tensor with a non-empty last axis");
    return planned_shape(name(), in[0], all, planned);
}

argument layernorm_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = result_buffer(out, args, planned);
    const auto* x   = reinterpret_cast<const float*>(args[0].data());
    auto* y         = reinterpret_cast<float*>(result.data());
    auto cols       = static_cast<std::int64_t>(out.lens().back());
    auto rows       = static_cast<std::int64_t>(out.elements()) / cols;
#pragma omp parallel for schedule(static) if(rows * cols > 16384)
    for(std::int64_t r = 0; r < rows; r++)
        normalize_row(x + r * cols, y + r * cols, cols, epsilon);
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
        m.replace_instruction(found->y, operation{layernorm_kernel{found->epsilon}}, {x});
    }
}

} // namespace cpu
} // namespace migraphx
