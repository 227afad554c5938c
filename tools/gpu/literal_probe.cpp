// Issue 6 probe: programs whose only outputs are constants (a literal, a broadcast literal),
// compiled for gpu and run, the first one first thing in a fresh process, as the ONNX conformance
// runner does. Prints "OK" or the values it got; exit 1 on a mismatch. Public API only, so one binary
// runs against any libmigraphx (old and new). Usage: literal_probe on|off  (offload_copy)
// Build: g++ -std=c++17 -Iinclude tools/gpu/literal_probe.cpp -Lbuild-gpu/src -lmigraphx
#include <migraphx/literal.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#include <iostream>
#include <string>
#include <vector>

namespace {

/// Compiles and runs a program whose outputs are the given constants; true when they come back.
bool check(migraphx::program p, const std::vector<std::vector<float>>& want, bool offload)
{
    auto t = migraphx::get_target("gpu");
    migraphx::compile_options o;
    o.offload_copy = offload;
    p.compile(t, o);
    migraphx::parameter_map params;
    if(not offload)
        for(const auto& [name, s] : p.get_outputs())
            params[name] = t.allocate(s);
    auto r  = p.eval(params);
    bool ok = r.size() == want.size();
    for(std::size_t i = 0; ok and i < r.size(); i++)
    {
        auto got = (offload ? r[i] : t.copy_from(r[i])).to_vector<float>();
        if(got != want[i])
        {
            ok = false;
            std::cout << "output " << i << " got";
            for(auto x : got)
                std::cout << " " << x;
            std::cout << "\n";
        }
    }
    return ok;
}

} // namespace

int main(int argc, char** argv)
{
    bool offload = argc < 2 or std::string(argv[1]) != "off";
    using migraphx::shape;
    // First: one literal, the only output (on the H200 the library before the fix returned zeros
    // here, in a fresh process, with offload_copy=true).
    migraphx::program p;
    std::vector<float> v(25);
    for(std::size_t i = 0; i < v.size(); i++)
        v[i] = 1.0f + static_cast<float>(i);
    p.get_main_module()->add_return({p.get_main_module()->add_literal(migraphx::literal{shape{shape::float_type, {5, 5}}, v})});
    bool ok = check(p, {v}, offload);
    // Then: a broadcast literal (a view of the device copy) beside a literal.
    migraphx::program q;
    auto* m = q.get_main_module();
    auto b  = m->add_instruction(migraphx::make_op("multibroadcast", {{"out_lens", {2, 3}}}),
                                m->add_literal(migraphx::literal{shape{shape::float_type}, std::vector<float>{7}}));
    m->add_return({b, m->add_literal(migraphx::literal{shape{shape::float_type, {5, 5}}, v})});
    ok = check(q, {std::vector<float>(6, 7.0f), v}, offload) and ok;
    std::cout << "literal_probe offload_copy=" << (offload ? "true" : "false") << ": " << (ok ? "OK" : "WRONG") << "\n";
    return ok ? 0 : 1;
}
