#ifndef MIGRAPHX_CONTEXT_HPP
#define MIGRAPHX_CONTEXT_HPP

#include <migraphx/errors.hpp>
#include <memory>
#include <string>
#include <typeinfo>
#include <type_traits>
#include <utility>

namespace migraphx {

/// A target's execution state (device, stream, library handles), type-erased.
/// A concrete context is a plain struct; finish() (wait for all work) is optional.
struct context
{
    context() = default;
    template <class T, std::enable_if_t<not std::is_same<std::decay_t<T>, context>{}, int> = 0>
    context(T x) : m_self(std::make_shared<model<T>>(std::move(x))) // NOLINT
    {
    }

    bool empty() const { return m_self == nullptr; }
    /// Blocks until all work queued on the context is done.
    void finish() const
    {
        if(m_self)
            m_self->finish();
    }

    template <class T>
    T& get() const
    {
        if(not m_self or m_self->type() != typeid(T))
            MIGRAPHX_THROW(std::string("context: not a ") + typeid(T).name());
        return static_cast<model<T>*>(m_self.get())->x;
    }
    template <class T>
    T* get_if() const
    {
        if(not m_self or m_self->type() != typeid(T))
            return nullptr;
        return &static_cast<model<T>*>(m_self.get())->x;
    }

    private:
    struct concept_t
    {
        virtual ~concept_t()                        = default;
        virtual void finish()                       = 0;
        virtual const std::type_info& type() const  = 0;
    };
    template <class T>
    struct model : concept_t
    {
        explicit model(T y) : x(std::move(y)) {}
        template <class U>
        static auto call_finish(U& u, int) -> decltype(u.finish(), void())
        {
            u.finish();
        }
        template <class U>
        static void call_finish(U&, long)
        {
        }
        void finish() override { call_finish(x, 0); }
        const std::type_info& type() const override { return typeid(T); }
        T x;
    };
    std::shared_ptr<concept_t> m_self;
};

} // namespace migraphx

#endif
