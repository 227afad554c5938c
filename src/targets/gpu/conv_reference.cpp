// conv_reference.hpp: the exact result of a convolution problem at sampled outputs.
#include "targets/gpu/conv_reference.hpp"
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/half.hpp>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>
#include <sstream>
#include <thread>

namespace migraphx {
namespace gpu {
namespace dnn {

namespace {

std::int64_t offset_of(const tensor_spec& t, const std::vector<std::int64_t>& idx)
{
    std::int64_t o = 0;
    for(std::size_t i = 0; i < idx.size(); i++)
        o += idx[i] * t.strides[i];
    return o;
}

/// The logical index of element offset o of t, if some index has it (t's strides may leave
/// gaps): dims taken from the largest stride down.
bool index_of(const tensor_spec& t, std::int64_t o, std::vector<std::int64_t>& idx)
{
    std::vector<std::size_t> order(t.dims.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](auto a, auto b) { return t.strides[a] > t.strides[b]; });
    idx.assign(t.dims.size(), 0);
    auto rest = o;
    for(auto d : order)
    {
        if(t.dims[d] == 1 or t.strides[d] == 0)
            continue;
        idx[d] = std::min(rest / t.strides[d], t.dims[d] - 1);
        rest -= idx[d] * t.strides[d];
    }
    return rest == 0;
}

} // namespace

namespace {

/// The exact value of s's result at logical index yi (k_each output channels a group).
double exact_at(const conv_graph_spec& s,
                const fill_pattern& x,
                const fill_pattern& w,
                const fill_pattern& bias,
                const fill_pattern& z,
                const std::vector<std::int64_t>& yi,
                std::int64_t k_each)
{
    auto rank   = s.y.dims.size();
    auto kd     = rank - 2;
    auto c_each = s.w.dims[1];
    auto n = yi[0], k = yi[1];
    auto g = k / k_each;
    std::vector<std::int64_t> xi(rank), wi(rank);
    double acc = 0;
    // Every (kernel position, c) term, in double: exact for half products and sums of this
    // size. Kernel positions outside x (padding) add nothing.
    std::vector<std::int64_t> kpos(kd, 0);
    for(;;)
    {
        bool inside = true;
        xi[0]       = n;
        xi[1]       = g * c_each;
        wi[0]       = k;
        wi[1]       = 0;
        for(std::size_t d = 0; d < kd; d++)
        {
            auto p    = yi[d + 2] * s.stride[d] - s.pre_pad[d] + kpos[d] * s.dilation[d];
            inside    = inside and p >= 0 and p < s.x.dims[d + 2];
            xi[d + 2] = p;
            wi[d + 2] = kpos[d];
        }
        if(inside)
        {
            auto xo = offset_of(s.x, xi), wo = offset_of(s.w, wi);
            for(std::int64_t c = 0; c < c_each; c++)
                acc += x.at(xo + c * s.x.strides[1]) * w.at(wo + c * s.w.strides[1]);
        }
        // Next kernel position (the last spatial dim fastest).
        std::size_t d = kd;
        while(d > 0 and ++kpos[d - 1] == s.w.dims[d + 1])
            kpos[--d] = 0;
        if(d == 0)
            break;
    }
    if(s.has_bias)
    {
        std::vector<std::int64_t> bi(rank, 0);
        bi[1] = k;
        acc += bias.at(offset_of(s.bias, bi));
    }
    if(s.has_z)
        acc += z.at(offset_of(s.z, yi));
    if(s.relu)
        acc = std::max(acc, 0.0);
    return acc;
}

} // namespace

exact_samples make_conv_reference(const conv_graph_spec& s,
                                   const fill_pattern& x,
                                   const fill_pattern& w,
                                   const fill_pattern& bias,
                                   const fill_pattern& z,
                                   std::size_t limit,
                                   std::size_t samples)
{
    exact_samples r;
    if(s.has_scale or s.has_zscale or s.x.type == shape::int8_type or s.y.dims.size() < 3)
        return r;
    auto k_all  = s.y.dims[1];
    auto c_each = s.w.dims[1];
    auto groups = c_each > 0 ? s.x.dims[1] / c_each : 0;
    if(groups <= 0 or k_all % groups != 0)
        return r;
    auto k_each = k_all / groups;
    std::int64_t y_elements = 1;
    for(auto d : s.y.dims)
        y_elements *= d;
    // Offsets spread over [0, limit) (an offset y's strides give no element is passed over).
    std::mt19937_64 gen(7);
    std::uniform_int_distribution<std::int64_t> pick(0, static_cast<std::int64_t>(std::max<std::size_t>(limit, 1)) - 1);
    std::vector<std::vector<std::int64_t>> where;
    std::vector<std::int64_t> yi;
    for(std::size_t tries = 0; where.size() < samples and tries < 4 * samples and y_elements > 0; tries++)
    {
        auto o = pick(gen);
        if(not index_of(s.y, o, yi))
            continue;
        r.offsets.push_back(static_cast<std::size_t>(o));
        where.push_back(yi);
    }
    // A large problem's samples (~5 M terms for a 3x3x512 kernel) are shared among a few
    // threads: the search computes this for every half problem it measures.
    r.exact.resize(where.size());
    std::int64_t terms = c_each;
    for(std::size_t d = 2; d < s.w.dims.size(); d++)
        terms *= s.w.dims[d];
    auto parts = std::min<std::size_t>({std::max(1u, std::thread::hardware_concurrency()), 8, where.size() / 64 + 1});
    if(terms * static_cast<std::int64_t>(where.size()) < (1 << 20))
        parts = 1;
    auto compute = [&](std::size_t part) {
        for(std::size_t i = part; i < where.size(); i += parts)
            r.exact[i] = exact_at(s, x, w, bias, z, where[i], k_each);
    };
    std::vector<std::thread> helpers;
    for(std::size_t part = 1; part < parts; part++)
        helpers.emplace_back(compute, part);
    compute(0);
    for(auto& t : helpers)
        t.join();
    set_rounding(r, s.y.type == shape::half_type);
    return r;
}

} // namespace dnn
} // namespace gpu
} // namespace migraphx
