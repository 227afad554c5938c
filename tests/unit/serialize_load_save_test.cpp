// The public .mxr API (src/serialize/load_save.cpp): round trips of uncompiled and compiled
// programs, both formats, files and buffers, and every way a load must fail cleanly.
#include <migraphx/load_save.hpp>
#include <migraphx/ref/target.hpp>
#include <sys/stat.h>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <memory>
#include <fstream>
#include "serialize/mxr_format.hpp"
#include "serialize/program_value.hpp"
#include "serialize_test_util.hpp"

using migx_test::expect_bitwise_equal;
using migx_test::params_for;
using migx_test::to_string;

namespace {

std::string message_of(const std::function<void()>& f)
{
    try
    {
        f();
    }
    catch(const migraphx::exception& e)
    {
        return e.what();
    }
    return "(no exception)";
}

std::string temp_path(const std::string& name)
{
    return ::testing::TempDir() + "migx_serialize_" + std::to_string(::getpid()) + "_" + name;
}

void expect_compiled_round_trip(const migraphx::program& original, const std::string& target)
{
    auto compiled = original;
    compiled.compile(migraphx::get_target(target));
    auto params   = params_for(compiled);
    auto expected = compiled.eval(params);
    for(const std::string format : {"msgpack", "json"})
    {
        migraphx::file_options options;
        options.format = format;
        auto loaded    = migraphx::load_buffer(migraphx::save_buffer(compiled, options));
        EXPECT_TRUE(loaded.is_compiled()) << format;
        EXPECT_EQ(loaded.target_name(), target) << format;
        EXPECT_EQ(to_string(loaded), to_string(compiled)) << format;
        EXPECT_EQ(loaded.get_output_names(), compiled.get_output_names());
        expect_bitwise_equal(loaded.eval(params), expected);
        // loaded, not compiled again: compiling throws for a compiled program
        EXPECT_THROW(loaded.compile(migraphx::get_target(target)), migraphx::exception);
    }
}

} // namespace

TEST(serialize_load_save, uncompiled_round_trip_prints_the_same)
{
    for(const auto& p : {migx_test::small_cnn(), migx_test::with_submodules()})
    {
        auto loaded = migraphx::load_buffer(migraphx::save_buffer(p));
        EXPECT_FALSE(loaded.is_compiled());
        EXPECT_EQ(loaded.target_name(), "");
        EXPECT_EQ(to_string(loaded), to_string(p));
        EXPECT_EQ(loaded.get_parameter_names(), p.get_parameter_names());
        EXPECT_EQ(loaded.get_output_names(), p.get_output_names());
        EXPECT_EQ(loaded, p);
    }
}

TEST(serialize_load_save, uncompiled_program_loads_and_compiles)
{
    auto p      = migx_test::small_cnn();
    auto loaded = migraphx::load_buffer(migraphx::save_buffer(p));
    p.compile(migraphx::ref::target{});
    loaded.compile(migraphx::ref::target{});
    auto params = params_for(p);
    expect_bitwise_equal(loaded.eval(params), p.eval(params));
}

TEST(serialize_load_save, parameter_order_is_kept)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto a   = mm->add_parameter("a", migraphx::shape{migraphx::shape::float_type, {2}});
    auto b   = mm->add_parameter("b", migraphx::shape{migraphx::shape::float_type, {2}}); // printed first
    mm->add_return({mm->add_instruction(migraphx::make_op("sub"), a, b)});
    auto loaded = migraphx::load_buffer(migraphx::save_buffer(p));
    EXPECT_EQ(loaded.get_parameter_names(), p.get_parameter_names());
    EXPECT_EQ(to_string(loaded), to_string(p));
}

TEST(serialize_load_save, compiled_ref_round_trip_is_bit_exact)
{
    expect_compiled_round_trip(migx_test::small_cnn(), "ref");
    expect_compiled_round_trip(migx_test::with_submodules(), "ref");
}

