// The persistent tuning cache (tuning_cache.hpp): its files need no device (format, round trip,
// damaged files, another key's file, `off`, an unwritable folder); on a device, a convolution
// program compiled twice with the process's choices forgotten in between takes the second
// compile's choices from the disk and gives the same bits.
#include <gtest/gtest.h>
#ifdef MIGRAPHX_HAVE_GPU
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#include "serialize_test_util.hpp"
#include "targets/gpu/tuning_cache.hpp"
#include <migraphx/instruction.hpp>
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <unistd.h>

namespace fs = std::filesystem;
using migraphx::gpu::tuning_cache;

namespace {

using migx_test::scoped_env;
using migx_test::temp_dir;

std::string slurp(const fs::path& p)
{
    std::ifstream f(p, std::ios::binary);
    std::ostringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

void put(const fs::path& p, const std::string& text)
{
    std::ofstream f(p, std::ios::binary | std::ios::trunc);
    f << text;
}

std::size_t count_files(const fs::path& dir, const std::string& ext)
{
    std::size_t n = 0;
    std::error_code ec;
    if(not fs::is_directory(dir, ec))
        return 0;
    for(const auto& e : fs::directory_iterator(dir))
        n += e.path().extension() == ext ? 1 : 0;
    return n;
}

const std::string key1 = "cudnn legacy algorithm: gpu::convolution [NVIDIA H200 sm_90 132 SMs, cudnn 91400] x "
                         "half_type, {1, 64, 56, 56}, {200704, 1, 3584, 64} | 1 1 | 1 1 | 1 1";
const std::string key2 = key1 + " +bias relu";

} // namespace

TEST(gpu_tuning_cache, file_text_round_trip)
{
    for(const auto& value : std::vector<std::string>{"39|25:1", "", "7", std::string("a\nb\0c", 5)})
    {
        auto text = migraphx::gpu::tuning_file_text(key1, value);
        auto e    = migraphx::gpu::parse_tuning_file(text);
        ASSERT_TRUE(e.has_value()) << text;
        EXPECT_EQ(e->first, key1);
        EXPECT_EQ(e->second, value);
    }
    // A key with newlines and the format's own words inside it.
    std::string odd = "key 3\nabc\nvalue 1\nx\ncheck 0\nend\n";
    auto e          = migraphx::gpu::parse_tuning_file(migraphx::gpu::tuning_file_text(odd, "v"));
    ASSERT_TRUE(e.has_value());
    EXPECT_EQ(e->first, odd);
    EXPECT_EQ(e->second, "v");
}

TEST(gpu_tuning_cache, damaged_text_is_refused)
{
    auto text = migraphx::gpu::tuning_file_text(key1, "39|25:1");
    EXPECT_FALSE(migraphx::gpu::parse_tuning_file(""));
    // Every truncation, and one changed byte anywhere (key, value, lengths, checksum, lines).
    for(std::size_t n = 0; n < text.size(); n++)
        EXPECT_FALSE(migraphx::gpu::parse_tuning_file(text.substr(0, n))) << "truncated to " << n;
    for(std::size_t i = 0; i < text.size(); i++)
    {
        auto bad = text;
        bad[i]   = static_cast<char>(bad[i] ^ 0x01);
        EXPECT_FALSE(migraphx::gpu::parse_tuning_file(bad)) << "byte " << i << " changed";
    }
    EXPECT_FALSE(migraphx::gpu::parse_tuning_file(text + "x")) << "trailing bytes";
}

TEST(gpu_tuning_cache, write_read_round_trip)
{
    temp_dir d;
    tuning_cache c((d.path / "tuning").string());
    ASSERT_TRUE(c.enabled());
    EXPECT_FALSE(c.read(key1)) << "empty cache";
    auto before = migraphx::gpu::tuning_stats();
    ASSERT_TRUE(c.write(key1, "39|25:1")) << "creates the folder";
    ASSERT_TRUE(c.write(key2, ""));
    EXPECT_EQ(c.read(key1), std::optional<std::string>("39|25:1"));
    EXPECT_EQ(c.read(key2), std::optional<std::string>("")) << "an empty value is a hit, not a miss";
    auto after = migraphx::gpu::tuning_stats();
    EXPECT_EQ(after.writes - before.writes, 2u);
    EXPECT_EQ(after.hits - before.hits, 2u);
    // One file per key, named by its hash, holding the whole key; no temporary left behind.
    EXPECT_NE(c.file_of(key1), c.file_of(key2));
    EXPECT_EQ(fs::path(c.file_of(key1)).parent_path(), d.path / "tuning");
    EXPECT_EQ(fs::path(c.file_of(key1)).filename().string().size(), 16u + 4u); // <16 hex>.txt
    EXPECT_EQ(count_files(d.path / "tuning", ".txt"), 2u);
    std::size_t entries = 0;
    for(const auto& e : fs::directory_iterator(d.path / "tuning"))
        entries += e.is_regular_file() ? 1 : 0;
    EXPECT_EQ(entries, 2u) << "temporary files are renamed or removed";
    EXPECT_NE(slurp(c.file_of(key1)).find(key1), std::string::npos);
    // Overwrite.
    ASSERT_TRUE(c.write(key1, "12"));
    EXPECT_EQ(c.read(key1), std::optional<std::string>("12"));
    // Another cache object on the same folder (another process) sees the entries.
    EXPECT_EQ(tuning_cache(c.dir()).read(key2), std::optional<std::string>(""));
}

TEST(gpu_tuning_cache, damaged_file_is_a_miss)
{
    temp_dir d;
    tuning_cache c(d.path.string());
    ASSERT_TRUE(c.write(key1, "39|25:1"));
    auto file = c.file_of(key1);
    auto text = slurp(file);
    // The value changed in place (same length): the checksum no longer holds.
    auto bad = text;
    auto at  = bad.find("39|25:1");
    ASSERT_NE(at, std::string::npos);
    bad[at] = '4';
    put(file, bad);
    auto before = migraphx::gpu::tuning_stats();
    EXPECT_FALSE(c.read(key1));
    EXPECT_EQ(migraphx::gpu::tuning_stats().misses - before.misses, 1u);
    put(file, text.substr(0, text.size() / 2));
    EXPECT_FALSE(c.read(key1)) << "truncated";
    put(file, "");
    EXPECT_FALSE(c.read(key1)) << "empty";
    put(file, "garbage\n");
    EXPECT_FALSE(c.read(key1));
    // Rewriting repairs it.
    ASSERT_TRUE(c.write(key1, "39|25:1"));
    EXPECT_EQ(c.read(key1), std::optional<std::string>("39|25:1"));
}

TEST(gpu_tuning_cache, another_keys_file_is_a_miss)
{
    // A hash collision: key2's file holds key1's (valid) entry.
    temp_dir d;
    tuning_cache c(d.path.string());
    ASSERT_TRUE(c.write(key1, "39|25:1"));
    put(c.file_of(key2), slurp(c.file_of(key1)));
    EXPECT_EQ(c.read(key1), std::optional<std::string>("39|25:1"));
    EXPECT_FALSE(c.read(key2)) << "the file's key is not the one asked for";
    // A key that differs only in its last character.
    EXPECT_FALSE(c.read(key1.substr(0, key1.size() - 1) + "2"));
}

TEST(gpu_tuning_cache, off_is_respected)
{
    temp_dir d;
    {
        scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
        scoped_env t("MIGRAPHX_GPU_TUNING_CACHE", nullptr);
        EXPECT_EQ(fs::path(migraphx::gpu::tuning_cache_dir()), d.path / "tuning") << "next to the kernel cache";
        EXPECT_TRUE(tuning_cache::from_env().enabled());
    }
    {
        scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", "off");
        scoped_env t("MIGRAPHX_GPU_TUNING_CACHE", nullptr);
        EXPECT_EQ(migraphx::gpu::tuning_cache_dir(), "") << "MIGRAPHX_GPU_CACHE_DIR=off disables both caches";
    }
    {
        scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
        scoped_env t("MIGRAPHX_GPU_TUNING_CACHE", "off");
        EXPECT_EQ(migraphx::gpu::tuning_cache_dir(), "");
        auto c = tuning_cache::from_env();
        EXPECT_FALSE(c.enabled());
        EXPECT_FALSE(c.write(key1, "1"));
        EXPECT_FALSE(c.read(key1));
        EXPECT_FALSE(fs::exists(d.path / "tuning")) << "nothing written";
    }
    {
        // Default: under the kernel cache's default folder.
        scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", nullptr);
        scoped_env t("MIGRAPHX_GPU_TUNING_CACHE", nullptr);
        scoped_env xdg("XDG_CACHE_HOME", d.path.string().c_str());
        EXPECT_EQ(fs::path(migraphx::gpu::tuning_cache_dir()), d.path / "migx" / "kernels" / "tuning");
    }
    // The disabled cache object.
    tuning_cache none("");
    EXPECT_FALSE(none.enabled());
    EXPECT_FALSE(none.write(key1, "1"));
    EXPECT_FALSE(none.read(key1));
}

TEST(gpu_tuning_cache, unwritable_folder_is_no_error)
{
    temp_dir d;
    // A regular file where the folder should be: no folder can be made there (even for root).
    put(d.path / "file", "x");
    tuning_cache c((d.path / "file" / "tuning").string());
    bool ok = true;
    EXPECT_NO_THROW(ok = c.write(key1, "1"));
    EXPECT_FALSE(ok);
    EXPECT_NO_THROW(EXPECT_FALSE(c.read(key1)));
    // A folder that is a file.
    tuning_cache f((d.path / "file").string());
    ok = true;
    EXPECT_NO_THROW(ok = f.write(key1, "1"));
    EXPECT_FALSE(ok);
    EXPECT_EQ(slurp(d.path / "file"), "x") << "the file is left alone";
}

// ---- on a device -------------------------------------------------------------------------------

namespace {

migraphx::instruction_ref lit(migraphx::module* m, const migraphx::shape& s, unsigned long seed, float scale)
{
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-scale, scale);
    std::vector<float> v(s.elements());
    for(auto& x : v)
        x = dist(gen);
    return m->add_literal(migraphx::literal{s, v});
}

/// A float convolution (legacy algorithm only) and half convolutions with and without a fused
/// bias + relu (legacy algorithm and backend engine choice each).
migraphx::program conv_program()
{
    using migraphx::make_op;
    using migraphx::shape;
    migraphx::program p;
    auto* m = p.get_main_module();
    auto xf = m->add_parameter("xf", shape{shape::float_type, {2, 8, 14, 14}});
    auto cf = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), xf,
                                 lit(m, shape{shape::float_type, {16, 8, 3, 3}}, 1, 0.2f));
    auto xh = m->add_parameter("xh", shape{shape::half_type, {2, 16, 14, 14}});
    auto ch = m->add_instruction(make_op("convolution", {{"padding", {1, 1}}}), xh,
                                 lit(m, shape{shape::half_type, {32, 16, 3, 3}}, 2, 0.1f));
    auto b  = m->add_instruction(make_op("broadcast", {{"axis", 1}, {"out_lens", ch->get_shape().lens()}}),
                                lit(m, shape{shape::half_type, {32}}, 3, 0.25f));
    auto r  = m->add_instruction(make_op("relu"), m->add_instruction(make_op("add"), ch, b));
    auto c2 = m->add_instruction(make_op("convolution"), r, lit(m, shape{shape::half_type, {8, 32, 1, 1}}, 4, 0.2f));
    m->add_return({cf, c2});
    return p;
}

