#include "serialize/program_value.hpp"
#include "ir/target_availability.hpp"
#include <migraphx/errors.hpp>
#include <migraphx/make_op.hpp>
#include <migraphx/reflect.hpp>
#include <migraphx/target.hpp>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <optional>
#include <unordered_map>
#include <unordered_set>
#include "ir/builtin.hpp"
#include "ir/last_use.hpp"
#include "ir/program_impl.hpp"
#include "serialize/dynamic_value.hpp"
#include "serialize/json_value.hpp"
#include "serialize/op_serializer.hpp"

namespace migraphx {
namespace serialize {

namespace {

value shapes_to_value(const std::vector<shape>& shapes)
{
    value::array a;
    for(const auto& s : shapes)
        a.push_back(shape_to_value(s));
    return value(std::move(a));
}

value strings_to_value(const std::vector<std::string>& xs)
{
    value::array a;
    for(const auto& x : xs)
        a.push_back(x);
    return value(std::move(a));
}

// "data" (msgpack: raw bytes, aligned in the file by value_to_msgpack) or "base64" (json).
void add_literal_bytes(value::object& o, const literal& l, literal_encoding enc)
{
    const auto& s = l.get_shape();
    if(s.type() == shape::tuple_type or s.dynamic())
        MIGRAPHX_THROW("save: cannot save a literal of tuple or dynamic shape");
    auto n = l.empty() ? 0 : s.bytes();
    if(enc == literal_encoding::raw)
        o.emplace_back("data", std::string(l.data(), n));
    else
        o.emplace_back("base64", base64_encode(l.data(), n));
}

value instruction_to_value(const instruction& ins,
                           const std::unordered_map<const instruction*, std::size_t>& index,
                           literal_encoding enc)
{
    value::object o;
    o.emplace_back("op", ins.name());
    std::optional<literal> held; // bytes an op keeps outside its attributes (op_serializer.hpp)
    if(ins.name() == "@literal")
        add_literal_bytes(o, ins.get_literal(), enc);
    else if(ins.name() != "@return")
    {
        const auto* s = find_op_serializer(ins.name());
        o.emplace_back("attrs", s != nullptr and s->save ? s->save(ins.get_operator()) : ins.get_operator().to_value());
        if(s != nullptr and s->get_literal)
            held = s->get_literal(ins.get_operator());
        if(s != nullptr and s->literal_required and not held)
            MIGRAPHX_THROW("save: the operator '" + ins.name() + "' holds no data to save");
    }
    value::array inputs;
    for(auto in : ins.inputs())
    {
        auto it = index.find(&*in);
        if(it == index.end())
            MIGRAPHX_THROW("save: an instruction's input is in no module of the program");
        inputs.push_back(it->second);
    }
    o.emplace_back("inputs", value(std::move(inputs)));
    value::array mods;
    for(const auto* m : ins.module_inputs())
        mods.push_back(m->name());
    o.emplace_back("modules", value(std::move(mods)));
    o.emplace_back("shape", shape_to_value(ins.get_shape()));
    if(held)
    {
        // Its own shape (a binary's is not the instruction's); the bytes as @literal's are.
        value::object lo;
        lo.emplace_back("shape", shape_to_value(held->get_shape()));
        add_literal_bytes(lo, *held, enc);
        o.emplace_back("literal", value(std::move(lo)));
    }
    return value(std::move(o));
}

// ---- reading: every access says where it failed, with short messages (no dumps of big values)

// Whether v is bigger than budget, counting a byte per scalar and per character of strings and
// keys (about its JSON size, without writing it out: this runs for every instruction).
bool exceeds(const value& v, std::size_t& budget)
{
    auto take = [&](std::size_t n) {
        if(n > budget)
            return true;
        budget -= n;
        return false;
    };
    if(v.is_string())
        return take(v.get_string().size() + 2);
    if(v.is_array())
    {
        for(const auto& x : v.get_array())
            if(take(1) or exceeds(x, budget))
                return true;
        return take(2);
    }
    if(v.is_object())
    {
        for(const auto& m : v.get_object())
            if(take(m.first.size() + 4) or exceeds(m.second, budget))
                return true;
        return take(2);
    }
    return take(1);
}

struct reader
{
    std::string where;

