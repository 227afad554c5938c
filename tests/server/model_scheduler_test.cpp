// model (loading saved programs, request checks, batched runs) and scheduler (dynamic batching)
// on small programs built with the API, compiled for ref and saved as a repository would hold them.
#include "server/error.hpp"
#include "server/model.hpp"
#include "server/repository.hpp"
#include "server/scheduler.hpp"
#include <migraphx/load_save.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <gtest/gtest.h>
#include <cstring>
#include <filesystem>
#include <fstream>

using namespace migraphx::server;
namespace fs = std::filesystem;

namespace {

// y = x + x, z = x * x for x: float[b, 4] (b == 0: float[2, 4], no batch dimension)
void save_program(const fs::path& file, std::size_t b)
{
    migraphx::program p;
    auto* m = p.get_main_module();
    auto x  = m->add_parameter("x", migraphx::shape{migraphx::shape::float_type, {b == 0 ? 2 : b, 4}});
    auto y  = m->add_instruction(migraphx::make_op("add"), x, x);
    auto z  = m->add_instruction(migraphx::make_op("mul"), x, x);
    m->add_return({y, z});
    p.compile(migraphx::get_target("ref"));
    migraphx::save(p, file.string());
}

struct temp_repo
{
    fs::path root;
    temp_repo()
    {
        root = fs::temp_directory_path() / ("migx_server_test_" + std::to_string(::getpid()));
        fs::remove_all(root);
        fs::create_directories(root / "add" / "1");
        for(std::size_t b : {1, 2, 4})
            save_program(root / "add" / "1" / ("model_b" + std::to_string(b) + ".mxr"), b);
        fs::create_directories(root / "fixed" / "3");
        save_program(root / "fixed" / "3" / "model.mxr", 0);
        fs::create_directories(root / "empty" / "1");
        fs::create_directories(root / "badcfg" / "1");
        save_program(root / "badcfg" / "1" / "model.mxr", 0);
        std::ofstream(root / "badcfg" / "config.pbtxt") << "max_batch_size: {";
    }
    ~temp_repo() { fs::remove_all(root); }
    void config(const std::string& model, const std::string& text) const
    {
        std::ofstream(root / model / "config.pbtxt") << text;
    }
};

tensor make_x(std::size_t rows, float start)
{
    tensor t;
    t.name  = "x";
    t.type  = migraphx::shape::float_type;
    t.shape = {static_cast<std::int64_t>(rows), 4};
    std::vector<float> v(rows * 4);
    for(std::size_t i = 0; i < v.size(); i++)
        v[i] = start + static_cast<float>(i);
    t.data.assign(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(float));
    return t;
}

std::vector<float> floats(const tensor& t)
{
    std::vector<float> r(t.data.size() / sizeof(float));
    std::memcpy(r.data(), t.data.data(), t.data.size());
    return r;
}

int check_status(const model& m, const infer_request& r)
{
    try
    {
        m.check(r);
    }
    catch(const server_error& e)
    {
        return e.status;
    }
    return 0;
}

model_config batching(std::size_t max, int delay_us, std::size_t instances = 1)
{
    model_config c;
    c.max_batch_size   = max;
    c.dynamic_batching = true;
    c.max_queue_delay  = std::chrono::microseconds(delay_us);
    c.instances        = instances;
    return c;
}

} // namespace

TEST(server_model, loads_saved_programs_per_batch_size)
{
    temp_repo repo;
    auto m = model::load("add", "1", (repo.root / "add" / "1").string(), batching(4, 0), {});
    EXPECT_EQ(m->batch_sizes(), (std::vector<std::size_t>{1, 2, 4}));
    EXPECT_EQ(m->max_rows(), 4u);
    EXPECT_EQ(m->source(), "mxr");
    EXPECT_EQ(m->target_name(), "ref");
    ASSERT_EQ(m->inputs().size(), 1u);
    EXPECT_EQ(m->inputs()[0].name, "x");
    EXPECT_EQ(m->inputs()[0].shape, (std::vector<std::int64_t>{-1, 4}));
    ASSERT_EQ(m->outputs().size(), 2u);
    EXPECT_EQ(m->outputs()[1].shape, (std::vector<std::int64_t>{-1, 4}));
    auto f = model::load("fixed", "3", (repo.root / "fixed" / "3").string(), {}, {});
    EXPECT_EQ(f->inputs()[0].shape, (std::vector<std::int64_t>{2, 4}));
    EXPECT_EQ(f->max_rows(), 1u);
    EXPECT_THROW(model::load("empty", "1", (repo.root / "empty" / "1").string(), {}, {}), std::runtime_error);
}

