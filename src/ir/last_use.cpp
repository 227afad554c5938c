#include "ir/last_use.hpp"
#include <algorithm>
#include <unordered_map>

namespace migraphx {

std::vector<std::vector<const instruction*>> last_use_points(const module& m)
{
    std::vector<std::vector<const instruction*>> points(m.size());
    std::unordered_map<const instruction*, std::size_t> position;
    position.reserve(m.size());
    std::size_t p = 0;
    for(const auto& ins : m)
    {
        if(not ins.module_inputs().empty())
            return points; // its sub-modules may read any outer value: keep them all
        position.emplace(&ins, p++);
    }
    for(const auto& ins : m)
    {
        if(ins.outputs().empty())
            continue;
        std::size_t last = 0;
        bool here        = true;
        for(auto out : ins.outputs())
        {
            auto it = position.find(&*out);
            if(it == position.end() or out->name() == "@return")
            {
                here = false; // read elsewhere or returned: the caller keeps it
                break;
            }
            last = std::max(last, it->second);
        }
        if(here)
            points[last].push_back(&ins);
    }
    return points;
}

last_use_table make_last_use_table(const module& m)
{
    last_use_table t;
    t.edits = m.edits();
    t.position.reserve(m.size());
    for(const auto& ins : m)
    {
        t.position.emplace(&ins, t.order.size());
        t.order.push_back(&ins);
    }
    for(const auto& ins : m)
    {
        t.input_begin.push_back(t.input_list.size());
        for(auto in : ins.inputs())
        {
            auto it = t.position.find(&*in);
            t.input_list.push_back(&*in);
            t.input_pos.push_back(it == t.position.end() ? last_use_table::outside : it->second);
        }
    }
    t.input_begin.push_back(t.input_list.size());
    auto points = last_use_points(m);
    t.release.resize(points.size());
    for(std::size_t p = 0; p < points.size(); p++)
        for(const auto* x : points[p])
        {
            t.last.emplace(x, p);
            t.release[p].push_back(t.position.at(x));
        }
    for(const auto& [name, sh] : m.get_parameter_shapes())
        t.parameters.emplace_back(name, sh);
    return t;
}

std::shared_ptr<const last_use_table> last_use_cache::of(const module& m)
{
    std::lock_guard<std::mutex> lock(m_mutex);
    auto& t = m_tables[&m];
    if(t == nullptr)
        t = std::make_shared<const last_use_table>(make_last_use_table(m));
    return t;
}

void last_use_cache::clear()
{
    std::lock_guard<std::mutex> lock(m_mutex);
    m_tables.clear();
}

} // namespace migraphx
