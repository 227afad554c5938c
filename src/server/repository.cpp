#include "server/repository.hpp"
#include "server/config.hpp"
#include "server/error.hpp"
#include <algorithm>
#include <filesystem>

namespace migraphx {
namespace server {

namespace fs = std::filesystem;

namespace {

bool is_number(const std::string& s)
{
    return not s.empty() and s.size() < 19 and std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' and c <= '9'; });
}

bool version_less(const std::string& a, const std::string& b)
{
    return std::stoull(a) < std::stoull(b);
}

} // namespace

void repository::load(const std::string& dir, const load_options& options)
{
    if(not fs::is_directory(dir))
        throw std::runtime_error("model repository " + dir + " is not a directory");
    std::vector<fs::path> model_dirs;
    for(const auto& e : fs::directory_iterator(dir))
        if(e.is_directory() and e.path().filename().string()[0] != '.')
            model_dirs.push_back(e.path());
    std::sort(model_dirs.begin(), model_dirs.end());
    for(const auto& mdir : model_dirs)
    {
        auto name = mdir.filename().string();
        std::vector<std::string> versions;
        for(const auto& e : fs::directory_iterator(mdir))
            if(e.is_directory() and is_number(e.path().filename().string()))
                versions.push_back(e.path().filename().string());
        std::sort(versions.begin(), versions.end(), version_less);
        if(versions.empty())
        {
            auto entry     = std::make_unique<model_entry>();
            entry->name    = name;
            entry->version = "";
            entry->error   = "no version directory (" + mdir.string() + "/<number>/)";
            if(options.log)
                options.log(name + ": " + entry->error);
            m_models[name][""] = std::move(entry);
            continue;
        }
        model_config cfg;
        std::string cfg_error;
        try
        {
            cfg = read_model_config(mdir.string());
        }
        catch(const std::exception& e)
        {
            cfg_error = e.what();
        }
        for(const auto& v : versions)
        {
            auto entry     = std::make_unique<model_entry>();
            entry->name    = name;
            entry->version = v;
            try
            {
                if(not cfg_error.empty())
                    throw std::runtime_error(cfg_error);
                auto m       = model::load(name, v, (mdir / v).string(), cfg, options);
                entry->sched = std::make_unique<scheduler>(std::move(m), m_stats);
            }
            catch(const std::exception& e)
            {
                entry->error = e.what();
                if(options.log)
                    options.log(name + "/" + v + ": failed to load: " + entry->error);
            }
            if(m_stats)
                m_stats->set_ready(name, v, entry->ready());
            m_models[name][v] = std::move(entry);
        }
    }
    m_loaded = true;
}

const model_entry& repository::find(const std::string& name, const std::string& version) const
{
    auto it = m_models.find(name);
    if(it == m_models.end())
        throw not_found("unknown model '" + name + "'");
    const auto& vs = it->second;
    if(version.empty())
    {
        const model_entry* best = nullptr;
        for(const auto& [v, e] : vs) // map order is by string; compare numerically
        {
            auto better = [&](const model_entry* a, const model_entry* b) {
                if(b == nullptr)
                    return true;
                if(a->ready() != b->ready())
                    return a->ready();
                if(a->version.empty() or b->version.empty())
                    return false;
                return version_less(b->version, a->version);
            };
            if(better(e.get(), best))
                best = e.get();
        }
        return *best;
    }
    auto v = vs.find(version);
    if(v == vs.end())
        throw not_found("unknown version '" + version + "' of model '" + name + "'");
    return *v->second;
}

std::vector<std::string> repository::versions(const std::string& name) const
{
    std::vector<std::string> r;
    auto it = m_models.find(name);
    if(it != m_models.end())
        for(const auto& [v, e] : it->second)
            if(not v.empty())
                r.push_back(v);
    std::sort(r.begin(), r.end(), version_less);
    return r;
}

std::vector<const model_entry*> repository::entries() const
{
    std::vector<const model_entry*> r;
    for(const auto& [n, vs] : m_models)
        for(const auto& [v, e] : vs)
            r.push_back(e.get());
    return r;
}

std::future<infer_response> repository::infer(infer_request r)
{
    if(m_shutting_down)
        throw unavailable("the server is shutting down");
    const auto& e = find(r.model, r.version);
    if(not e.ready())
        throw unavailable("model '" + e.name + "' version '" + e.version + "' is not ready: " + e.error);
    return e.sched->submit(std::move(r));
}

bool repository::ready() const
{
    if(not m_loaded or m_shutting_down)
        return false;
    if(m_strict)
        for(const auto* e : entries())
            if(not e->ready())
                return false;
    return true;
}

void repository::begin_shutdown()
{
    m_shutting_down = true;
    for(const auto& [n, vs] : m_models)
        for(const auto& [v, e] : vs)
            if(e->sched)
                e->sched->flush();
}

void repository::stop()
{
    m_shutting_down = true;
    for(const auto& [n, vs] : m_models)
        for(const auto& [v, e] : vs)
            if(e->sched)
                e->sched->stop();
}

} // namespace server
} // namespace migraphx
