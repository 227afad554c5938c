#ifndef MIGRAPHX_ONNX_ONNX_UTILS_HPP
#define MIGRAPHX_ONNX_ONNX_UTILS_HPP

// Small helpers shared by the parse_*.cpp files.

#include "onnx/onnx_parser.hpp"
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

namespace migraphx {
namespace onnx {

inline std::vector<std::int64_t> to_int64s(const argument& a) { return a.to_vector<std::int64_t>(); }

/// A literal of type t, lens `lens`, from values converted to t (T must not be bool).
template <class T>
literal make_literal(shape::type_t t, const std::vector<std::size_t>& lens, const std::vector<T>& values)
{
    shape s = lens.empty() ? shape{t} : shape{t, lens};
    return literal{s, values};
}

inline literal int64_literal(const std::vector<std::int64_t>& v)
{
    return literal{shape{shape::int64_type, {v.size()}}, v};
}

inline std::size_t product(const std::vector<std::size_t>& v, std::size_t first = 0, std::size_t last = SIZE_MAX)
{
    last = std::min(last, v.size());
    std::size_t r = 1;
    for(std::size_t i = first; i < last; i++)
        r *= v[i];
    return r;
}

/// Lens of x.
inline const std::vector<std::size_t>& lens_of(instruction_ref x) { return x->get_shape().lens(); }
inline shape::type_t type_of(instruction_ref x) { return x->get_shape().type(); }
inline std::size_t rank_of(instruction_ref x) { return x->get_shape().ndim(); }

/// Reshape to lens (copies a non-standard input).
inline instruction_ref reshape_to(const node_info& info, instruction_ref x, const std::vector<std::size_t>& lens)
{
    if(lens_of(x) == lens)
        return x;
    // The reshape op reads a 0 in dims as "copy the input dim": an empty result is a literal.
    if(product(lens) == 0)
        return info.add_literal(literal{argument{shape{type_of(x), lens}}});
    std::vector<std::int64_t> dims(lens.begin(), lens.end());
    return info.add("reshape", {{"dims", dims}}, {info.make_contiguous(x)});
}

/// For a sizes input that is not a constant but is computed from the Shape of a data-dependent
/// result (dimensions_of): its values at the declared shapes, the largest sizes, which the op that
/// reads the sizes at run time declares (broadcast_with_dims, reshape_with_dims, topk's k);
/// nullopt for a constant or any other input.
inline std::optional<std::vector<std::int64_t>> declared_values(const node_info& info, instruction_ref x)
{
    if(info.is_undefined(x) or info.eval(x))
        return std::nullopt;
    auto d = info.eval_declared(x);
    if(not d)
        return std::nullopt;
    return to_int64s(*d);
}

/// declared_values of a sizes input, which must not be negative.
inline std::optional<std::vector<std::size_t>>
declared_sizes(const node_info& info, instruction_ref x, const std::string& what)
{
    auto v = declared_values(info, x);
    if(not v)
        return std::nullopt;
    std::vector<std::size_t> r;
    for(auto d : *v)
    {
        if(d < 0)
            info.fail(what + " has a negative size " + std::to_string(d) + " at the declared shapes");
        r.push_back(static_cast<std::size_t>(d));
    }
    return r;
}

/// Sorted, normalized axes.
inline std::vector<std::int64_t>
normalize_axes(const node_info& info, std::vector<std::int64_t> axes, std::size_t rank)
{
    for(auto& a : axes)
        a = normalize_onnx_axis(a, rank, info);
    std::sort(axes.begin(), axes.end());
    return axes;
}

/// The values 0..lens[axis]-1 laid along axis of a tensor of rank lens.size(), others 1; type t.
inline instruction_ref iota_along(const node_info& info, const std::vector<std::size_t>& lens, std::size_t axis,
                                  shape::type_t t = shape::int64_type)
{
    info.check_size(lens[axis], "the index table");
    std::vector<std::size_t> l(lens.size(), 1);
    l[axis] = lens[axis];
    std::vector<std::int64_t> v(lens[axis]);
    std::iota(v.begin(), v.end(), 0);
    return info.add_literal(make_literal(t, l, v));
}

/// Whether an operator of that name is registered (some are written separately from the parser).
inline bool has_op(const std::string& name)
{
    static const std::vector<std::string> ops = get_operators();
    return std::binary_search(ops.begin(), ops.end(), name);
}

/// Throws "not implemented" naming the missing operator unless it is registered.
inline void require_op(const node_info& info, const std::string& name)
{
    if(not has_op(name))
        info.fail("not implemented: needs the '" + name + "' operator, which is not available");
}

/// out[i][j]... = data[..., idx[i][j]..., ...] along axis (ONNX GatherElements); in parse_gather.cpp.
instruction_ref add_gather_elements(const node_info& info, instruction_ref data, instruction_ref idx, std::int64_t axis);

/// a @ b with numpy matmul semantics (batch broadcasting, 1-D operands); in parse_matmul.cpp.
instruction_ref add_matmul(const node_info& info, instruction_ref a, instruction_ref b);

} // namespace onnx
} // namespace migraphx

#endif
