#include "server/grpc_frontend.hpp"
#include "server/error.hpp"
#include "server/http_frontend.hpp"
#include "grpc_predict_v2.grpc.pb.h"
#include <grpcpp/grpcpp.h>
#include <cstring>
#include <limits>

namespace migraphx {
namespace server {

int grpc_code(int http_status)
{
    switch(http_status)
    {
    case 400: return grpc::StatusCode::INVALID_ARGUMENT;
    case 404: return grpc::StatusCode::NOT_FOUND;
    case 413: return grpc::StatusCode::RESOURCE_EXHAUSTED;
    case 503: return grpc::StatusCode::UNAVAILABLE;
    default: return grpc::StatusCode::INTERNAL;
    }
}

namespace {

template <class To, class Field>
void append_typed(const Field& field, std::string& out, const std::string& what)
{
    for(auto v : field)
    {
        if constexpr(std::is_integral<To>{} and not std::is_same<To, bool>{})
        {
            if(v < std::numeric_limits<To>::min() or v > std::numeric_limits<To>::max())
                throw bad_request(what + ": value " + std::to_string(v) + " does not fit the datatype");
        }
        To x = static_cast<To>(v);
        char b[sizeof(To)];
        std::memcpy(b, &x, sizeof(To));
        out.append(b, sizeof(To));
    }
}

// The typed contents of an input as raw bytes of its datatype.
std::string typed_contents(const inference::InferTensorContents& c, shape::type_t t, const std::string& what)
{
    std::string out;
    switch(t)
    {
    case shape::bool_type: append_typed<bool>(c.bool_contents(), out, what); break;
    case shape::int8_type: append_typed<std::int8_t>(c.int_contents(), out, what); break;
    case shape::int16_type: append_typed<std::int16_t>(c.int_contents(), out, what); break;
    case shape::int32_type: append_typed<std::int32_t>(c.int_contents(), out, what); break;
    case shape::int64_type: append_typed<std::int64_t>(c.int64_contents(), out, what); break;
    case shape::uint8_type: append_typed<std::uint8_t>(c.uint_contents(), out, what); break;
    case shape::uint16_type: append_typed<std::uint16_t>(c.uint_contents(), out, what); break;
    case shape::uint32_type: append_typed<std::uint32_t>(c.uint_contents(), out, what); break;
    case shape::uint64_type: append_typed<std::uint64_t>(c.uint64_contents(), out, what); break;
    case shape::float_type: append_typed<float>(c.fp32_contents(), out, what); break;
    case shape::double_type: append_typed<double>(c.fp64_contents(), out, what); break;
    default: throw bad_request(what + ": " + datatype_name(t) + " data must come in raw_input_contents");
    }
    return out;
}

grpc::Status to_status(const server_error& e)
{
    return {static_cast<grpc::StatusCode>(grpc_code(e.status)), e.what()};
}

} // namespace

// A ModelInferRequest as the server's request (shared with the tests).
infer_request from_proto(const inference::ModelInferRequest& p)
{
    infer_request r;
    r.model   = p.model_name();
    r.version = p.model_version();
    r.id      = p.id();
    bool raw  = p.raw_input_contents_size() > 0;
    if(raw and p.raw_input_contents_size() != p.inputs_size())
        throw bad_request("raw_input_contents has " + std::to_string(p.raw_input_contents_size()) + " entries for " +
                          std::to_string(p.inputs_size()) + " inputs");
    for(int i = 0; i < p.inputs_size(); i++)
    {
        const auto& in = p.inputs(i);
        tensor t;
        t.name           = in.name();
        std::string what = "input '" + t.name + "'";
        t.type           = parse_datatype(in.datatype());
        t.shape.assign(in.shape().begin(), in.shape().end());
        auto nbytes = element_count(t.shape) * shape::type_size(t.type);
        if(raw)
        {
            if(in.has_contents())
                throw bad_request(what + ": contents and raw_input_contents both given");
            t.data = p.raw_input_contents(i);
        }
        else
            t.data = typed_contents(in.contents(), t.type, what);
        if(t.data.size() != nbytes)
            throw bad_request(what + ": " + std::to_string(t.data.size()) + " bytes of data, the shape and datatype need " +
                              std::to_string(nbytes));
        r.inputs.push_back(std::move(t));
    }
    for(const auto& o : p.outputs())
        r.outputs.push_back({o.name(), true});
    return r;
}

struct grpc_frontend::impl final : inference::GRPCInferenceService::Service
{
    repository& repo;
    metrics& stats;
    grpc_options options;
    std::unique_ptr<grpc::Server> server;

