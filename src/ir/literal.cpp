#include <migraphx/literal.hpp>
#include <cstring>

namespace migraphx {

literal::literal(const argument& a) : m_arg(a.copy()) {}

literal literal::adopt(const shape& s, std::shared_ptr<char> data)
{
    if(s.type() == shape::tuple_type or s.dynamic())
        MIGRAPHX_THROW("literal::adopt: a literal cannot have a tuple or dynamic shape");
    if(data == nullptr and s.elements() > 0)
        MIGRAPHX_THROW("literal::adopt: no data for a shape of " + std::to_string(s.elements()) + " elements");
    literal r;
    r.m_arg = argument{s, std::move(data)};
    return r;
}

void literal::check_count(std::size_t n) const
{
    auto want = get_shape().elements();
    if(n != want and n != 1)
        MIGRAPHX_THROW("literal: shape has " + std::to_string(want) + " elements but " + std::to_string(n) +
                       " values were given");
}

literal generate_literal(const shape& s, unsigned long seed) { return literal{generate_argument(s, seed)}; }

} // namespace migraphx
