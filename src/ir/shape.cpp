#include <migraphx/shape.hpp>
#include <migraphx/errors.hpp>
#include <migraphx/reflect.hpp>
#include <algorithm>
#include <functional>
#include <numeric>
#include <ostream>
#include <sstream>

namespace migraphx {

struct shape::impl
{
    type_t type = float_type;
    std::vector<std::size_t> lens;
    std::vector<std::size_t> strides;
    std::vector<dynamic_dimension> dyn_dims;
    std::vector<shape> subs;
    bool standard = false;
    std::size_t elements = 0;

    void finish()
    {
        elements = std::accumulate(lens.begin(), lens.end(), std::size_t{1}, std::multiplies<>{});
        // Standard: packed row-major strides, where a 1-length dim may carry any stride.
        standard = true;
        std::size_t expect = 1;
        for(std::size_t i = lens.size(); i > 0; i--)
        {
            if(lens[i - 1] != 1 and strides[i - 1] != expect)
            {
                standard = false;
                break;
            }
            expect *= lens[i - 1];
        }
        if(elements == 0)
            standard = strides == shape::standard_strides(lens);
    }
};


shape::shape() : shape(float_type) {}

shape::shape(type_t t)
{
    // One shared, immutable description per type: a default argument (a result slot, an empty
    // output) then costs a reference count, not an allocation (eval makes several a step).
    static const auto scalars = [] {
        std::vector<std::shared_ptr<const impl>> v;
        for(int i = 0; i <= tuple_type; i++)
        {
            auto p  = std::make_shared<impl>();
            p->type = static_cast<type_t>(i);
            p->finish();
            p->elements = i == tuple_type ? 0 : 1;
            v.push_back(p);
        }
        return v;
    }();
    if(t < 0 or t > tuple_type)
        MIGRAPHX_THROW("shape: type " + std::to_string(static_cast<int>(t)) + " is not a shape type");
    m_impl = scalars[t];
}

shape::shape(type_t t, std::vector<std::size_t> l) : shape(t, l, standard_strides(l)) {}

shape::shape(type_t t, std::vector<std::size_t> l, std::vector<std::size_t> s)
{
    if(l.size() != s.size())
        MIGRAPHX_THROW("shape: " + std::to_string(l.size()) + " lens but " + std::to_string(s.size()) +
                       " strides");
    auto p     = std::make_shared<impl>();
    p->type    = t;
    p->lens    = std::move(l);
    p->strides = std::move(s);
    p->finish();
    m_impl = p;
}

shape shape::from_dyn_dims(type_t t, std::vector<dynamic_dimension> dims)
{
    shape r;
    auto p  = std::make_shared<impl>();
    p->type = t;
    for(const auto& d : dims)
        if(d.min > d.max)
            MIGRAPHX_THROW("shape: dynamic dimension with min " + std::to_string(d.min) + " > max " +
                           std::to_string(d.max));
    bool all_fixed = std::all_of(dims.begin(), dims.end(), [](const auto& d) { return d.is_fixed(); });
    if(all_fixed)
    {
        std::vector<std::size_t> l;
        for(const auto& d : dims)
            l.push_back(d.max);
        return {t, l};
    }
    p->dyn_dims = std::move(dims);
    for(const auto& d : p->dyn_dims)
        p->lens.push_back(d.max);
    p->strides = standard_strides(p->lens);
    p->finish();
    r.m_impl = p;
    return r;
}

shape::shape(const std::vector<shape>& sub_shapes)
{
    auto p      = std::make_shared<impl>();
    p->type     = tuple_type;
    p->subs     = sub_shapes;
    p->elements = 0;
    m_impl      = p;
}

shape shape::with_lens(const std::vector<std::size_t>& l) const { return {type(), l}; }
shape shape::with_type(type_t t) const
{
    if(dynamic())
        return from_dyn_dims(t, dyn_dims());
    return {t, lens(), strides()};
}

shape shape::from_permutation(type_t t, const std::vector<std::size_t>& l, const std::vector<std::int64_t>& perm)
{
    // Strides such that the dims in perm order are row-major.
    std::vector<std::size_t> s(l.size());
    std::size_t stride = 1;
    for(std::size_t i = perm.size(); i > 0; i--)
    {
        auto d = static_cast<std::size_t>(perm[i - 1]);
        s[d]   = stride;
        stride *= l[d];
    }
    return {t, l, s};
}

shape::type_t shape::type() const { return m_impl->type; }
const std::vector<std::size_t>& shape::lens() const { return m_impl->lens; }
const std::vector<std::size_t>& shape::strides() const { return m_impl->strides; }
const std::vector<shape::dynamic_dimension>& shape::dyn_dims() const { return m_impl->dyn_dims; }
const std::vector<shape>& shape::sub_shapes() const { return m_impl->subs; }
std::size_t shape::ndim() const { return dynamic() ? dyn_dims().size() : lens().size(); }
std::size_t shape::elements() const { return m_impl->elements; }
std::size_t shape::type_size() const { return type() == tuple_type ? 0 : type_size(type()); }

std::size_t shape::element_space() const
{
    if(type() == tuple_type)
        return 0;
    if(lens().empty())
        return 1;
    if(elements() == 0)
        return 0;
    std::size_t r = 0;
    for(std::size_t i = 0; i < lens().size(); i++)
        r += (lens()[i] - 1) * strides()[i];
    return r + 1;
}

std::size_t shape::bytes() const
{
    if(type() == tuple_type)
    {
        std::size_t r = 0;
        for(const auto& s : sub_shapes())
            r += s.bytes();
        return r;
    }
    return element_space() * type_size();
}

std::size_t shape::index(const std::vector<std::size_t>& idx) const
{
    std::size_t r = 0;
    auto n        = std::min(idx.size(), strides().size());
    for(std::size_t i = 0; i < n; i++)
        r += idx[i] * strides()[i];
    return r;
}

std::size_t shape::index(std::size_t i) const
{
    if(m_impl->standard)
        return i;
    const auto& l = lens();
    const auto& s = strides();
    std::size_t r = 0;
    for(std::size_t k = l.size(); k > 0; k--)
    {
        auto len = l[k - 1];
        r += (i % len) * s[k - 1];
        i /= len;
    }
    return r;
}

void shape::multi_copy(std::size_t i, std::size_t* out, std::size_t n) const
{
    const auto& l = lens();
    for(std::size_t k = std::min(n, l.size()); k > 0; k--)
    {
        out[k - 1] = i % l[k - 1];
        i /= l[k - 1];
    }
}

std::vector<std::size_t> shape::multi(std::size_t i) const
{
    std::vector<std::size_t> r(lens().size());
    multi_copy(i, r.data(), r.size());
    return r;
}

bool shape::standard() const { return m_impl->standard; }

bool shape::packed() const
{
    if(type() == tuple_type)
        return false;
    return elements() == element_space() and not broadcasted();
}

bool shape::transposed() const
{
    if(not packed())
        return false;
    // Packed but strides not descending.
    std::vector<std::size_t> s;
    for(std::size_t i = 0; i < lens().size(); i++)
        if(lens()[i] != 1)
            s.push_back(strides()[i]);
    return not std::is_sorted(s.rbegin(), s.rend());
}

bool shape::broadcasted() const
{
    for(std::size_t i = 0; i < lens().size(); i++)
        if(strides()[i] == 0 and lens()[i] > 1)
            return true;
    return false;
}

bool shape::scalar() const
{
    return type() != tuple_type and not lens().empty() and
           std::all_of(strides().begin(), strides().end(), [](auto s) { return s == 0; });
}

bool shape::dynamic() const { return not m_impl->dyn_dims.empty(); }
bool shape::any_of_dynamic() const
{
    if(dynamic())
        return true;
    return std::any_of(sub_shapes().begin(), sub_shapes().end(), [](const auto& s) { return s.any_of_dynamic(); });
}

shape shape::as_standard() const
{
    if(type() == tuple_type or dynamic())
        return *this;
    return {type(), lens()};
}

std::vector<std::size_t> shape::standard_strides(const std::vector<std::size_t>& lens)
{
    std::vector<std::size_t> s(lens.size());
    std::size_t stride = 1;
    for(std::size_t i = lens.size(); i > 0; i--)
    {
        s[i - 1] = stride;
        stride *= std::max<std::size_t>(lens[i - 1], 1);
    }
    return s;
}

namespace {
struct type_info_entry
{
    shape::type_t t;
    const char* name;
    std::size_t size;
    bool integral;
    bool is_signed;
};
const type_info_entry type_table[] = {
    {shape::bool_type, "bool_type", 1, true, false},     {shape::half_type, "half_type", 2, false, true},
    {shape::float_type, "float_type", 4, false, true},   {shape::double_type, "double_type", 8, false, true},
    {shape::uint8_type, "uint8_type", 1, true, false},   {shape::int8_type, "int8_type", 1, true, true},
    {shape::uint16_type, "uint16_type", 2, true, false}, {shape::int16_type, "int16_type", 2, true, true},
    {shape::int32_type, "int32_type", 4, true, true},    {shape::int64_type, "int64_type", 8, true, true},
    {shape::uint32_type, "uint32_type", 4, true, false}, {shape::uint64_type, "uint64_type", 8, true, false},
    {shape::fp8e4m3fn_type, "fp8e4m3fn_type", 1, false, true},
    {shape::tuple_type, "tuple_type", 0, false, false},
};
const type_info_entry& entry(shape::type_t t)
{
    for(const auto& e : type_table)
        if(e.t == t)
            return e;
    MIGRAPHX_THROW("shape: unknown type id " + std::to_string(static_cast<int>(t)));
}
} // namespace

std::string shape::type_name(type_t t) { return entry(t).name; }
std::string shape::type_string() const { return type_name(type()); }
std::size_t shape::type_size(type_t t) { return entry(t).size; }
bool shape::is_integral(type_t t) { return entry(t).integral; }
bool shape::is_signed(type_t t) { return entry(t).is_signed; }

shape::type_t shape::parse_type(const std::string& name)
{
    for(const auto& e : type_table)
    {
        std::string n = e.name;
        if(name == n or name + "_type" == n)
            return e.t;
    }
    MIGRAPHX_THROW("shape: unknown type name '" + name + "'");
}

void shape::throw_visit_error(type_t t) { MIGRAPHX_THROW("shape: cannot visit elements of " + type_name(t)); }

bool operator==(const shape& a, const shape& b)
{
    if(a.m_impl == b.m_impl)
        return true;
    return a.type() == b.type() and a.lens() == b.lens() and a.strides() == b.strides() and
           a.dyn_dims() == b.dyn_dims() and a.sub_shapes() == b.sub_shapes();
}

static void print_list(std::ostream& os, const std::vector<std::size_t>& xs)
{
    os << "{";
    for(std::size_t i = 0; i < xs.size(); i++)
        os << (i ? ", " : "") << xs[i];
    os << "}";
}

std::ostream& operator<<(std::ostream& os, const shape::dynamic_dimension& d)
{
    os << "{" << d.min << ", " << d.max << ", {";
    bool first = true;
    for(auto o : d.optimals)
    {
        os << (first ? "" : ", ") << o;
        first = false;
    }
    return os << "}}";
}

std::ostream& operator<<(std::ostream& os, const shape& s)
{
    if(s.type() == shape::tuple_type)
    {
        os << "[";
        for(std::size_t i = 0; i < s.sub_shapes().size(); i++)
            os << (i ? ", " : "") << s.sub_shapes()[i];
        return os << "]";
    }
    os << s.type_string() << ", ";
    if(s.dynamic())
    {
        // {1..8, 3, 224, 224}: a range as min..max, its optimal values after it in parentheses.
        os << "{";
        for(std::size_t i = 0; i < s.dyn_dims().size(); i++)
        {
            const auto& d = s.dyn_dims()[i];
            os << (i ? ", " : "") << d.min;
            if(not d.is_fixed())
                os << ".." << d.max;
            if(not d.optimals.empty())
            {
                os << " (";
                bool first = true;
                for(auto o : d.optimals)
                {
                    os << (first ? "" : " ") << o;
                    first = false;
                }
                os << ")";
            }
        }
        return os << "}";
    }
    print_list(os, s.lens());
    os << ", ";
    print_list(os, s.strides());
    return os;
}

std::ostream& operator<<(std::ostream& os, half h) { return os << static_cast<float>(h); }
std::ostream& operator<<(std::ostream& os, fp8e4m3fn x) { return os << static_cast<float>(x); }

// A shape as an attribute value (reflect.hpp: ops with shape fields, e.g. allocate, load):
// {type: "float_type", lens: [..], strides: [..]}; a dynamic shape has dyn_dims
// [{min, max, optimals}], a tuple sub_shapes [..].
value shape_to_value(const shape& s)
{
    value::object o;
    o.emplace_back("type", s.type_string());
    if(s.type() == shape::tuple_type)
    {
        value::array subs;
        for(const auto& sub : s.sub_shapes())
            subs.push_back(shape_to_value(sub));
        o.emplace_back("sub_shapes", value(std::move(subs)));
    }
    else if(s.dynamic())
    {
        value::array dims;
        for(const auto& d : s.dyn_dims())
            dims.push_back(value::object{{"min", d.min},
                                         {"max", d.max},
                                         {"optimals", field_to_value(std::vector<std::size_t>(d.optimals.begin(), d.optimals.end()))}});
        o.emplace_back("dyn_dims", value(std::move(dims)));
    }
    else
    {
        o.emplace_back("lens", field_to_value(s.lens()));
        o.emplace_back("strides", field_to_value(s.strides()));
    }
    return value(std::move(o));
}

shape shape_from_value(const value& v)
{
    if(not v.is_object() or not v.contains("type"))
        MIGRAPHX_THROW("shape: expected {type, lens, strides}, got " + v.to_json());
    auto t = shape::parse_type(v.at("type").get_string());
    if(t == shape::tuple_type)
    {
        std::vector<shape> subs;
        if(v.contains("sub_shapes"))
            for(const auto& sub : v.at("sub_shapes").get_array())
                subs.push_back(shape_from_value(sub));
        return shape{subs};
    }
    if(v.contains("dyn_dims"))
    {
        std::vector<shape::dynamic_dimension> dims;
        for(const auto& d : v.at("dyn_dims").get_array())
        {
            auto opts = d.contains("optimals") ? d.at("optimals").to_vector<std::size_t>() : std::vector<std::size_t>{};
            dims.push_back({d.at("min").to<std::size_t>(), d.at("max").to<std::size_t>(), {opts.begin(), opts.end()}});
        }
        return shape::from_dyn_dims(t, dims);
    }
    auto lens    = v.contains("lens") ? v.at("lens").to_vector<std::size_t>() : std::vector<std::size_t>{};
    auto strides = v.contains("strides") ? v.at("strides").to_vector<std::size_t>() : std::vector<std::size_t>{};
    if(strides.empty())
        return shape{t, lens};
    if(strides.size() != lens.size())
        MIGRAPHX_THROW("shape: lens and strides differ in length in " + v.to_json());
    return shape{t, lens, strides};
}

} // namespace migraphx
