#ifndef MIGRAPHX_OPERATION_HPP
#define MIGRAPHX_OPERATION_HPP

#include <migraphx/argument.hpp>
#include <migraphx/context.hpp>
#include <migraphx/reflect.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/value.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <ostream>
#include <sstream>
#include <string>
#include <typeinfo>
#include <unordered_map>
#include <vector>

namespace migraphx {

struct module;
using module_ref = module*;
/// Runs a sub-module with named inputs; handed to ops that own sub-modules (If, Loop).
using run_module_fn =
    std::function<std::vector<argument>(module_ref, const std::unordered_map<std::string, argument>&)>;

namespace detail {
template <class T, class = void>
struct has_context_compute : std::false_type
{
};
template <class T>
struct has_context_compute<T,
                           std::void_t<decltype(std::declval<const T&>().compute(
                               std::declval<context&>(), std::declval<const shape&>(),
                               std::declval<const std::vector<argument>&>()))>> : std::true_type
{
};
template <class T, class = void>
struct has_plain_compute : std::false_type
{
};
template <class T>
struct has_plain_compute<T,
                         std::void_t<decltype(std::declval<const T&>().compute(
                             std::declval<const shape&>(), std::declval<const std::vector<argument>&>()))>>
    : std::true_type
{
};
template <class T, class = void>
struct has_module_compute : std::false_type
{
};
template <class T>
struct has_module_compute<T,
                          std::void_t<decltype(std::declval<const T&>().compute(
                              std::declval<const shape&>(), std::declval<const std::vector<argument>&>(),
                              std::declval<const std::vector<module_ref>&>(),
                              std::declval<const run_module_fn&>()))>> : std::true_type
{
};
template <class T, class = void>
struct has_module_compute_shape : std::false_type
{
};
template <class T>
struct has_module_compute_shape<T,
                                std::void_t<decltype(std::declval<const T&>().compute_shape(
                                    std::declval<const std::vector<shape>&>(),
                                    std::declval<const std::vector<module_ref>&>()))>> : std::true_type
{
};
template <class T, class = void>
struct has_output_alias : std::false_type
{
};
template <class T>
struct has_output_alias<
    T,
    std::void_t<decltype(std::declval<const T&>().output_alias(std::declval<const std::vector<shape>&>()))>>
    : std::true_type
{
};
template <class T, class = void>
struct has_finalize : std::false_type
{
};
template <class T>
struct has_finalize<T,
                    std::void_t<decltype(std::declval<T&>().finalize(std::declval<context&>(),
                                                                     std::declval<const shape&>(),
                                                                     std::declval<const std::vector<shape>&>()))>>
    : std::true_type
{
};
template <class T, class = void>
struct has_attributes : std::false_type
{
};
template <class T>
struct has_attributes<T, std::void_t<decltype(std::declval<const T&>().attributes())>> : std::true_type
{
};
template <class T, class = void>
struct has_print : std::false_type
{
};
template <class T>
struct has_print<T, std::void_t<decltype(std::declval<const T&>().print_attributes(std::declval<std::ostream&>()))>>
    : std::true_type
{
};
} // namespace detail

/// Any operation, held by value. A concrete op is a plain struct with name(), compute_shape(),
/// usually compute(), and a reflect() list of its attributes; see reflect.hpp.
struct operation
{
    operation() = default;
    template <class T, std::enable_if_t<not std::is_same<std::decay_t<T>, operation>{}, int> = 0>
    operation(T x) : m_self(std::make_shared<model<T>>(std::move(x))) // NOLINT
    {
    }

    bool empty() const { return m_self == nullptr; }
    std::string name() const { return m_self ? m_self->name() : ""; }
    shape compute_shape(const std::vector<shape>& inputs) const { return self().compute_shape(inputs, {}); }
    shape compute_shape(const std::vector<shape>& inputs, const std::vector<module_ref>& mods) const
    {
        return self().compute_shape(inputs, mods);
    }
    argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const
    {
        return self().compute(ctx, out, args);
    }
    argument compute(const shape& out, const std::vector<argument>& args) const
    {
        context ctx;
        return self().compute(ctx, out, args);
    }
    argument compute(const shape& out,
                     const std::vector<argument>& args,
                     const std::vector<module_ref>& mods,
                     const run_module_fn& run) const
    {
        return self().compute_modules(out, args, mods, run);
    }
    bool has_module_compute() const { return self().has_module_compute(); }
    /// Index of the input whose memory the output shares, or -1.
    std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const { return self().output_alias(inputs); }
    /// Called once after compile, before the first run (e.g. to choose an algorithm).
    void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs)
    {
        mutable_self().finalize(ctx, out, inputs);
    }
    /// Static facts about the op, e.g. {"pointwise": true}.
    value attributes() const { return self().attributes(); }
    value to_value() const { return m_self ? m_self->to_value() : value::make_object(); }
    void from_value(const value& v) { mutable_self().from_value(v); }
    /// The attribute list as printed between [] (empty for an op with none).
    std::string attribute_string() const { return m_self ? m_self->attribute_string() : ""; }

    const std::type_info& type() const { return m_self ? m_self->type() : typeid(void); }
    template <class T>
    const T* any_cast() const
    {
        if(type() != typeid(T))
            return nullptr;
        return &static_cast<const model<T>*>(m_self.get())->x;
    }
    template <class T>
    T* any_cast()
    {
        if(type() != typeid(T))
            return nullptr;
        return &static_cast<model<T>&>(mutable_self()).x;
    }

