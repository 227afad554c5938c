// Einsum: diagonals (repeated labels) via an identity mask and a sum, two operands via one
// batched dot, any other count via a broadcast product and a sum over the contracted labels.

#include "onnx/onnx_utils.hpp"
#include <map>
#include <set>

namespace migraphx {
namespace onnx {

namespace {

using labels = std::vector<char>;

struct term
{
    instruction_ref x;
    labels l;
};

/// Expands "..." into labels '0'.. (right-aligned across operands so that they broadcast).
labels parse_term(const node_info& info, std::string s, std::size_t rank, std::size_t ell_rank)
{
    labels r;
    auto e = s.find("...");
    std::string before = e == std::string::npos ? s : s.substr(0, e);
    std::string after  = e == std::string::npos ? "" : s.substr(e + 3);
    for(char c : before)
        r.push_back(c);
    if(e != std::string::npos)
    {
        if(rank < before.size() + after.size())
            info.fail("term '" + s + "' has more labels than its operand's rank");
        auto n = rank - before.size() - after.size();
        for(std::size_t i = 0; i < n; i++)
            r.push_back(static_cast<char>('0' + (ell_rank - n + i)));
    }
    for(char c : after)
        r.push_back(c);
    if(r.size() != rank)
        info.fail("term '" + s + "' does not match its operand's rank " + std::to_string(rank));
    return r;
}

/// Takes the diagonal of every label that repeats within one operand.
term take_diagonals(const node_info& info, term t)
{
    for(std::size_t p = 0; p < t.l.size(); p++)
    {
        for(std::size_t q = p + 1; q < t.l.size(); q++)
        {
            if(t.l[p] != t.l[q])
                continue;
            auto n = lens_of(t.x)[p];
            if(lens_of(t.x)[q] != n)
                info.fail("repeated label with different dims");
            std::vector<std::size_t> ml(t.l.size(), 1);
            ml[p] = ml[q] = n;
            info.check_size(n * n, "the diagonal mask");
            std::vector<double> eye(n * n, 0);
            for(std::size_t i = 0; i < n; i++)
                eye[i * n + i] = 1;
            auto m = info.add_literal(make_literal(type_of(t.x), ml, eye));
            auto s = info.add("reduce_sum", {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(q)}}},
                              {info.add_broadcastable_binary_op("mul", t.x, m)});
            t.x    = info.add("squeeze", {{"axes", std::vector<std::int64_t>{static_cast<std::int64_t>(q)}}}, {s});
            t.l.erase(t.l.begin() + q);
            q = p;
        }
    }
    return t;
}

/// Sums away labels of t that appear nowhere in keep.
term sum_unused(const node_info& info, term t, const std::set<char>& keep)
{
    std::vector<std::int64_t> axes;
    labels rest;
    for(std::size_t i = 0; i < t.l.size(); i++)
    {
        if(keep.count(t.l[i]) == 0)
            axes.push_back(static_cast<std::int64_t>(i));
        else
            rest.push_back(t.l[i]);
    }
    if(axes.empty())
        return t;
    auto s = info.add("reduce_sum", {{"axes", axes}}, {t.x});
    return {info.add("squeeze", {{"axes", axes}}, {s}), rest};
}

/// t laid out as `order` (labels t lacks become dims of 1).
instruction_ref align(const node_info& info, const term& t, const labels& order)
{
    std::vector<std::int64_t> perm;
    for(char c : order)
        for(std::size_t i = 0; i < t.l.size(); i++)
            if(t.l[i] == c)
                perm.push_back(static_cast<std::int64_t>(i));
    auto x = t.x;
    if(not std::is_sorted(perm.begin(), perm.end()))
        x = info.add("transpose", {{"permutation", perm}}, {x});
    std::vector<std::size_t> lens;
    std::size_t j = 0;
    for(char c : order)
        lens.push_back(std::find(t.l.begin(), t.l.end(), c) != t.l.end() ? lens_of(x)[j++] : 1);
    return reshape_to(info, x, lens);
}

std::vector<instruction_ref> parse_einsum(const node_info& info, std::vector<instruction_ref> args)
{
    auto eq = info.get_string("equation", "");
    eq.erase(std::remove(eq.begin(), eq.end(), ' '), eq.end());
    auto arrow   = eq.find("->");
    auto lhs     = eq.substr(0, arrow);
    std::vector<std::string> terms;
    std::size_t start = 0;
    for(std::size_t i = 0; i <= lhs.size(); i++)
        if(i == lhs.size() or lhs[i] == ',')
        {
            terms.push_back(lhs.substr(start, i - start));
            start = i + 1;
        }
    if(terms.size() != args.size())
        info.fail("equation '" + eq + "' has " + std::to_string(terms.size()) + " terms for " +
                  std::to_string(args.size()) + " inputs");
    std::size_t ell_rank = 0;
    for(std::size_t i = 0; i < terms.size(); i++)
    {
        auto letters = terms[i].size() - (terms[i].find("...") == std::string::npos ? 0 : 3);
        if(terms[i].find("...") != std::string::npos and rank_of(args[i]) >= letters)
            ell_rank = std::max(ell_rank, rank_of(args[i]) - letters);
    }
    std::vector<term> ts;
    std::map<char, int> count;
    for(std::size_t i = 0; i < terms.size(); i++)
    {
        auto t = take_diagonals(info, {args[i], parse_term(info, terms[i], rank_of(args[i]), ell_rank)});
        for(char c : t.l)
            count[c]++;
        ts.push_back(t);
    }
    labels out;
    if(arrow != std::string::npos)
    {
        auto rhs = eq.substr(arrow + 2);
        bool ell = rhs.find("...") != std::string::npos;
        out      = parse_term(info, rhs, rhs.size() - (ell ? 3 : 0) + (ell ? ell_rank : 0), ell_rank);
    }
    else
    {
        for(std::size_t i = 0; i < ell_rank; i++)
            out.push_back(static_cast<char>('0' + i));
        for(const auto& [c, n] : count)
            if(n == 1 and not(c >= '0' and c <= '9'))
                out.push_back(c);
    }
    std::set<char> out_set(out.begin(), out.end());
    if(out_set.size() != out.size())
        info.fail("the output of '" + eq + "' repeats a label");
    for(char c : out)
        if(count.count(c) == 0)
            info.fail("the output of '" + eq + "' has a label no input has");
    // A label used by one operand only and not in the output is summed right away.
    for(std::size_t i = 0; i < ts.size(); i++)
    {
        std::set<char> keep = out_set;
        for(std::size_t j = 0; j < ts.size(); j++)
            if(j != i)
                keep.insert(ts[j].l.begin(), ts[j].l.end());
        ts[i] = sum_unused(info, ts[i], keep);
    }
    labels order = out;
    for(const auto& t : ts)
        for(char c : t.l)
            if(std::find(order.begin(), order.end(), c) == order.end())
                order.push_back(c);
    instruction_ref r = align(info, ts[0], order);
    if(ts.size() == 2)
    {
        // Contract the shared non-output labels with one batched dot: order is
        // [out labels..., contracted...]; a: [batch, left, K], b: [batch, K, right].
        auto a = r;
        auto b = align(info, ts[1], order);
        std::vector<std::size_t> full = lens_of(a);
        for(std::size_t i = 0; i < full.size(); i++)
            full[i] = std::max(full[i], lens_of(b)[i]);
        auto in_a = [&](char c) { return std::find(ts[0].l.begin(), ts[0].l.end(), c) != ts[0].l.end(); };
        auto in_b = [&](char c) { return std::find(ts[1].l.begin(), ts[1].l.end(), c) != ts[1].l.end(); };
        std::vector<std::int64_t> batch, left, right, contract;
        for(std::size_t i = 0; i < order.size(); i++)
        {
            char c = order[i];
            auto p = static_cast<std::int64_t>(i);
            if(out_set.count(c) == 0)
                contract.push_back(p);
            else if(in_a(c) and in_b(c))
                batch.push_back(p);
            else if(in_a(c))
                left.push_back(p);
            else
                right.push_back(p);
        }
        auto dims = [&](const std::vector<std::int64_t>& ax) {
            std::size_t n = 1;
            for(auto i : ax)
                n *= full[i];
            return n;
        };
        // x broadcast over its own labels, transposed to perm (its absent labels, all 1, go last).
        auto prep = [&](instruction_ref x, std::vector<std::int64_t> perm, const std::vector<std::int64_t>& absent,
                        std::vector<std::size_t> l3) {
            std::vector<std::size_t> want(full.size(), 1);
            for(auto p : perm)
                want[p] = full[p];
            perm.insert(perm.end(), absent.begin(), absent.end());
            auto tx = info.add("transpose", {{"permutation", perm}}, {info.broadcast_to(x, want)});
            return reshape_to(info, tx, l3);
        };
        auto pa = batch;
        pa.insert(pa.end(), left.begin(), left.end());
        pa.insert(pa.end(), contract.begin(), contract.end());
        auto pb = batch;
        pb.insert(pb.end(), contract.begin(), contract.end());
        pb.insert(pb.end(), right.begin(), right.end());
        auto a3 = prep(a, pa, right, {dims(batch), dims(left), dims(contract)});
        auto b3 = prep(b, pb, left, {dims(batch), dims(contract), dims(right)});
        auto d  = info.add("dot", {a3, b3});
        // back to [batch..., left..., right...] then to the output order
        std::vector<std::size_t> l;
        std::vector<std::int64_t> got;
        for(const auto* g : {&batch, &left, &right})
            for(auto i : *g)
            {
                l.push_back(full[i]);
                got.push_back(i);
            }
        auto y = reshape_to(info, d, l);
        std::vector<std::int64_t> perm(got.size());
        for(std::size_t i = 0; i < got.size(); i++)
            perm[static_cast<std::size_t>(got[i])] = static_cast<std::int64_t>(i);
        if(not std::is_sorted(got.begin(), got.end()))
            y = info.add("transpose", {{"permutation", perm}}, {y});
        return {y};
    }
    for(std::size_t i = 1; i < ts.size(); i++)
        r = info.add_broadcastable_binary_op("mul", r, align(info, ts[i], order));
    std::vector<std::int64_t> sum_axes;
    for(std::size_t i = out.size(); i < order.size(); i++)
        sum_axes.push_back(static_cast<std::int64_t>(i));
    if(not sum_axes.empty())
        r = info.add("squeeze", {{"axes", sum_axes}}, {info.add("reduce_sum", {{"axes", sum_axes}}, {r})});
    return {r};
}
MIGRAPHX_ONNX_PARSER(parse_einsum, "Einsum")

} // namespace
} // namespace onnx
} // namespace migraphx
