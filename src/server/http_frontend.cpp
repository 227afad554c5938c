#include "server/http_frontend.hpp"
#include "server/error.hpp"
#include "server/json_codec.hpp"
#include <httplib.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>

#ifndef MIGRAPHX_VERSION_STRING
#define MIGRAPHX_VERSION_STRING "0"
#endif

namespace migraphx {
namespace server {

using json = nlohmann::json;

const char* server_name() { return "migraphx-server"; }
const char* server_version() { return MIGRAPHX_VERSION_STRING; }
std::vector<std::string> server_extensions() { return {"binary_tensor_data", "model_repository"}; }

std::string server_metadata_json()
{
    return json{{"name", server_name()}, {"version", server_version()}, {"extensions", server_extensions()}}.dump();
}

std::string model_metadata_json(const repository& repo, const model_entry& e)
{
    if(not e.ready())
        throw unavailable("model '" + e.name + "' version '" + e.version + "' is not ready: " + e.error);
    const auto& m = e.sched->get_model();
    auto tensors  = [](const std::vector<tensor_info>& ts) {
        json a = json::array();
        for(const auto& t : ts)
            a.push_back({{"name", t.name}, {"datatype", datatype_name(t.type)}, {"shape", t.shape}});
        return a;
    };
    json j{{"name", m.name()},
           {"versions", repo.versions(m.name())},
           {"platform", "migraphx_" + m.source()},
           {"inputs", tensors(m.inputs())},
           {"outputs", tensors(m.outputs())}};
    return j.dump();
}

namespace {

void send_json(httplib::Response& res, int status, const std::string& body)
{
    res.status = status;
    res.set_content(body, "application/json");
}

void send_error(httplib::Response& res, int status, const std::string& msg)
{
    send_json(res, status, error_json(msg));
}

std::string match(const httplib::Request& req, std::size_t i)
{
    return i < req.matches.size() ? req.matches[static_cast<int>(i)].str() : std::string{};
}

std::size_t header_length(const httplib::Request& req)
{
    if(not req.has_header("Inference-Header-Content-Length"))
        return no_header_length;
    auto v = req.get_header_value("Inference-Header-Content-Length");
    if(v.empty() or v.size() > 18 or v.find_first_not_of("0123456789") != std::string::npos)
        throw bad_request("Inference-Header-Content-Length must be a non-negative integer");
    return static_cast<std::size_t>(std::stoull(v));
}

} // namespace

http_frontend::http_frontend(repository& repo, metrics& stats, const http_options& options)
    : m_repo(repo), m_stats(stats), m_options(options), m_server(std::make_unique<httplib::Server>())
{
    routes();
}

http_frontend::~http_frontend() = default;

void http_frontend::routes()
{
    auto& s       = *m_server;
    auto threads  = m_options.threads;
    s.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    s.set_payload_max_length(m_options.max_body);
    s.set_keep_alive_max_count(1u << 30);
    s.set_keep_alive_timeout(m_options.keep_alive_seconds);
    s.set_read_timeout(30, 0);
    s.set_write_timeout(30, 0);
    s.set_tcp_nodelay(true);
    // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, with which a second server
    // on a port in use starts silently and shares its connections
    s.set_socket_options([](socket_t sock) {
        int yes = 1;
        setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, reinterpret_cast<void*>(&yes), sizeof(yes));
    });

    // Every handler: a server_error answers its status, anything else 500; nothing escapes.
    auto guard = [this](auto f) {
        return [this, f](const httplib::Request& req, httplib::Response& res) {
            try
            {
                f(req, res);
            }
            catch(const server_error& e)
            {
                m_stats.frontend_error("http", e.status);
                send_error(res, e.status, e.what());
            }
            catch(const std::exception& e)
            {
                m_stats.frontend_error("http", 500);
                send_error(res, 500, e.what());
            }
            catch(...)
            {
                m_stats.frontend_error("http", 500);
                send_error(res, 500, "unknown error");
            }
        };
    };

