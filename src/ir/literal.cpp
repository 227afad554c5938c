#include <migraphx/literal.hpp>
#include <cstring>

namespace migraphx {

literal::literal(const argument& a) : m_arg(a.copy()) {}

void literal::check_count(std::size_t n) const
{
    auto want = get_shape().elements();
    if(n != want and n != 1)
        MIGRAPHX_THROW("literal: shape has " + std::to_string(want) + " elements but " + std::to_string(n) +
                       " values were given");
}

literal generate_literal(const shape& s, unsigned long seed) { return literal{generate_argument(s, seed)}; }

} // namespace migraphx
