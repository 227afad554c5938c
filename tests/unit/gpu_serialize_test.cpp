// Saved gpu programs (.mxr; src/serialize/op_serializer.hpp and the gpu ops' serializers in
// hip_ops.cpp and code_object.cpp). Without a device: a hand-made program of gpu ops round-trips
// through both formats with its weights and binaries stored once, as literal bytes, and a file
// compiled for gpu fails to load with a clear message. On a device: a compiled program loads
// without compiling (no NVRTC, the saved cuDNN and cuBLASLt choices) and gives the same bits,
// and stale saved choices (another architecture, a refused binary or algorithm) are made again.
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <unistd.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include "gpu_test_util.hpp"
#include "scoped_env.hpp"
#ifdef MIGRAPHX_HAVE_GPU
#include "targets/gpu/context.hpp"
#endif
#include "serialize/json_value.hpp"
#include "serialize/mxr_format.hpp"
#include "serialize/op_serializer.hpp"
#include "serialize/program_value.hpp"
#include "serialize_test_util.hpp"

using migraphx::make_op;
using migraphx::shape;
using migx_test::to_string;

namespace {

bool gpu_ops_built()
{
    auto ops = migraphx::get_operators();
    return std::find(ops.begin(), ops.end(), "hip::hip_copy_literal") != ops.end();
}

#define MIGX_REQUIRE_GPU_OPS()                                                                      \
    if(not gpu_ops_built())                                                                         \
    GTEST_SKIP() << "built without the gpu target"

const migraphx::serialize::op_serializer& serializer(const std::string& name)
{
    const auto* s = migraphx::serialize::find_op_serializer(name);
    if(s == nullptr)
        throw std::runtime_error("no serializer for " + name);
    return *s;
}

std::string temp_path(const std::string& name)
{
    return ::testing::TempDir() + "migx_gpu_serialize_" + std::to_string(::getpid()) + "_" + name;
}

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

std::string bytes_of(const migraphx::literal& l) { return {l.data(), l.get_shape().bytes()}; }

std::size_t count(const std::vector<char>& hay, const std::string& needle, std::size_t* first = nullptr)
{
    std::size_t n = 0;
    auto it       = hay.begin();
    while((it = std::search(it, hay.end(), needle.begin(), needle.end())) != hay.end())
    {
        if(n++ == 0 and first != nullptr)
            *first = static_cast<std::size_t>(it - hay.begin());
        ++it;
    }
    return n;
}

struct hand_made
{
    migraphx::program p;
    std::string weights; // the literal's bytes
    std::string cubin;   // the code object's (fake) binary
};

/// A program of gpu ops as lowering makes them (not compiled: nothing here needs a device):
/// x -> gpu::gemm(x, weights) -> gpu::code_object -> gpu::ref::softmax.
hand_made gpu_program()
{
    hand_made h;
    auto* m = h.p.get_main_module();
    shape xs{shape::float_type, {4, 256}};
    shape ws{shape::float_type, {256, 8}};
    shape os{shape::float_type, {4, 8}};
    auto x = m->add_parameter("x", xs);
    std::vector<float> w(ws.elements());
    for(std::size_t i = 0; i < w.size(); i++)
        w[i] = 0.25f + static_cast<float>(i);
    auto lit = make_op("hip::hip_copy_literal", {{"id", "main:@literal:0"}});
    serializer("hip::hip_copy_literal").set_literal(lit, migraphx::literal{ws, w});
    h.weights.assign(reinterpret_cast<const char*>(w.data()), ws.bytes());
    auto wl    = m->add_instruction(lit, std::vector<migraphx::instruction_ref>{});
    auto alloc = [&](const shape& s) {
        return m->add_instruction(make_op("hip::hip_allocate_memory", {{"shape", migraphx::shape_to_value(s)}}),
                                  std::vector<migraphx::instruction_ref>{});
    };
    // words above 2^63 too: json must keep them exact
    std::vector<std::uint64_t> algo(16);
    for(std::size_t i = 0; i < algo.size(); i++)
        algo[i] = 0xfedcba9876543210ull + i;
    auto g = m->add_instruction(make_op("gpu::gemm", {{"algo", algo}}), x, wl, alloc(os));
    auto k = make_op("gpu::code_object",
                     {{"symbol_name", "relu_kernel"},
                      {"global", 32},
                      {"local", 256},
                      {"source", "extern \"C\" __global__ void relu_kernel() {}"},
                      {"arch", "sm_90"},
                      // the kernel other devices run (a Hopper attention kernel keeps one)
                      {"fallback",
                       {{{"symbol_name", "relu_any"},
                         {"global", 64},
                         {"local", 128},
                         {"shared", 0},
                         {"blocks_per_sm", 0},
                         {"source", "extern \"C\" __global__ void relu_any() {}"}}}}});
    h.cubin.assign(2048, '\x5a');
    std::memcpy(h.cubin.data(), "\x7f" "ELF", 4);
    std::shared_ptr<char> cb(new char[h.cubin.size()], std::default_delete<char[]>());
    std::memcpy(cb.get(), h.cubin.data(), h.cubin.size());
    serializer("gpu::code_object")
        .set_literal(k, migraphx::literal::adopt(shape{shape::uint8_type, {h.cubin.size()}}, cb));
    auto c  = m->add_instruction(k, g, alloc(os));
    auto sm = serializer("gpu::ref::softmax")
                  .load("gpu::ref::softmax",
                        {{"op", "softmax"}, {"attrs", {{"axis", 1}}}, {"module", ""}, {"has_output", true}},
                        [](const std::string&) -> migraphx::module_ref { throw std::runtime_error("no module"); });
    m->add_return({m->add_instruction(sm, c, alloc(os))});
    return h;
}

/// The first op of main whose name is name or, with prefix, starts with it.
const migraphx::operation& op_named(const migraphx::program& p, const std::string& name, bool prefix = false)
{
    const auto* m = p.get_main_module();
    for(auto it = m->begin(); it != m->end(); ++it)
        if(it->name() == name or (prefix and it->name().rfind(name, 0) == 0))
            return it->get_operator();
    throw std::runtime_error("no " + name);
}

std::string held_bytes(const migraphx::program& p, const std::string& name)
{
    auto l = serializer(name).get_literal(op_named(p, name));
    if(not l)
        return "(none)";
    return bytes_of(*l);
}

} // namespace

