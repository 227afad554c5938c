#include <migraphx/shape.hpp>
#include <gtest/gtest.h>
#include <sstream>

using migraphx::shape;

static std::string str(const shape& s)
{
    std::ostringstream ss;
    ss << s;
    return ss.str();
}

TEST(shape, standard_strides_computed)
{
    shape s{shape::float_type, {64, 3, 7, 7}};
    EXPECT_EQ(s.strides(), (std::vector<std::size_t>{147, 49, 7, 1}));
    EXPECT_EQ(s.elements(), 9408);
    EXPECT_EQ(s.bytes(), 9408 * 4);
    EXPECT_TRUE(s.standard());
    EXPECT_TRUE(s.packed());
    EXPECT_FALSE(s.transposed());
    EXPECT_FALSE(s.broadcasted());
}

TEST(shape, prints_like_the_spec)
{
    EXPECT_EQ(str(shape{shape::float_type, {1, 1, 4, 6}}), "float_type, {1, 1, 4, 6}, {24, 24, 6, 1}");
    EXPECT_EQ(str(shape{shape::float_type}), "float_type, {}, {}");
    EXPECT_EQ(str(shape{shape::half_type, {2}}), "half_type, {2}, {1}");
}

TEST(shape, every_type_has_a_size_and_name)
{
    std::vector<std::pair<shape::type_t, std::size_t>> sizes = {
        {shape::bool_type, 1},   {shape::half_type, 2},   {shape::float_type, 4},  {shape::double_type, 8},
        {shape::uint8_type, 1},  {shape::int8_type, 1},   {shape::uint16_type, 2}, {shape::int16_type, 2},
        {shape::int32_type, 4},  {shape::int64_type, 8},  {shape::uint32_type, 4}, {shape::uint64_type, 8},
        {shape::fp8e4m3fn_type, 1}};
    for(auto [t, n] : sizes)
    {
        EXPECT_EQ(shape::type_size(t), n);
        EXPECT_EQ(shape::parse_type(shape::type_name(t)), t);
    }
    EXPECT_THROW(shape::parse_type("complex_type"), migraphx::exception);
}

TEST(shape, sliced_view_is_not_standard)
{
    shape s{shape::float_type, {1, 1, 4, 3}, {24, 24, 6, 1}};
    EXPECT_FALSE(s.standard());
    EXPECT_FALSE(s.packed());
    EXPECT_EQ(s.elements(), 12);
    EXPECT_EQ(s.element_space(), 3 * 6 + 2 + 1);
    EXPECT_EQ(s.index({0, 0, 1, 0}), 6);
    EXPECT_EQ(s.index(3), 6);
    EXPECT_EQ(s.multi(5), (std::vector<std::size_t>{0, 0, 1, 2}));
}

TEST(shape, transposed_and_broadcast)
{
    shape t{shape::float_type, {3, 2}, {1, 3}};
    EXPECT_TRUE(t.transposed());
    EXPECT_TRUE(t.packed());
    EXPECT_FALSE(t.standard());
    EXPECT_EQ(t.index(1), 3);

    shape b{shape::float_type, {2, 3}, {0, 1}};
    EXPECT_TRUE(b.broadcasted());
    EXPECT_FALSE(b.packed());
    EXPECT_EQ(b.element_space(), 3);

    shape sc{shape::float_type, {4}, {0}};
    EXPECT_TRUE(sc.scalar());
    EXPECT_EQ(sc.bytes(), 4);
}

TEST(shape, mismatched_lens_and_strides_throw)
{
    EXPECT_THROW((shape{shape::float_type, {2, 3}, {1}}), migraphx::exception);
}

TEST(shape, dynamic_dims)
{
    auto d = shape::from_dyn_dims(shape::float_type, {{1, 8, {1, 4}}, {3, 3, {}}, {224, 224, {}}, {224, 224, {}}});
    EXPECT_TRUE(d.dynamic());
    EXPECT_EQ(d.ndim(), 4);
    EXPECT_EQ(d.dyn_dims()[0].max, 8);
    EXPECT_EQ(str(d), "float_type, {1..8 (1 4), 3, 224, 224}"); // a range, its optimal values in ()
    auto fixed = shape::from_dyn_dims(shape::float_type, {{2, 2, {}}, {3, 3, {}}});
    EXPECT_FALSE(fixed.dynamic());
    EXPECT_EQ(fixed.lens(), (std::vector<std::size_t>{2, 3}));
    EXPECT_THROW(shape::from_dyn_dims(shape::float_type, {{4, 2, {}}}), migraphx::exception);
}

TEST(shape, equality)
{
    EXPECT_EQ((shape{shape::float_type, {2, 3}}), (shape{shape::float_type, {2, 3}, {3, 1}}));
    EXPECT_NE((shape{shape::float_type, {2, 3}}), (shape{shape::half_type, {2, 3}}));
    EXPECT_NE((shape{shape::float_type, {2, 3}}), (shape{shape::float_type, {3, 2}}));
}

// A scalar shape of a type (what a default argument holds) is one shared description: eval makes
// several a step, and they must not allocate. Each is still its own type, one element.
TEST(shape, scalar_shapes_of_a_type_are_shared_and_right)
{
    EXPECT_EQ(shape{}, shape{shape::float_type});
    for(int t = 0; t <= shape::tuple_type; t++)
    {
        auto type = static_cast<shape::type_t>(t);
        shape a{type}, b{type};
        EXPECT_EQ(a.type(), type);
        EXPECT_TRUE(a.lens().empty());
        EXPECT_EQ(a.elements(), type == shape::tuple_type ? 0u : 1u);
        EXPECT_EQ(a, b);
    }
    EXPECT_NE(shape{shape::half_type}, shape{shape::float_type});
    EXPECT_THROW(shape{static_cast<shape::type_t>(99)}, migraphx::exception);
}

TEST(shape, visit_gives_cpp_type)
{
    bool is_float = false;
    shape::visit(shape::float_type, [&](auto as) { is_float = std::is_same<typename decltype(as)::type, float>{}; });
    EXPECT_TRUE(is_float);
    EXPECT_THROW(shape::visit(shape::tuple_type, [](auto) {}), migraphx::exception);
}

TEST(shape, fp8e4m3fn_is_a_signed_floating_type_of_one_byte)
{
    EXPECT_EQ(shape::type_name(shape::fp8e4m3fn_type), "fp8e4m3fn_type");
    EXPECT_TRUE(shape::is_floating(shape::fp8e4m3fn_type));
    EXPECT_FALSE(shape::is_integral(shape::fp8e4m3fn_type));
    EXPECT_TRUE(shape::is_signed(shape::fp8e4m3fn_type));
    EXPECT_EQ(shape::get_type<migraphx::fp8e4m3fn>(), shape::fp8e4m3fn_type);
    bool is_fp8 = false;
    shape::visit(shape::fp8e4m3fn_type,
                 [&](auto as) { is_fp8 = std::is_same<typename decltype(as)::type, migraphx::fp8e4m3fn>{}; });
    EXPECT_TRUE(is_fp8);
    EXPECT_EQ((shape{shape::fp8e4m3fn_type, {3, 4}}.bytes()), 12u);
}

TEST(shape, tuple)
{
    shape t{std::vector<shape>{shape{shape::float_type, {2}}, shape{shape::int64_type, {3}}}};
    EXPECT_EQ(t.type(), shape::tuple_type);
    EXPECT_EQ(t.sub_shapes().size(), 2);
    EXPECT_EQ(t.bytes(), 8 + 24);
}
