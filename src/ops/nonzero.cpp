// nonzero: the indices of the nonzero elements of its input, as int64 {rank, nnz} in row-major
// order (ONNX NonZero). nnz depends on the data, so compute_shape returns the largest possible
// shape {rank, elements}; compute returns the exact {rank, nnz} (the op declares
// {"dynamic_output": true}). A 0-rank input is treated as rank 1 of one element (ONNX).
// See docs/internal/op-conventions.md.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"

namespace migraphx {
namespace op {

struct nonzero
{
    std::string name() const { return "nonzero"; }
    value attributes() const { return {{"dynamic_output", true}, {"dynamic_axes", std::vector<std::int64_t>{1}}}; }

    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes{inputs, *this}.has(1).not_tuple().static_only();
        std::size_t rank = std::max<std::size_t>(inputs[0].ndim(), 1);
        return {shape::int64_type, {rank, inputs[0].elements()}};
    }

    argument compute(const shape&, const std::vector<argument>& args) const
    {
        const auto& s    = args[0].get_shape();
        std::size_t rank = std::max<std::size_t>(s.ndim(), 1);
        std::vector<std::size_t> hits;
        args[0].visit([&](auto in) {
            for(std::size_t i = 0; i < in.size(); i++)
                if(static_cast<double>(in[i]) != 0.0) // NaN counts as nonzero
                    hits.push_back(i);
        });
        shape out{shape::int64_type, {rank, hits.size()}};
        argument result{out};
        auto* o = reinterpret_cast<std::int64_t*>(result.data());
        for(std::size_t j = 0; j < hits.size(); j++)
        {
            auto idx = s.ndim() == 0 ? std::vector<std::size_t>{0} : s.multi(hits[j]);
            for(std::size_t d = 0; d < rank; d++)
                o[d * hits.size() + j] = static_cast<std::int64_t>(idx[d]);
        }
        return result;
    }
};
MIGRAPHX_REGISTER_OP(nonzero)

} // namespace op
} // namespace migraphx