TEST(gpu_serialize, hand_made_program_round_trips_both_formats)
{
    MIGX_REQUIRE_GPU_OPS();
    auto h    = gpu_program();
    auto text = to_string(h.p);
    // the spec's form: the literal is no input
    EXPECT_NE(text.find("main:@1 = hip::hip_copy_literal[id=main:@literal:0] -> float_type, {256, 8}, {8, 1}"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("gpu::code_object[code_object=2048,symbol_name=relu_kernel,global=32,local=256,]"),
              std::string::npos)
        << text;
    for(const std::string format : {"msgpack", "json"})
    {
        migraphx::file_options o;
        o.format   = format;
        auto bytes = migraphx::save_buffer(h.p, o);
        auto q     = migraphx::load_buffer(bytes, o);
        EXPECT_EQ(to_string(q), text) << format;
        EXPECT_EQ(held_bytes(q, "hip::hip_copy_literal"), h.weights) << format;
        EXPECT_EQ(held_bytes(q, "gpu::code_object"), h.cubin) << format;
        EXPECT_EQ(op_named(q, "gpu::gemm"), op_named(h.p, "gpu::gemm")) << format << ": the cuBLASLt algorithms";
        EXPECT_EQ(op_named(q, "gpu::code_object").to_value().at("arch"), migraphx::value("sm_90"));
        EXPECT_EQ(op_named(q, "gpu::code_object").to_value().at("fallback"),
                  op_named(h.p, "gpu::code_object").to_value().at("fallback"))
            << format;
        EXPECT_EQ(op_named(q, "gpu::code_object").to_value().at("fallback").at(0).at("symbol_name"),
                  migraphx::value("relu_any"));
        EXPECT_EQ(migraphx::save_buffer(q, o), bytes) << format << ": saved again, the same file";
    }
}

// A kernel's launch needs (dynamic shared memory, blocks an SM: the persistent attention kernel)
// are attributes, saved with it; a file written before they existed reads as 0 (as launched then).
TEST(gpu_serialize, kernel_launch_attributes_saved_and_absent_ones_zero)
{
    MIGX_REQUIRE_GPU_OPS();
    auto op = make_op("gpu::code_object",
                      {{"symbol_name", "k"}, {"global", 512}, {"local", 256}, {"shared", 99328}, {"blocks_per_sm", 2}});
    auto v = op.to_value();
    EXPECT_EQ(v.at("shared").to<std::size_t>(), 99328u);
    EXPECT_EQ(v.at("blocks_per_sm").to<std::size_t>(), 2u);
    auto back = make_op("gpu::code_object", v);
    EXPECT_EQ(back, op);
    auto old = make_op("gpu::code_object", {{"symbol_name", "k"}, {"global", 512}, {"local", 256}});
    EXPECT_EQ(old.to_value().at("shared").to<std::size_t>(), 0u);
    EXPECT_EQ(old.to_value().at("blocks_per_sm").to<std::size_t>(), 0u);
    EXPECT_NE(old, op);
}

// The json shows the gpu ops with their attributes; the weights and the binary are base64 text
// (not arrays of numbers).
TEST(gpu_serialize, json_shows_the_ops)
{
    MIGX_REQUIRE_GPU_OPS();
    auto h = gpu_program();
    migraphx::file_options o;
    o.format   = "json";
    auto bytes = migraphx::save_buffer(h.p, o);
    std::string json(bytes.begin(), bytes.end());
    for(const char* s : {"hip::hip_copy_literal", "main:@literal:0", "hip::hip_allocate_memory", "gpu::gemm",
                         "gpu::code_object", "relu_kernel", "sm_90", "gpu::ref::softmax", "\"target\""})
        EXPECT_NE(json.find(s), std::string::npos) << s;
    using migraphx::serialize::base64_encode;
    EXPECT_EQ(count(bytes, base64_encode(h.weights.data(), h.weights.size())), 1u);
    EXPECT_EQ(count(bytes, base64_encode(h.cubin.data(), h.cubin.size())), 1u);
    EXPECT_EQ(json.find("0.25,"), std::string::npos) << "weights written as numbers";
    EXPECT_NE(json.find("18364758544493064720"), std::string::npos) << "algo word 0xfedcba9876543210";
}

// msgpack: each weight's and binary's bytes are in the file once, 64-byte aligned; load() maps
// the file and the op's literal uses the mapped bytes.
TEST(gpu_serialize, bytes_stored_once_aligned_and_mapped)
{
    MIGX_REQUIRE_GPU_OPS();
    auto h     = gpu_program();
    auto bytes = migraphx::save_buffer(h.p);
    for(const auto* b : {&h.weights, &h.cubin})
    {
        std::size_t at = 1;
        EXPECT_EQ(count(bytes, *b, &at), 1u);
        EXPECT_EQ(at % migraphx::serialize::data_alignment, 0u) << at;
    }
    auto path = temp_path("mapped.mxr");
    migraphx::save(h.p, path);
    auto q = migraphx::load(path);
    auto l = serializer("hip::hip_copy_literal").get_literal(op_named(q, "hip::hip_copy_literal"));
    ASSERT_TRUE(l.has_value());
    auto at = reinterpret_cast<std::uintptr_t>(l->data());
    std::ifstream maps("/proc/self/maps");
    std::string line, mapping;
    while(std::getline(maps, line))
    {
        std::uintptr_t start = 0, end = 0;
        if(std::sscanf(line.c_str(), "%lx-%lx", &start, &end) == 2 and at >= start and at < end)
            mapping = line;
    }
    EXPECT_NE(mapping.find(path), std::string::npos) << "the weights are not the mapped file's: " << mapping;
    EXPECT_EQ(bytes_of(*l), h.weights);
    std::remove(path.c_str());
}

// A file whose op lacks its data, or has data its op does not take, is refused.
TEST(gpu_serialize, missing_or_unexpected_literal_throws)
{
    MIGX_REQUIRE_GPU_OPS();
    using namespace migraphx::serialize;
    auto v = program_to_value(gpu_program().p, literal_encoding::raw);
    auto& ins = v["modules"].get_array().at(0)["instructions"].get_array();
    for(auto& i : ins)
        if(i.at("op").get_string() == "hip::hip_copy_literal")
            i.get_object().pop_back(); // "literal" is the last entry
    auto msg = message_of([&] { migraphx::load_buffer(write_mxr(v, "", "msgpack")); });
    EXPECT_NE(msg.find("(hip::hip_copy_literal): has no 'literal'"), std::string::npos) << msg;

    v = program_to_value(gpu_program().p, literal_encoding::raw);
    auto& ins2 = v["modules"].get_array().at(0)["instructions"].get_array();
    for(auto& i : ins2)
        if(i.at("op").get_string() == "hip::hip_allocate_memory")
            i["literal"] = migraphx::value::object{{"shape", migraphx::shape_to_value(shape{shape::uint8_type, {4}})},
                                                   {"data", std::string("abcd")}};
    msg = message_of([&] { migraphx::load_buffer(write_mxr(v, "", "msgpack")); });
    EXPECT_NE(msg.find("has 'literal', which its operator does not take"), std::string::npos) << msg;

    // a weight of another shape than the instruction's: validate says so
    v = program_to_value(gpu_program().p, literal_encoding::raw);
    auto& ins3 = v["modules"].get_array().at(0)["instructions"].get_array();
    for(auto& i : ins3)
        if(i.at("op").get_string() == "hip::hip_copy_literal")
            i["literal"]["shape"] = migraphx::shape_to_value(shape{shape::float_type, {8, 256}});
    msg = message_of([&] { migraphx::load_buffer(write_mxr(v, "", "msgpack")); });
    EXPECT_NE(msg.find("hip::hip_copy_literal"), std::string::npos) << msg;

    // gpu::ref::<op> running another op than its name says
    v = program_to_value(gpu_program().p, literal_encoding::raw);
    auto& ins4 = v["modules"].get_array().at(0)["instructions"].get_array();
    for(auto& i : ins4)
        if(i.at("op").get_string() == "gpu::ref::softmax")
        {
            i["attrs"]["op"]    = "relu";
            i["attrs"]["attrs"] = migraphx::value::make_object();
        }
    msg = message_of([&] { migraphx::load_buffer(write_mxr(v, "", "msgpack")); });
    EXPECT_NE(msg.find("gpu::ref::softmax: runs relu, which is another operator"), std::string::npos) << msg;
}

// A program compiled for gpu, loaded where the gpu target is not available (no CUDA device, as
// on the build machine), fails naming the file and the target.
TEST(gpu_serialize, compiled_gpu_file_without_device_throws)
{
    MIGX_REQUIRE_GPU_OPS();
    if(migx_test::have_gpu_target())
        GTEST_SKIP() << "a CUDA device is present";
    using namespace migraphx::serialize;
    for(const std::string format : {"msgpack", "json"})
    {
        auto v = program_to_value(gpu_program().p,
                                  format == "json" ? literal_encoding::base64 : literal_encoding::raw);
        v["compiled"] = true;
        v["target"]   = "gpu";
        auto bytes    = write_mxr(v, "gpu", format);
        auto path     = temp_path("compiled." + format);
        std::ofstream(path, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
        auto msg = message_of([&] { migraphx::load(path); });
        EXPECT_NE(msg.find("load(" + path + ")"), std::string::npos) << msg;
        EXPECT_NE(msg.find("the program was compiled for target 'gpu', which is not available here"),
                  std::string::npos)
            << msg;
        EXPECT_NE(msg.find("CUDA device"), std::string::npos) << msg;
        std::remove(path.c_str());
    }
}

// ---- on a device ------------------------------------------------------------------------------

namespace {

/// Sets MIGRAPHX_GPU_CACHE_DIR to an empty folder while it lives: a kernel compiled with NVRTC
/// leaves a cubin there.
struct kernel_cache
{
    std::string dir;
    std::string old;
    bool had = false;
    explicit kernel_cache(const std::string& name) : dir(temp_path(name))
    {
        std::filesystem::remove_all(dir);
        std::filesystem::create_directories(dir);
        if(const char* o = std::getenv("MIGRAPHX_GPU_CACHE_DIR"))
        {
            had = true;
            old = o;
        }
        ::setenv("MIGRAPHX_GPU_CACHE_DIR", dir.c_str(), 1);
    }
    ~kernel_cache()
    {
        if(had)
            ::setenv("MIGRAPHX_GPU_CACHE_DIR", old.c_str(), 1);
        else
            ::unsetenv("MIGRAPHX_GPU_CACHE_DIR");
        std::filesystem::remove_all(dir);
    }
    std::size_t files() const
    {
        std::size_t n = 0;
        for(const auto& e : std::filesystem::recursive_directory_iterator(dir))
            n += e.is_regular_file() ? 1 : 0;
        return n;
    }
};

migraphx::program compiled_for_gpu(migraphx::program p, bool offload_copy = true)
{
    migraphx::compile_options o;
    o.offload_copy = offload_copy;
    p.compile(migraphx::get_target("gpu"), o);
    return p;
}

/// A conv (cuDNN), gemms with and without the bias epilogue (cuBLASLt), generated kernels.
migraphx::program conv_gemm_program()
{
    auto p   = migx_test::small_cnn();
    auto* mm = p.get_main_module();
    auto ret = mm->get_return();
    auto d   = ret->inputs().at(1); // logits {1, 10}
    auto w   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {10, 16}}, 9));
    auto b   = mm->add_literal(migraphx::generate_literal(shape{shape::float_type, {16}}, 10));
    auto g   = mm->insert_instruction(ret, make_op("dot"), d, w);
    auto bb  = mm->insert_instruction(ret, make_op("multibroadcast", {{"out_lens", {1, 16}}}), b);
    auto a   = mm->insert_instruction(ret, make_op("add"), g, bb);
    auto r   = mm->insert_instruction(ret, make_op("relu"), a);
    // two more generated kernels
    auto s   = mm->insert_instruction(ret, make_op("sigmoid"), r);
    auto t   = mm->insert_instruction(ret, make_op("neg"), mm->insert_instruction(ret, make_op("tanh"), d));
    mm->replace_return({ret->inputs().at(0), d, r, s, t});
    p.set_output_names({"prob", "logits", "hidden", "gate", "other"});
    return p;
}

} // namespace