    [[noreturn]] void fail(const std::string& what) const { MIGRAPHX_THROW(where + ": " + what); }

    const value& at(const value& obj, const char* key) const
    {
        if(not obj.is_object())
            fail("expected an object");
        const auto* f = obj.find(key);
        if(f == nullptr)
            fail(std::string("missing '") + key + "'");
        return *f;
    }
    const value::array& array(const value& obj, const char* key) const
    {
        const auto& v = at(obj, key);
        if(not v.is_array())
            fail(std::string("'") + key + "' is not an array");
        return v.get_array();
    }
    const std::string& string(const value& v, const char* what) const
    {
        if(not v.is_string())
            fail(std::string(what) + " is not a string");
        return v.get_string();
    }
    const std::string& string(const value& obj, const char* key, int) const { return string(at(obj, key), key); }
    std::uint64_t unsigned_int(const value& v, const char* what) const
    {
        if(v.kind() == value::uint64_kind or (v.kind() == value::int64_kind and v.get_int64() >= 0))
            return v.get_uint64();
        fail(std::string(what) + " is not a non-negative integer");
    }
    bool boolean(const value& obj, const char* key) const
    {
        const auto& v = at(obj, key);
        if(not v.is_bool())
            fail(std::string("'") + key + "' is not a boolean");
        return v.get_bool();
    }
    shape get_shape(const value& v) const
    {
        // shape_from_value's messages print the value; keep them short
        std::size_t budget = 65536;
        if(not v.is_object() or exceeds(v, budget))
            fail("malformed shape");
        try
        {
            return shape_from_value(v);
        }
        catch(const exception& e)
        {
            fail(e.what());
        }
    }
    std::vector<shape> shapes(const value& obj, const char* key) const
    {
        std::vector<shape> r;
        for(const auto& s : array(obj, key))
            r.push_back(get_shape(s));
        return r;
    }
    std::vector<std::string> strings(const value& obj, const char* key) const
    {
        std::vector<std::string> r;
        for(const auto& s : array(obj, key))
            r.push_back(string(s, key));
        return r;
    }
};

std::shared_ptr<char> copy_bytes(const char* p, std::size_t n)
{
    // Not value-initialised: every byte is written at once.
    std::shared_ptr<char> r(new char[std::max<std::size_t>(n, 1)], std::default_delete<char[]>());
    if(n > 0)
        std::memcpy(r.get(), p, n);
    return r;
}

literal read_literal(const reader& r, const value& v, const shape& s, const byte_refs* refs)
{
    if(s.type() == shape::tuple_type or s.dynamic())
        r.fail("a literal cannot have a tuple or dynamic shape");
    std::string decoded;
    const char* bytes = nullptr;
    std::size_t size  = 0;
    bool shareable    = false;
    if(const auto* d = v.find("data"); d != nullptr and d->is_object())
    {
        const auto* i = d->find(bytes_key);
        if(i == nullptr or refs == nullptr)
            r.fail("data is not a string");
        auto k = r.unsigned_int(*i, "data");
        if(k >= refs->spans.size())
            r.fail("data refers to bytes that are not there");
        bytes     = refs->spans[k].first;
        size      = refs->spans[k].second;
        shareable = refs->owner != nullptr;
    }
    else if(d != nullptr)
    {
        const auto& str = r.string(*d, "data");
        bytes           = str.data();
        size            = str.size();
    }
    else if(v.contains("base64"))
    {
        decoded = base64_decode(r.string(v, "base64", 0));
        bytes   = decoded.data();
        size    = decoded.size();
    }
    else
        r.fail("a literal has no 'data'");
    if(size != s.bytes())
        r.fail("literal data is " + std::to_string(size) + " bytes but its shape needs " + std::to_string(s.bytes()));
    if(s.elements() == 0)
        return literal{argument{s, static_cast<const char*>(nullptr)}};
    // Aligned as the heap would align a copy: the file's bytes serve as they are.
    if(shareable and reinterpret_cast<std::uintptr_t>(bytes) % alignof(std::max_align_t) == 0)
        return literal::adopt(s, std::shared_ptr<char>(refs->owner, const_cast<char*>(bytes)));
    return literal::adopt(s, copy_bytes(bytes, size));
}

// A module may not call itself, directly or through others (eval would never end).
void check_module_cycles(const program& p, const std::vector<std::pair<const module*, const module*>>& op_modules)
{
    std::unordered_map<const module*, int> state; // 1: on the path, 2: done
    std::function<void(const module*)> visit = [&](const module* m) {
        auto& st = state[m];
        if(st == 2)
            return;
        if(st == 1)
            MIGRAPHX_THROW("module " + m->name() + " calls itself through its sub-modules");
        st = 1;
        for(auto it = m->begin(); it != m->end(); ++it)
            for(const auto* sm : it->module_inputs())
                visit(sm);
        for(const auto& [caller, callee] : op_modules)
            if(caller == m)
                visit(callee);
        state[m] = 2;
    };
    for(const auto* m : p.get_modules())
        visit(m);
}

// The target a compiled program was compiled for, looked up before anything is rebuilt: a file
// of a target this process lacks (a gpu program where there is no CUDA device, or a build
// without the gpu target, whose ops are not even registered) says so, not that an op is unknown.
target compiled_target(const value& v)
{
    reader r{"program"};
    auto name = r.string(v, "target", 0);
    try
    {
        return get_target(name);
    }
    catch(const exception&)
    {
        std::string known;
        for(const auto& k : get_targets())
            known += (known.empty() ? "" : ", ") + k;
        std::string why;
        if(auto reason = unavailable_target_reason(name); not reason.empty())
            why = "; " + reason;
        else if(name == "gpu")
            why = "; a gpu program runs only where a CUDA device is present, in a build with the gpu target";
        auto shown = name.size() > 64 ? name.substr(0, 64) + "..." : name;
        MIGRAPHX_THROW("the program was compiled for target '" + shown + "', which is not available here (available: " +
                       known + ")" + why);
    }
}

void restore_compiled_state(program& p, const value& v, std::size_t device_id, const target& t)
{
    reader r{"program"};
    auto& impl   = p.get_impl();
    const auto& o = r.at(v, "compile_options");
    impl.options.offload_copy    = r.boolean(o, "offload_copy");
    impl.options.fast_math       = r.boolean(o, "fast_math");
    impl.options.exhaustive_tune = r.boolean(o, "exhaustive_tune");
    if(o.contains("cuda_graph")) // written since CUDA-graph replay exists; before, always on
        impl.options.cuda_graph = r.boolean(o, "cuda_graph");
    if(o.contains("tf32")) // written since the option exists; before, plain FP32 (or the environment's)
        impl.options.tf32 = r.boolean(o, "tf32");
    impl.options.device_id       = device_id;
    impl.target_ref              = t;
    impl.ctx                     = t.get_context();
    // The passes are not run: asking for them only prepares the context as compile does (the
    // gpu target picks the device here and fails clearly where there is none).
    (void)t.get_passes(impl.ctx, impl.options);
    // What the compiling context kept (the gpu target: the device its choices were made for);
    // a file without it (older, or another target) leaves the context as it is.
    if(const auto* c = v.find("context"))
        impl.ctx.from_value(*c);
    impl.compiled  = true;
    impl.lifetimes = std::make_shared<last_use_cache>();
    p.finalize();
}

} // namespace

value program_to_value(const program& p, literal_encoding enc)
{
    const auto& impl = p.get_impl();
    // A loader rebuilds every op by name: an op that is neither registered nor known to the
    // serializer (op_serializer.hpp) would make a file that cannot be read back. Refuse it now.
    auto known = get_operators();
    std::unordered_set<std::string> registered(known.begin(), known.end());
    for(const auto* m : p.get_modules())
        for(auto it = m->begin(); it != m->end(); ++it)
            if(it->name().front() != '@' and registered.count(it->name()) == 0 and
               find_op_serializer(it->name()) == nullptr)
                MIGRAPHX_THROW("save: the operator '" + it->name() + "' (module " + m->name() +
                               ") cannot be saved: a loader could not rebuild it" +
                               (p.target_name().empty() ? std::string{}
                                                        : "; save the program before compiling it for '" +
                                                              p.target_name() + "'"));
    std::unordered_map<const instruction*, std::size_t> index;
    value::array modules;
    for(const auto* m : p.get_modules())
    {
        value::array instructions;
        for(auto it = m->begin(); it != m->end(); ++it)
        {
            instructions.push_back(instruction_to_value(*it, index, enc));
            auto i = index.size();
            index[&*it] = i;
        }
        modules.push_back(value::object{{"name", m->name()}, {"instructions", value(std::move(instructions))}});
    }
    value::object o;
    o.emplace_back("modules", value(std::move(modules)));
    o.emplace_back("output_names", strings_to_value(impl.output_names));
    o.emplace_back("output_param_names", strings_to_value(impl.output_param_names));
    o.emplace_back("output_shapes", shapes_to_value(impl.original_output_shapes));
    o.emplace_back("compiled", impl.compiled);
    o.emplace_back("target", p.target_name());
    o.emplace_back("compile_options",
                   value::object{{"offload_copy", impl.options.offload_copy},
                                 {"fast_math", impl.options.fast_math},
                                 {"exhaustive_tune", impl.options.exhaustive_tune},
                                 {"cuda_graph", impl.options.cuda_graph},
                                 {"tf32", impl.options.tf32}});
    if(impl.compiled)
    {
        auto c = impl.ctx.to_value();
        if(not c.is_null())
            o.emplace_back("context", std::move(c));
    }
    if(impl.dynamic != nullptr)
        o.emplace_back("dynamic", dynamic_to_value(*impl.dynamic, enc));
    return value(std::move(o));
}

program program_from_value(const value& v, std::size_t device_id, const byte_refs* refs)
{
    reader top{"program"};
    program p;
    std::optional<target> compiled_for;
    if(top.boolean(v, "compiled"))
        compiled_for = compiled_target(v);
    const auto& mods = top.array(v, "modules");
    if(mods.empty())
        top.fail("no modules");
    std::vector<module*> made;
    for(std::size_t i = 0; i < mods.size(); i++)
    {
        const auto& name = top.string(top.at(mods[i], "name"), "a module name");
        if(i == 0)
        {
            if(name != "main")
                top.fail("the first module is '" + name + "', not 'main'");
            made.push_back(p.get_main_module());
        }
        else
        {
            if(name.empty())
                top.fail("a module has an empty name");
            made.push_back(p.create_module(name)); // throws for a repeated name
        }
    }
    std::vector<instruction_ref> all;
    // modules that ops run without listing them as module inputs (gpu::ref::<op>): caller, callee
    std::vector<std::pair<const module*, const module*>> op_modules;
    for(std::size_t mi = 0; mi < mods.size(); mi++)
    {
        auto* m                  = made[mi];
        const auto& instructions = reader{"module " + m->name()}.array(mods[mi], "instructions");
        for(std::size_t ii = 0; ii < instructions.size(); ii++)
        {
            const auto& iv = instructions[ii];
            reader r{"module " + m->name() + ", instruction " + std::to_string(ii)};
            const auto& op_name = r.string(r.at(iv, "op"), "'op'");
            r.where += " (" + (op_name.size() > 64 ? op_name.substr(0, 64) + "..." : op_name) + ")";
            std::vector<instruction_ref> args;
            for(const auto& a : r.array(iv, "inputs"))
            {
                auto k = r.unsigned_int(a, "an input");
                if(k >= all.size())
                    r.fail("input " + std::to_string(k) + " is not an instruction defined before it");
                args.push_back(all[k]);
            }
            std::vector<module_ref> margs;
            for(const auto& a : r.array(iv, "modules"))
            {
                const auto& n = r.string(a, "a module input");
                if(n == "main" or n == m->name())
                    r.fail("module input '" + n + "' would make the module call itself");
                auto found = std::find_if(made.begin(), made.end(), [&](auto* x) { return x->name() == n; });
                if(found == made.end())
                    r.fail("no module named '" + n + "'");
                margs.push_back(*found);
            }
            auto s = r.get_shape(r.at(iv, "shape"));
            instruction_ref ins;
            try
            {
                if(op_name == "@return")
                {
                    if(ii + 1 != instructions.size())
                        r.fail("@return is not the last instruction");
                    ins = m->add_return(args);
                }
                else if(op_name == "@literal" or op_name == "@param")
                {
                    if(not args.empty() or not margs.empty())
                        r.fail("has inputs");
                    if(op_name == "@literal")
                        ins = m->insert_literal(m->end(), read_literal(r, iv, s, refs));
                    else
                    {
                        const auto& attrs = r.at(iv, "attrs");
                        auto name         = r.string(attrs, "parameter", 0);
                        auto order        = r.unsigned_int(r.at(attrs, "order"), "'order'");
                        ins               = m->insert_parameter(m->end(), name, s);
                        ins->set_operator(builtin::param{name, static_cast<std::uint32_t>(order)});
                    }
                }
                else
                {
                    const auto* ser   = find_op_serializer(op_name);
                    const auto& attrs = r.at(iv, "attrs");
                    auto lookup       = [&](const std::string& n) -> module_ref {
                        // a module the op runs (gpu::ref::<op>'s body): not main nor its own
                        if(n == "main" or n == m->name())
                            r.fail("module '" + n + "' would make the module call itself");
                        auto found = std::find_if(made.begin(), made.end(), [&](auto* x) { return x->name() == n; });
                        if(found == made.end())
                            r.fail("no module named '" + n + "'");
                        op_modules.emplace_back(m, *found);
                        return *found;
                    };
                    auto op = ser != nullptr and ser->load ? ser->load(op_name, attrs, lookup)
                                                           : make_op(op_name, attrs);
                    if(const auto* lv = iv.find("literal"); lv != nullptr)
                    {
                        if(ser == nullptr or not ser->set_literal)
                            r.fail("has 'literal', which its operator does not take");
                        reader lr{r.where + ", literal"};
                        ser->set_literal(op, read_literal(lr, *lv, lr.get_shape(lr.at(*lv, "shape")), refs));
                    }
                    else if(ser != nullptr and ser->literal_required)
                        r.fail("has no 'literal' (the operator's data)");
                    ins = m->insert_instruction_unchecked(m->end(), op, s, args, margs);
                }
            }
            catch(const exception& e)
            {
                std::string msg = e.what();
                if(msg.find(r.where) != std::string::npos) // already says where
                    throw;
                r.fail(msg);
            }
            all.push_back(ins);
        }
    }
    check_module_cycles(p, op_modules);
    // Every stored shape must be the one its op computes: a corrupted attribute or shape shows
    // here, before anything runs.
    for(auto* m : made)
        m->validate();

    auto& impl                  = p.get_impl();
    impl.output_names           = top.strings(v, "output_names");
    impl.output_param_names     = top.strings(v, "output_param_names");
    impl.original_output_shapes = top.shapes(v, "output_shapes");
    for(const auto& n : impl.output_param_names)
        if(p.get_main_module()->get_parameter(n) == p.get_main_module()->end())
            top.fail("output parameter '" + n + "' is not a parameter of main");
    if(compiled_for)
        restore_compiled_state(p, v, device_id, *compiled_for);
    if(const auto* d = v.find("dynamic"); d != nullptr)
    {
        auto src = dynamic_from_value(*d, refs);
        // Every range must be an input of the program, of the rank the program has.
        auto shapes = p.get_main_module()->get_parameter_shapes();
        for(const auto& [name, dims] : src->ranges)
            if(shapes.count(name) == 0 or shapes.at(name).lens().size() != dims.size())
                top.fail("dynamic: '" + name + "' is not an input of that rank");
        set_dynamic_source(p, std::move(src));
    }
    return p;
}

} // namespace serialize
} // namespace migraphx
