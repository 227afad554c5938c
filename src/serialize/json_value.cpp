#include "serialize/json_value.hpp"
#include <migraphx/errors.hpp>
#include <array>
#include <string>

namespace migraphx {
namespace serialize {

std::string value_to_json_text(const value& v) { return v.to_json(); }

value json_text_to_value(const char* data, std::size_t size)
{
    try
    {
        return value::from_json(std::string(data, size));
    }
    catch(const exception& e)
    {
        MIGRAPHX_THROW(std::string("json: ") + e.what());
    }
    catch(const std::exception& e)
    {
        // value::from_json lets a few standard exceptions through (e.g. a bad \u escape)
        MIGRAPHX_THROW(std::string("json: malformed text (") + e.what() + ")");
    }
}

namespace {
constexpr const char* alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::array<int, 256> decode_table()
{
    std::array<int, 256> t{};
    t.fill(-1);
    for(int i = 0; i < 64; i++)
        t[static_cast<unsigned char>(alphabet[i])] = i;
    return t;
}
} // namespace

std::string base64_encode(const char* data, std::size_t size)
{
    std::string r;
    r.reserve((size + 2) / 3 * 4);
    const auto* p = reinterpret_cast<const unsigned char*>(data);
    std::size_t i = 0;
    for(; i + 3 <= size; i += 3)
    {
        unsigned n = (p[i] << 16u) | (p[i + 1] << 8u) | p[i + 2];
        r += alphabet[(n >> 18u) & 63u];
        r += alphabet[(n >> 12u) & 63u];
        r += alphabet[(n >> 6u) & 63u];
        r += alphabet[n & 63u];
    }
    if(i < size)
    {
        unsigned n = p[i] << 16u;
        if(i + 1 < size)
            n |= p[i + 1] << 8u;
        r += alphabet[(n >> 18u) & 63u];
        r += alphabet[(n >> 12u) & 63u];
        r += (i + 1 < size) ? alphabet[(n >> 6u) & 63u] : '=';
        r += '=';
    }
    return r;
}

std::string base64_decode(const std::string& text)
{
    static const auto table = decode_table();
    if(text.size() % 4 != 0)
        MIGRAPHX_THROW("base64: length " + std::to_string(text.size()) + " is not a multiple of 4");
    std::string r;
    r.reserve(text.size() / 4 * 3);
    for(std::size_t i = 0; i < text.size(); i += 4)
    {
        bool last = i + 4 == text.size();
        int pad   = 0;
        unsigned n = 0;
        for(std::size_t j = 0; j < 4; j++)
        {
            char c = text[i + j];
            int d  = 0;
            if(c == '=' and last and j >= 2)
                pad++;
            else if(pad > 0 or (d = table[static_cast<unsigned char>(c)]) < 0)
                MIGRAPHX_THROW("base64: bad character at offset " + std::to_string(i + j));
            n = (n << 6u) | static_cast<unsigned>(d);
        }
        r += static_cast<char>((n >> 16u) & 0xffu);
        if(pad < 2)
            r += static_cast<char>((n >> 8u) & 0xffu);
        if(pad < 1)
            r += static_cast<char>(n & 0xffu);
    }
    return r;
}

} // namespace serialize
} // namespace migraphx
