#ifndef MIGRAPHX_LITERAL_HPP
#define MIGRAPHX_LITERAL_HPP

#include <migraphx/argument.hpp>
#include <initializer_list>
#include <iosfwd>
#include <vector>

namespace migraphx {

/// An immutable constant (e.g. weights). Its data is copied in at construction (or adopted, see
/// adopt) and never changes.
struct literal
{
    literal() = default;
    /// A scalar of the type of x.
    template <class T, std::enable_if_t<std::is_arithmetic<T>{} or std::is_same<T, half>{} or std::is_same<T, fp8e4m3fn>{}, int> = 0>
    literal(T x) : literal(shape{shape::get_type<T>()}, std::vector<T>{x}) // NOLINT
    {
    }
    template <class T>
    literal(const shape& s, const std::vector<T>& x) : literal(s, x.data(), x.size())
    {
    }
    template <class T>
    literal(const shape& s, std::initializer_list<T> x) : literal(s, x.begin(), x.size())
    {
    }
    /// Reads s.elements() values from x.
    template <class T>
    literal(const shape& s, T* x) : literal(s, x, s.elements())
    {
    }
    /// Copies an argument's values.
    explicit literal(const argument& a);
    /// Takes data as the literal's memory, without copying or clearing it: it must hold
    /// s.bytes() and not change afterwards; the literal (and every copy of it) keeps it alive.
    /// data may alias a larger buffer (std::shared_ptr's aliasing constructor), e.g. a file read
    /// or mapped once and shared by all the literals it holds.
    static literal adopt(const shape& s, std::shared_ptr<char> data);

    const shape& get_shape() const { return m_arg.get_shape(); }
    const char* data() const { return m_arg.data(); }
    bool empty() const { return m_arg.empty(); }
    /// An argument sharing the literal's memory (do not write through it).
    argument get_argument() const { return m_arg; }

    template <class F>
    void visit(F&& f) const
    {
        m_arg.visit(std::forward<F>(f));
    }
    template <class T>
    std::vector<T> to_vector() const
    {
        return m_arg.to_vector<T>();
    }
    template <class T>
    T at(std::size_t i = 0) const
    {
        return m_arg.at<T>(i);
    }

    friend bool operator==(const literal& a, const literal& b) { return a.m_arg == b.m_arg; }
    friend bool operator!=(const literal& a, const literal& b) { return not(a == b); }
    friend std::ostream& operator<<(std::ostream& os, const literal& l) { return os << l.m_arg; }

    private:
    template <class T>
    literal(const shape& s, const T* x, std::size_t n) : m_arg(s)
    {
        check_count(n);
        m_arg.visit([&](auto v) {
            using U = typename decltype(v)::value_type;
            for(std::size_t i = 0; i < v.size(); i++)
                v[i] = type_cast<U>(x[n == 1 ? 0 : i]);
        });
    }
    void check_count(std::size_t n) const;
    argument m_arg{};
};

/// A literal of shape s with deterministic pseudo-random values for seed.
literal generate_literal(const shape& s, unsigned long seed = 0);

} // namespace migraphx

#endif
