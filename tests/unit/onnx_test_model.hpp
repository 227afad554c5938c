#ifndef MIGX_TESTS_UNIT_ONNX_TEST_MODEL_HPP
#define MIGX_TESTS_UNIT_ONNX_TEST_MODEL_HPP

// Builds small ONNX models in C++ for the parser's unit tests.

#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/ref/target.hpp>
#include <onnx/onnx_pb.h>
#include <cstdint>
#include <string>
#include <vector>

namespace migx_test {

struct onnx_model
{
    onnx::ModelProto m;

    explicit onnx_model(std::int64_t opset = 17)
    {
        m.set_ir_version(8);
        auto* o = m.add_opset_import();
        o->set_domain("");
        o->set_version(opset);
        m.mutable_graph()->set_name("test");
    }
    onnx::GraphProto& graph() { return *m.mutable_graph(); }

    /// dims: a value >= 0 is fixed; -1 is the symbolic dim "N"; -2 an unnamed unknown dim.
    onnx::ValueInfoProto& input(const std::string& name, int type, const std::vector<std::int64_t>& dims)
    {
        auto* i = graph().add_input();
        i->set_name(name);
        auto* tt = i->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(type);
        auto* s = tt->mutable_shape();
        for(auto d : dims)
        {
            auto* dim = s->add_dim();
            if(d >= 0)
                dim->set_dim_value(d);
            else if(d == -1)
                dim->set_dim_param("N");
        }
        return *i;
    }
    void output(const std::string& name) { graph().add_output()->set_name(name); }

    onnx::NodeProto& node(const std::string& op,
                          const std::vector<std::string>& inputs,
                          const std::vector<std::string>& outputs,
                          const std::string& name = "")
    {
        auto* n = graph().add_node();
        n->set_op_type(op);
        n->set_name(name.empty() ? op + "_" + std::to_string(graph().node_size()) : name);
        for(const auto& i : inputs)
            n->add_input(i);
        for(const auto& o : outputs)
            n->add_output(o);
        return *n;
    }

    static void attr(onnx::NodeProto& n, const std::string& name, std::int64_t v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, float v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const std::string& v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::STRING);
        a->set_s(v);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for(auto x : v)
            a->add_ints(x);
    }
    static void attr(onnx::NodeProto& n, const std::string& name, const onnx::TensorProto& t)
    {
        auto* a = n.add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::TENSOR);
        *a->mutable_t() = t;
    }

    static onnx::TensorProto tensor(const std::string& name,
                                    const std::vector<std::int64_t>& dims,
                                    const std::vector<float>& v)
    {
        onnx::TensorProto t;
        t.set_name(name);
        t.set_data_type(onnx::TensorProto::FLOAT);
        for(auto d : dims)
            t.add_dims(d);
        for(auto x : v)
            t.add_float_data(x);
        return t;
    }
    static onnx::TensorProto int_tensor(const std::string& name,
                                        const std::vector<std::int64_t>& dims,
                                        const std::vector<std::int64_t>& v)
    {
        onnx::TensorProto t;
        t.set_name(name);
        t.set_data_type(onnx::TensorProto::INT64);
        for(auto d : dims)
            t.add_dims(d);
        for(auto x : v)
            t.add_int64_data(x);
        return t;
    }
    void initializer(const onnx::TensorProto& t) { *graph().add_initializer() = t; }

    std::string bytes() const { return m.SerializeAsString(); }
    migraphx::program parse(const migraphx::onnx_options& o = {}) const
    {
        return migraphx::parse_onnx_buffer(bytes(), o);
    }
};

/// Compiles p for ref and runs it with float inputs.
inline std::vector<float> run(migraphx::program p, const std::vector<std::pair<std::string, std::vector<float>>>& inputs)
{
    p.compile(migraphx::ref::target{});
    migraphx::parameter_map params;
    auto shapes = p.get_parameter_shapes();
    std::vector<std::vector<float>> keep;
    keep.reserve(inputs.size());
    for(const auto& [name, v] : inputs)
    {
        keep.push_back(v);
        params[name] = migraphx::argument{shapes.at(name), keep.back().data()};
    }
    return p.eval(params).at(0).to_vector<float>();
}

} // namespace migx_test

#endif