    friend bool operator==(const operation& a, const operation& b)
    {
        return a.name() == b.name() and a.to_value() == b.to_value();
    }
    friend bool operator!=(const operation& a, const operation& b) { return not(a == b); }
    /// name[attr=value,...] as in the spec's program text.
    friend std::ostream& operator<<(std::ostream& os, const operation& op)
    {
        os << op.name();
        auto attrs = op.attribute_string();
        if(not attrs.empty())
            os << "[" << attrs << "]";
        return os;
    }

    private:
    struct concept_t
    {
        virtual ~concept_t()                                                                  = default;
        virtual std::shared_ptr<concept_t> clone() const                                      = 0;
        virtual std::string name() const                                                      = 0;
        virtual shape compute_shape(const std::vector<shape>&, const std::vector<module_ref>&) const = 0;
        virtual argument compute(context&, const shape&, const std::vector<argument>&) const = 0;
        virtual argument compute_modules(const shape&,
                                         const std::vector<argument>&,
                                         const std::vector<module_ref>&,
                                         const run_module_fn&) const                        = 0;
        virtual bool has_module_compute() const                                               = 0;
        virtual std::ptrdiff_t output_alias(const std::vector<shape>&) const                  = 0;
        virtual void finalize(context&, const shape&, const std::vector<shape>&)              = 0;
        virtual value attributes() const                                                      = 0;
        virtual value to_value() const                                                        = 0;
        virtual void from_value(const value&)                                                 = 0;
        virtual std::string attribute_string() const                                          = 0;
        virtual const std::type_info& type() const                                            = 0;
    };

    template <class T>
    struct model : concept_t
    {
        explicit model(T y) : x(std::move(y)) {}
        std::shared_ptr<concept_t> clone() const override { return std::make_shared<model>(x); }
        std::string name() const override { return x.name(); }
        shape compute_shape(const std::vector<shape>& inputs, const std::vector<module_ref>& mods) const override
        {
            if constexpr(detail::has_module_compute_shape<T>{})
                return x.compute_shape(inputs, mods);
            else
            {
                if(not mods.empty())
                    MIGRAPHX_THROW(x.name() + ": does not take sub-modules");
                return x.compute_shape(inputs);
            }
        }
        argument compute(context& ctx, const shape& out, const std::vector<argument>& args) const override
        {
            if constexpr(detail::has_context_compute<T>{})
                return x.compute(ctx, out, args);
            else if constexpr(detail::has_plain_compute<T>{})
            {
                (void)ctx;
                return x.compute(out, args);
            }
            else
            {
                (void)ctx, (void)out, (void)args;
                MIGRAPHX_THROW(x.name() + ": this operation cannot be evaluated (it has no compute)");
            }
        }
        argument compute_modules(const shape& out,
                                 const std::vector<argument>& args,
                                 const std::vector<module_ref>& mods,
                                 const run_module_fn& run) const override
        {
            if constexpr(detail::has_module_compute<T>{})
                return x.compute(out, args, mods, run);
            else
            {
                (void)mods, (void)run;
                context ctx;
                return compute(ctx, out, args);
            }
        }
        bool has_module_compute() const override { return detail::has_module_compute<T>{}; }
        std::ptrdiff_t output_alias(const std::vector<shape>& inputs) const override
        {
            if constexpr(detail::has_output_alias<T>{})
                return x.output_alias(inputs);
            else
            {
                (void)inputs;
                return -1;
            }
        }
        void finalize(context& ctx, const shape& out, const std::vector<shape>& inputs) override
        {
            if constexpr(detail::has_finalize<T>{})
                x.finalize(ctx, out, inputs);
            else
                (void)ctx, (void)out, (void)inputs;
        }
        value attributes() const override
        {
            if constexpr(detail::has_attributes<T>{})
                return x.attributes();
            else
                return value::make_object();
        }
        value to_value() const override
        {
            if constexpr(has_reflect<T>{})
                return reflect_to_value(x);
            else
                return value::make_object();
        }
        void from_value(const value& v) override
        {
            if constexpr(has_reflect<T>{})
            {
                if(not v.is_object() and not v.is_null())
                    MIGRAPHX_THROW(x.name() + ": attributes must be an object, got " + v.to_json());
                if(v.is_object())
                {
                    for(const auto& kv : v.get_object())
                    {
                        bool known = false;
                        T::reflect(x, [&](auto&, const char* n) { known = known or kv.first == n; });
                        if(not known)
                            MIGRAPHX_THROW(x.name() + ": unknown attribute '" + kv.first + "'");
                    }
                    field_from_value(v, x, x.name().c_str());
                }
            }
            else if(v.is_object() and not v.empty())
                MIGRAPHX_THROW(x.name() + ": takes no attributes, got " + v.to_json());
        }
        std::string attribute_string() const override
        {
            std::ostringstream ss;
            if constexpr(detail::has_print<T>{})
                x.print_attributes(ss);
            else if constexpr(has_reflect<T>{})
            {
                bool first = true;
                T::reflect(const_cast<T&>(x), [&](auto& field, const char* n) {
                    if(not first)
                        ss << ",";
                    first = false;
                    ss << n << "=";
                    print_field(ss, field);
                });
            }
            return ss.str();
        }
        const std::type_info& type() const override { return typeid(T); }
        T x;
    };

    const concept_t& self() const
    {
        if(not m_self)
            MIGRAPHX_THROW("operation: empty operation");
        return *m_self;
    }
    concept_t& mutable_self()
    {
        if(not m_self)
            MIGRAPHX_THROW("operation: empty operation");
        if(m_self.use_count() > 1)
            m_self = m_self->clone();
        return *m_self;
    }
    std::shared_ptr<concept_t> m_self;
};

} // namespace migraphx

#endif
