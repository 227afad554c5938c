#ifndef MIGRAPHX_PASS_HPP
#define MIGRAPHX_PASS_HPP

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {

struct module;

/// A compiler pass: name() and apply(module&). Any struct with those converts to a pass.
struct pass
{
    pass() = default;
    template <class T, std::enable_if_t<not std::is_same<std::decay_t<T>, pass>{}, int> = 0>
    pass(T x) // NOLINT
        : m_name(x.name()), m_apply([p = std::move(x)](module& m) { p.apply(m); })
    {
    }
    pass(std::string name, std::function<void(module&)> f) : m_name(std::move(name)), m_apply(std::move(f)) {}

    const std::string& name() const { return m_name; }
    void apply(module& m) const { m_apply(m); }

    private:
    std::string m_name;
    std::function<void(module&)> m_apply;
};

} // namespace migraphx

#endif
