#include "targets/cpu/scratch.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/register_op.hpp>

namespace migraphx {
namespace cpu {

void scratch_allocate::print_attributes(std::ostream& os) const
{
    os << "shape=" << s;
    if(scratch)
        os << ",scratch=1";
}

argument scratch_allocate::compute(const shape& out, const std::vector<argument>&) const
{
    std::shared_ptr<char> buffer;
    {
        std::lock_guard<std::mutex> lock(idle->m);
        if(not idle->buffers.empty())
        {
            buffer = std::move(idle->buffers.back());
            idle->buffers.pop_back();
        }
    }
    if(buffer == nullptr)
        buffer = uninitialized(out).share_data();
    // Back to the idle list when the run's last view of it goes (the pool outlives the op).
    auto pool = idle;
    auto* raw = buffer.get();
    return {out, std::shared_ptr<char>(raw, [pool, buffer](char*) mutable {
                std::lock_guard<std::mutex> lock(pool->m);
                pool->buffers.push_back(std::move(buffer));
            })};
}

MIGRAPHX_REGISTER_OP(scratch_allocate)

} // namespace cpu
} // namespace migraphx
