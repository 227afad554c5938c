#ifndef MIGRAPHX_SERVER_ERROR_HPP
#define MIGRAPHX_SERVER_ERROR_HPP

// A request the server refuses, with the HTTP status it answers (gRPC maps it, grpc_frontend.cpp).
#include <stdexcept>
#include <string>

namespace migraphx {
namespace server {

struct server_error : std::runtime_error
{
    int status;
    server_error(int http_status, const std::string& msg) : std::runtime_error(msg), status(http_status) {}
};

inline server_error bad_request(const std::string& msg) { return {400, msg}; }
inline server_error not_found(const std::string& msg) { return {404, msg}; }
inline server_error unavailable(const std::string& msg) { return {503, msg}; }

} // namespace server
} // namespace migraphx

#endif