TEST(server_model, checks_requests)
{
    temp_repo repo;
    auto m = model::load("add", "1", (repo.root / "add" / "1").string(), batching(4, 0), {});
    infer_request r;
    r.inputs = {make_x(3, 0)};
    EXPECT_EQ(m->check(r), 3u);
    r.inputs = {make_x(5, 0)};
    EXPECT_EQ(check_status(*m, r), 400); // above max_batch_size
    r.inputs = {make_x(1, 0)};
    r.inputs[0].type = migraphx::shape::double_type;
    r.inputs[0].data += r.inputs[0].data;
    EXPECT_EQ(check_status(*m, r), 400); // datatype
    r.inputs = {make_x(1, 0)};
    r.inputs[0].shape = {1, 2, 2};
    EXPECT_EQ(check_status(*m, r), 400); // rank
    r.inputs = {make_x(1, 0)};
    r.inputs[0].name = "q";
    EXPECT_EQ(check_status(*m, r), 400); // unknown input
    r.inputs = {};
    EXPECT_EQ(check_status(*m, r), 400); // missing input
    r.inputs  = {make_x(1, 0), make_x(1, 0)};
    EXPECT_EQ(check_status(*m, r), 400); // twice
    r.inputs  = {make_x(1, 0)};
    r.outputs = {{"nope", false}};
    EXPECT_EQ(check_status(*m, r), 400); // unknown output
}

TEST(server_model, runs_a_padded_batch_and_splits_it)
{
    temp_repo repo;
    auto m = model::load("add", "1", (repo.root / "add" / "1").string(), batching(4, 0), {});
    infer_request a, b;
    a.inputs = {make_x(1, 0)};
    a.id     = "a";
    b.inputs = {make_x(2, 100)};
    b.outputs = {{m->outputs()[1].name, true}};
    auto out  = m->run(0, {&a, &b}); // 3 rows run on the batch-4 program
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].id, "a");
    ASSERT_EQ(out[0].outputs.size(), 2u);
    EXPECT_EQ(out[0].outputs[0].shape, (std::vector<std::int64_t>{1, 4}));
    EXPECT_EQ(floats(out[0].outputs[0]), (std::vector<float>{0, 2, 4, 6}));
    EXPECT_EQ(floats(out[0].outputs[1]), (std::vector<float>{0, 1, 4, 9}));
    ASSERT_EQ(out[1].outputs.size(), 1u);
    EXPECT_TRUE(out[1].outputs[0].binary);
    EXPECT_EQ(out[1].outputs[0].shape, (std::vector<std::int64_t>{2, 4}));
    auto z = floats(out[1].outputs[0]);
    ASSERT_EQ(z.size(), 8u);
    for(std::size_t i = 0; i < 8; i++)
        EXPECT_EQ(z[i], (100.0f + i) * (100.0f + i));
}

TEST(server_scheduler, batches_requests_that_arrive_within_the_delay)
{
    temp_repo repo;
    metrics stats;
    {
        scheduler s(model::load("add", "1", (repo.root / "add" / "1").string(), batching(4, 300000), {}), &stats);
        std::vector<std::future<infer_response>> fs;
        for(int i = 0; i < 4; i++)
        {
            infer_request r;
            r.inputs = {make_x(1, static_cast<float>(10 * i))};
            fs.push_back(s.submit(std::move(r)));
        }
        for(int i = 0; i < 4; i++)
        {
            auto resp = fs[i].get();
            EXPECT_EQ(floats(resp.outputs[0])[0], 20.0f * i);
        }
    }
    auto st = stats.snapshot("add", "1");
    EXPECT_EQ(st.requests_success, 4u);
    EXPECT_EQ(st.executions, 1u); // one batch of 4: full before the 300 ms delay
    EXPECT_EQ(st.batch_size.counts[2], 1u); // the bucket le=4
}