TEST(serialize_load_save, fp8_literals_and_quantize_ops_round_trip)
{
    // every e4m3 encoding, NaNs included, in a literal read through dequantizelinear
    migraphx::program p;
    auto* mm = p.get_main_module();
    std::vector<migraphx::fp8e4m3fn> bits;
    for(int b = 0; b < 256; b++)
        bits.push_back(migraphx::fp8e4m3fn::from_bits(static_cast<std::uint8_t>(b)));
    migraphx::shape s8{migraphx::shape::fp8e4m3fn_type, {256}};
    auto w  = mm->add_literal(migraphx::literal{s8, bits});
    auto sc = mm->add_literal(migraphx::literal{migraphx::shape{migraphx::shape::float_type, {256}}, std::vector<float>(256, 0.5f)});
    auto z  = mm->add_literal(migraphx::literal{s8, std::vector<migraphx::fp8e4m3fn>(256, migraphx::fp8e4m3fn(0.0f))});
    auto x  = mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {256}});
    auto q  = mm->add_instruction(migraphx::make_op("quantizelinear"), x, sc, z);
    auto d  = mm->add_instruction(migraphx::make_op("dequantizelinear"), w, sc, z);
    mm->add_return({q, d});
    for(const std::string format : {"msgpack", "json"})
    {
        migraphx::file_options options;
        options.format = format;
        auto loaded    = migraphx::load_buffer(migraphx::save_buffer(p, options));
        EXPECT_EQ(to_string(loaded), to_string(p)) << format;
        const auto& lm = *loaded.get_main_module();
        for(auto ins = lm.begin(); ins != lm.end(); ++ins)
            if(ins->name() == "@literal" and ins->get_shape() == s8 and ins->get_literal().data()[255] != 0)
                EXPECT_EQ(std::memcmp(ins->get_literal().data(), bits.data(), 256), 0) << format;
    }
    expect_compiled_round_trip(p, "ref");
}

// MIGRAPHX_TIME_LOAD=1 says where a load's time went: the phases and finalize by op.
TEST(serialize_load_save, time_load_prints_the_phases)
{
    auto p = migx_test::small_cnn();
    p.compile(migraphx::ref::target{});
    auto bytes = migraphx::save_buffer(p);
    setenv("MIGRAPHX_TIME_LOAD", "1", 1);
    testing::internal::CaptureStderr();
    auto q   = migraphx::load_buffer(bytes);
    auto err = testing::internal::GetCapturedStderr();
    unsetenv("MIGRAPHX_TIME_LOAD");
    EXPECT_NE(err.find("load_buffer: " + std::to_string(bytes.size()) + " bytes in "), std::string::npos) << err;
    EXPECT_NE(err.find("rebuild (finalize included)"), std::string::npos) << err;
    EXPECT_NE(err.find("finalize: "), std::string::npos) << err;
    testing::internal::CaptureStderr();
    auto quiet = migraphx::load_buffer(bytes);
    EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
}

TEST(serialize_load_save, compiled_cpu_round_trip_is_bit_exact)
{
    if(not migx_test::have_target("cpu"))
        GTEST_SKIP() << "no cpu target in this build";
    expect_compiled_round_trip(migx_test::small_cnn(), "cpu");
    expect_compiled_round_trip(migx_test::with_submodules(), "cpu");
}

TEST(serialize_load_save, json_is_text_with_the_header)
{
    migraphx::file_options options;
    options.format = "json";
    auto bytes     = migraphx::save_buffer(migx_test::small_cnn(), options);
    std::string text(bytes.begin(), bytes.end());
    EXPECT_EQ(text.front(), '{');
    EXPECT_NE(text.find("\"magic\":\"MIGX-MXR\""), std::string::npos);
    EXPECT_NE(text.find("\"mxr_version\":" + std::to_string(migraphx::serialize::mxr_version)), std::string::npos);
    EXPECT_NE(text.find("\"convolution\""), std::string::npos);
    EXPECT_NE(text.find("\"base64\""), std::string::npos);
    EXPECT_EQ(text.find('\0'), std::string::npos);
    // load recognises the format by itself
    EXPECT_EQ(to_string(migraphx::load_buffer(bytes)), to_string(migx_test::small_cnn()));
}

TEST(serialize_load_save, files)
{
    auto p    = migx_test::small_cnn();
    auto path = temp_path("small.mxr");
    migraphx::save(p, path);
    std::ifstream f(path, std::ios::binary);
    std::string magic(8, '\0');
    f.read(magic.data(), 8);
    EXPECT_EQ(magic, "MIGX-MXR");
    EXPECT_EQ(to_string(migraphx::load(path)), to_string(p));
    std::remove(path.c_str());
    auto msg = message_of([&] { migraphx::load(path); });
    EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
    msg = message_of([&] { migraphx::save(p, "/nonexistent-dir/x.mxr"); });
    EXPECT_NE(msg.find("cannot open"), std::string::npos) << msg;
}

