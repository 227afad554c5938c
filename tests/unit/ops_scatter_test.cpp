#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <gtest/gtest.h>

namespace {
using migraphx::shape;
template <class T>
migraphx::argument arg(const shape& s, std::vector<T>& v)
{
    return {s, v.data()};
}
std::vector<float> run(const migraphx::operation& op, const std::vector<migraphx::argument>& args)
{
    std::vector<shape> ss;
    for(const auto& a : args)
        ss.push_back(a.get_shape());
    auto out = op.compute_shape(ss);
    return op.compute(out, args).to_vector<float>();
}
} // namespace

TEST(ops_scatter, shape_rules_and_bad_inputs)
{
    shape d{shape::float_type, {3, 3}}, i{shape::int64_type, {2, 3}}, u{shape::float_type, {2, 3}};
    auto op = migraphx::make_op("scatter_add", {{"axis", 1}});
    EXPECT_EQ(op.compute_shape({d, i, u}), d);
    EXPECT_THROW(op.compute_shape({d, i, shape{shape::float_type, {3, 2}}}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({d, shape{shape::float_type, {2, 3}}, u}), migraphx::exception);
    EXPECT_THROW(migraphx::make_op("scatter_none", {{"axis", 2}}).compute_shape({d, i, u}), migraphx::exception);
    EXPECT_THROW(op.compute_shape({d, shape{shape::int64_type, {6}}, shape{shape::float_type, {6}}}), migraphx::exception);

    shape dn{shape::float_type, {4, 2, 3}}, in{shape::int64_type, {2, 2}}, un{shape::float_type, {2, 3}};
    auto nd = migraphx::make_op("scatternd_none");
    EXPECT_EQ(nd.compute_shape({dn, in, un}), dn);
    EXPECT_THROW(nd.compute_shape({dn, in, shape{shape::float_type, {2, 2}}}), migraphx::exception);
    EXPECT_THROW(nd.compute_shape({dn, shape{shape::int64_type, {2, 4}}, un}), migraphx::exception);
    std::ostringstream ss;
    ss << op;
    EXPECT_EQ(ss.str(), "scatter_add[axis=1]");
}

TEST(ops_scatter, elements_none_add_mul)
{
    // ONNX ScatterElements example: data 3x3 zeros, indices [[1,0,2],[0,2,1]], axis 0.
    std::vector<float> data(9, 1.0f);
    std::vector<std::int64_t> ind{1, 0, 2, 0, 2, 1};
    std::vector<float> upd{1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f};
    shape ds{shape::float_type, {3, 3}}, is{shape::int64_type, {2, 3}}, us{shape::float_type, {2, 3}};
    auto args = std::vector<migraphx::argument>{arg(ds, data), arg(is, ind), arg(us, upd)};
    EXPECT_EQ(run(migraphx::make_op("scatter_none", {{"axis", 0}}), args),
              (std::vector<float>{2.0f, 1.1f, 1, 1.0f, 1, 2.2f, 1, 2.1f, 1.2f}));
    auto add = run(migraphx::make_op("scatter_add", {{"axis", 0}}), args);
    EXPECT_FLOAT_EQ(add[0], 3.0f);
    EXPECT_FLOAT_EQ(add[7], 3.1f);
    EXPECT_FLOAT_EQ(add[2], 1.0f);
    // Duplicate indices accumulate; negative indices wrap; the input is untouched.
    std::vector<float> row{1, 2, 3};
    std::vector<std::int32_t> dup{-1, 2, 0};
    std::vector<float> vals{2, 5, 10};
    shape rs{shape::float_type, {1, 3}}, ris{shape::int32_type, {1, 3}};
    EXPECT_EQ(run(migraphx::make_op("scatter_mul", {{"axis", 1}}), {arg(rs, row), arg(ris, dup), arg(rs, vals)}),
              (std::vector<float>{10, 2, 30}));
    EXPECT_EQ(row, (std::vector<float>{1, 2, 3}));
}

TEST(ops_scatter, out_of_range_index_throws_at_compute)
{
    std::vector<float> data(3, 0.0f), upd{1};
    std::vector<std::int64_t> ind{3};
    shape ds{shape::float_type, {3}}, is{shape::int64_type, {1}}, us{shape::float_type, {1}};
    auto op = migraphx::make_op("scatter_none");
    EXPECT_THROW(op.compute(ds, {arg(ds, data), arg(is, ind), arg(us, upd)}), migraphx::exception);
    auto nd = migraphx::make_op("scatternd_add");
    shape nis{shape::int64_type, {1, 1}};
    EXPECT_THROW(nd.compute(ds, {arg(ds, data), arg(nis, ind), arg(us, upd)}), migraphx::exception);
}

TEST(ops_scatter, nd_slices_and_reductions)
{
    // data 2x2x2 of ones; indices [[1],[0],[1]] write whole 2x2 slices (add accumulates the dup).
    std::vector<float> data(8, 1.0f);
    std::vector<std::int64_t> ind{1, 0, 1};
    std::vector<float> upd{1, 2, 3, 4, 5, 6, 7, 8, 10, 20, 30, 40};
    shape ds{shape::float_type, {2, 2, 2}}, is{shape::int64_type, {3, 1}}, us{shape::float_type, {3, 2, 2}};
    auto args = std::vector<migraphx::argument>{arg(ds, data), arg(is, ind), arg(us, upd)};
    EXPECT_EQ(run(migraphx::make_op("scatternd_none"), args), (std::vector<float>{5, 6, 7, 8, 10, 20, 30, 40}));
    EXPECT_EQ(run(migraphx::make_op("scatternd_add"), args), (std::vector<float>{6, 7, 8, 9, 12, 23, 34, 45}));
    EXPECT_EQ(run(migraphx::make_op("scatternd_mul"), args), (std::vector<float>{5, 6, 7, 8, 10, 40, 90, 160}));
    // Full index tuples (k = rank) address single elements.
    std::vector<std::int64_t> pts{0, 1, 1, 1, 0, 0};
    std::vector<float> pv{7, 9};
    shape ps{shape::int64_type, {2, 3}}, pvs{shape::float_type, {2}};
    EXPECT_EQ(run(migraphx::make_op("scatternd_none"), {arg(ds, data), arg(ps, pts), arg(pvs, pv)}),
              (std::vector<float>{1, 1, 1, 7, 9, 1, 1, 1}));
}

TEST(ops_scatter, program_with_transposed_data)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto d   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 2}}, std::vector<float>{1, 2, 3, 4}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), d); // [[1,3],[2,4]]
    auto i   = mm->add_literal(migraphx::literal{shape{shape::int64_type, {2, 1}}, std::vector<std::int64_t>{1, 0}});
    auto u   = mm->add_literal(migraphx::literal{shape{shape::float_type, {2, 1}}, std::vector<float>{10, 20}});
    mm->add_return({mm->add_instruction(migraphx::make_op("scatter_add", {{"axis", 1}}), t, i, u)});
    p.compile(migraphx::ref::target{});
    EXPECT_EQ(p.eval({}).back().to_vector<float>(), (std::vector<float>{1, 13, 22, 4}));
}

