#include "targets/cpu/lower_actual_sizes.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/lower_dnnl.hpp"
#include "targets/cpu/lower_pointwise.hpp"
#include <migraphx/operation.hpp>
#include <algorithm>

namespace migraphx {
namespace cpu {

void lower_actual_sizes::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m);
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) == 0)
            continue;
        if(ins->name() == "convolution")
        {
            if(auto op = plain_dnnl_convolution(ins))
            {
                const auto& w        = ins->inputs()[1]->get_shape().lens();
                op->any_layout       = std::any_of(w.begin() + 2, w.end(), [](auto k) { return k > 1; });
                op->constant_weights = ins->inputs()[1]->can_eval();
                m.replace_instruction(ins, operation{*op}, ins->inputs());
            }
        }
        else if(ins->name() == "convolution_backwards")
        {
            if(auto op = plain_dnnl_deconvolution(ins))
                m.replace_instruction(ins, operation{*op}, ins->inputs());
        }
        else if(ins->name() == "dot")
        {
            if(auto op = plain_dnnl_matmul(ins))
                m.replace_instruction(ins, operation{*op}, ins->inputs());
        }
        else if(auto k = pointwise_kernel_for(ins))
            m.replace_instruction(ins, operation{k->first}, k->second, {});
    }
}

} // namespace cpu
} // namespace migraphx