TEST(serialize_load_save, unknown_format_throws)
{
    migraphx::file_options options;
    options.format = "yaml";
    auto msg       = message_of([&] { migraphx::save_buffer(migx_test::small_cnn(), options); });
    EXPECT_NE(msg.find("unknown format 'yaml'"), std::string::npos) << msg;
}

TEST(serialize_load_save, not_an_mxr_file)
{
    std::vector<char> junk{'P', 'K', 3, 4, 0, 0, 0, 0, 0, 0};
    auto msg = message_of([&] { migraphx::load_buffer(junk); });
    EXPECT_NE(msg.find("not a .mxr file"), std::string::npos) << msg;
    msg = message_of([&] { migraphx::load_buffer(std::vector<char>{}); });
    EXPECT_NE(msg.find("not a .mxr file"), std::string::npos) << msg;
    std::string json = "{\"a\": 1}";
    msg = message_of([&] { migraphx::load_buffer(std::vector<char>(json.begin(), json.end())); });
    EXPECT_NE(msg.find("not a .mxr file"), std::string::npos) << msg;
}

TEST(serialize_load_save, truncated_files_throw)
{
    auto bytes = migraphx::save_buffer(migx_test::small_cnn());
    for(std::size_t n : {std::size_t{0}, std::size_t{4}, std::size_t{8}, std::size_t{20}, bytes.size() / 2,
                         bytes.size() - 9, bytes.size() - 1})
    {
        auto msg = message_of([&] { migraphx::load_buffer(bytes.data(), n); });
        EXPECT_TRUE(msg.find("truncated") != std::string::npos or msg.find("not a .mxr") != std::string::npos)
            << n << ": " << msg;
    }
    auto more = bytes;
    more.push_back(0);
    auto msg = message_of([&] { migraphx::load_buffer(more); });
    EXPECT_NE(msg.find("corrupted"), std::string::npos) << msg;
}

TEST(serialize_load_save, corrupted_byte_is_detected)
{
    auto bytes = migraphx::save_buffer(migx_test::small_cnn());
    bytes[bytes.size() / 2] ^= 0x10; // somewhere in the literals
    auto msg = message_of([&] { migraphx::load_buffer(bytes); });
    EXPECT_NE(msg.find("corrupted (checksum mismatch)"), std::string::npos) << msg;
}

// Every byte of a saved program flipped in turn: the loader throws migraphx::exception (or, for
// a byte that does not matter, loads); it never crashes. The second pass skips the checksum so
// that the decoders behind it meet each corrupted byte too.
TEST(serialize_load_save, every_byte_flipped)
{
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {2, 2}});
    auto l   = mm->add_literal(migraphx::literal{migraphx::shape{migraphx::shape::float_type, {2, 2}}, {1, 2, 3, 4}});
    auto t   = mm->add_instruction(migraphx::make_op("transpose", {{"permutation", {1, 0}}}), l);
    mm->add_return({mm->add_instruction(migraphx::make_op("mul"), x, t)});
    p.compile(migraphx::ref::target{});
    for(const std::string format : {"msgpack", "json"})
    {
        migraphx::file_options options;
        options.format   = format;
        const auto bytes = migraphx::save_buffer(p, options);
        std::size_t thrown = 0, loaded = 0, decoded = 0;
        for(std::size_t i = 0; i < bytes.size(); i++)
        {
            for(unsigned char mask : {0x01, 0x80})
            {
                auto copy = bytes;
                copy[i] ^= static_cast<char>(mask);
                try
                {
                    migraphx::load_buffer(copy);
                    loaded++;
                }
                catch(const migraphx::exception&)
                {
                    thrown++;
                }
                try
                {
                    migraphx::serialize::mxr_header h;
                    auto v = migraphx::serialize::read_mxr(copy.data(), copy.size(), h, false);
                    migraphx::serialize::program_from_value(v, 0);
                    decoded++;
                }
                catch(const migraphx::exception&)
                {
                }
                // as load decodes: literal bytes left in the (owned) input
                try
                {
                    std::shared_ptr<char> owned(new char[copy.size()], std::default_delete<char[]>());
                    std::copy(copy.begin(), copy.end(), owned.get());
                    migraphx::serialize::byte_refs refs;
                    refs.owner = owned;
                    migraphx::serialize::mxr_header h;
                    auto v = migraphx::serialize::read_mxr(owned.get(), copy.size(), h, false, &refs);
                    migraphx::serialize::program_from_value(v, 0, &refs);
                }
                catch(const migraphx::exception&)
                {
                }
            }
        }
        EXPECT_EQ(thrown + loaded, 2 * bytes.size());
        if(format == "msgpack")
        {
            EXPECT_EQ(loaded, 0) << "the checksum catches every flipped byte";
        }
        EXPECT_GT(thrown, 0);
        (void)decoded;
    }
}