    impl(repository& r, metrics& s, const grpc_options& o) : repo(r), stats(s), options(o) {}

    template <class F>
    grpc::Status guard(F f)
    {
        try
        {
            f();
            return grpc::Status::OK;
        }
        catch(const server_error& e)
        {
            stats.frontend_error("grpc", e.status);
            return to_status(e);
        }
        catch(const std::exception& e)
        {
            stats.frontend_error("grpc", 500);
            return {grpc::StatusCode::INTERNAL, e.what()};
        }
    }

    grpc::Status ServerLive(grpc::ServerContext*, const inference::ServerLiveRequest*,
                            inference::ServerLiveResponse* r) override
    {
        r->set_live(repo.live());
        return grpc::Status::OK;
    }
    grpc::Status ServerReady(grpc::ServerContext*, const inference::ServerReadyRequest*,
                             inference::ServerReadyResponse* r) override
    {
        r->set_ready(repo.ready());
        return grpc::Status::OK;
    }
    grpc::Status ModelReady(grpc::ServerContext*, const inference::ModelReadyRequest* q,
                            inference::ModelReadyResponse* r) override
    {
        return guard([&] { r->set_ready(repo.find(q->name(), q->version()).ready() and repo.ready()); });
    }
    grpc::Status ServerMetadata(grpc::ServerContext*, const inference::ServerMetadataRequest*,
                                inference::ServerMetadataResponse* r) override
    {
        r->set_name(server_name());
        r->set_version(server_version());
        for(const auto& e : server_extensions())
            r->add_extensions(e);
        return grpc::Status::OK;
    }
    grpc::Status ModelMetadata(grpc::ServerContext*, const inference::ModelMetadataRequest* q,
                               inference::ModelMetadataResponse* r) override
    {
        return guard([&] {
            const auto& e = repo.find(q->name(), q->version());
            if(not e.ready())
                throw unavailable("model '" + e.name + "' version '" + e.version + "' is not ready: " + e.error);
            const auto& m = e.sched->get_model();
            r->set_name(m.name());
            for(const auto& v : repo.versions(m.name()))
                r->add_versions(v);
            r->set_platform("migraphx_" + m.source());
            auto add = [](const tensor_info& t, inference::ModelMetadataResponse::TensorMetadata* d) {
                d->set_name(t.name);
                d->set_datatype(datatype_name(t.type));
                for(auto x : t.shape)
                    d->add_shape(x);
            };
            for(const auto& t : m.inputs())
                add(t, r->add_inputs());
            for(const auto& t : m.outputs())
                add(t, r->add_outputs());
        });
    }
    grpc::Status ModelInfer(grpc::ServerContext*, const inference::ModelInferRequest* q,
                            inference::ModelInferResponse* r) override
    {
        return guard([&] {
            repo.find(q->model_name(), q->model_version()); // an unknown model is NOT_FOUND first
            auto resp = repo.infer(from_proto(*q)).get();
            r->set_model_name(resp.model);
            r->set_model_version(resp.version);
            r->set_id(resp.id);
            for(auto& t : resp.outputs)
            {
                auto* o = r->add_outputs();
                o->set_name(t.name);
                o->set_datatype(datatype_name(t.type));
                for(auto x : t.shape)
                    o->add_shape(x);
                r->add_raw_output_contents(std::move(t.data));
            }
        });
    }
};

grpc_frontend::grpc_frontend(repository& repo, metrics& stats, const grpc_options& options)
    : m_impl(std::make_unique<impl>(repo, stats, options))
{
}

grpc_frontend::~grpc_frontend()
{
    if(m_impl->server)
        stop(std::chrono::milliseconds(0));
}

int grpc_frontend::start()
{
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort(m_impl->options.host + ":" + std::to_string(m_impl->options.port),
                       grpc::InsecureServerCredentials(), &port);
    b.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0); // a port in use is an error, not shared
    b.SetMaxReceiveMessageSize(static_cast<int>(std::min<std::size_t>(m_impl->options.max_message, INT32_MAX)));
    b.SetMaxSendMessageSize(INT32_MAX);
    b.RegisterService(m_impl.get());
    m_impl->server = b.BuildAndStart();
    if(not m_impl->server or port == 0)
        throw std::runtime_error("cannot bind gRPC port " + std::to_string(m_impl->options.port) + " on " +
                                 m_impl->options.host);
    return port;
}

void grpc_frontend::stop(std::chrono::milliseconds drain)
{
    if(not m_impl->server)
        return;
    m_impl->server->Shutdown(std::chrono::system_clock::now() + drain);
    m_impl->server->Wait();
    m_impl->server.reset();
}

} // namespace server
} // namespace migraphx