/// Name, solution_id and engine of each convolution op, in order.
std::vector<std::string> choices(const migraphx::program& p)
{
    std::vector<std::string> r;
    for(const auto& ins : *p.get_main_module())
    {
        if(ins.name() != "gpu::convolution" and ins.name() != "gpu::conv_bias_relu")
            continue;
        auto v = ins.get_operator().to_value();
        r.push_back(ins.name() + " " + std::to_string(v.at("solution_id").get_int64()) + " " +
                    v.at("engine").get_string());
    }
    return r;
}

} // namespace

TEST(gpu_tuning_cache, second_compile_reads_the_disk_and_gives_the_same_bits)
{
    MIGX_REQUIRE_GPU();
    temp_dir d;
    scoped_env dir("MIGRAPHX_GPU_CACHE_DIR", d.path.string().c_str());
    scoped_env t("MIGRAPHX_GPU_TUNING_CACHE", nullptr);
    scoped_env cudnn_1x1("MIGRAPHX_DISABLE_CONV_GEMM", "1"); // the 1x1 convolution's cuDNN choices are the subject
    auto tdir = d.path / "tuning";
    auto gt   = migraphx::get_target("gpu");
    migraphx::compile_options o;
    o.offload_copy = true;

    migraphx::gpu::forget_tuning_choices();
    auto s0 = migraphx::gpu::tuning_stats();
    auto p1 = conv_program();
    p1.compile(gt, o);
    auto s1     = migraphx::gpu::tuning_stats();
    auto params = migx_test::params_for(p1);
    auto want   = p1.eval(params);
    EXPECT_EQ(choices(p1).size(), 3u);
    // float conv: legacy; half conv + bias + relu: legacy, engine; half 1x1 conv: legacy, engine.
    auto written = s1.writes - s0.writes;
    EXPECT_GE(written, 3u);
    EXPECT_EQ(count_files(tdir, ".txt"), written) << "one file per measured choice";
    EXPECT_EQ(s1.hits, s0.hits) << "a fresh folder has nothing to read";

    // The same process with its choices forgotten: everything from the disk, nothing measured.
    migraphx::gpu::forget_tuning_choices();
    auto p2 = conv_program();
    p2.compile(gt, o);
    auto s2 = migraphx::gpu::tuning_stats();
    EXPECT_EQ(s2.writes, s1.writes) << "nothing measured again";
    EXPECT_EQ(s2.hits - s1.hits, written);
    EXPECT_EQ(choices(p2), choices(p1));
    migx_test::expect_bitwise_equal(p2.eval(params), want);
    migx_test::expect_bitwise_equal(p2.eval(params), want); // replayed

    // Entries cuDNN refuses (an algorithm and an engine no cuDNN has): measured again and
    // replaced; the results stay right.
    for(const auto& e : fs::directory_iterator(tdir))
    {
        auto entry = migraphx::gpu::parse_tuning_file(slurp(e.path()));
        ASSERT_TRUE(entry.has_value()) << e.path();
        bool engine = entry->first.find("graph engine") != std::string::npos;
        put(e.path(), migraphx::gpu::tuning_file_text(entry->first, engine ? "999999|1:2" : "99999"));
    }
    migraphx::gpu::forget_tuning_choices();
    auto p3 = conv_program();
    p3.compile(gt, o);
    auto s3 = migraphx::gpu::tuning_stats();
    EXPECT_EQ(s3.writes - s2.writes, written) << "every refused entry measured and rewritten";
    for(const auto& e : fs::directory_iterator(tdir))
    {
        auto entry = migraphx::gpu::parse_tuning_file(slurp(e.path()));
        ASSERT_TRUE(entry.has_value());
        EXPECT_NE(entry->second, "999999|1:2");
        EXPECT_NE(entry->second, "99999");
    }
    auto got = p3.eval(params);
    ASSERT_EQ(got.size(), want.size());
    for(std::size_t i = 0; i < got.size(); i++)
        migx_test::expect_close(got[i], want[i], 2e-2, 2e-2, "after re-measuring");

    // MIGRAPHX_GPU_TUNING_CACHE=off: measured, nothing read or written.
    {
        scoped_env off("MIGRAPHX_GPU_TUNING_CACHE", "off");
        migraphx::gpu::forget_tuning_choices();
        auto p4 = conv_program();
        p4.compile(gt, o);
        auto s4 = migraphx::gpu::tuning_stats();
        EXPECT_EQ(s4.writes, s3.writes);
        EXPECT_EQ(s4.hits, s3.hits);
        EXPECT_EQ(s4.misses, s3.misses);
    }
    migraphx::gpu::forget_tuning_choices();
}

#else
TEST(gpu_tuning_cache, skipped) { GTEST_SKIP() << "built without CUDA"; }
#endif
