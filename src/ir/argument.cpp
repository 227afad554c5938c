#include <migraphx/argument.hpp>
#include "ir/block_cache.hpp"
#include "ir/strided_copy.hpp"
#include <cmath>
#include <cstring>
#include <sstream>
#include <ostream>

namespace migraphx {

argument::argument(const shape& s) : m_shape(s)
{
    if(s.type() == shape::tuple_type)
    {
        for(const auto& sub : s.sub_shapes())
            m_sub.emplace_back(sub);
        return;
    }
    if(s.dynamic())
        MIGRAPHX_THROW("argument: cannot allocate a dynamic shape " +
                       [&] {
                           std::ostringstream ss;
                           ss << s;
                           return ss.str();
                       }());
    m_data = allocate_zeroed(s.bytes()); // zeroed: a read of an unwritten element is deterministic
}

argument::argument(const std::vector<argument>& elements)
{
    std::vector<shape> shapes;
    for(const auto& e : elements)
        shapes.push_back(e.get_shape());
    m_shape = shape{shapes};
    m_sub   = elements;
}

argument argument::reshape(const shape& s) const
{
    if(s.element_space() * s.type_size() > m_shape.element_space() * m_shape.type_size() and m_data)
        MIGRAPHX_THROW("argument::reshape: view needs more memory than the argument has");
    return {s, m_data};
}

argument argument::view(const shape& s, std::size_t offset_bytes) const
{
    if(offset_bytes + s.bytes() > m_shape.bytes() and s.elements() > 0)
        MIGRAPHX_THROW("argument::view: view runs past the end of the argument's memory");
    return {s, std::shared_ptr<char>(m_data, m_data.get() + offset_bytes)};
}

argument argument::copy() const
{
    if(m_shape.type() == shape::tuple_type)
    {
        std::vector<argument> subs;
        for(const auto& a : m_sub)
            subs.push_back(a.copy());
        return argument{subs};
    }
    argument r{m_shape};
    if(m_data)
        std::memcpy(r.data(), data(), m_shape.bytes());
    return r;
}

argument argument::contiguous() const
{
    if(m_shape.type() == shape::tuple_type)
        return copy();
    // Every byte of the standard copy is written: no zeroing first.
    auto standard = m_shape.as_standard();
    argument r{standard, allocate_uninitialized(standard.bytes())};
    copy_strided(m_shape, data(), r.data());
    return r;
}

bool operator==(const argument& a, const argument& b)
{
    if(a.get_shape().type() == shape::tuple_type or b.get_shape().type() == shape::tuple_type)
        return a.get_shape() == b.get_shape() and a.m_sub == b.m_sub;
    if(a.get_shape().type() != b.get_shape().type() or a.get_shape().lens() != b.get_shape().lens())
        return false;
    if(a.empty() or b.empty())
        return a.empty() == b.empty();
    bool equal = true;
    a.visit([&](auto x) {
        b.visit([&](auto y) {
            for(std::size_t i = 0; i < x.size() and equal; i++)
                equal = static_cast<double>(x[i]) == static_cast<double>(y[i]);
        });
    });
    return equal;
}

std::ostream& operator<<(std::ostream& os, const argument& a)
{
    if(a.get_shape().type() == shape::tuple_type)
    {
        os << "{";
        auto subs = a.get_sub_objects();
        for(std::size_t i = 0; i < subs.size(); i++)
            os << (i ? ", " : "") << subs[i];
        return os << "}";
    }
    if(a.empty())
        return os;
    a.visit([&](auto v) {
        for(std::size_t i = 0; i < v.size(); i++)
        {
            if(i)
                os << ", ";
            using T = typename decltype(v)::value_type;
            if constexpr(sizeof(T) == 1 and std::is_integral<T>{})
                os << static_cast<int>(v[i]);
            else
                os << v[i];
        }
    });
    return os;
}

namespace {
// splitmix64: small, fast, and the same on every platform, so generated data is reproducible.
std::uint64_t next_random(std::uint64_t& state)
{
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z               = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z               = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
} // namespace

argument generate_argument(const shape& s, unsigned long seed)
{
    if(s.type() == shape::tuple_type)
    {
        std::vector<argument> subs;
        for(const auto& sub : s.sub_shapes())
            subs.push_back(generate_argument(sub, seed++));
        return argument{subs};
    }
    argument r{s};
    std::uint64_t state = 0x12345678ULL + seed * 0x9e3779b97f4a7c15ULL;
    r.visit([&](auto v) {
        using T = typename decltype(v)::value_type;
        auto n  = s.element_space();
        auto* p = v.data();
        for(std::size_t i = 0; i < n; i++)
        {
            auto x = next_random(state);
            if constexpr(std::is_same<T, bool>{})
                p[i] = (x & 1) != 0;
            else if constexpr(std::is_integral<T>{})
                p[i] = static_cast<T>(x % 7) - (std::is_signed<T>{} ? static_cast<T>(3) : static_cast<T>(0));
            else
            {
                // Uniform in [-1, 1): keeps deep networks' activations finite.
                double d = static_cast<double>(x >> 11) * (1.0 / 9007199254740992.0);
                p[i]     = type_cast<T>(2.0 * d - 1.0);
            }
        }
    });
    return r;
}

} // namespace migraphx
