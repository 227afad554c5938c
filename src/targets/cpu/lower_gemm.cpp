#include "targets/cpu/lower_gemm.hpp"
#include "targets/cpu/gemm_kernel.hpp"
#include "targets/cpu/gemm_op.hpp"
#include <migraphx/literal.hpp>
#include "ir/env.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/operation.hpp>
#include <oneapi/dnnl/dnnl.hpp>
#include <optional>
#include <unordered_map>

namespace migraphx {
namespace cpu {
namespace {

bool is_view(const std::string& name)
{
    return name == "transpose" or name == "multibroadcast" or name == "broadcast" or name == "reshape" or
           name == "squeeze" or name == "unsqueeze" or name == "slice";
}

/// The value of x where it is a literal seen through views, else nothing.
std::optional<argument> constant_value(instruction_ref x)
{
    std::vector<instruction_ref> views;
    while(is_view(x->name()) and x->inputs().size() == 1)
    {
        views.push_back(x);
        x = x->inputs().front();
    }
    if(x->name() != "@literal")
        return std::nullopt;
    argument a = x->get_literal().get_argument();
    for(auto it = views.rbegin(); it != views.rend(); ++it)
        a = (*it)->get_operator().compute((*it)->get_shape(), {a});
    return a;
}

/// Strides that let (s.lens, s.strides) be seen as new_lens without a copy, where some do
/// (numpy's no-copy reshape: dims may split or merge only where they are contiguous).
std::optional<std::vector<std::size_t>> reshape_strides(const shape& s, const std::vector<std::size_t>& nl)
{
    std::vector<std::size_t> ol, os;
    for(std::size_t i = 0; i < s.lens().size(); i++)
    {
        if(s.lens()[i] == 0)
            return std::nullopt;
        if(s.lens()[i] != 1)
        {
            ol.push_back(s.lens()[i]);
            os.push_back(s.strides()[i]);
        }
    }
    std::vector<std::size_t> ns(nl.size(), 1);
    std::size_t oi = 0, oj = 1, ni = 0, nj = 1;
    while(ni < nl.size() and oi < ol.size())
    {
        std::size_t np = nl[ni], op = ol[oi];
        while(np != op)
        {
            if(np < op)
            {
                if(nj >= nl.size())
                    return std::nullopt;
                np *= nl[nj++];
            }
            else
            {
                if(oj >= ol.size())
                    return std::nullopt;
                op *= ol[oj++];
            }
        }
        for(std::size_t ok = oi; ok + 1 < oj; ok++)
            if(os[ok] != ol[ok + 1] * os[ok + 1])
                return std::nullopt;
        ns[nj - 1] = os[oj - 1];
        for(std::size_t nk = nj - 1; nk > ni; nk--)
            ns[nk - 1] = ns[nk] * nl[nk];
        ni = nj++;
        oi = oj++;
    }
    for(std::size_t nk = ni; nk < nl.size(); nk++)
        ns[nk] = ni >= 1 ? ns[ni - 1] : 1; // trailing 1s: any stride
    return ns;
}

bool is_plain_copy(instruction_ref x)
{
    if(x->name() == "contiguous")
        return true;
    if(x->name() != "dnnl::reorder")
        return false;
    auto v = x->get_operator().to_value();
    return v.at("from").get_string() == "plain" and v.at("to").get_string() == "plain";
}

/// Where x is reshapes/transposes of a copy of some y (a slice of attention's fused q, k, v
/// projection, say), y seen through them as a strided view: the GEMM reads it in place.
std::optional<instruction_ref> view_without_copy(module& m, instruction_ref gemm, instruction_ref x)
{
    std::vector<instruction_ref> views;
    while((x->name() == "transpose" or x->name() == "reshape" or x->name() == "squeeze" or
           x->name() == "unsqueeze") and x->inputs().size() == 1)
    {
        views.push_back(x);
        x = x->inputs().front();
    }
    if(not is_plain_copy(x))
        return std::nullopt;
    auto y  = x->inputs().front();
    shape s = y->get_shape();
    if(s.type() != shape::float_type or s.dynamic())
        return std::nullopt;
    for(auto it = views.rbegin(); it != views.rend(); ++it)
    {
        const auto& lens = (*it)->get_shape().lens();
        if((*it)->name() == "transpose")
            s = (*it)->get_operator().compute_shape({s});
        else if(auto st = reshape_strides(s, lens))
            s = shape{s.type(), lens, *st};
        else
            return std::nullopt;
    }
    if(s == y->get_shape())
        return y;
    return m.insert_instruction(gemm, operation{strided_view{s.lens(), s.strides()}}, {y});
}

/// gemm -> transpose -> copy, the last axis staying last (attention's heads back into
/// {sequence, head, column}): the GEMM writes the transposed order itself and the copy goes.
void write_transposed(module& m, instruction_ref gemm)
{
    if(gemm->outputs().size() != 1)
        return;
    auto t = gemm->outputs().front();
    if(t->name() != "transpose" or t->outputs().size() != 1 or not is_plain_copy(t->outputs().front()))
        return;
    auto copy = t->outputs().front();
    auto perm = t->get_operator().to_value().at("permutation").to_vector<std::int64_t>();
    auto r    = perm.size();
    if(perm.back() != static_cast<std::int64_t>(r - 1))
        return;
    auto op = *gemm->get_operator().any_cast<gemm_op>();
    if(not op.out_strides.empty())
        return;
    auto standard = shape{shape::float_type, t->get_shape().lens()}.strides();
    op.out_strides.assign(r, 0);
    for(std::size_t i = 0; i < r; i++)
        op.out_strides[perm[i]] = standard[i];
    m.replace_instruction(gemm, operation{op}, gemm->inputs());
    if(t->get_shape().standard())
        m.replace_instruction(copy, t);
}

} // namespace

bool own_gemm_preferred()
{
    bool kernel = gemm_best_isa() == gemm_isa::avx2;
    auto forced = env_string("MIGRAPHX_CPU_GEMM");
    if(forced == "own")
        return kernel;
    if(forced == "onednn")
        return false;
    if(not forced.empty())
        MIGRAPHX_THROW("MIGRAPHX_CPU_GEMM must be own or onednn, got '" + forced + "'");
    return kernel and dnnl::get_effective_cpu_isa() < dnnl::cpu_isa::avx512_core;
}

/// A product small enough that oneDNN's per-call cost (~8-11 us for an LSTM step's 1x128x512 on
/// a Zen 4, against ~4.5 us in the own kernel) outweighs its faster AVX-512 loops, or one of at
/// most 16 rows (weight streaming): the own kernel takes it wherever it runs here, unless
/// MIGRAPHX_CPU_GEMM=onednn.
bool small_product(instruction_ref ins)
{
    if(gemm_best_isa() != gemm_isa::avx2 or env_string("MIGRAPHX_CPU_GEMM") == "onednn")
        return false;
    const auto& a = ins->inputs()[0]->get_shape().lens();
    const auto& y = ins->get_shape().lens();
    if(a.empty() or y.empty())
        return false;
    std::size_t macs = a.back();
    for(auto d : y)
        macs *= d;
    if(macs <= (std::size_t{1} << 18))
        return true;
    // A few rows (a classifier at batch 1, a decoder's tokens): the product streams its weights
    // once and the own kernel's L2 prefetch reads them faster than oneDNN's brgemm matmul (GPT-2
    // small, 8 tokens: 30 -> 22 ms a run on a 2-core Zen 4).
    std::size_t rows = y.back() == 0 ? 0 : macs / a.back() / y.back();
    return rows <= 16;
}

void lower_gemm::apply(module& m) const
{
    bool all = force or own_gemm_preferred();
    // one packed copy per weight: an unrolled recurrence reads the same weights at every step
    struct packed_weight
    {
        instruction_ref literal;
        std::vector<std::size_t> lens;
    };
    std::unordered_map<instruction_ref, packed_weight, instruction_ref_hash> packed_of;
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "dnnl::matmul" or not(all or small_product(ins)))
            continue;
        auto v = ins->get_operator().to_value();
        if(v.at("packed_weights").get_bool())
            continue;
        gemm_op op;
        op.bias       = v.at("bias").get_bool();
        op.sum        = v.at("sum").get_bool();
        op.post_ops   = v.at("post_ops").to_vector<std::string>();
        op.post_alpha = v.at("post_alpha").to_vector<float>();
        op.post_beta  = v.at("post_beta").to_vector<float>();
        if(not op.supported())
            continue;
        auto inputs = ins->inputs();
        auto it     = packed_of.find(inputs[1]);
        if(it == packed_of.end())
        {
            if(auto w = constant_value(inputs[1]))
            {
                auto packed = gemm_op::pack(*w, op.weight_lens);
                it = packed_of.emplace(inputs[1], packed_weight{m.add_literal(literal{packed}), op.weight_lens}).first;
            }
        }
        if(it != packed_of.end())
        {
            op.packed_weights = true;
            op.weight_lens    = it->second.lens;
            inputs[1]         = it->second.literal;
        }
        m.replace_instruction(ins, operation{op}, inputs);
    }
    // copies the GEMMs need not: they read strided inputs and can write a permuted result
    for(auto ins = m.begin(); ins != m.end(); ++ins)
    {
        if(ins->name() != "cpu::gemm")
            continue;
        auto inputs  = ins->inputs();
        bool changed = false;
        for(std::size_t i = 0; i < 2; i++)
        {
            if(i == 1 and ins->get_operator().to_value().at("packed_weights").get_bool())
                continue;
            if(auto v = view_without_copy(m, ins, inputs[i]))
            {
                inputs[i] = *v;
                changed   = true;
            }
        }
        if(changed)
            m.replace_instruction(ins, ins->get_operator(), inputs);
        write_transposed(m, ins);
    }
}

} // namespace cpu
} // namespace migraphx
