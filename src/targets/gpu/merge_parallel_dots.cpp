#include "targets/gpu/merge_parallel_dots.hpp"
#include "ir/env.hpp"
#include "passes/pass_utils.hpp"
#include <migraphx/argument.hpp>
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <algorithm>
#include <cstring>
#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace migraphx {
namespace gpu {
namespace {

/// Results a product may have and still be merged: 2^25 is about eight waves of cuBLASLt's
/// largest tiles (256 x 128) on 132 SMs, where tile quantisation costs little any more.
constexpr std::size_t max_product_elements = std::size_t{1} << 25;
/// Where each result starts within the merged one, in bytes (memory_coloring's alignment: the
/// results stay as aligned as separate buffers were, for cuBLASLt's and the kernels' vector paths).
constexpr std::size_t result_alignment = 256;

/// Constant values read through a view: element (i, j) of a matrix is at i * si + j * sj in
/// the literal's memory.
struct constant_matrix
{
    instruction_ref lit;
    std::size_t si = 0, sj = 0;
};

/// The constant weights [K, N] of b (the dot's second operand): a literal, or a broadcast of one
/// over the batches (strides 0 there; a broadcast keeps its input's strides, so b's strides
/// index the literal's memory).
std::optional<constant_matrix> weights_of(instruction_ref b)
{
    const auto& s = b->get_shape();
    auto r        = s.lens().size();
    for(std::size_t d = 0; d + 2 < r; d++)
        if(s.lens()[d] != 1 and s.strides()[d] != 0)
            return std::nullopt; // weights per batch
    auto x = b;
    if(x->name() == "multibroadcast" or x->name() == "broadcast")
        x = x->inputs().front();
    if(x->name() != "@literal")
        return std::nullopt;
    return constant_matrix{x, s.strides()[r - 2], s.strides()[r - 1]};
}

/// c, added to a product of shape out, as a constant per-column bias: a broadcast of a literal
/// over every dimension but the last. Its values are at j * sj (si unused).
std::optional<constant_matrix> bias_of(instruction_ref c, const shape& out)
{
    const auto& s = c->get_shape();
    if(s.lens() != out.lens() or s.type() != out.type())
        return std::nullopt;
    for(std::size_t d = 0; d + 1 < s.lens().size(); d++)
        if(s.lens()[d] != 1 and s.strides()[d] != 0)
            return std::nullopt;
    auto x = c;
    if(x->name() == "multibroadcast" or x->name() == "broadcast")
        x = x->inputs().front();
    if(x->name() != "@literal")
        return std::nullopt;
    return constant_matrix{x, 0, s.strides().back()};
}

bool elementwise(instruction_ref ins)
{
    if(pass_utils::is_builtin(ins))
        return false;
    auto a = ins->get_operator().attributes();
    return a.is_object() and a.contains("pointwise") and a.at("pointwise").get_bool();
}

struct member
{
    instruction_ref dot;
    constant_matrix w;
    std::optional<constant_matrix> bias;
    instruction_ref add; // the bias add, when there is a bias
    instruction_ref result() const { return bias ? add : dot; }
};

std::optional<member> candidate(instruction_ref dot)
{
    // gpu::fuse_fp8's products too (e4m3 operands, half or float out): quantize_fp8 gives
    // products of one activation one weight scale, so their alphas match
    bool fp8 = dot->name() == "fp8_dot";
    if((dot->name() != "dot" and not fp8) or dot->inputs().size() != 2)
        return std::nullopt;
    auto a = dot->inputs()[0], b = dot->inputs()[1];
    const auto& as  = a->get_shape();
    const auto& out = dot->get_shape();
    auto operand_type = fp8 ? shape::fp8e4m3fn_type : out.type();
    if(as.dynamic() or b->get_shape().dynamic() or out.dynamic() or
       (out.type() != shape::float_type and out.type() != shape::half_type) or as.type() != operand_type or
       b->get_shape().type() != operand_type)
        return std::nullopt;
    // A's rows must fold into one [rows, K] matrix without a copy.
    if(as.lens().size() < 2 or not as.standard() or as.elements() == 0 or out.elements() == 0 or
       out.elements() > max_product_elements or (out.bytes() % result_alignment) != 0)
        return std::nullopt;
    auto w = weights_of(b);
    if(not w)
        return std::nullopt;
    member mb{dot, *w, std::nullopt, dot};
    const auto& users = dot->outputs();
    if(users.size() == 1 and users.front()->name() == "add" and users.front()->inputs().size() == 2)
    {
        auto add = users.front();
        auto c   = add->inputs()[0] == dot ? add->inputs()[1] : add->inputs()[0];
        if(c != dot and add->get_shape() == out)
        {
            // A bias gpu::gemm's epilogue takes per batch (gemm_per_batch_bias): each batch's
            // vector 16-byte aligned; more than one row (else the broadcast stacked bias is a
            // packed tensor, which lowering takes for a residual).
            auto rows = as.elements() / as.lens().back();
            bool fits = rows > 1 and (out.lens().back() * out.type_size()) % 16 == 0;
            auto bias = fits ? bias_of(c, out) : std::nullopt;
            if(bias)
            {
                mb.bias = bias;
                mb.add  = add;
            }
        }
    }
    // Every result used, and none by an elementwise op: lowering folds a bias add followed by
    // relu, or a residual add, into a product's own cuBLASLt epilogue, which a merged product
    // (its results views) cannot have.
    const auto& outs = mb.result()->outputs();
    if(outs.empty() or std::any_of(outs.begin(), outs.end(), elementwise))
        return std::nullopt;
    return mb;
}

/// n matrices [rows, cols] stacked into a literal [n, rows (or 1), cols] of type t.
literal stack(const std::vector<constant_matrix>& ms, shape::type_t t, std::size_t rows, std::size_t cols)
{
    shape s{t, {ms.size(), rows, cols}};
    argument a{s};
    auto size = s.type_size();
    char* out = a.data();
    for(const auto& m : ms)
    {
        const char* in = m.lit->get_literal().data();
        for(std::size_t i = 0; i < rows; i++)
            for(std::size_t j = 0; j < cols; j++, out += size)
                std::memcpy(out, in + (i * m.si + j * m.sj) * size, size);
    }
    return literal{a};
}

std::vector<std::int64_t> as_int64(const std::vector<std::size_t>& v) { return {v.begin(), v.end()}; }

void merge(module& m, const std::vector<member>& group)
{
    auto first      = group.front().dot; // the first in program order: A is defined before it
    auto a          = first->inputs()[0];
    const auto& al  = a->get_shape().lens();
    const auto& out = first->get_shape();
    auto t          = out.type();
    std::size_t n   = group.size();
    std::size_t k = al.back(), cols = out.lens().back();
    std::size_t rows = a->get_shape().elements() / k;

    std::vector<constant_matrix> ws, bs;
    for(const auto& g : group)
    {
        ws.push_back(g.w);
        if(g.bias)
            bs.push_back(*g.bias);
    }
    auto a2 = al.size() == 2 ? a
                             : m.insert_instruction(first, make_op("reshape", {{"dims", as_int64({rows, k})}}), a);
    auto a3 = m.insert_instruction(first, make_op("multibroadcast", {{"out_lens", as_int64({n, rows, k})}}), a2);
    auto b3 = m.add_literal(stack(ws, first->inputs()[1]->get_shape().type(), k, cols));
    auto y  = m.insert_instruction(first, first->get_operator(), a3, b3); // a dot, or an fp8_dot's alpha
    if(not bs.empty())
    {
        auto c3 = m.add_literal(stack(bs, t, 1, cols));
        auto cb = m.insert_instruction(first, make_op("multibroadcast", {{"out_lens", as_int64({n, rows, cols})}}), c3);
        y       = m.insert_instruction(first, make_op("add"), y, cb);
    }
    std::vector<instruction_ref> views;
    for(std::size_t i = 0; i < n; i++)
    {
        auto at = static_cast<std::int64_t>(i);
        auto s  = m.insert_instruction(
            first, make_op("slice", {{"axes", {0}}, {"starts", {at}}, {"ends", {at + 1}}}), y);
        views.push_back(m.insert_instruction(first, make_op("reshape", {{"dims", as_int64(out.lens())}}), s));
    }
    // The old products and bias adds go, once nothing more is inserted before `first` (one of them).
    for(std::size_t i = 0; i < n; i++)
    {
        auto res = group[i].result();
        m.replace_instruction(res, views[i]);
        m.remove_instruction(res);
        if(group[i].bias)
            m.remove_instruction(group[i].dot);
    }
}

} // namespace

void merge_parallel_dots::apply(module& m) const
{
    if(m.name() != "main" or env_enabled("MIGRAPHX_DISABLE_DOT_MERGE"))
        return;
    // Groups by (A, weights' lens, with a bias, the op with its attributes: an fp8_dot's
    // alpha), members in program order; the groups in the order of their first members.
    using key = std::tuple<const instruction*, std::vector<std::size_t>, bool, std::string>;
    std::map<key, std::size_t> index;
    std::vector<std::vector<member>> groups;
    for(auto it = m.begin(); it != m.end(); ++it)
    {
        auto mb = candidate(it);
        if(not mb)
            continue;
        key k{&*it->inputs()[0], it->inputs()[1]->get_shape().lens(), mb->bias.has_value(),
              it->name() + it->get_operator().to_value().to_json()};
        auto found = index.find(k);
        if(found == index.end())
        {
            found = index.emplace(k, groups.size()).first;
            groups.emplace_back();
        }
        groups[found->second].push_back(*mb);
    }
    for(const auto& g : groups)
        if(g.size() >= 2)
            merge(m, g);
}

} // namespace gpu
} // namespace migraphx
