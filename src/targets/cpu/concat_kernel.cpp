#include "targets/cpu/concat_kernel.hpp"
#include "ir/strided_copy.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include "targets/cpu/omp_region.hpp"
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <algorithm>
#include <omp.h>

namespace migraphx {
namespace cpu {

namespace {

copy_threads team_threads()
{
    copy_threads t;
    t.bytes_per_thread = std::size_t{64} << 10;
    t.run = [](std::size_t n, std::size_t grain, const std::function<void(std::size_t, std::size_t)>& f) {
        auto team = std::min(static_cast<std::size_t>(std::max(cpu_thread_count(), 1)), n / std::max<std::size_t>(grain, 1));
        if(team <= 1)
        {
            f(0, n);
            return;
        }
        omp_region(true, static_cast<int>(team), [&] {
            auto t = static_cast<std::size_t>(omp_get_thread_num());
            auto k = static_cast<std::size_t>(omp_get_num_threads());
            if(n * t / k < n * (t + 1) / k)
                f(n * t / k, n * (t + 1) / k);
        });
    };
    return t;
}

} // namespace

shape concat_kernel::compute_shape(const std::vector<shape>& in) const
{
    return make_op("concat", {{"axis", axis}}).compute_shape(in);
}

argument concat_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    argument result = uninitialized(out); // every element is written
    auto a = static_cast<std::size_t>(axis < 0 ? axis + static_cast<std::int64_t>(out.ndim()) : axis);
    std::vector<shape> parts;
    std::vector<const char*> srcs;
    for(const auto& arg : args)
    {
        parts.push_back(arg.get_shape());
        srcs.push_back(arg.data());
    }
    static const copy_threads threads = team_threads();
    copy_concat(parts, srcs, a, out, result.data(), threads);
    return result;
}

void lower_concat::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "concat" or dd.count(&*ins) > 0 or ins->get_shape().dynamic())
            continue;
        auto axis = ins->get_operator().to_value().at("axis").to<std::int64_t>();
        m.replace_instruction(ins, operation{concat_kernel{axis}}, ins->inputs());
    }
}

MIGRAPHX_REGISTER_OP(concat_kernel)

} // namespace cpu
} // namespace migraphx