TEST(server_scheduler, without_dynamic_batching_runs_each_request_alone)
{
    temp_repo repo;
    metrics stats;
    model_config c = batching(4, 0);
    c.dynamic_batching = false;
    {
        scheduler s(model::load("add", "1", (repo.root / "add" / "1").string(), c, {}), &stats);
        std::vector<std::future<infer_response>> fs;
        for(int i = 0; i < 3; i++)
        {
            infer_request r;
            r.inputs = {make_x(2, 0)};
            fs.push_back(s.submit(std::move(r)));
        }
        for(auto& f : fs)
            EXPECT_EQ(f.get().outputs[0].shape[0], 2);
        infer_request bad;
        EXPECT_THROW(s.submit(std::move(bad)), server_error);
    }
    auto st = stats.snapshot("add", "1");
    EXPECT_EQ(st.executions, 3u);
    EXPECT_EQ(st.requests_success, 3u);
    EXPECT_EQ(st.requests_failure, 1u);
}

TEST(server_scheduler, stop_runs_what_is_queued_then_refuses)
{
    temp_repo repo;
    scheduler s(model::load("add", "1", (repo.root / "add" / "1").string(), batching(4, 5000000, 2), {}), nullptr);
    infer_request r;
    r.inputs = {make_x(1, 1)};
    auto f   = s.submit(r);
    s.stop(); // does not wait the 5 s delay
    EXPECT_EQ(floats(f.get().outputs[0])[0], 2.0f);
    try
    {
        s.submit(r);
        FAIL() << "accepted after stop";
    }
    catch(const server_error& e)
    {
        EXPECT_EQ(e.status, 503);
    }
}

TEST(server_repository, one_bad_model_does_not_stop_the_others)
{
    temp_repo repo;
    repo.config("add", "max_batch_size: 4 dynamic_batching { }");
    metrics stats;
    repository r(&stats);
    load_options lo;
    lo.target = "ref";
    r.load(repo.root.string(), lo);
    EXPECT_TRUE(r.ready());
    EXPECT_TRUE(r.find("add", "").ready());
    EXPECT_TRUE(r.find("fixed", "3").ready());
    EXPECT_FALSE(r.find("empty", "1").ready());
    EXPECT_FALSE(r.find("badcfg", "").ready());
    EXPECT_NE(r.find("badcfg", "1").error.find("config.pbtxt"), std::string::npos);
    EXPECT_THROW(r.find("nope", ""), server_error);
    EXPECT_THROW(r.find("add", "2"), server_error);
    r.set_strict_readiness(true);
    EXPECT_FALSE(r.ready());
    infer_request q;
    q.model  = "empty";
    q.inputs = {make_x(1, 0)};
    try
    {
        r.infer(q);
        FAIL() << "a model that failed to load took a request";
    }
    catch(const server_error& e)
    {
        EXPECT_EQ(e.status, 503);
    }
    q.model = "add";
    EXPECT_EQ(floats(r.infer(q).get().outputs[0])[1], 2.0f);
    r.stop();
    EXPECT_FALSE(r.ready());
}

TEST(server_scheduler, flush_runs_a_waiting_batch_at_once)
{
    temp_repo repo;
    scheduler s(model::load("add", "1", (repo.root / "add" / "1").string(), batching(4, 10000000), {}), nullptr);
    infer_request r;
    r.inputs = {make_x(1, 3)};
    auto t0  = std::chrono::steady_clock::now();
    auto f   = s.submit(r);
    EXPECT_EQ(f.wait_for(std::chrono::milliseconds(100)), std::future_status::timeout); // waits for the batch
    s.flush();
    EXPECT_EQ(floats(f.get().outputs[0])[0], 6.0f);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, std::chrono::seconds(5)); // not the 10 s delay
    auto g = s.submit(r); // still taking requests until stop, without waiting
    EXPECT_EQ(floats(g.get().outputs[0])[0], 6.0f);
}
