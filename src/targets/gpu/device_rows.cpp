#include "targets/gpu/device_rows.hpp"
#include "ops/convolution_pads.hpp"
#include "targets/gpu/codegen.hpp"
#include "targets/gpu/lowering.hpp"
#include <algorithm>
#include <utility>

namespace migraphx {
namespace gpu {
namespace {

/// x and w of one float type, standard, rank 3-5, nothing empty.
bool plain_operands(const shape& x, const shape& w)
{
    return float_or_half(x) and x.type() == w.type() and x.standard() and w.standard() and x.lens().size() >= 3 and
           x.lens().size() <= 5 and w.lens().size() == x.lens().size() and x.elements() > 0 and w.elements() > 0;
}

/// Whether s is exactly `like` but for a first dim of at most like's.
bool fewer_rows(const shape& s, const shape& like)
{
    const auto& l = s.lens();
    const auto& w = like.lens();
    if(s.type() != like.type() or l.size() != w.size() or l.empty() or l[0] > w[0])
        return false;
    for(std::size_t d = 1; d < l.size(); d++)
        if(l[d] != w[d])
            return false;
    for(std::size_t d = 0; d < l.size(); d++)
        if(s.strides()[d] != like.strides()[d] and l[d] > 1)
            return false;
    return true;
}

} // namespace

std::int64_t axis_from_front(const operation& op, std::size_t rank)
{
    auto a = op.to_value().at("axis").get_int64();
    auto r = static_cast<std::int64_t>(rank);
    a      = a < 0 ? a + r : a;
    return a >= 0 and a < r ? a : -1;
}

std::optional<convolution> cudnn_convolution_for(const value& v, const shape& x, const shape& w)
{
    if(not float_or_half(x) or x.type() != w.type() or v.at("use_dynamic_same_auto_pad").get_bool())
        return std::nullopt;
    const auto& xl = x.lens();
    const auto& wl = w.lens();
    if(xl.size() < 3 or xl.size() > 5 or x.elements() == 0 or w.elements() == 0)
        return std::nullopt;
    auto kd = xl.size() - 2;
    convolution op;
    op.stride       = v.at("stride").to_vector<std::size_t>();
    op.dilation     = v.at("dilation").to_vector<std::size_t>();
    op.group        = v.at("group").get_int64();
    op.padding_mode = v.at("padding_mode").get_int64();
    if(op.stride.size() != kd or op.dilation.size() != kd)
        return std::nullopt;
    auto pad = convolution_pads(v.at("padding").to_vector<std::size_t>(), op.padding_mode, op.stride, op.dilation, xl, wl);
    for(std::size_t i = 0; i < kd; i++)
        if(pad[i] != pad[i + kd])
            return std::nullopt; // cuDNN pads symmetrically
    op.padding = pad;
    return op;
}

std::optional<convolution_backwards> cudnn_convolution_backwards_for(const value& v, const shape& x, const shape& w)
{
    if(not float_or_half(x) or x.type() != w.type() or v.at("padding_mode").get_int64() != 0 or
       x.lens().size() < 3 or x.lens().size() > 5 or x.elements() == 0)
        return std::nullopt;
    auto kd = x.lens().size() - 2;
    convolution_backwards op;
    op.stride   = v.at("stride").to_vector<std::size_t>();
    op.dilation = v.at("dilation").to_vector<std::size_t>();
    op.group    = v.at("group").get_int64();
    auto pad    = v.at("padding").to_vector<std::size_t>();
    if(pad.size() == kd)
        pad.insert(pad.end(), pad.begin(), pad.end());
    if(pad.size() != 2 * kd or op.stride.size() != kd or op.dilation.size() != kd)
        return std::nullopt;
    for(std::size_t i = 0; i < kd; i++)
        if(pad[i] != pad[i + kd])
            return std::nullopt; // cuDNN pads symmetrically
    op.padding = pad;
    return op;
}

std::vector<bool> row_inputs(const operation& op, const std::vector<shape>& inputs, const shape& out)
{
    const auto& n = op.name();
    if((n == "dot" or n == "convolution" or n == "convolution_backwards") and inputs.size() == 2)
        return {true, false};
    // a gather along the first axis: the result's rows are the indices' (the data, whole, is read
    // at whatever index each holds)
    if(n == "gather" and inputs.size() == 2 and axis_from_front(op, inputs[0].lens().size()) == 0 and
       not inputs[1].lens().empty())
        return {false, true};
    // softmax along a later axis: each row's own
    if((n == "softmax" or n == "logsoftmax") and inputs.size() == 1 and
       axis_from_front(op, inputs[0].lens().size()) > 0)
        return {true};
    if(n != "pointwise" or out.lens().empty())
        return {};
    std::vector<bool> r;
    for(const auto& s : inputs)
        r.push_back(s.lens() == out.lens() and (s.strides()[0] != 0 or s.lens()[0] == 1));
    return r;
}

std::optional<operation>
device_rows_op(const operation& op, const std::vector<shape>& inputs, const shape& out, const module* mod)
{
    const auto& n = op.name();
    if(n == "pointwise")
    {
        // every input either holds rows of the result or is broadcast along them
        if(mod == nullptr or out.dynamic() or not out.standard() or out.lens().empty() or out.elements() == 0)
            return std::nullopt;
        auto rows = row_inputs(op, inputs, out);
        for(std::size_t i = 0; i < inputs.size(); i++)
            if(not rows[i] and (inputs[i].dynamic() or inputs[i].lens().size() != out.lens().size() or
                                inputs[i].strides()[0] != 0))
                return std::nullopt;
        if(auto k = generate_pointwise(*mod, inputs, out, true)) // computes the actual rows only
            return make_kernel(*k);
        return std::nullopt;
    }
    if((n == "softmax" or n == "logsoftmax") and inputs.size() == 1)
    {
        auto axis = axis_from_front(op, inputs[0].lens().size());
        if(axis <= 0 or not out.standard())
            return std::nullopt;
        if(auto k = generate_softmax(n == "logsoftmax", static_cast<std::size_t>(axis), inputs[0], out))
            return make_kernel(*k);
        return std::nullopt;
    }
    if(inputs.size() != 2)
        return std::nullopt;
    if(n == "gather")
    {
        // out-of-range indices (the rows past the actual ones hold any value) are clamped by the kernel
        if(axis_from_front(op, inputs[0].lens().size()) != 0 or inputs[0].type() != out.type() or inputs[1].lens().empty() or
           not out.standard())
            return std::nullopt;
        if(auto k = generate_gather(0, inputs[0], inputs[1], out))
            return make_kernel(*k);
        return std::nullopt;
    }
    const auto& a = inputs[0];
    const auto& b = inputs[1];
    if(n == "dot")
    {
        if(not float_or_half(a) or a.type() != b.type() or a.lens().size() != 2 or b.lens().size() != 2 or
           a.elements() == 0 or b.elements() == 0 or not a.standard() or not gemm::supported_operand(b))
            return std::nullopt;
        return operation{gemm{}};
    }
    if(n != "convolution" and n != "convolution_backwards")
        return std::nullopt;
    if(not plain_operands(a, b))
        return std::nullopt;
    auto v = op.to_value();
    if(n == "convolution")
    {
        if(auto c = cudnn_convolution_for(v, a, b))
            return operation{*c};
        return std::nullopt;
    }
    if(auto c = cudnn_convolution_backwards_for(v, a, b))
        return operation{*c};
    return std::nullopt;
}

std::vector<std::size_t> fewer_row_counts(const operation& op, std::size_t declared)
{
    const auto& n = op.name();
    if(n != "dot" and n != "convolution" and n != "convolution_backwards")
        return {};
    constexpr std::size_t least = 8;
    std::vector<std::size_t> counts;
    const std::pair<std::size_t, std::size_t> fractions[] = {{3, 4}, {1, 2}, {3, 8}, {1, 4}, {3, 16}, {1, 8}};
    for(auto [num, den] : fractions)
    {
        auto c = (declared * num + den - 1) / den; // rounded up
        if(c >= least and c < declared and (counts.empty() or c < counts.back()))
            counts.push_back(c);
    }
    std::reverse(counts.begin(), counts.end());
    return counts;
}

shape with_rows(const shape& s, std::size_t rows)
{
    auto lens = s.lens();
    if(lens.empty())
        MIGRAPHX_THROW("with_rows: a scalar has no rows");
    lens[0] = rows;
    return shape{s.type(), lens, s.strides()};
}

bool front_rows_match(const std::vector<shape>& declared,
                      const std::vector<shape>& actual,
                      const shape& result,
                      const std::vector<bool>& rows)
{
    if(declared.size() != actual.size() + 1 or rows.size() != actual.size() or actual.empty())
        return false;
    std::optional<std::size_t> n; // the row inputs' rows
    for(std::size_t i = 0; i < actual.size(); i++)
    {
        if(not rows[i])
        {
            if(actual[i] != declared[i])
                return false;
            continue;
        }
        if(not fewer_rows(actual[i], declared[i]) or (n and *n != actual[i].lens()[0]))
            return false;
        n = actual[i].lens()[0];
    }
    const auto& out = declared.back();
    return n and fewer_rows(result, out) and result.lens()[0] == *n and out.standard();
}

} // namespace gpu
} // namespace migraphx
