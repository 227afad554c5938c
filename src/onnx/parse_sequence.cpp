// Sequence ops. A sequence is a parse-time list of values (positions must be constants), so
// SequenceAt/Insert/Erase/Length resolve while parsing and Concat/SplitToSequence become
// concat and slices.

#include "onnx/onnx_utils.hpp"

namespace migraphx {
namespace onnx {

namespace {

/// A position into a sequence of n elements (negative counts from the end); end_ok allows n.
std::size_t position(const node_info& info, instruction_ref p, std::size_t n, bool end_ok)
{
    auto v = info.require_constant(p, "position").at<std::int64_t>();
    auto s = static_cast<std::int64_t>(n);
    if(v < 0)
        v += s;
    if(v < 0 or v > s or (v == s and not end_ok))
        info.fail("position " + std::to_string(v) + " is out of range for a sequence of " + std::to_string(n));
    return static_cast<std::size_t>(v);
}

std::vector<instruction_ref> parse_sequence_construct(const node_info& info, std::vector<instruction_ref> args)
{
    if(info.op_type == "SequenceEmpty")
        return {info.make_sequence({})};
    return {info.make_sequence(args)};
}
MIGRAPHX_ONNX_PARSER(parse_sequence_construct, "SequenceConstruct", "SequenceEmpty")

std::vector<instruction_ref> parse_sequence_edit(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects a sequence");
    auto s = info.get_sequence(args[0]);
    if(info.op_type == "SequenceInsert")
    {
        if(args.size() < 2)
            info.fail("expects a tensor to insert");
        auto pos = args.size() > 2 ? position(info, args[2], s.size(), true) : s.size();
        s.insert(s.begin() + static_cast<std::ptrdiff_t>(pos), args[1]);
    }
    else
    {
        if(s.empty())
            info.fail("cannot erase from an empty sequence");
        auto pos = args.size() > 1 ? position(info, args[1], s.size(), false) : s.size() - 1;
        s.erase(s.begin() + static_cast<std::ptrdiff_t>(pos));
    }
    return {info.make_sequence(s)};
}
MIGRAPHX_ONNX_PARSER(parse_sequence_edit, "SequenceInsert", "SequenceErase")

std::vector<instruction_ref> parse_sequence_at(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 2)
        info.fail("expects a sequence and a position");
    const auto& s = info.get_sequence(args[0]);
    return {s.at(position(info, args[1], s.size(), false))};
}
MIGRAPHX_ONNX_PARSER(parse_sequence_at, "SequenceAt")

std::vector<instruction_ref> parse_sequence_length(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects a sequence");
    return {info.add_literal(literal{static_cast<std::int64_t>(info.get_sequence(args[0]).size())})};
}
MIGRAPHX_ONNX_PARSER(parse_sequence_length, "SequenceLength")

std::vector<instruction_ref> parse_concat_from_sequence(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.size() != 1)
        info.fail("expects a sequence");
    const auto& s = info.get_sequence(args[0]);
    if(s.empty())
        info.fail("cannot concatenate an empty sequence");
    bool new_axis = info.get_int("new_axis", 0) != 0;
    auto rank     = rank_of(s[0]) + (new_axis ? 1 : 0);
    auto axis     = normalize_onnx_axis(info.get_int("axis", 0), rank, info);
    std::vector<instruction_ref> xs;
    for(auto x : s)
        xs.push_back(new_axis ? info.add("unsqueeze", {{"axes", std::vector<std::int64_t>{axis}}}, {x}) : x);
    return {xs.size() == 1 ? xs[0] : info.add("concat", {{"axis", axis}}, xs)};
}
MIGRAPHX_ONNX_PARSER(parse_concat_from_sequence, "ConcatFromSequence")

std::vector<instruction_ref> parse_split_to_sequence(const node_info& info, std::vector<instruction_ref> args)
{
    if(args.empty())
        info.fail("expects an input");
    auto x    = args[0];
    auto axis = normalize_onnx_axis(info.get_int("axis", 0), rank_of(x), info);
    auto len  = static_cast<std::int64_t>(lens_of(x)[axis]);
    std::vector<std::int64_t> split;
    bool squeeze = false;
    if(args.size() > 1 and not info.is_undefined(args[1]))
    {
        split = to_int64s(info.require_constant(args[1], "split"));
        if(split.size() == 1 and rank_of(args[1]) == 0) // a scalar: chunks of that size
        {
            auto c = split[0];
            if(c <= 0)
                info.fail("split must be positive");
            split.clear();
            for(std::int64_t start = 0; start < len; start += c)
                split.push_back(std::min(c, len - start));
        }
    }
    else
    {
        split.assign(static_cast<std::size_t>(len), 1);
        squeeze = info.get_int("keepdims", 1) == 0;
    }
    info.check_size(split.size(), "the number of parts");
    std::vector<instruction_ref> parts;
    std::int64_t start = 0;
    for(auto n : split)
    {
        if(n < 0 or start + n > len)
            info.fail("split sizes do not fit the dim");
        auto p = info.add("slice",
                          {{"axes", std::vector<std::int64_t>{axis}},
                           {"starts", std::vector<std::int64_t>{start}},
                           {"ends", std::vector<std::int64_t>{start + n}}},
                          {x});
        parts.push_back(squeeze ? info.add("squeeze", {{"axes", std::vector<std::int64_t>{axis}}}, {p}) : p);
        start += n;
    }
    if(start != len)
        info.fail("split sizes do not add up to the dim");
    return {info.make_sequence(parts)};
}
MIGRAPHX_ONNX_PARSER(parse_split_to_sequence, "SplitToSequence")

} // namespace
} // namespace onnx
} // namespace migraphx
