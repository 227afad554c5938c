#ifndef MIGRAPHX_TENSOR_VIEW_HPP
#define MIGRAPHX_TENSOR_VIEW_HPP

#include <migraphx/shape.hpp>
#include <cstddef>

namespace migraphx {

/// Typed access to memory described by a shape. operator[] takes the logical (row-major) index,
/// so strided, sliced and broadcast views read correctly.
template <class T>
struct tensor_view
{
    using value_type = T;
    tensor_view() = default;
    tensor_view(shape s, T* d) : m_shape(std::move(s)), m_data(d) {}

    const shape& get_shape() const { return m_shape; }
    T* data() const { return m_data; }
    std::size_t size() const { return m_shape.elements(); }
    bool empty() const { return m_data == nullptr or size() == 0; }

    T& operator[](std::size_t i) const
    {
        return m_data[m_shape.standard() ? i : m_shape.index(i)];
    }
    T& operator()(const std::vector<std::size_t>& idx) const { return m_data[m_shape.index(idx)]; }
    template <class... Ts>
    T& operator()(Ts... xs) const
    {
        return m_data[m_shape.index(std::vector<std::size_t>{static_cast<std::size_t>(xs)...})];
    }

    private:
    shape m_shape{};
    T* m_data = nullptr;
};

template <class T>
tensor_view<T> make_view(const shape& s, T* data)
{
    return {s, data};
}

} // namespace migraphx

#endif
