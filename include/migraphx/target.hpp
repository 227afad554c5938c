#ifndef MIGRAPHX_TARGET_HPP
#define MIGRAPHX_TARGET_HPP

#include <migraphx/argument.hpp>
#include <migraphx/compile_options.hpp>
#include <migraphx/context.hpp>
#include <migraphx/pass.hpp>
#include <memory>
#include <string>
#include <vector>

namespace migraphx {

/// Where a program runs: a list of passes plus a context. Any struct with name(),
/// get_passes(context&, const compile_options&) and get_context() converts to a target.
/// copy_to/copy_from move data between the host and the target's memory (identity on the host).
struct target
{
    target() = default;
    template <class T, std::enable_if_t<not std::is_same<std::decay_t<T>, target>{}, int> = 0>
    target(T x) : m_self(std::make_shared<model<T>>(std::move(x))) // NOLINT
    {
    }

    bool empty() const { return m_self == nullptr; }
    std::string name() const { return self().name(); }
    std::vector<pass> get_passes(context& ctx, const compile_options& options) const
    {
        return self().get_passes(ctx, options);
    }
    context get_context() const { return self().get_context(); }
    argument copy_to(const argument& a) const { return self().copy_to(a); }
    argument copy_from(const argument& a) const { return self().copy_from(a); }
    argument allocate(const shape& s) const { return self().allocate(s); }

    private:
    struct concept_t
    {
        virtual ~concept_t()                                                             = default;
        virtual std::string name() const                                                 = 0;
        virtual std::vector<pass> get_passes(context&, const compile_options&) const     = 0;
        virtual context get_context() const                                              = 0;
        virtual argument copy_to(const argument&) const                                  = 0;
        virtual argument copy_from(const argument&) const                                = 0;
        virtual argument allocate(const shape&) const                                    = 0;
    };
    template <class T>
    struct model : concept_t
    {
        explicit model(T y) : x(std::move(y)) {}
        std::string name() const override { return x.name(); }
        std::vector<pass> get_passes(context& ctx, const compile_options& o) const override
        {
            return x.get_passes(ctx, o);
        }
        context get_context() const override { return x.get_context(); }
        template <class U>
        static auto do_copy_to(const U& u, const argument& a, int) -> decltype(u.copy_to(a))
        {
            return u.copy_to(a);
        }
        template <class U>
        static argument do_copy_to(const U&, const argument& a, long)
        {
            return a;
        }
        template <class U>
        static auto do_copy_from(const U& u, const argument& a, int) -> decltype(u.copy_from(a))
        {
            return u.copy_from(a);
        }
        template <class U>
        static argument do_copy_from(const U&, const argument& a, long)
        {
            return a;
        }
        template <class U>
        static auto do_allocate(const U& u, const shape& s, int) -> decltype(u.allocate(s))
        {
            return u.allocate(s);
        }
        template <class U>
        static argument do_allocate(const U&, const shape& s, long)
        {
            return argument{s};
        }
        argument copy_to(const argument& a) const override { return do_copy_to(x, a, 0); }
        argument copy_from(const argument& a) const override { return do_copy_from(x, a, 0); }
        argument allocate(const shape& s) const override { return do_allocate(x, s, 0); }
        T x;
    };
    const concept_t& self() const
    {
        if(not m_self)
            MIGRAPHX_THROW("target: empty target");
        return *m_self;
    }
    std::shared_ptr<concept_t> m_self;
};

/// Targets registered by name ("ref", "cpu", "gpu" where built and present).
void register_target(const target& t);
/// The registered target of that name; throws naming the available ones if absent.
target get_target(const std::string& name);
std::vector<std::string> get_targets();

} // namespace migraphx

#endif
