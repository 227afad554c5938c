#include "targets/gpu/codegen.hpp"
#include "targets/gpu/context.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include <migraphx/register_op.hpp>
#include "serialize/op_serializer.hpp"
#include <algorithm>
#include <optional>

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

struct code_object::pointer_table
{
    std::shared_ptr<char> device;
    std::vector<void*> uploaded; // what the device table holds now
};

bool code_object::use_fallback_for(int sm_major, int sm_minor)
{
    if(fallback.empty() or not needs_sm90a(source) or (sm_major == 9 and sm_minor == 0))
        return false;
    auto f        = fallback.front();
    symbol_name   = f.symbol_name;
    global        = f.global;
    local         = f.local;
    shared        = f.shared;
    blocks_per_sm = f.blocks_per_sm;
    source        = f.source;
    arch.clear();
    binary      = literal{};
    binary_size = 0;
    fallback.clear();
    return true;
}

void code_object::finalize(context& ctx, const shape&, const std::vector<shape>& inputs)
{
    auto& g = get_gpu_context(ctx);
    g.make_current();
    auto& st  = g.get();
    use_fallback_for(st.sm_major, st.sm_minor);
    auto want = "sm_" + std::to_string(st.sm_major) + std::to_string(st.sm_minor);
    kernel    = nullptr;
    // A loaded program's binary, if it was built for this device's architecture and the driver
    // takes it: no NVRTC. Otherwise the source is compiled, as at compile time.
    if(not binary.empty() and binary.get_shape().type() == shape::uint8_type and arch == want)
    {
        try
        {
            auto arg = binary.get_argument();
            kernel   = std::make_shared<loaded_kernel>(
                binary.data(), binary.get_shape().bytes(), symbol_name, std::shared_ptr<const void>(arg.share_data()));
        }
        catch(const exception&)
        {
            kernel = nullptr;
        }
    }
    if(not kernel)
    {
        auto cubin = compile_cuda(source, symbol_name, st.sm_major, st.sm_minor);
        std::shared_ptr<char> bytes(new char[cubin.size()], std::default_delete<char[]>());
        std::copy(cubin.begin(), cubin.end(), bytes.get());
        binary = literal::adopt(shape{shape::uint8_type, {cubin.size()}}, bytes);
        arch   = want;
        kernel = std::make_shared<loaded_kernel>(cubin, symbol_name);
    }
    binary_size = binary.get_shape().bytes();
    if(shared > 0)
        kernel->allow_shared(shared);
    if(not inputs.empty() and inputs_in_table(inputs.size() - 1))
    {
        table         = std::make_shared<pointer_table>();
        table->device = device_alloc((inputs.size() - 1) * sizeof(void*));
    }
}

argument code_object::compute(context& ctx, const shape& out, const std::vector<argument>& args) const
{
    return compute_rows(ctx, args, row_elements == 0 or out.lens().empty() ? 0 : out.lens().front());
}

argument code_object::compute_rows(context& ctx, const std::vector<argument>& args, std::size_t rows) const
{
    if(not kernel)
        MIGRAPHX_THROW(name() + "[" + symbol_name + "]: run before finalize");
    // threads for the rows asked (a rows kernel), else for the whole output
    auto threads = row_elements == 0 ? global : std::min(global, rows * row_elements);
    if(threads == 0)
        return args.back();
    unsigned long long rows_param = rows;
    auto& g = get_gpu_context(ctx);
    std::vector<void*> ptrs(args.size());
    for(std::size_t i = 0; i < args.size(); i++)
        ptrs[i] = args[i].data();
    std::vector<void*> params;
    void* dev_table = nullptr;
    if(inputs_in_table(args.size() - 1))
    {
        if(not table)
            MIGRAPHX_THROW(name() + "[" + symbol_name + "]: no pointer table (finalize saw another input count)");
        std::vector<void*> in(ptrs.begin(), ptrs.end() - 1);
        if(in != table->uploaded)
        {
            // Stream-ordered after every earlier launch that read the table; a pageable source
            // is staged before the call returns, so `in` may go.
            MIGX_CUDA_CHECK(cudaMemcpyAsync(
                table->device.get(), in.data(), in.size() * sizeof(void*), cudaMemcpyHostToDevice, g.stream()));
            table->uploaded = std::move(in);
        }
        dev_table = table->device.get();
        params    = {&dev_table, &ptrs.back()};
    }
    else
    {
        for(auto& p : ptrs)
            params.push_back(&p);
    }
    if(row_elements > 0)
        params.push_back(&rows_param);
    std::size_t blocks = (threads + local - 1) / local;
    blocks = std::min<std::size_t>(
        blocks, static_cast<std::size_t>(std::max(g.get().sm_count, 1)) * (blocks_per_sm > 0 ? blocks_per_sm : 32));
    kernel->launch(g.stream(), blocks, local, params.data(), shared);
    return args.back();
}
MIGRAPHX_REGISTER_OP(code_object)

namespace {
// A saved program keeps each kernel's cubin, as literal bytes (src/serialize/op_serializer.hpp):
// raw and aligned in the file, used from the mapped file on load.
const bool serializer_registered = [] {
    serialize::op_serializer s;
    s.get_literal = [](const operation& op) -> std::optional<literal> {
        const auto* c = op.any_cast<code_object>();
        if(c == nullptr or c->binary.empty())
            return std::nullopt;
        return c->binary;
    };
    s.set_literal = [](operation& op, const literal& l) {
        auto* c = op.any_cast<code_object>();
        if(c == nullptr)
            MIGRAPHX_THROW("gpu::code_object: expected the operator, got " + op.name());
        if(l.get_shape().type() != shape::uint8_type or l.get_shape().lens().size() != 1)
            MIGRAPHX_THROW("gpu::code_object: the binary must be a 1-d uint8 literal");
        c->binary      = l;
        c->binary_size = l.get_shape().bytes();
    };
    serialize::register_op_serializer(code_object{}.name(), s);
    return true;
}();
} // namespace

} // namespace gpu
} // namespace migraphx