TEST(gpu_serialize, compiled_program_loads_without_compiling_and_runs_bit_exact)
{
    MIGX_REQUIRE_GPU();
    auto p      = compiled_for_gpu(conv_gemm_program());
    auto params = migx_test::params_for(p);
    auto want   = p.eval(params);
    auto text   = to_string(p);
    EXPECT_NE(text.find("gpu::conv"), std::string::npos) << text; // gpu::convolution or a fused one
    EXPECT_NE(text.find("gpu::gemm["), std::string::npos) << text;
    EXPECT_EQ(op_named(p, "gpu::gemm").to_value().at("algo").size(), 16u) << "finalize keeps the algorithms";
    EXPECT_GE(op_named(p, "gpu::conv", true).to_value().at("solution_id").get_int64(), 0);
    auto path = temp_path("compiled.mxr");
    for(const std::string format : {"msgpack", "json"})
    {
        migraphx::file_options o;
        o.format = format;
        migraphx::save(p, path, o);
        kernel_cache cache("load_cache_" + format);
        auto q = migraphx::load(path, o);
        EXPECT_EQ(cache.files(), 0u) << format << ": loading ran NVRTC";
        EXPECT_TRUE(q.is_compiled());
        EXPECT_EQ(q.target_name(), "gpu");
        EXPECT_EQ(to_string(q), text) << format;
        EXPECT_EQ(op_named(q, "gpu::gemm"), op_named(p, "gpu::gemm")) << format;
        migx_test::expect_bitwise_equal(q.eval(params), want);
        migx_test::expect_bitwise_equal(q.eval(params), want); // again (a replayed run, where recorded)
        EXPECT_THROW(q.compile(migraphx::get_target("gpu")), migraphx::exception);
    }
    std::remove(path.c_str());
}

