#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

namespace {
using migraphx::shape;
using i64 = std::vector<std::int64_t>;
migraphx::operation make_topk(std::int64_t k, std::int64_t axis, bool largest)
{
    return migraphx::make_op("topk", {{"k", k}, {"axis", axis}, {"largest", largest}});
}
std::vector<migraphx::argument> run(const migraphx::operation& op, const migraphx::argument& x)
{
    auto out = op.compute_shape({x.get_shape()});
    return op.compute(out, {x}).get_sub_objects();
}
} // namespace

TEST(ops_topk, shape_rules)
{
    shape x{shape::half_type, {3, 4}};
    auto s = make_topk(2, 1, true).compute_shape({x});
    ASSERT_EQ(s.type(), shape::tuple_type);
    EXPECT_EQ(s.sub_shapes()[0], (shape{shape::half_type, {3, 2}}));
    EXPECT_EQ(s.sub_shapes()[1], (shape{shape::int64_type, {3, 2}}));
    EXPECT_EQ(make_topk(3, -2, true).compute_shape({x}).sub_shapes()[1].lens(), (std::vector<std::size_t>{3, 4}));
    std::ostringstream ss;
    ss << make_topk(2, 1, false);
    EXPECT_EQ(ss.str(), "topk[k=2,axis=1,largest=0]");
}

TEST(ops_topk, bad_inputs_throw)
{
    shape x{shape::float_type, {3, 4}};
    EXPECT_THROW(make_topk(5, 1, true).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(make_topk(-1, 1, true).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(make_topk(1, 2, true).compute_shape({x}), migraphx::exception);
    EXPECT_THROW(make_topk(1, 0, true).compute_shape({x, x}), migraphx::exception);
}

TEST(ops_topk, an_input_shorter_than_k_throws_not_reads_past_it)
{
    // k fixed for the input's largest size, the input shorter at run time (a data-dependent size)
    auto op = make_topk(4, 0, true);
    auto out = op.compute_shape({shape{shape::float_type, {6}}});
    std::vector<float> d{1, 2, 3};
    migraphx::argument x{shape{shape::float_type, {3}}, d.data()};
    try
    {
        op.compute(out, {x});
        FAIL() << "expected an exception";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("k=4 but the input holds only 3"), std::string::npos) << e.what();
    }
}

TEST(ops_topk, largest_and_smallest_stable_ties)
{
    std::vector<float> d{1, 3, 3, 2, 5, 4, 6, 0};
    migraphx::argument x{shape{shape::float_type, {2, 4}}, d.data()};
    auto r = run(make_topk(3, 1, true), x);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{3, 3, 2, 6, 5, 4}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{1, 2, 3, 2, 0, 1}));
    r = run(make_topk(2, -1, false), x);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{1, 2, 0, 4}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{0, 3, 3, 1}));
    // Along axis 0 of the same data.
    r = run(make_topk(1, 0, true), x);
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{5, 4, 6, 2}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{1, 1, 1, 0}));
}

// A long row with many ties and NaNs (the k best selected first, then sorted): the same as the
// first k of a stable sort of the whole row, written out here.
TEST(ops_topk, long_rows_match_a_stable_sort_of_the_whole_row)
{
    const float nan = std::numeric_limits<float>::quiet_NaN();
    std::vector<float> d(5000);
    for(std::size_t i = 0; i < d.size(); i++)
        d[i] = i % 97 == 0 ? nan : static_cast<float>((i * 7919) % 61) - 30.0f; // 61 levels, -0 excluded
    migraphx::argument x{shape{shape::float_type, {5000}}, d.data()};
    for(bool largest : {true, false})
        for(std::int64_t k : {1, 37, 1000, 5000})
        {
            std::vector<std::size_t> order(d.size());
            std::iota(order.begin(), order.end(), 0);
            std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
                bool an = std::isnan(d[a]), bn = std::isnan(d[b]);
                if(an or bn)
                    return largest ? (an and not bn) : (bn and not an);
                return largest ? d[a] > d[b] : d[a] < d[b];
            });
            auto r   = run(make_topk(k, 0, largest), x);
            auto idx = r[1].to_vector<std::int64_t>();
            ASSERT_EQ(idx.size(), static_cast<std::size_t>(k));
            for(std::size_t j = 0; j < idx.size(); j++)
                ASSERT_EQ(idx[j], static_cast<std::int64_t>(order[j])) << "k " << k << " largest " << largest << " at " << j;
        }
}

TEST(ops_topk, program_on_transposed_input)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    // x^T = [[1, 5], [3, 4], [3, 6], [2, 0]] (4x2); top-2 along axis 0 per column.
    auto x  = mm->add_literal(migraphx::literal{shape{shape::int32_type, {2, 4}}, std::vector<int>{1, 3, 3, 2, 5, 4, 6, 0}});
    auto t  = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), x);
    auto tk = mm->add_instruction(make_topk(2, 0, true), t);
    auto v  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 0}}), tk);
    auto i  = mm->add_instruction(migraphx::make_op("get_tuple_elem", {{"index", 1}}), tk);
    mm->add_return({v, i});
    p.compile(migraphx::ref::target{});
    auto res = p.eval({});
    ASSERT_EQ(res.size(), 2u);
    EXPECT_EQ(res[0].to_vector<int>(), (std::vector<int>{3, 6, 3, 5}));
    EXPECT_EQ(res[1].to_vector<std::int64_t>(), (i64{1, 2, 2, 0}));
}

// k as a second input (ONNX TopK whose K is min(candidates, len(scores)) of a data-dependent
// scores): the attribute k is the declared (largest) one, the results have the run-time k.
TEST(ops_topk, run_time_k_input)
{
    auto op = make_topk(4, 0, true);
    shape k1{shape::int64_type, std::vector<std::size_t>{1}};
    shape x6{shape::float_type, {6}};
    EXPECT_EQ(op.compute_shape({x6, k1}).sub_shapes()[0].lens(), (std::vector<std::size_t>{4}));
    EXPECT_THROW(op.compute_shape({x6, shape{shape::int64_type, std::vector<std::size_t>{2}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({x6, shape{shape::float_type, std::vector<std::size_t>{1}}}), migraphx::exception);
    auto out = op.compute_shape({x6, k1});
    std::vector<float> d{1, 5, 3};
    migraphx::argument x{shape{shape::float_type, {3}}, d.data()}; // 3 of 6 declared
    auto kk = [](std::int64_t v) {
        migraphx::argument a{shape{shape::int64_type, std::vector<std::size_t>{1}}};
        *reinterpret_cast<std::int64_t*>(a.data()) = v;
        return a;
    };
    auto r = op.compute(out, {x, kk(2)}).get_sub_objects();
    EXPECT_EQ(r[0].to_vector<float>(), (std::vector<float>{5, 3}));
    EXPECT_EQ(r[1].to_vector<std::int64_t>(), (i64{1, 2}));
    EXPECT_EQ(op.compute(out, {x, kk(0)}).get_sub_objects()[0].get_shape().lens(), (std::vector<std::size_t>{0}));
    auto what = [&](std::int64_t v) {
        try
        {
            op.compute(out, {x, kk(v)});
        }
        catch(const migraphx::exception& e)
        {
            return std::string(e.what());
        }
        return std::string("no exception");
    };
    EXPECT_NE(what(5).find("run-time k=5 is not within [0, 4]"), std::string::npos) << what(5);
    EXPECT_NE(what(-1).find("run-time k=-1"), std::string::npos) << what(-1);
    EXPECT_NE(what(4).find("k=4 but the input holds only 3"), std::string::npos) << what(4);
}