TEST(serialize_load_save, other_format_version_throws)
{
    auto v = migraphx::serialize::program_to_value(migx_test::small_cnn(), migraphx::serialize::literal_encoding::raw);
    auto bytes = migraphx::serialize::write_mxr(v, "", "msgpack");
    // the header's mxr_version is a positive fixint right after its key
    std::string key = "mxr_version";
    auto it         = std::search(bytes.begin(), bytes.end(), key.begin(), key.end());
    ASSERT_NE(it, bytes.end());
    auto pos   = static_cast<std::size_t>(it - bytes.begin()) + key.size();
    bytes[pos] = 99;
    auto sum   = migraphx::serialize::mxr_checksum(bytes.data(), bytes.size() - 8);
    for(int i = 0; i < 8; i++)
        bytes[bytes.size() - 8 + i] = static_cast<char>((sum >> (8 * i)) & 0xffu);
    auto msg = message_of([&] { migraphx::load_buffer(bytes); });
    EXPECT_NE(msg.find("format version 99"), std::string::npos) << msg;
    EXPECT_NE(msg.find("reads version " + std::to_string(migraphx::serialize::mxr_version)), std::string::npos) << msg;
    auto h = migraphx::serialize::read_mxr_header(bytes.data(), bytes.size());
    EXPECT_EQ(h.mxr_version, 99);
    EXPECT_EQ(h.migx_version, migraphx::serialize::migx_version());
}

TEST(serialize_load_save, unknown_operator_throws)
{
    auto v = migraphx::serialize::program_to_value(migx_test::small_cnn(), migraphx::serialize::literal_encoding::raw);
    auto& ins = v["modules"].get_array().at(0)["instructions"].get_array();
    for(auto& i : ins)
        if(i.at("op").get_string() == "relu")
            i["op"] = "no_such_op";
    auto bytes = migraphx::serialize::write_mxr(v, "", "msgpack");
    auto msg   = message_of([&] { migraphx::load_buffer(bytes); });
    EXPECT_NE(msg.find("unknown operator 'no_such_op'"), std::string::npos) << msg;
    EXPECT_NE(msg.find("module main, instruction"), std::string::npos) << msg;
}

TEST(serialize_load_save, unavailable_target_throws)
{
    auto p = migx_test::small_cnn();
    p.compile(migraphx::ref::target{});
    auto v    = migraphx::serialize::program_to_value(p, migraphx::serialize::literal_encoding::raw);
    v["target"] = "tpu";
    auto bytes  = migraphx::serialize::write_mxr(v, "tpu", "msgpack");
    auto msg    = message_of([&] { migraphx::load_buffer(bytes); });
    EXPECT_NE(msg.find("compiled for target 'tpu', which is not available here"), std::string::npos) << msg;
    EXPECT_NE(msg.find("ref"), std::string::npos) << msg;
}

namespace {
// Whether p's biggest literal lies in a mapping of the file path (from /proc/self/maps).
bool shares_file_bytes(const migraphx::program& p, const std::string& path)
{
    const char* data   = nullptr;
    std::size_t bytes  = 0;
    const auto* mm     = p.get_main_module();
    for(auto it = mm->begin(); it != mm->end(); ++it)
        if(it->name() == "@literal" and it->get_shape().bytes() > bytes)
        {
            bytes = it->get_shape().bytes();
            data  = it->get_literal().data();
        }
    auto at = reinterpret_cast<std::uintptr_t>(data);
    std::ifstream maps("/proc/self/maps");
    std::string line;
    while(std::getline(maps, line))
    {
        std::uintptr_t start = 0, end = 0;
        if(std::sscanf(line.c_str(), "%lx-%lx", &start, &end) != 2 or at < start or at >= end)
            continue;
        return line.find(path) != std::string::npos;
    }
    return false;
}

std::vector<char> read_all(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}
} // namespace

