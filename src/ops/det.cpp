// det(X {..., M, M}) -> {...}: determinant of each square matrix in the batch (ONNX Det), a 0-rank
// (one element) result for a single matrix. LU decomposition with partial pivoting in double.
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cmath>

namespace migraphx {
namespace op {

struct det
{
    std::string name() const { return "det"; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(1).not_tuple().static_only().min_ndims(2);
        const auto& l = inputs[0].lens();
        if(l[l.size() - 1] != l[l.size() - 2])
            cs.fail("the last two dimensions must be equal (square matrices)");
        if(not shape::is_floating(inputs[0].type()))
            cs.fail("input must be a floating type");
        return {inputs[0].type(), std::vector<std::size_t>(l.begin(), l.end() - 2)};
    }

    static double determinant(std::vector<double> a, std::size_t m)
    {
        double d = 1;
        for(std::size_t c = 0; c < m; c++)
        {
            std::size_t piv = c;
            for(std::size_t r = c + 1; r < m; r++)
                if(std::abs(a[r * m + c]) > std::abs(a[piv * m + c]))
                    piv = r;
            if(a[piv * m + c] == 0)
                return 0;
            if(piv != c)
            {
                for(std::size_t k = 0; k < m; k++)
                    std::swap(a[piv * m + k], a[c * m + k]);
                d = -d;
            }
            d *= a[c * m + c];
            for(std::size_t r = c + 1; r < m; r++)
            {
                double f = a[r * m + c] / a[c * m + c];
                for(std::size_t k = c; k < m; k++)
                    a[r * m + k] -= f * a[c * m + k];
            }
        }
        return d;
    }

    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        auto x        = args[0].to_vector<double>();
        std::size_t m = args[0].get_shape().lens().back();
        argument result{out};
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            auto* o = reinterpret_cast<T*>(result.data());
            for(std::size_t b = 0; b < out.elements(); b++)
                o[b] = static_cast<T>(
                    determinant(std::vector<double>(x.begin() + b * m * m, x.begin() + (b + 1) * m * m), m));
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(det)

} // namespace op
} // namespace migraphx
