// host_values (targets/gpu/host_values.hpp): the host's copies of small integer values, found by
// the memory that holds them. No device needed: the "device" memory here is a host buffer.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/gpu_ops.hpp"
#include "targets/gpu/host_values.hpp"
#include "serialize/op_serializer.hpp"
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <stdexcept>

using migraphx::argument;
using migraphx::shape;
namespace gpu = migraphx::gpu;

namespace {

argument sizes(std::vector<std::int64_t> v)
{
    return migraphx::literal{shape{shape::int64_type, {v.size()}}, v}.get_argument();
}

} // namespace

TEST(gpu_host_values, exact_and_views_of_a_note)
{
    gpu::host_values known;
    argument dev{shape{shape::int64_type, {4}}}; // stands for the device buffer
    known.note(dev, sizes({3, 5, 7, 9}));
    auto same = known.find(dev);
    ASSERT_TRUE(same.has_value());
    EXPECT_EQ(same->to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 5, 7, 9}));
    // unsqueezed: the same memory, another shape
    auto u = known.find(argument{shape{shape::int64_type, {1, 4}}, dev.data()});
    ASSERT_TRUE(u.has_value());
    EXPECT_EQ(u->get_shape().lens(), (std::vector<std::size_t>{1, 4}));
    EXPECT_EQ(u->to_vector<std::int64_t>(), (std::vector<std::int64_t>{3, 5, 7, 9}));
    // a slice: elements 1 and 2
    auto sl = known.find(argument{shape{shape::int64_type, {2}}, dev.data() + 8});
    ASSERT_TRUE(sl.has_value());
    EXPECT_EQ(sl->to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, 7}));
    // a broadcast view of element 3
    auto b = known.find(argument{shape{shape::int64_type, {3}, {0}}, dev.data() + 24});
    ASSERT_TRUE(b.has_value());
    EXPECT_EQ(b->to_vector<std::int64_t>(), (std::vector<std::int64_t>{9, 9, 9}));
}

TEST(gpu_host_values, nothing_past_a_note_or_of_another_type)
{
    gpu::host_values known;
    argument dev{shape{shape::int64_type, {4}}};
    known.note(dev, sizes({1, 2}));                                                           // the first 2
    EXPECT_FALSE(known.find(dev).has_value());                                                // 4 asked, 2 noted
    EXPECT_FALSE(known.find(argument{shape{shape::int64_type, {1}}, dev.data() + 16}).has_value());
    EXPECT_FALSE(known.find(argument{shape{shape::int32_type, {2}}, dev.data()}).has_value()); // same bytes, int32
    argument other{shape{shape::int64_type, {2}}};
    EXPECT_FALSE(known.find(other).has_value());
    // data, not sizes: not noted
    auto f = migraphx::literal{shape{shape::float_type, {2}}, std::vector<float>{1, 2}}.get_argument();
    known.note(argument{f.get_shape(), other.data()}, f);
    auto many = migraphx::literal{shape{shape::int64_type, {65}}, std::vector<std::int64_t>(65, 1)}.get_argument();
    argument big{many.get_shape()};
    known.note(big, many);
    EXPECT_FALSE(known.find(big).has_value());
    EXPECT_EQ(known.size(), 1u);
}

TEST(gpu_host_values, the_latest_note_covering_the_memory_wins)
{
    gpu::host_values known;
    argument dev{shape{shape::int64_type, {4}}};
    known.note(dev, sizes({1, 2, 3, 4}));
    // the memory reused: a later value at element 2 (its own note), then the whole buffer again
    argument part{shape{shape::int64_type, {1}}, dev.data() + 16};
    known.note(part, sizes({30}));
    EXPECT_EQ(known.find(part)->to_vector<std::int64_t>(), (std::vector<std::int64_t>{30}));
    known.note(dev, sizes({5, 6, 7, 8}));
    EXPECT_EQ(known.find(part)->to_vector<std::int64_t>(), (std::vector<std::int64_t>{7}));
    EXPECT_EQ(known.find(dev)->to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, 6, 7, 8}));
    EXPECT_EQ(known.size(), 2u); // a note a start address
}

// A saved program keeps which inputs a fallback reads from notes and whether it computes a size
// on the host; a file saved before them loads without (every input copied back, as then); a
// malformed list is refused by name.
TEST(gpu_host_values, a_fallbacks_choices_are_saved)
{
    gpu::ref_fallback f;
    f.op           = migraphx::make_op("reduce_min", {{"axes", {0}}});
    f.known_inputs = {0};
    f.host_value   = true;
    f.host_only    = true;
    const auto* s  = migraphx::serialize::find_op_serializer(f.name());
    ASSERT_NE(s, nullptr);
    auto no_mod = [](const std::string& n) -> migraphx::module_ref { throw std::runtime_error("no module " + n); };
    auto loaded = s->load(f.name(), s->save(migraphx::operation{f}), no_mod);
    const auto* l = loaded.any_cast<gpu::ref_fallback>();
    ASSERT_NE(l, nullptr);
    EXPECT_EQ(l->known_inputs, (std::vector<std::size_t>{0}));
    EXPECT_TRUE(l->host_value);
    EXPECT_TRUE(l->host_only);
    migraphx::value old = migraphx::value::object{
        {"op", "reduce_min"}, {"attrs", f.op.to_value()}, {"module", ""}, {"has_output", true}};
    auto from_old = s->load(f.name(), old, no_mod);
    EXPECT_TRUE(from_old.any_cast<gpu::ref_fallback>()->known_inputs.empty());
    EXPECT_FALSE(from_old.any_cast<gpu::ref_fallback>()->host_value);
    EXPECT_FALSE(from_old.any_cast<gpu::ref_fallback>()->host_only); // an old file's sizes are written
    auto bad = old;
    bad["known_inputs"] = "0";
    try
    {
        s->load(f.name(), bad, no_mod);
        ADD_FAILURE() << "a string for known_inputs loaded";
    }
    catch(const migraphx::exception& e)
    {
        EXPECT_NE(std::string(e.what()).find("known_inputs"), std::string::npos) << e.what();
    }
}

TEST(gpu_host_values, only_small_integer_tensors_are_noted_kinds)
{
    EXPECT_TRUE(gpu::small_integers(shape{shape::int64_type, {4}}));
    EXPECT_TRUE(gpu::small_integers(shape{shape::int32_type, {64}}));
    EXPECT_FALSE(gpu::small_integers(shape{shape::int64_type, {65}}));
    EXPECT_FALSE(gpu::small_integers(shape{shape::float_type, {4}}));
    EXPECT_FALSE(gpu::small_integers(shape{shape::bool_type, {4}}));
}
#endif
