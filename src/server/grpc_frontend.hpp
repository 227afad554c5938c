#ifndef MIGRAPHX_SERVER_GRPC_FRONTEND_HPP
#define MIGRAPHX_SERVER_GRPC_FRONTEND_HPP

// The gRPC front end: inference.GRPCInferenceService (grpc_predict_v2.proto) on gRPC++'s
// synchronous server.
#include "server/metrics.hpp"
#include "server/repository.hpp"
#include <chrono>
#include <memory>
#include <string>

namespace inference {
class ModelInferRequest;
}

namespace migraphx {
namespace server {

struct grpc_options
{
    std::string host = "0.0.0.0";
    int port         = 8001; // 0: any free port
    std::size_t max_message = 64u << 20;
};

class grpc_frontend
{
    public:
    grpc_frontend(repository& repo, metrics& stats, const grpc_options& options);
    ~grpc_frontend();
    /// Starts serving on its own threads; returns the port bound (throws when it cannot).
    int start();
    /// Stops taking calls and waits up to `drain` for the calls in flight.
    void stop(std::chrono::milliseconds drain);

    struct impl;

    private:
    std::unique_ptr<impl> m_impl;
};

/// The HTTP-status of a server_error as a gRPC status code (400 INVALID_ARGUMENT, 404 NOT_FOUND,
/// 503 UNAVAILABLE, else INTERNAL).
int grpc_code(int http_status);

/// A ModelInferRequest as the server's request (raw_input_contents or typed contents); throws
/// server_error 400.
infer_request from_proto(const inference::ModelInferRequest& p);

} // namespace server
} // namespace migraphx

#endif
