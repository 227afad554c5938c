#include "targets/gpu/context.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/register_op.hpp>
#include <algorithm>

namespace migraphx {
namespace gpu {

void code_object::print_attributes(std::ostream& os) const
{
    // As the spec prints it, trailing comma included.
    os << "code_object=" << binary_size << ",symbol_name=" << symbol_name << ",global=" << global
       << ",local=" << local << ",";
}

shape code_object::compute_shape(const std::vector<shape>& inputs) const
{
    if(inputs.empty())
        MIGRAPHX_THROW(name() + ": missing the output buffer");
    return inputs.back();
}

void code_object::finalize(context& ctx, const shape&, const std::vector<shape>&)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto& st   = g.get();
    auto cubin = compile_cuda(source, symbol_name, st.sm_major, st.sm_minor);
    binary_size = cubin.size();
    kernel      = std::make_shared<loaded_kernel>(cubin, symbol_name);
}

argument code_object::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    if(not kernel)
        MIGRAPHX_THROW(name() + "[" + symbol_name + "]: run before finalize");
    if(global == 0)
        return args.back();
    auto& g = get_gpu_context(ctx);
    std::vector<void*> ptrs(args.size());
    std::vector<void*> params(args.size());
    for(std::size_t i = 0; i < args.size(); i++)
    {
        ptrs[i]   = args[i].data();
        params[i] = &ptrs[i];
    }
    std::size_t blocks = (global + local - 1) / local;
    blocks = std::min<std::size_t>(blocks, static_cast<std::size_t>(std::max(g.get().sm_count, 1)) * 32);
    kernel->launch(g.stream(), blocks, local, params.data());
    return args.back();
}
MIGRAPHX_REGISTER_OP(code_object)

} // namespace gpu
} // namespace migraphx