TEST(gpu_serialize, offload_copy_false_and_host_fallback_round_trip)
{
    MIGX_REQUIRE_GPU();
    {
        auto p  = compiled_for_gpu(conv_gemm_program(), false);
        auto gt = migraphx::get_target("gpu");
        auto q  = migraphx::load_buffer(migraphx::save_buffer(p));
        EXPECT_EQ(to_string(q), to_string(p));
        auto run = [&](migraphx::program& prog) {
            migraphx::parameter_map dev;
            for(const auto& [name, a] : migx_test::params_for(prog))
                dev[name] = gt.copy_to(a);
            for(const auto& [name, s] : prog.get_outputs())
                dev[name] = gt.copy_to(migx_test::nan_filled(s));
            std::vector<migraphx::argument> host;
            for(const auto& r : prog.eval(dev))
                host.push_back(gt.copy_from(r));
            return host;
        };
        migx_test::expect_bitwise_equal(run(q), run(p));
    }
    {
        // nonzero's output size depends on the data: of a static input, it runs in two halves
        // (gpu::early_nonzero), which share a count slot by number
        migraphx::program p;
        auto* m = p.get_main_module();
        auto x  = m->add_parameter("x", shape{shape::float_type, {3, 4}});
        auto r  = m->add_instruction(make_op("relu"), x);
        m->add_return({m->add_instruction(make_op("nonzero"), r)});
        p       = compiled_for_gpu(p);
        auto t  = to_string(p);
        EXPECT_NE(t.find("gpu::nonzero_start[slot=0]"), std::string::npos) << t;
        EXPECT_NE(t.find("gpu::nonzero_finish[slot=0]"), std::string::npos) << t;
        auto params = migx_test::params_for(p);
        for(const std::string format : {"msgpack", "json"})
        {
            migraphx::file_options o;
            o.format = format;
            auto q   = migraphx::load_buffer(migraphx::save_buffer(p, o), o);
            EXPECT_EQ(to_string(q), t) << format;
            migx_test::expect_bitwise_equal(q.eval(params), p.eval(params));
        }
    }
}

