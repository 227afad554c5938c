// migraphx-server: serves the models of a Triton-style repository over the Open Inference
// Protocol (KServe v2), HTTP/REST and gRPC, with dynamic batching. docs/server.md describes it.
#include "server/grpc_frontend.hpp"
#include "server/http_frontend.hpp"
#include "server/options.hpp"
#include "server/repository.hpp"
#include <migraphx/target.hpp>
#include <algorithm>
#include <chrono>
#include <csignal>
#include <fstream>
#include <iostream>
#include <mutex>
#include <pthread.h>
#include <thread>

using namespace migraphx::server;

namespace {

std::mutex log_mutex;

void log_line(bool quiet, const std::string& msg)
{
    if(quiet)
        return;
    std::lock_guard<std::mutex> lk(log_mutex);
    std::cerr << "migraphx-server: " << msg << std::endl;
}

} // namespace

int main(int argc, char** argv)
{
    server_options o;
    int rc = parse_options(argc, argv, o);
    if(rc >= 0)
        return rc;

    // SIGINT/SIGTERM are taken by sigwait below, never delivered to a thread; a peer that
    // closes its socket must not kill the server.
    sigset_t sigs;
    sigemptyset(&sigs);
    sigaddset(&sigs, SIGINT);
    sigaddset(&sigs, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &sigs, nullptr);
    std::signal(SIGPIPE, SIG_IGN);

    auto log = [&](const std::string& m) { log_line(o.quiet, m); };
    try
    {
        metrics stats;
        repository repo(&stats);
        repo.set_strict_readiness(o.strict_readiness);
        load_options lo;
        lo.target            = o.target();
        lo.default_instances = o.instances;
        lo.write_cache       = not o.no_cache;
        lo.log               = log;
        auto targets = migraphx::get_targets();
        if(std::find(targets.begin(), targets.end(), lo.target) == targets.end())
        {
            std::string names;
            for(const auto& t : targets)
                names += (names.empty() ? "" : ", ") + t;
            throw std::runtime_error("the " + lo.target + " target is not available here (targets: " + names + ")");
        }
        log("loading " + o.model_repository + " for the " + lo.target + " target");
        repo.load(o.model_repository, lo);

        std::unique_ptr<http_frontend> http;
        std::unique_ptr<grpc_frontend> grpc;
        int http_port = -1, grpc_port = -1;
        if(o.http.port >= 0)
        {
            http      = std::make_unique<http_frontend>(repo, stats, o.http);
            http_port = http->bind();
        }
        if(o.grpc.port >= 0)
        {
            grpc      = std::make_unique<grpc_frontend>(repo, stats, o.grpc);
            grpc_port = grpc->start();
        }
        std::thread http_thread;
        if(http)
            http_thread = std::thread([&] { http->run(); });
        log("serving: HTTP port " + std::to_string(http_port) + ", gRPC port " + std::to_string(grpc_port));
        if(not o.port_file.empty())
        {
            auto tmp = o.port_file + ".tmp";
            std::ofstream(tmp) << "http=" << http_port << " grpc=" << grpc_port << "\n";
            std::rename(tmp.c_str(), o.port_file.c_str());
        }

        int sig = 0;
        sigwait(&sigs, &sig);
        log(std::string("received ") + (sig == SIGINT ? "SIGINT" : "SIGTERM") + ": draining");
        // Stop accepting; requests in flight finish (their handlers wait on the schedulers,
        // which keep running until both front ends are done).
        repo.begin_shutdown();
        if(http)
        {
            http->stop();
            http_thread.join();
        }
        if(grpc)
            grpc->stop(std::chrono::seconds(o.drain_seconds));
        repo.stop();
        log("stopped");
        return 0;
    }
    catch(const std::exception& e)
    {
        log_line(false, std::string("error: ") + e.what());
        return 1;
    }
}
