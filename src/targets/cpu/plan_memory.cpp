#include "targets/cpu/plan_memory.hpp"
#include "passes/memory_coloring.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/reflect.hpp>
#include <algorithm>
#include <array>

namespace migraphx {
namespace cpu {

namespace {

// The ops whose compute writes their whole result into the buffer they are given when planned.
constexpr std::array<const char*, 11> planned_ops = {"dnnl::convolution",
                                                   "dnnl::matmul",
                                                   "dnnl::pooling",
                                                   "dnnl::reorder",
                                                   "cpu::pointwise",
                                                   "cpu::layernorm",
                                                   "cpu::softmax",
                                                   "cpu::reduce",
                                                   "cpu::gather",
                                                   "cpu::lerp",
                                                   "cpu::channel_shuffle"};

bool plannable(const instruction& ins)
{
    if(std::find(planned_ops.begin(), planned_ops.end(), ins.name()) == planned_ops.end())
        return false;
    auto v = ins.get_operator().to_value();
    return not v.at("planned").get_bool() and not(v.contains("sum_in_place") and v.at("sum_in_place").get_bool());
}

} // namespace

void plan_memory::apply(module& m) const
{
    buffer_readers readers(m);
    bool any = false;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(not plannable(*ins) or readers.returned(readers.owner(ins)) or ins->get_shape().bytes() == 0)
            continue;
        auto buffer = m.insert_instruction(
            ins, make_op("cpu::allocate", {{"shape", shape_to_value(ins->get_shape())}}), {});
        auto v       = ins->get_operator().to_value();
        v["planned"] = true;
        auto inputs  = ins->inputs();
        inputs.push_back(buffer);
        m.replace_instruction(ins, make_op(ins->name(), v), inputs);
        any = true;
    }
    if(any)
        memory_coloring{"cpu::allocate", 64}.apply(m);
}

} // namespace cpu
} // namespace migraphx
