#ifndef MIGRAPHX_SERVER_HTTP_FRONTEND_HPP
#define MIGRAPHX_SERVER_HTTP_FRONTEND_HPP

// The HTTP/REST front end (cpp-httplib): the v2 endpoints, the binary-tensor extension and
// /metrics.
#include "server/metrics.hpp"
#include "server/repository.hpp"
#include <memory>
#include <string>

namespace httplib {
class Server;
}

namespace migraphx {
namespace server {

struct http_options
{
    std::string host = "0.0.0.0";
    int port         = 8000; // 0: any free port
    std::size_t threads = 64; // connections served at once
    std::size_t max_body = 64u << 20;
    int keep_alive_seconds = 5;
};

class http_frontend
{
    public:
    http_frontend(repository& repo, metrics& stats, const http_options& options);
    ~http_frontend();
    /// Binds the port; returns the port bound (throws when it cannot).
    int bind();
    /// Serves until stop(); returns after the requests in flight are answered.
    void run();
    void stop();

    private:
    void routes();
    repository& m_repo;
    metrics& m_stats;
    http_options m_options;
    std::unique_ptr<httplib::Server> m_server;
};

/// The JSON of GET /v2 and GET /v2/models/<name>[/versions/<v>] (shared with the tests).
std::string server_metadata_json();
std::string model_metadata_json(const repository& repo, const model_entry& e);

/// The server's name and version in metadata.
const char* server_name();
const char* server_version();
/// The protocol extensions the server implements.
std::vector<std::string> server_extensions();

} // namespace server
} // namespace migraphx

#endif
