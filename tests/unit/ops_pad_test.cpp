#include <migraphx/make_op.hpp>
#include <migraphx/argument.hpp>
#include <gtest/gtest.h>
#include <sstream>

namespace {
using migraphx::shape;
using ivec = std::vector<std::int64_t>;
using lvec = std::vector<std::size_t>;
migraphx::operation make_pad(ivec pads, float value = 0, std::int64_t mode = 0)
{
    return migraphx::make_op("pad", {{"pads", pads}, {"value", value}, {"mode", mode}});
}
std::vector<float> run(const migraphx::operation& op, const migraphx::argument& in)
{
    auto out = op.compute_shape({in.get_shape()});
    auto r   = op.compute(out, {in});
    EXPECT_EQ(r.get_shape(), out);
    return r.to_vector<float>();
}
} // namespace

TEST(ops_pad, shape_rules)
{
    auto op = make_pad({1, 0, 0, 1}, 9);
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "pad[pads={1, 0, 0, 1},value=9,mode=0]");
    EXPECT_EQ(op.compute_shape({shape{shape::float_type, {2, 2}}}), (shape{shape::float_type, {3, 3}}));
    EXPECT_EQ(make_pad({0, 1, 2, 0, 3, 0}).compute_shape({shape{shape::int8_type, {1, 2, 3}}}),
              (shape{shape::int8_type, {1, 6, 5}}));
    EXPECT_EQ(make_pad({-1, 0}).compute_shape({shape{shape::float_type, {4}}}).lens(), (lvec{3}));
}

TEST(ops_pad, bad_attributes_throw)
{
    shape s{shape::float_type, {2, 2}};
    EXPECT_THROW(make_pad({1, 1}).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_pad({0, 0, 0, 0}, 0, 3).compute_shape({s}), migraphx::exception);
    EXPECT_THROW(make_pad({-2, 0, -1, 0}).compute_shape({s}), migraphx::exception);
}

TEST(ops_pad, constant)
{
    std::vector<float> x{1, 2, 3, 4};
    migraphx::argument in{shape{shape::float_type, {2, 2}}, x.data()};
    EXPECT_EQ(run(make_pad({1, 0, 0, 1}, 9), in), (std::vector<float>{9, 9, 9, 1, 2, 9, 3, 4, 9}));
    // Transposed input: [[1, 3], [2, 4]].
    migraphx::argument t{shape{shape::float_type, {2, 2}, {1, 2}}, x.data()};
    EXPECT_EQ(run(make_pad({0, 1, 0, 0}), t), (std::vector<float>{0, 1, 3, 0, 2, 4}));
}

TEST(ops_pad, reflect_edge_and_crop)
{
    std::vector<float> x{1, 2, 3, 4};
    migraphx::argument in{shape{shape::float_type, {4}}, x.data()};
    EXPECT_EQ(run(make_pad({2, 2}, 0, 1), in), (std::vector<float>{3, 2, 1, 2, 3, 4, 3, 2}));
    EXPECT_EQ(run(make_pad({2, 1}, 0, 2), in), (std::vector<float>{1, 1, 1, 2, 3, 4, 4}));
    EXPECT_EQ(run(make_pad({-1, 1}, 7, 0), in), (std::vector<float>{2, 3, 4, 7}));
    migraphx::argument m{shape{shape::float_type, {2, 2}}, x.data()};
    EXPECT_EQ(run(make_pad({1, 1, 0, 0}, 0, 1), m), (std::vector<float>{4, 3, 4, 2, 1, 2, 4, 3, 4}));
}

