#ifndef MIGRAPHX_OPS_CHECK_SHAPES_HPP
#define MIGRAPHX_OPS_CHECK_SHAPES_HPP

#include <migraphx/errors.hpp>
#include <migraphx/shape.hpp>
#include <sstream>
#include <string>
#include <vector>

namespace migraphx {

/// Input checks for compute_shape; every failure names the op and the input shapes.
///   check_shapes{inputs, *this}.has(2).same_type().same_ndims();
struct check_shapes
{
    const std::vector<shape>& inputs;
    std::string op_name;

    template <class Op>
    check_shapes(const std::vector<shape>& in, const Op& op) : inputs(in), op_name(op.name())
    {
    }
    check_shapes(const std::vector<shape>& in, std::string name) : inputs(in), op_name(std::move(name)) {}

    [[noreturn]] void fail(const std::string& what) const
    {
        std::ostringstream ss;
        ss << op_name << ": " << what << "; inputs: ";
        print_inputs(ss);
        throw exception(ss.str());
    }
    void print_inputs(std::ostream& os) const
    {
        os << "(";
        for(std::size_t i = 0; i < inputs.size(); i++)
            os << (i ? "; " : "") << "{" << inputs[i] << "}";
        os << ")";
    }

    const check_shapes& has(std::size_t n) const
    {
        if(inputs.size() != n)
            fail("expects " + std::to_string(n) + " input(s), got " + std::to_string(inputs.size()));
        return *this;
    }
    const check_shapes& has_at_least(std::size_t n) const
    {
        if(inputs.size() < n)
            fail("expects at least " + std::to_string(n) + " input(s), got " + std::to_string(inputs.size()));
        return *this;
    }
    const check_shapes& has_between(std::size_t lo, std::size_t hi) const
    {
        if(inputs.size() < lo or inputs.size() > hi)
            fail("expects " + std::to_string(lo) + " to " + std::to_string(hi) + " inputs, got " +
                 std::to_string(inputs.size()));
        return *this;
    }
    const check_shapes& same_type() const
    {
        for(const auto& s : inputs)
            if(s.type() != inputs.front().type())
                fail("inputs must have the same type");
        return *this;
    }
    const check_shapes& same_dims() const
    {
        for(const auto& s : inputs)
            if(s.lens() != inputs.front().lens())
                fail("inputs must have the same dimensions");
        return *this;
    }
    const check_shapes& same_ndims() const
    {
        for(const auto& s : inputs)
            if(s.ndim() != inputs.front().ndim())
                fail("inputs must have the same rank");
        return *this;
    }
    const check_shapes& ndims(std::size_t n) const
    {
        for(const auto& s : inputs)
            if(s.ndim() != n)
                fail("inputs must have rank " + std::to_string(n));
        return *this;
    }
    const check_shapes& min_ndims(std::size_t n) const
    {
        for(const auto& s : inputs)
            if(s.ndim() < n)
                fail("inputs must have rank at least " + std::to_string(n));
        return *this;
    }
    const check_shapes& standard() const
    {
        for(const auto& s : inputs)
            if(not s.standard())
                fail("inputs must be standard (contiguous row-major); insert contiguous first");
        return *this;
    }
    const check_shapes& not_tuple() const
    {
        for(const auto& s : inputs)
            if(s.type() == shape::tuple_type)
                fail("inputs must not be tuples");
        return *this;
    }
    const check_shapes& static_only() const
    {
        for(const auto& s : inputs)
            if(s.dynamic())
                fail("dynamic shapes are not supported by this op");
        return *this;
    }
    /// Input i's type must be one of ts.
    const check_shapes& type_in(std::size_t i, const std::vector<shape::type_t>& ts) const
    {
        for(auto t : ts)
            if(inputs.at(i).type() == t)
                return *this;
        fail("input " + std::to_string(i) + " has an unsupported type " + inputs.at(i).type_string());
    }
};

/// Normalizes a possibly negative axis against rank; throws naming the op if out of range.
inline std::int64_t normalize_axis(std::int64_t axis, std::size_t rank, const std::string& op_name)
{
    auto r = static_cast<std::int64_t>(rank);
    if(axis < -r or axis >= r)
        throw exception(op_name + ": axis " + std::to_string(axis) + " is out of range for rank " +
                        std::to_string(rank));
    return axis < 0 ? axis + r : axis;
}

} // namespace migraphx

#endif
