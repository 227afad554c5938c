// gpu::nonzero_start and gpu::nonzero_finish (gpu_ops.hpp): nonzero in two halves, so that the
// host's wait for the count comes long after the count was computed (gpu::early_nonzero).
#include "targets/gpu/context.hpp"
#include "targets/gpu/cuda_check.hpp"
#include "targets/gpu/device_sized.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "ir/shape_text.hpp"
#include <migraphx/register_op.hpp>

namespace migraphx {
namespace gpu {

shape nonzero_start::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 2);
    if(inputs[0].dynamic() or not nonzero_kernel::takes(inputs[0], inputs[1]))
        MIGRAPHX_THROW(name() + ": the buffer " + shape_text(inputs[1]) + " cannot hold the nonzero indices of " +
                       shape_text(inputs[0]));
    return inputs[1];
}

void nonzero_start::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    kernel = std::make_shared<nonzero_kernel>(ctx, inputs.at(0));
    count  = get_gpu_context(ctx).count_slot_for(slot);
}

argument nonzero_start::compute(context& ctx, const shape&, const std::vector<argument>& args) const
{
    if(not kernel or not count)
        MIGRAPHX_THROW(name() + ": run before finalize");
    auto& g = get_gpu_context(ctx);
    auto s  = g.stream();
    kernel->launch(ctx, args[0], args[1].data(), count->device.get());
    MIGX_CUDA_CHECK(cudaMemcpyAsync(count->host, count->device.get(), sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
    // while a CUDA graph is recorded: an event node, so that each replay records it again
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    MIGX_CUDA_CHECK(cudaStreamIsCapturing(s, &capturing));
    if(capturing == cudaStreamCaptureStatusActive)
        MIGX_CUDA_CHECK(cudaEventRecordWithFlags(count->copied, s, cudaEventRecordExternal));
    else
        MIGX_CUDA_CHECK(cudaEventRecord(count->copied, s));
    return args[1];
}
MIGRAPHX_REGISTER_OP(nonzero_start)

shape nonzero_finish::compute_shape(const std::vector<shape>& inputs) const
{
    check_inputs(name(), inputs, 1);
    if(inputs[0].type() != shape::int64_type or inputs[0].ndim() != 2 or not inputs[0].standard())
        MIGRAPHX_THROW(name() + ": expects nonzero's int64 {rank, n} buffer, got " + shape_text(inputs[0]));
    return inputs[0];
}

void nonzero_finish::finalize(context& ctx, const shape&, const std::vector<shape>&)
{
    count = get_gpu_context(ctx).count_slot_for(slot);
}

argument nonzero_finish::compute(context&, const shape& out, const std::vector<argument>& args) const
{
    if(not count)
        MIGRAPHX_THROW(name() + ": run before finalize");
    MIGX_CUDA_CHECK(cudaEventSynchronize(count->copied));
    auto rank = out.lens()[0];
    auto n    = *count->host;
    if(n > out.lens()[1])
        MIGRAPHX_THROW(name() + ": the count read back (" + std::to_string(n) + ") exceeds the buffer's " +
                       std::to_string(out.lens()[1]) + " columns");
    return {shape{shape::int64_type, {rank, static_cast<std::size_t>(n)}}, args[0].share_data()};
}
MIGRAPHX_REGISTER_OP(nonzero_finish)

} // namespace gpu
} // namespace migraphx