// Saved choices that no longer fit are made again, as a compile makes them, with the same bits:
// kernels for another architecture or refused by the driver are compiled from their source, a
// cuBLASLt algorithm cuBLASLt rejects is chosen again, a cuDNN algorithm cuDNN rejects is searched.
TEST(gpu_serialize, stale_saved_choices_are_made_again)
{
    MIGX_REQUIRE_GPU();
    auto p      = compiled_for_gpu(conv_gemm_program());
    auto params = migx_test::params_for(p);
    auto want   = p.eval(params);
    using namespace migraphx::serialize;
    auto v = program_to_value(p, literal_encoding::raw);
    std::vector<migraphx::value*> kernels;
    for(auto& i : v["modules"].get_array().at(0)["instructions"].get_array())
    {
        const auto& name = i.at("op").get_string();
        if(name == "gpu::code_object")
            kernels.push_back(&i);
        else if(name == "gpu::gemm")
            i["attrs"]["algo"] = migraphx::value(std::vector<std::uint64_t>(16, ~0ull));
        else if(name.rfind("gpu::conv", 0) == 0)
            i["attrs"]["solution_id"] = 255;
    }
    ASSERT_GE(kernels.size(), 3u);
    ASSERT_NE(kernels[0]->at("attrs").at("symbol_name"), kernels[1]->at("attrs").at("symbol_name"));
    // for this architecture, but the driver finds no such kernel in it: another kernel's cubin
    (*kernels[0])["literal"] = kernels[1]->at("literal");
    // not a whole cubin (refused before the driver sees it)
    auto& cut = (*kernels[2])["literal"];
    cut["data"]  = cut.at("data").get_string().substr(0, 200);
    cut["shape"] = migraphx::shape_to_value(shape{shape::uint8_type, {200}});
    // for another architecture
    for(std::size_t k = 3; k < kernels.size(); k++)
        (*kernels[k])["attrs"]["arch"] = "sm_10";
    kernel_cache cache("stale_cache");
    auto q = migraphx::load_buffer(write_mxr(v, "gpu", "msgpack"));
    EXPECT_GT(cache.files(), 0u) << "no kernel was compiled again";
    migx_test::expect_bitwise_equal(q.eval(params), want);
    EXPECT_EQ(to_string(q), to_string(p)) << "the same choices, made again";
    EXPECT_EQ(op_named(q, "gpu::gemm"), op_named(p, "gpu::gemm"));
}

