#include "targets/cpu/gather_kernel.hpp"
#include "targets/cpu/omp_region.hpp"
#include "passes/pass_utils.hpp"
#include "targets/cpu/dnnl_context.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/register_op.hpp>
#include <cstdint>
#include <cstring>

namespace migraphx {
namespace cpu {

shape gather_kernel::compute_shape(const std::vector<shape>& all) const
{
    auto in = own_inputs(all, planned);
    if(in.size() != 2 or not in[0].standard() or axis < 0 or static_cast<std::size_t>(axis) >= in[0].lens().size())
        MIGRAPHX_THROW("cpu::gather: expects standard data and an axis within its rank");
    const auto& d = in[0].lens();
    std::vector<std::size_t> l(d.begin(), d.begin() + axis);
    l.insert(l.end(), in[1].lens().begin(), in[1].lens().end());
    l.insert(l.end(), d.begin() + axis + 1, d.end());
    return planned_shape(name(), {in[0].type(), l}, all, planned);
}

argument gather_kernel::compute(const shape& out, const std::vector<argument>& args) const
{
    const auto& d   = args[0].get_shape().lens();
    auto a          = static_cast<std::size_t>(axis);
    auto axis_len   = static_cast<std::int64_t>(d[a]);
    auto indices    = args[1].to_vector<std::int64_t>();
    std::size_t esz = args[0].get_shape().type_size();
    std::size_t inner = esz, outer = 1;
    for(std::size_t i = a + 1; i < d.size(); i++)
        inner *= d[i];
    for(std::size_t i = 0; i < a; i++)
        outer *= d[i];
    for(auto& k : indices)
    {
        if(k < -axis_len or k >= axis_len)
            MIGRAPHX_THROW("cpu::gather: index " + std::to_string(k) + " is out of range for axis " +
                           std::to_string(axis) + " of length " + std::to_string(axis_len));
        k = k < 0 ? k + axis_len : k;
    }
    argument result = result_buffer(out, args, planned);
    const char* src = args[0].data();
    char* dst       = result.data();
    // Elements of 1-8 bytes a block (a gather along the last axis: bilinear resizes as UNet's
    // upsampling exports them): row by row, one typed load a position, no division per element
    // (a memcpy of 4 bytes per element and its index arithmetic took ~7 ns an element).
    auto by_rows = [&](auto tag) {
        using T        = decltype(tag);
        auto count     = indices.size();
        auto rows      = static_cast<std::int64_t>(outer);
        const auto* in = reinterpret_cast<const T*>(src);
        auto* o        = reinterpret_cast<T*>(dst);
        omp_for(rows * static_cast<std::int64_t>(count) > (1 << 16), rows, [&](std::int64_t r) {
            const T* row = in + static_cast<std::size_t>(r) * d[a];
            T* to        = o + static_cast<std::size_t>(r) * count;
            for(std::size_t j = 0; j < count; j++)
                to[j] = row[indices[j]];
        });
    };
    switch(inner)
    {
    case 1: by_rows(std::uint8_t{}); return result;
    case 2: by_rows(std::uint16_t{}); return result;
    case 4: by_rows(std::uint32_t{}); return result;
    case 8: by_rows(std::uint64_t{}); return result;
    default: break;
    }
    auto n          = static_cast<std::int64_t>(outer * indices.size());
    omp_for(n * static_cast<std::int64_t>(inner) > (1 << 20), n, [&](std::int64_t j) {
        auto o = static_cast<std::size_t>(j) / indices.size();
        auto k = static_cast<std::size_t>(indices[static_cast<std::size_t>(j) % indices.size()]);
        std::memcpy(dst + static_cast<std::size_t>(j) * inner, src + (o * d[a] + k) * inner, inner);
    });
    return result;
}

MIGRAPHX_REGISTER_OP(gather_kernel)

void lower_gather::apply(module& m) const
{
    auto dd = pass_utils::data_dependent(m); // run by the reference ops, at their actual sizes
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(dd.count(&*ins) > 0)
            continue;
        if(ins->name() != "gather")
            continue;
        auto data = ins->inputs()[0];
        const auto& s = data->get_shape();
        if(s.dynamic() or s.lens().empty() or ins->inputs()[1]->get_shape().dynamic())
            continue;
        auto axis = ins->get_operator().to_value().at("axis").get_int64();
        auto rank = static_cast<std::int64_t>(s.lens().size());
        if(axis < -rank or axis >= rank)
            continue; // the reference op reports it
        if(axis < 0)
            axis += rank;
        if(not s.standard())
            data = m.insert_instruction(ins, make_op("contiguous"), {data});
        m.replace_instruction(ins, operation{gather_kernel{axis}}, {data, ins->inputs()[1]});
    }
}

} // namespace cpu
} // namespace migraphx
