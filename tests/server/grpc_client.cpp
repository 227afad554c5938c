// A small gRPC client of inference.GRPCInferenceService for the end-to-end tests:
//   migx_server_grpc_client HOST:PORT live|ready|server-metadata
//   migx_server_grpc_client HOST:PORT model-ready|model-metadata NAME [VERSION]
//   migx_server_grpc_client HOST:PORT infer NAME VERSION INPUT DATATYPE D1,D2,.. FILE [--typed]
//        [--output NAME]... [--out-dir DIR] [--raw-count N]
// prints the response as one JSON object on stdout (infer: outputs' name, datatype, shape and
// data as numbers; with --out-dir also each output's raw bytes in DIR/<name>.bin), or
// {"code": N, "message": "..."} and exit 3 when the call fails. FILE holds the input's raw
// bytes; --typed sends them in InferTensorContents instead of raw_input_contents;
// --raw-count N sends N raw_input_contents entries (a malformed request).
#include "grpc_predict_v2.grpc.pb.h"
#include <grpcpp/grpcpp.h>
#include <nlohmann/json.hpp>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

using json = nlohmann::json;

namespace {

int fail(const grpc::Status& s)
{
    std::cout << json{{"code", static_cast<int>(s.error_code())}, {"message", s.error_message()}}.dump() << std::endl;
    return 3;
}

std::string read_file(const std::string& path)
{
    std::ifstream f(path, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

template <class T>
std::vector<T> as(const std::string& raw)
{
    std::vector<T> v(raw.size() / sizeof(T));
    std::memcpy(v.data(), raw.data(), v.size() * sizeof(T));
    return v;
}

json numbers(const std::string& dtype, const std::string& raw)
{
    if(dtype == "FP32")
        return as<float>(raw);
    if(dtype == "FP64")
        return as<double>(raw);
    if(dtype == "INT64")
        return as<std::int64_t>(raw);
    if(dtype == "INT32")
        return as<std::int32_t>(raw);
    return json::array();
}

} // namespace

int main(int argc, char** argv)
{
    if(argc < 3)
    {
        std::cerr << "usage: migx_server_grpc_client HOST:PORT COMMAND ...\n";
        return 2;
    }
    std::string cmd = argv[2];
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    args.SetMaxSendMessageSize(-1);
    auto channel = grpc::CreateCustomChannel(argv[1], grpc::InsecureChannelCredentials(), args);
    auto stub    = inference::GRPCInferenceService::NewStub(channel);
    auto ctx     = [] {
        auto c = std::make_unique<grpc::ClientContext>();
        c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
        return c;
    };
    if(cmd == "live")
    {
        inference::ServerLiveResponse r;
        auto s = stub->ServerLive(ctx().get(), {}, &r);
        if(not s.ok())
            return fail(s);
        std::cout << json{{"live", r.live()}}.dump() << std::endl;
    }
    else if(cmd == "ready")
    {
        inference::ServerReadyResponse r;
        auto s = stub->ServerReady(ctx().get(), {}, &r);
        if(not s.ok())
            return fail(s);
        std::cout << json{{"ready", r.ready()}}.dump() << std::endl;
    }
    else if(cmd == "server-metadata")
    {
        inference::ServerMetadataResponse r;
        auto s = stub->ServerMetadata(ctx().get(), {}, &r);
        if(not s.ok())
            return fail(s);
        std::cout << json{{"name", r.name()},
                          {"version", r.version()},
                          {"extensions", std::vector<std::string>(r.extensions().begin(), r.extensions().end())}}
                         .dump()
                  << std::endl;
    }
    else if((cmd == "model-ready" or cmd == "model-metadata") and argc >= 4)
    {
        std::string version = argc >= 5 ? argv[4] : "";
        if(cmd == "model-ready")
        {
            inference::ModelReadyRequest q;
            q.set_name(argv[3]);
            q.set_version(version);
            inference::ModelReadyResponse r;
            auto s = stub->ModelReady(ctx().get(), q, &r);
            if(not s.ok())
                return fail(s);
            std::cout << json{{"ready", r.ready()}}.dump() << std::endl;
        }
        else
        {
            inference::ModelMetadataRequest q;
            q.set_name(argv[3]);
            q.set_version(version);
            inference::ModelMetadataResponse r;
            auto s = stub->ModelMetadata(ctx().get(), q, &r);
            if(not s.ok())
                return fail(s);
            auto tensors = [](const auto& ts) {
                json a = json::array();
                for(const auto& t : ts)
                    a.push_back({{"name", t.name()},
                                 {"datatype", t.datatype()},
                                 {"shape", std::vector<std::int64_t>(t.shape().begin(), t.shape().end())}});
                return a;
            };
            std::cout << json{{"name", r.name()},
                              {"versions", std::vector<std::string>(r.versions().begin(), r.versions().end())},
                              {"platform", r.platform()},
                              {"inputs", tensors(r.inputs())},
                              {"outputs", tensors(r.outputs())}}
                             .dump()
                      << std::endl;
        }
    }
    else if(cmd == "infer" and argc >= 9)
    {
        inference::ModelInferRequest q;
        q.set_model_name(argv[3]);
        q.set_model_version(argv[4]);
        q.set_id("grpc-test");
        auto* in = q.add_inputs();
        in->set_name(argv[5]);
        std::string dtype = argv[6];
        in->set_datatype(dtype);
        std::stringstream dims(argv[7]);
        for(std::string d; std::getline(dims, d, ',');)
            in->add_shape(std::stoll(d));
        std::string raw = read_file(argv[8]);
        bool typed      = false;
        int raw_count   = 1;
        std::string out_dir;
        for(int i = 9; i < argc; i++)
        {
            std::string a = argv[i];
            if(a == "--typed")
                typed = true;
            else if(a == "--output" and i + 1 < argc)
                q.add_outputs()->set_name(argv[++i]);
            else if(a == "--out-dir" and i + 1 < argc)
                out_dir = argv[++i];
            else if(a == "--raw-count" and i + 1 < argc)
                raw_count = std::stoi(argv[++i]);
        }
        if(typed and dtype == "FP32")
            for(auto x : as<float>(raw))
                in->mutable_contents()->add_fp32_contents(x);
        else if(typed and dtype == "INT64")
            for(auto x : as<std::int64_t>(raw))
                in->mutable_contents()->add_int64_contents(x);
        else
            for(int i = 0; i < raw_count; i++)
                q.add_raw_input_contents(raw);
        inference::ModelInferResponse r;
        auto s = stub->ModelInfer(ctx().get(), q, &r);
        if(not s.ok())
            return fail(s);
        json outs = json::array();
        for(int i = 0; i < r.outputs_size(); i++)
        {
            const auto& o = r.outputs(i);
            std::string bytes = i < r.raw_output_contents_size() ? r.raw_output_contents(i) : "";
            if(not out_dir.empty())
                std::ofstream(out_dir + "/" + o.name() + ".bin", std::ios::binary) << bytes;
            outs.push_back({{"name", o.name()},
                            {"datatype", o.datatype()},
                            {"shape", std::vector<std::int64_t>(o.shape().begin(), o.shape().end())},
                            {"data", numbers(o.datatype(), bytes)}});
        }
        std::cout << json{{"model_name", r.model_name()},
                          {"model_version", r.model_version()},
                          {"id", r.id()},
                          {"outputs", outs}}
                         .dump()
                  << std::endl;
    }
    else
    {
        std::cerr << "migx_server_grpc_client: bad command line\n";
        return 2;
    }
    return 0;
}
