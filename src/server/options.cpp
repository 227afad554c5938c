#include "server/options.hpp"
#include <migraphx/target.hpp>
#include <CLI/CLI.hpp>
#include <algorithm>

namespace migraphx {
namespace server {

std::string server_options::target() const
{
    if(gpu)
        return "gpu";
    if(cpu)
        return "cpu";
    if(ref)
        return "ref";
    auto ts = get_targets();
    if(std::find(ts.begin(), ts.end(), "gpu") != ts.end())
        return "gpu";
    if(std::find(ts.begin(), ts.end(), "cpu") != ts.end())
        return "cpu";
    return "ref";
}

int parse_options(int argc, char** argv, server_options& o)
{
    CLI::App app{"migraphx-server: serves a model repository over the Open Inference Protocol (KServe v2), "
                 "HTTP/REST and gRPC. docs/server.md describes it."};
    app.set_version_flag("--version", std::string("migraphx-server ") + server_version());
    app.add_option("--model-repository", o.model_repository, "Directory of <name>/<version>/model.{onnx,mxr}")
        ->required();
    app.add_option("--http-port", o.http.port, "HTTP port (0: any free port; -1: no HTTP)")->capture_default_str();
    app.add_option("--grpc-port", o.grpc.port, "gRPC port (0: any free port; -1: no gRPC)")->capture_default_str();
    app.add_option("--host", o.http.host, "Address to listen on")->capture_default_str();
    auto* gpu = app.add_flag("--gpu", o.gpu, "Compile for the GPU (default where one is present)");
    auto* cpu = app.add_flag("--cpu", o.cpu, "Compile for the CPU");
    auto* ref = app.add_flag("--ref", o.ref, "Compile for the reference target (slow; for checking)");
    gpu->excludes(cpu)->excludes(ref);
    cpu->excludes(ref);
    app.add_option("--instances", o.instances, "Instances per model where config.pbtxt has no instance_group")
        ->check(CLI::Range(1, 256))
        ->capture_default_str();
    app.add_option("--http-threads", o.http.threads, "HTTP connections served at once")
        ->check(CLI::Range(1, 4096))
        ->capture_default_str();
    app.add_option("--max-body", o.http.max_body, "Largest request body / gRPC message in bytes")
        ->check(CLI::Range(std::size_t{1024}, std::size_t{1} << 34))
        ->capture_default_str();
    app.add_option("--drain-seconds", o.drain_seconds, "On SIGINT/SIGTERM, how long in-flight requests may take")
        ->check(CLI::Range(0, 3600))
        ->capture_default_str();
    app.add_flag("--no-cache", o.no_cache, "Do not write compiled ONNX models beside them as .mxr");
    app.add_flag("--strict-readiness", o.strict_readiness, "/v2/health/ready only when every model loaded");
    app.add_option("--port-file", o.port_file, "Write 'http=PORT grpc=PORT' to this file once serving");
    app.add_flag("--quiet", o.quiet, "No log lines on stderr");
    try
    {
        app.parse(argc, argv);
    }
    catch(const CLI::ParseError& e)
    {
        return app.exit(e) == 0 ? 0 : 2;
    }
    o.grpc.host     = o.http.host;
    o.grpc.max_message = o.http.max_body;
    return -1;
}

} // namespace server
} // namespace migraphx