TEST(ops_scatter, every_axis_and_strided_updates_match_a_position_by_position_reference)
{
    // data {3, 4, 5}; indices {2, 3, 4} (a smaller box, with repeats: the last write wins);
    // updates a transposed view (strides not standard). Reference: the ONNX definition, one
    // position at a time in row-major order.
    shape ds{shape::float_type, {3, 4, 5}}, is{shape::int64_type, {2, 3, 4}};
    std::vector<float> data(60);
    for(std::size_t i = 0; i < data.size(); i++)
        data[i] = static_cast<float>(i);
    std::vector<float> upd_store(24);
    for(std::size_t i = 0; i < upd_store.size(); i++)
        upd_store[i] = 100.0f + static_cast<float>(i);
    shape us{shape::float_type, {2, 3, 4}, {1, 8, 2}}; // element (a, b, c) at a + 8b + 2c
    for(std::int64_t axis = 0; axis < 3; axis++)
    {
        std::vector<std::int64_t> ind(24);
        auto len = static_cast<std::int64_t>(ds.lens()[axis]);
        for(std::size_t i = 0; i < ind.size(); i++)
            ind[i] = static_cast<std::int64_t>((i * 7) % static_cast<std::size_t>(len)) - (i % 2 == 0 ? len : 0);
        for(const char* name : {"scatter_none", "scatter_add"})
        {
            std::vector<float> want = data;
            for(std::size_t a = 0; a < 2; a++)
                for(std::size_t b = 0; b < 3; b++)
                    for(std::size_t c = 0; c < 4; c++)
                    {
                        std::size_t pos[3] = {a, b, c};
                        auto k             = ind[(a * 3 + b) * 4 + c];
                        pos[axis]          = static_cast<std::size_t>(k < 0 ? k + len : k);
                        auto& o            = want[(pos[0] * 4 + pos[1]) * 5 + pos[2]];
                        float u            = upd_store[a + 8 * b + 2 * c];
                        o                  = std::string(name) == "scatter_none" ? u : o + u;
                    }
            auto got = run(migraphx::make_op(name, {{"axis", axis}}),
                           {arg(ds, data), arg(is, ind), migraphx::argument{us, upd_store.data()}});
            EXPECT_EQ(got, want) << name << " axis " << axis;
        }
    }
    // indices wider than data off the axis: refused before anything is written
    std::vector<std::int64_t> wide(2 * 5 * 5, 0);
    std::vector<float> wu(50, 1.0f);
    EXPECT_THROW(run(migraphx::make_op("scatter_none", {{"axis", 0}}),
                     {arg(ds, data), arg(shape{shape::int64_type, {2, 5, 5}}, wide),
                      arg(shape{shape::float_type, {2, 5, 5}}, wu)}),
                 migraphx::exception);
}

