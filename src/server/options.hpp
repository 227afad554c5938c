#ifndef MIGRAPHX_SERVER_OPTIONS_HPP
#define MIGRAPHX_SERVER_OPTIONS_HPP

// migraphx-server's command line.
#include "server/grpc_frontend.hpp"
#include "server/http_frontend.hpp"
#include "server/model.hpp"
#include <string>
#include <vector>

namespace migraphx {
namespace server {

struct server_options
{
    std::string model_repository;
    http_options http;
    grpc_options grpc;
    bool gpu = false;
    bool cpu = false;
    bool ref = false;
    std::size_t instances = 1;
    bool no_cache = false;
    bool strict_readiness = false;
    int drain_seconds = 30;
    std::string port_file; // write "http=<port> grpc=<port>" here once serving
    bool quiet = false;

    /// The target name the flags pick ("gpu" where present by default, else "cpu").
    std::string target() const;
};

/// Parses argv; returns -1 to go on, or the exit code (0 after --help/--version, 2 on a usage
/// error, with the message printed).
int parse_options(int argc, char** argv, server_options& o);

} // namespace server
} // namespace migraphx

#endif
