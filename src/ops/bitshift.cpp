// bitshift[direction=left](x, y): x << y or x >> y elementwise (ONNX BitShift); direction is
// left or right in any case (ONNX writes LEFT/RIGHT). Both inputs have the same integer type
// and lens (any strides); shifting by the type's width or more gives 0; signed types shift
// their two's-complement bits as unsigned (logical shift).
#include <migraphx/register_op.hpp>
#include "ops/check_shapes.hpp"
#include <cctype>
#include <type_traits>

namespace migraphx {
namespace op {

struct bitshift
{
    std::string direction = "left";
    template <class Self, class F>
    static void reflect(Self& self, F f)
    {
        f(self.direction, "direction");
    }
    std::string name() const { return "bitshift"; }
    /// "left"/"right" in any case (ONNX writes LEFT/RIGHT); empty if neither.
    std::string dir() const
    {
        std::string d;
        for(char c : direction)
            d += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return d == "left" or d == "right" ? d : "";
    }
    value attributes() const { return {{"pointwise", true}}; }
    shape compute_shape(const std::vector<shape>& inputs) const
    {
        check_shapes cs{inputs, *this};
        cs.has(2).not_tuple().static_only().same_type().same_dims();
        if(dir().empty())
            cs.fail("direction must be left or right, got '" + direction + "'");
        if(not shape::is_integral(inputs[0].type()) or inputs[0].type() == shape::bool_type)
            cs.fail("inputs must be integers");
        return {inputs[0].type(), inputs[0].lens()};
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        argument result{out};
        bool left = dir() == "left";
        out.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            if constexpr(std::is_integral<T>{} and not std::is_same<T, bool>{})
            {
                using U = std::make_unsigned_t<T>;
                auto x  = make_view(args[0].get_shape(), reinterpret_cast<const T*>(args[0].data()));
                auto y  = make_view(args[1].get_shape(), reinterpret_cast<const T*>(args[1].data()));
                auto* o = reinterpret_cast<T*>(result.data());
                for(std::size_t i = 0; i < out.elements(); i++)
                {
                    auto v = static_cast<U>(x[i]);
                    auto s = static_cast<U>(y[i]);
                    U r    = 0;
                    if(s < sizeof(U) * 8)
                        r = left ? static_cast<U>(v << s) : static_cast<U>(v >> s);
                    o[i] = static_cast<T>(r);
                }
            }
        });
        return result;
    }
};
MIGRAPHX_REGISTER_OP(bitshift)

} // namespace op
} // namespace migraphx