#ifdef MIGRAPHX_HAVE_GPU
namespace {

migraphx::value& first_conv(migraphx::value& file)
{
    for(auto& i : file["modules"].get_array().at(0)["instructions"].get_array())
        if(i.at("op").get_string().rfind("gpu::conv", 0) == 0)
            return i;
    throw std::runtime_error("no gpu::conv");
}

bool trusted(const migraphx::program& q)
{
    return q.get_context().get<migraphx::gpu::gpu_context>().saved_choices_trusted;
}

} // namespace

// A compiled program keeps the identity of the device and libraries its choices were made for;
// loaded where that identity is this process's, its convolutions take their saved algorithm and
// workspace without asking cuDNN. Another identity in the file, none (an older file) or
// MIGRAPHX_GPU_CHECK_LOADED=1: each saved algorithm is checked as before. The same bits each way.
TEST(gpu_serialize, same_device_takes_saved_convolution_choices_unchecked)
{
    MIGX_REQUIRE_GPU();
    auto p      = compiled_for_gpu(conv_gemm_program());
    auto params = migx_test::params_for(p);
    auto want   = p.eval(params);
    using namespace migraphx::serialize;
    auto v = program_to_value(p, literal_encoding::raw);
    ASSERT_TRUE(v.contains("context"));
    EXPECT_EQ(v.at("context").at("device").get_string(), migraphx::gpu::device_identity(0));
    const auto& attrs = first_conv(v).at("attrs");
    ASSERT_TRUE(attrs.contains("workspace")) << "the convolution's workspace is saved";
    EXPECT_GE(attrs.at("workspace").get_int64(), 0);
    auto load = [&](const migraphx::value& file) { return migraphx::load_buffer(write_mxr(file, "gpu", "msgpack")); };
    auto text = to_string(p);
    {
        auto q = load(v);
        EXPECT_TRUE(trusted(q));
        EXPECT_EQ(to_string(q), text) << "the saved choices";
        migx_test::expect_bitwise_equal(q.eval(params), want);
        migx_test::expect_bitwise_equal(q.eval(params), want);
        // saved again, it keeps the same workspace
        auto again = program_to_value(q, literal_encoding::raw);
        EXPECT_EQ(first_conv(again).at("attrs").at("workspace"), attrs.at("workspace"));
    }
    auto other                    = v;
    other["context"]["device"]    = "[another device]";
    auto older                    = v;
    auto& members                 = older.get_object();
    members.erase(std::remove_if(members.begin(), members.end(), [](const auto& m) { return m.first == "context"; }),
                  members.end());
    for(const auto* file : {&other, &older})
    {
        auto q = load(*file);
        EXPECT_FALSE(trusted(q));
        EXPECT_EQ(to_string(q), text);
        migx_test::expect_bitwise_equal(q.eval(params), want);
    }
    migx_test::scoped_env check("MIGRAPHX_GPU_CHECK_LOADED", "1");
    auto q = load(v);
    EXPECT_FALSE(trusted(q));
    migx_test::expect_bitwise_equal(q.eval(params), want);
}
#endif