namespace {
// The definition, one output element at a time: each coordinate mapped back to the input
// (constant: outside is the value; reflect: mirrored without the edge; edge: clamped).
std::vector<float> pad_by_definition(const std::vector<float>& x, const shape& s, const ivec& pads, float value,
                                     std::int64_t mode)
{
    auto n = s.ndim();
    std::vector<std::size_t> out_lens(n);
    for(std::size_t d = 0; d < n; d++)
        out_lens[d] = s.lens()[d] + pads[d] + pads[d + n];
    shape os{shape::float_type, out_lens};
    std::vector<float> y(os.elements());
    for(std::size_t i = 0; i < y.size(); i++)
    {
        auto o = os.multi(i);
        std::vector<std::size_t> idx(n);
        bool inside = true;
        for(std::size_t d = 0; d < n; d++)
        {
            auto len = static_cast<std::int64_t>(s.lens()[d]);
            auto c   = static_cast<std::int64_t>(o[d]) - pads[d];
            if(c < 0 or c >= len)
            {
                if(mode == 0)
                    inside = false;
                else if(mode == 2 or len == 1) // reflecting one element repeats it
                    c = c < 0 ? 0 : len - 1;
                else
                    while(c < 0 or c >= len)
                        c = c < 0 ? -c : 2 * (len - 1) - c;
            }
            idx[d] = static_cast<std::size_t>(std::max<std::int64_t>(c, 0));
        }
        y[i] = inside ? x[s.index(idx)] : value;
    }
    return y;
}
} // namespace

// Row-wise copies against the definition: 4-d and 3-d inputs, pads on every dim (negative ones
// crop), all three modes, standard and transposed inputs.
TEST(ops_pad, rows_match_the_definition)
{
    struct pad_case
    {
        lvec lens;
        ivec pads;
        std::int64_t mode;
        bool transposed;
    };
    std::vector<pad_case> cases{
        {{1, 3, 5, 4}, {0, 0, 1, 1, 0, 0, 1, 1}, 0, false},
        {{2, 3, 5, 4}, {0, 1, 2, 0, 1, 0, 0, 3}, 0, false},
        {{2, 3, 5, 4}, {0, 0, -1, 2, 0, 0, 1, -2}, 0, false},
        {{2, 3, 5, 4}, {0, 0, 1, 2, 0, 0, 2, 1}, 0, true},
        {{2, 3, 5, 4}, {0, 0, 3, 2, 0, 0, 2, 3}, 1, false},
        {{2, 3, 5, 4}, {0, 1, 2, 2, 1, 0, 2, 2}, 2, true},
        {{3, 1, 6}, {1, 0, 5, 0, 2, 7}, 1, false},
        {{3, 1, 6}, {0, 0, -6, 0, 0, 2}, 0, false},
    };
    for(const auto& c : cases)
    {
        shape s{shape::float_type, c.lens};
        std::vector<float> x(s.elements());
        for(std::size_t i = 0; i < x.size(); i++)
            x[i] = static_cast<float>(i) + 1.0f;
        shape view = s;
        if(c.transposed) // the same data read with the last two dims swapped
        {
            auto l = c.lens;
            auto st = s.strides();
            std::swap(l[l.size() - 1], l[l.size() - 2]);
            std::swap(st[st.size() - 1], st[st.size() - 2]);
            view = shape{shape::float_type, l, st};
        }
        migraphx::argument in{view, x.data()};
        std::vector<float> xs(view.elements());
        for(std::size_t i = 0; i < xs.size(); i++)
            xs[i] = x[view.index(i)];
        auto want = pad_by_definition(xs, shape{shape::float_type, view.lens()}, c.pads, -3, c.mode);
        EXPECT_EQ(run(make_pad(c.pads, -3, c.mode), in), want) << view << " pads " << c.pads.size();
    }
}

TEST(ops_pad, half_and_int_types_and_empty_inputs)
{
    std::vector<std::int32_t> xi{1, 2, 3, 4, 5, 6};
    migraphx::argument in{shape{shape::int32_type, {2, 3}}, xi.data()};
    auto op  = make_pad({1, 0, 0, 1}, 7);
    auto out = op.compute(op.compute_shape({in.get_shape()}), {in});
    EXPECT_EQ(out.to_vector<std::int32_t>(), (std::vector<std::int32_t>{7, 7, 7, 7, 1, 2, 3, 7, 4, 5, 6, 7}));
    // A zero-length input dim: everything is the value.
    migraphx::argument e{shape{shape::float_type, {2, 0}}, xi.data()};
    EXPECT_EQ(run(make_pad({0, 2, 0, 0}, 5), e), (std::vector<float>{5, 5, 5, 5}));
}