TEST(ops_scatter, large_walk_split_over_threads_keeps_the_last_write_and_reads_index_views)
{
    // Indices longer than data along the axis (every output written several times: the last write
    // in row-major order must win, whichever thread walks it) and big enough that the walk is split
    // over the threads. Indices given as a view that repeats one index per row along the axis (the
    // detectors' Expand), int32 and int64.
    const std::size_t rows = 60, c = 64, w = 50, len = 40;
    shape ds{shape::float_type, {len, c, w}};
    std::vector<float> data(len * c * w, -1.0f);
    std::vector<float> upd(rows * c * w);
    for(std::size_t i = 0; i < upd.size(); i++)
        upd[i] = static_cast<float>(i);
    std::vector<std::int64_t> row_index(rows);
    std::vector<std::int32_t> row_index32(rows);
    for(std::size_t r = 0; r < rows; r++)
    {
        row_index[r]   = static_cast<std::int64_t>((r * 13) % len) - (r % 3 == 0 ? static_cast<std::int64_t>(len) : 0);
        row_index32[r] = static_cast<std::int32_t>(row_index[r]);
    }
    std::vector<float> want = data;
    for(std::size_t r = 0; r < rows; r++)
        for(std::size_t j = 0; j < c * w; j++)
        {
            auto k = row_index[r] < 0 ? row_index[r] + static_cast<std::int64_t>(len) : row_index[r];
            want[static_cast<std::size_t>(k) * c * w + j] = upd[r * c * w + j];
        }
    shape us{shape::float_type, {rows, c, w}};
    auto got = run(migraphx::make_op("scatter_none", {{"axis", 0}}),
                   {arg(ds, data), migraphx::argument{shape{shape::int64_type, {rows, c, w}, {1, 0, 0}}, row_index.data()},
                    arg(us, upd)});
    EXPECT_EQ(got, want);
    auto got32 = run(migraphx::make_op("scatter_none", {{"axis", 0}}),
                     {arg(ds, data), migraphx::argument{shape{shape::int32_type, {rows, c, w}, {1, 0, 0}}, row_index32.data()},
                      arg(us, upd)});
    EXPECT_EQ(got32, want);
    // scatter_add over the same positions: every update adds once.
    std::vector<float> sum = data;
    for(std::size_t r = 0; r < rows; r++)
        for(std::size_t j = 0; j < c * w; j++)
        {
            auto k = row_index[r] < 0 ? row_index[r] + static_cast<std::int64_t>(len) : row_index[r];
            sum[static_cast<std::size_t>(k) * c * w + j] += upd[r * c * w + j];
        }
    auto added = run(migraphx::make_op("scatter_add", {{"axis", 0}}),
                     {arg(ds, data), migraphx::argument{shape{shape::int64_type, {rows, c, w}, {1, 0, 0}}, row_index.data()},
                      arg(us, upd)});
    EXPECT_EQ(added, sum);
}
