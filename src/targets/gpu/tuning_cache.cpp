// The persistent tuning cache's files (tuning_cache.hpp).
#include "targets/gpu/tuning_cache.hpp"
#include "targets/gpu/kernel_compiler.hpp"
#include "ir/env.hpp"
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace migraphx {
namespace gpu {

namespace fs = std::filesystem;

namespace {

// A file:
//   migx tuning cache 1\n
//   key <bytes>\n<the key>\n
//   value <bytes>\n<the value>\n
//   check <16 hex digits: FNV-1a of the key, a 0 byte and the value>\n
//   end\n
constexpr const char* format_line = "migx tuning cache 1\n";

std::atomic<std::size_t> hit_count{0}, miss_count{0}, write_count{0};

std::string hex(std::uint64_t x)
{
    char buf[17];
    std::snprintf(buf, sizeof(buf), "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

std::string checksum(const std::string& key, const std::string& value)
{
    return hex(stable_hash(key + std::string(1, '\0') + value));
}

bool is_off(const std::string& v) { return v == "off" or v == "OFF" or v == "0" or v == "false" or v == "no"; }

/// Reads "<word> <decimal>\n" at pos, then that many bytes and a "\n"; advances pos.
bool read_field(const std::string& text, std::size_t& pos, const std::string& word, std::string& out)
{
    auto head = word + " ";
    if(text.compare(pos, head.size(), head) != 0)
        return false;
    pos += head.size();
    auto eol = text.find('\n', pos);
    if(eol == std::string::npos or eol == pos or eol - pos > 12)
        return false;
    std::size_t n = 0;
    for(auto i = pos; i < eol; i++)
    {
        if(text[i] < '0' or text[i] > '9')
            return false;
        n = n * 10 + static_cast<std::size_t>(text[i] - '0');
    }
    pos = eol + 1;
    if(n > text.size() - pos or text.size() - pos - n < 1 or text[pos + n] != '\n')
        return false;
    out = text.substr(pos, n);
    pos += n + 1;
    return true;
}

} // namespace

std::string tuning_cache_dir()
{
    if(is_off(env_string("MIGRAPHX_GPU_TUNING_CACHE")))
        return {};
    auto dir = env_string("MIGRAPHX_GPU_CACHE_DIR");
    if(dir == "off")
        return {};
    return (fs::path(gpu_cache_dir()) / "tuning").string();
}

std::string tuning_file_text(const std::string& key, const std::string& value)
{
    std::string r = format_line;
    r += "key " + std::to_string(key.size()) + "\n" + key + "\n";
    r += "value " + std::to_string(value.size()) + "\n" + value + "\n";
    r += "check " + checksum(key, value) + "\n";
    r += "end\n";
    return r;
}

std::optional<std::pair<std::string, std::string>> parse_tuning_file(const std::string& text)
{
    std::string head = format_line;
    if(text.compare(0, head.size(), head) != 0)
        return std::nullopt;
    std::size_t pos = head.size();
    std::string key, value;
    if(not read_field(text, pos, "key", key) or not read_field(text, pos, "value", value))
        return std::nullopt;
    if(text.substr(pos) != "check " + checksum(key, value) + "\nend\n")
        return std::nullopt;
    return std::make_pair(std::move(key), std::move(value));
}

tuning_cache_stats tuning_stats()
{
    tuning_cache_stats s;
    s.hits   = hit_count.load();
    s.misses = miss_count.load();
    s.writes = write_count.load();
    return s;
}

std::string tuning_cache::file_of(const std::string& key) const
{
    return (fs::path(dir_) / (hex(stable_hash(key)) + ".txt")).string();
}

std::optional<std::string> tuning_cache::read(const std::string& key) const
{
    if(not enabled())
        return std::nullopt;
    std::optional<std::string> result;
    try
    {
        std::ifstream f(file_of(key), std::ios::binary);
        if(f)
        {
            std::ostringstream ss;
            ss << f.rdbuf();
            auto entry = parse_tuning_file(ss.str());
            if(entry and entry->first == key)
                result = std::move(entry->second);
        }
    }
    catch(const std::exception&)
    {
        result.reset();
    }
    (result ? hit_count : miss_count)++;
    return result;
}

bool tuning_cache::write(const std::string& key, const std::string& value) const
{
    if(not enabled())
        return false;
    try
    {
        auto file = fs::path(file_of(key));
        std::error_code ec;
        fs::create_directories(file.parent_path(), ec);
        // Unique per process and thread: two writers never share a temporary file.
        static std::atomic<unsigned> serial{0};
        auto tmp = file;
        tmp += ".tmp" + std::to_string(getpid()) + "-" + std::to_string(serial++);
        auto text = tuning_file_text(key, value);
        {
            std::ofstream f(tmp, std::ios::binary);
            if(not f)
                return false;
            f.write(text.data(), static_cast<std::streamsize>(text.size()));
            f.flush();
            if(not f)
            {
                f.close();
                fs::remove(tmp, ec);
                return false;
            }
        }
        fs::rename(tmp, file, ec);
        if(ec)
        {
            fs::remove(tmp, ec);
            return false;
        }
        write_count++;
        return true;
    }
    catch(const std::exception&)
    {
        return false;
    }
}

} // namespace gpu
} // namespace migraphx