// load maps the file and the literals share its bytes: the results are still those of the
// compiled original, bit for bit.
TEST(serialize_load_save, loaded_file_shares_its_bytes_and_runs_bit_exact)
{
    for(const std::string target : {"ref", "cpu"})
    {
        if(not migx_test::have_target(target))
            continue;
        auto p = migx_test::small_cnn();
        p.compile(migraphx::get_target(target));
        auto params   = params_for(p);
        auto expected = p.eval(params);
        auto path     = temp_path("shared_" + target + ".mxr");
        migraphx::save(p, path);
        auto loaded = migraphx::load(path);
        EXPECT_TRUE(shares_file_bytes(loaded, path)) << target;
        EXPECT_FALSE(shares_file_bytes(migraphx::load_buffer(read_all(path)), path)) << target;
        EXPECT_EQ(to_string(loaded), to_string(p)) << target;
        expect_bitwise_equal(loaded.eval(params), expected);
        expect_bitwise_equal(loaded.eval(params), expected);
        std::remove(path.c_str());
        // the mapping outlives the file's name
        expect_bitwise_equal(loaded.eval(params), expected);
    }
}

// save replaces a file instead of rewriting it, so a program loaded from it keeps its bytes;
// the file keeps its permissions, and a link to it stays a link.
TEST(serialize_load_save, saving_over_a_loaded_file)
{
    auto p = migx_test::small_cnn();
    p.compile(migraphx::ref::target{});
    auto params   = params_for(p);
    auto expected = p.eval(params);
    auto path     = temp_path("over.mxr");
    migraphx::save(p, path);
    ::chmod(path.c_str(), 0600);
    auto loaded = migraphx::load(path);
    auto other  = migx_test::with_submodules();
    migraphx::save(other, path);
    expect_bitwise_equal(loaded.eval(params), expected);
    EXPECT_EQ(to_string(migraphx::load(path)), to_string(other));
    struct stat st{};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0600);
    auto link = temp_path("link.mxr");
    ASSERT_EQ(::symlink(path.c_str(), link.c_str()), 0);
    migraphx::save(p, link);
    struct stat lst{};
    ASSERT_EQ(::lstat(link.c_str(), &lst), 0);
    EXPECT_TRUE(S_ISLNK(lst.st_mode));
    EXPECT_EQ(to_string(migraphx::load(path)), to_string(p));
    EXPECT_EQ(read_all(path), migraphx::save_buffer(p));
    if(::geteuid() != 0) // root may write anything
    {
        ::chmod(path.c_str(), 0400);
        auto msg = message_of([&] { migraphx::save(other, path); });
        EXPECT_NE(msg.find("cannot open"), std::string::npos) << "a read-only file stays read-only: " << msg;
    }
    std::remove(link.c_str());
    std::remove(path.c_str());
}

// A file of several MiB (its checksum is computed on another thread while it is decoded):
// any damaged byte, in the literals or in the instructions, is reported as damage.
TEST(serialize_load_save, large_damaged_file_is_reported_as_damaged)
{
    using migraphx::shape;
    migraphx::program p;
    auto* mm = p.get_main_module();
    auto x   = mm->add_parameter("x", shape{shape::float_type, {1, 1024}});
    auto w   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {1024, 1024}}, 9));
    mm->add_return({mm->add_instruction(migraphx::make_op("dot"), x, w)});
    p.compile(migraphx::ref::target{});
    auto bytes = migraphx::save_buffer(p);
    ASSERT_GT(bytes.size(), migraphx::serialize::checksum_check::async_min);
    auto path = temp_path("large.mxr");
    for(std::size_t at : {std::size_t{12}, bytes.size() / 2, bytes.size() - 20, bytes.size() - 3})
    {
        auto bad = bytes;
        bad[at] ^= 0x20;
        auto msg = message_of([&] { migraphx::load_buffer(bad); });
        EXPECT_NE(msg.find("checksum mismatch"), std::string::npos) << at << ": " << msg;
        std::ofstream(path, std::ios::binary).write(bad.data(), static_cast<std::streamsize>(bad.size()));
        msg = message_of([&] { migraphx::load(path); });
        EXPECT_NE(msg.find("checksum mismatch"), std::string::npos) << at << ": " << msg;
    }
    std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    auto loaded = migraphx::load(path);
    auto params = params_for(p);
    expect_bitwise_equal(loaded.eval(params), p.eval(params));
    std::remove(path.c_str());
}
