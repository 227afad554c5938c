// targets/gpu/shared_scratch: programs loaded in one scratch group, the largest first, share its
// scratch buffer and each still gives ref's results when they run one after another; outside a
// group, or in another group, a program has its own.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "ir/scratch_group.hpp"
#include "targets/gpu/gpu_ops.hpp"
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <vector>

namespace {

using migraphx::make_op;
using migraphx::shape;

/// softmax(relu(x) * 2) then a row sum, x {rows, 512}: generated kernels with results planned
/// into the scratch buffer.
migraphx::program chain(std::size_t rows)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", shape{shape::float_type, {rows, 512}});
    auto r  = m->add_instruction(make_op("relu"), x);
    auto t  = m->add_instruction(make_op("add"), r, r);
    auto s  = m->add_instruction(make_op("softmax", {{"axis", 1}}), t);
    auto e  = m->add_instruction(make_op("exp"), s);
    m->add_return({m->add_instruction(make_op("reduce_sum", {{"axes", {1}}}), e), s});
    return p;
}

const char* scratch_of(const migraphx::program& p)
{
    for(const auto& ins : *p.get_main_module())
        if(ins.name() == "hip::hip_allocate_memory")
            if(const auto* a = ins.get_operator().any_cast<migraphx::gpu::hip_allocate>(); a and a->buffer)
                return a->buffer.get();
    return nullptr;
}

std::vector<char> compiled(std::size_t rows)
{
    auto p = chain(rows);
    migraphx::compile_options o;
    o.offload_copy = true;
    p.compile(migraphx::get_target("gpu"), o);
    return migraphx::save_buffer(p);
}

} // namespace

TEST(gpu_shared_scratch, a_groups_programs_share_the_largest_ones_scratch)
{
    MIGX_REQUIRE_GPU();
    std::vector<std::size_t> rows{256, 64, 8}; // largest first, as the server loads them
    std::vector<migraphx::program> in_group, alone;
    {
        migraphx::scratch_group_scope group("gpu_shared_scratch test");
        for(auto r : rows)
            in_group.push_back(migraphx::load_buffer(compiled(r)));
    }
    for(auto r : rows)
        alone.push_back(migraphx::load_buffer(compiled(r)));
    ASSERT_NE(scratch_of(in_group[0]), nullptr) << migx_test::text(in_group[0]);
    EXPECT_EQ(scratch_of(in_group[1]), scratch_of(in_group[0]));
    EXPECT_EQ(scratch_of(in_group[2]), scratch_of(in_group[0]));
    for(const auto& p : alone)
        EXPECT_NE(scratch_of(p), scratch_of(in_group[0]));
    // run one after another, twice round (the second round replays recorded graphs): each
    // program's results as ref's
    for(int round = 0; round < 2; round++)
        for(std::size_t i = 0; i < rows.size(); i++)
        {
            auto ref = chain(rows[i]);
            ref.compile(migraphx::ref::target{});
            auto params = migx_test::fresh_params(ref);
            auto want   = ref.eval(params);
            auto got    = in_group[i].eval(params);
            ASSERT_EQ(got.size(), want.size());
            for(std::size_t k = 0; k < got.size(); k++)
                migx_test::expect_close(got[k], want[k], 1e-4, 1e-5,
                                        "round " + std::to_string(round) + ", " + std::to_string(rows[i]) +
                                            " rows, output " + std::to_string(k));
        }
}
#endif
