#ifndef MIGRAPHX_ARGUMENT_HPP
#define MIGRAPHX_ARGUMENT_HPP

#include <migraphx/errors.hpp>
#include <migraphx/shape.hpp>
#include <migraphx/tensor_view.hpp>
#include <functional>
#include <iosfwd>
#include <memory>
#include <vector>

namespace migraphx {

/// Data with a shape, like a tensor. It either owns its memory (argument(shape)) or borrows a
/// caller's pointer, which it never frees (argument(shape, T*)). Copies share the same memory.
struct argument
{
    argument() = default;
    /// Allocates (zero-filled) memory of s.bytes().
    explicit argument(const shape& s);
    /// Borrows d; the caller keeps ownership and must keep it alive.
    template <class T>
    argument(shape s, T* d)
        : m_shape(std::move(s)),
          m_data(std::shared_ptr<char>(), reinterpret_cast<char*>(const_cast<std::remove_cv_t<T>*>(d)))
    {
    }
    /// Shares ownership of data.
    argument(shape s, std::shared_ptr<char> data) : m_shape(std::move(s)), m_data(std::move(data)) {}
    /// A tuple of arguments (the result of ops with several outputs).
    explicit argument(const std::vector<argument>& elements);

    const shape& get_shape() const { return m_shape; }
    char* data() const { return m_data.get(); }
    bool empty() const { return m_data == nullptr and m_sub.empty(); }
    const std::shared_ptr<char>& share_data() const { return m_data; }
    std::vector<argument> get_sub_objects() const { return m_sub; }

    /// A view of the same memory with another shape (no copy).
    argument reshape(const shape& s) const;
    /// A view starting offset bytes into this memory, keeping it alive.
    argument view(const shape& s, std::size_t offset_bytes) const;
    /// A deep copy with the same shape and strides.
    argument copy() const;
    /// A deep copy in standard (row-major, packed) layout.
    argument contiguous() const;

    /// Calls f(tensor_view<T>) with T the element type.
    template <class F>
    void visit(F&& f) const
    {
        if(m_shape.type() == shape::tuple_type)
            MIGRAPHX_THROW("argument::visit: a tuple argument has no element type");
        m_shape.visit_type([&](auto as) {
            using T = typename decltype(as)::type;
            f(make_view(m_shape, reinterpret_cast<T*>(data())));
        });
    }

    /// Elements in logical order, converted to T.
    template <class T>
    std::vector<T> to_vector() const
    {
        std::vector<T> r;
        visit([&](auto v) {
            r.reserve(v.size());
            for(std::size_t i = 0; i < v.size(); i++)
                r.push_back(type_cast<T>(v[i]));
        });
        return r;
    }
    /// The i-th element in logical order, converted to T.
    template <class T>
    T at(std::size_t i = 0) const
    {
        T r{};
        visit([&](auto v) {
            if(i >= v.size())
                MIGRAPHX_THROW("argument::at: index " + std::to_string(i) + " out of range");
            r = type_cast<T>(v[i]);
        });
        return r;
    }

    /// Same shape and element-wise equal values.
    friend bool operator==(const argument& a, const argument& b);
    friend bool operator!=(const argument& a, const argument& b) { return not(a == b); }
    friend std::ostream& operator<<(std::ostream& os, const argument& a);

    private:
    shape m_shape{};
    std::shared_ptr<char> m_data{};
    std::vector<argument> m_sub{};
};

/// Fills memory of shape s with deterministic pseudo-random values for seed.
argument generate_argument(const shape& s, unsigned long seed = 0);

} // namespace migraphx

#endif