    s.Get("/v2/health/live", guard([this](const httplib::Request&, httplib::Response& res) {
              send_json(res, 200, json{{"live", m_repo.live()}}.dump());
          }));
    s.Get("/v2/health/ready", guard([this](const httplib::Request&, httplib::Response& res) {
              bool ready = m_repo.ready();
              // the protocol: 200 means true, a 4xx status false
              send_json(res, ready ? 200 : 400, json{{"ready", ready}}.dump());
          }));
    s.Get("/v2", guard([](const httplib::Request&, httplib::Response& res) {
              send_json(res, 200, server_metadata_json());
          }));
    const std::string model = R"(/v2/models/([^/]+)(?:/versions/([^/]+))?)";
    s.Get(model, guard([this](const httplib::Request& req, httplib::Response& res) {
              const auto& e = m_repo.find(match(req, 1), match(req, 2));
              send_json(res, 200, model_metadata_json(m_repo, e));
          }));
    s.Get(model + "/ready", guard([this](const httplib::Request& req, httplib::Response& res) {
              const auto& e = m_repo.find(match(req, 1), match(req, 2));
              bool ready    = e.ready() and m_repo.ready();
              send_json(res, ready ? 200 : 400, json{{"name", e.name}, {"ready", ready}}.dump());
          }));
    s.Post(model + "/infer", guard([this](const httplib::Request& req, httplib::Response& res) {
               m_repo.find(match(req, 1), match(req, 2)); // an unknown model is 404 whatever the body
               auto r    = parse_infer_request(req.body, header_length(req));
               r.model   = match(req, 1);
               r.version = match(req, 2);
               auto f    = m_repo.infer(std::move(r));
               auto resp = f.get();
               std::size_t json_len = 0;
               auto body = write_infer_response(resp, json_len);
               res.status = 200;
               if(json_len != body.size())
               {
                   res.set_header("Inference-Header-Content-Length", std::to_string(json_len));
                   res.set_content(body, "application/octet-stream");
               }
               else
                   res.set_content(body, "application/json");
           }));
    s.Post("/v2/repository/index", guard([this](const httplib::Request&, httplib::Response& res) {
               json a = json::array();
               for(const auto* e : m_repo.entries())
               {
                   json m{{"name", e->name}, {"version", e->version}, {"state", e->ready() ? "READY" : "UNAVAILABLE"}};
                   if(not e->ready())
                       m["reason"] = e->error;
                   a.push_back(m);
               }
               send_json(res, 200, a.dump());
           }));
    s.Get("/metrics", guard([this](const httplib::Request&, httplib::Response& res) {
              res.status = 200;
              res.set_content(m_stats.prometheus_text(), "text/plain; version=0.0.4");
          }));

    // Statuses httplib sets itself (no route, body too large, unparsable request) get the
    // protocol's error JSON too; a handler's own error body is kept.
    s.set_error_handler(httplib::Server::HandlerWithResponse([this](const httplib::Request& req, httplib::Response& res) {
        if(not res.body.empty())
            return httplib::Server::HandlerResponse::Unhandled;
        std::string msg;
        if(res.status == 413)
            msg = "request body larger than " + std::to_string(m_options.max_body) + " bytes (--max-body)";
        else if(res.status == 404)
            msg = "no endpoint " + req.method + " " + req.path;
        else
            msg = "HTTP status " + std::to_string(res.status);
        m_stats.frontend_error("http", res.status);
        res.set_content(error_json(msg), "application/json");
        return httplib::Server::HandlerResponse::Handled;
    }));
    s.set_exception_handler([](const httplib::Request&, httplib::Response& res, std::exception_ptr) {
        send_error(res, 500, "internal error");
    });
}

int http_frontend::bind()
{
    if(m_options.port == 0)
    {
        int port = m_server->bind_to_any_port(m_options.host);
        if(port <= 0)
            throw std::runtime_error("cannot bind an HTTP port on " + m_options.host);
        return port;
    }
    if(not m_server->bind_to_port(m_options.host, m_options.port))
        throw std::runtime_error("cannot bind HTTP port " + std::to_string(m_options.port) + " on " + m_options.host);
    return m_options.port;
}

void http_frontend::run() { m_server->listen_after_bind(); }

void http_frontend::stop() { m_server->stop(); }

} // namespace server
} // namespace migraphx
