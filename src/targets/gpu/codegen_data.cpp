// Generated kernels that only move elements: concat, gather, pad. One thread per output element
// (grid-stride), the output standard, inputs at any strides; elements are copied as raw bits, so
// every element type works. A gather of whole rows of 16-byte vectors copies a vector a thread.
#include "targets/gpu/codegen.hpp"
#include <migraphx/errors.hpp>
#include <optional>
#include <sstream>

namespace migraphx {
namespace gpu {
namespace {

std::string head(const std::string& name,
                 const std::vector<std::string>& in_types,
                 const std::string& out_type,
                 const std::vector<shape>& shapes,
                 std::size_t n)
{
    std::ostringstream ss;
    ss << detail::prelude();
    ss << detail::signature(name, in_types, out_type);
    ss << "    typedef " << detail::index_type(shapes) << " idx_t;\n";
    ss << "    const idx_t n = " << n << ";\n";
    ss << "    for(idx_t i = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; i < n; i += (idx_t)gridDim.x * blockDim.x)\n"
          "    {\n";
    return ss.str();
}

kernel_source finish(const std::string& name, const std::string& source, std::size_t n)
{
    kernel_source k;
    k.name     = name;
    k.source   = source + "    }\n}\n";
    k.elements = n;
    return k;
}

/// sum of d<j> * strides[j], with digit `axis` replaced by `axis_digit`.
std::string offset(const std::vector<std::size_t>& strides, std::size_t axis, const std::string& axis_digit)
{
    std::ostringstream t;
    bool first = true;
    for(std::size_t d = 0; d < strides.size(); d++)
    {
        if(strides[d] == 0)
            continue;
        t << (first ? "" : " + ");
        if(d == axis)
            t << axis_digit;
        else
            t << "d" << d;
        t << " * " << strides[d] << "u";
        first = false;
    }
    return first ? "0" : t.str();
}

/// The elements a 16-byte vector holds where a gather along `axis` copies whole rows of them: the
/// data's dims after the axis packed, their size and every row start (the axis's and earlier
/// dims' strides) multiples of the vector, the output standard; nullopt otherwise.
std::optional<std::size_t> gather_vectors(std::size_t axis, const shape& data, const shape& out)
{
    auto ts = data.type_size();
    if(ts == 0 or 16 % ts != 0 or not out.standard())
        return std::nullopt;
    std::size_t vec = 16 / ts, inner = 1;
    const auto& lens    = data.lens();
    const auto& strides = data.strides();
    for(std::size_t j = lens.size(); j-- > axis + 1;)
    {
        if(lens[j] != 1 and strides[j] != inner)
            return std::nullopt;
        inner *= lens[j];
    }
    if(vec == 1 or inner % vec != 0)
        return std::nullopt;
    for(std::size_t j = 0; j <= axis; j++)
        if(lens[j] != 1 and strides[j] % vec != 0)
            return std::nullopt;
    return vec;
}

} // namespace

kernel_source generate_concat(std::size_t axis, const std::vector<shape>& inputs, const shape& out)
{
    auto t = detail::raw_type(out.type_size());
    std::vector<shape> all = inputs;
    all.push_back(out);
    std::ostringstream ss;
    ss << head("concat_kernel", std::vector<std::string>(inputs.size(), t), t, all, out.elements());
    ss << detail::digits("i", out.lens(), "d");
    std::size_t start = 0;
    bool first        = true;
    for(std::size_t k = 0; k < inputs.size(); k++)
    {
        auto len = inputs[k].lens()[axis];
        if(len == 0)
            continue;
        auto a = "(d" + std::to_string(axis) + " - " + std::to_string(start) + "u)";
        ss << "        " << (first ? "" : "else ") << "if(d" << axis << " < " << start + len << "u)\n";
        ss << "            y[i] = x" << k << "[" << offset(inputs[k].strides(), axis, a) << "];\n";
        start += len;
        first = false;
    }
    return finish("concat_kernel", ss.str(), out.elements());
}

std::optional<kernel_source> generate_gather(std::size_t axis, const shape& data, const shape& indices, const shape& out)
{
    if(indices.type() != shape::int32_type and indices.type() != shape::int64_type)
        return std::nullopt;
    if(data.dynamic() or indices.dynamic() or axis >= data.lens().size() or data.lens()[axis] == 0)
        return std::nullopt;
    auto t      = detail::raw_type(data.type_size());
    auto it     = indices.type() == shape::int32_type ? "int" : "long long";
    auto nind   = indices.lens().size();
    auto alen   = data.lens()[axis];
    std::ostringstream ss;
    ss << head("gather_kernel", {t, it}, t, {data, indices, out}, out.elements());
    ss << detail::digits("i", out.lens(), "d");
    // The index's position in `indices`: output digits axis .. axis+nind-1.
    std::string ioff;
    for(std::size_t j = 0; j < nind; j++)
        if(indices.strides()[j] != 0)
            ioff += (ioff.empty() ? "" : " + ") + std::string("d") + std::to_string(axis + j) + " * " +
                    std::to_string(indices.strides()[j]) + "u";
    ss << "        long long k = x1[" << (ioff.empty() ? "0" : ioff) << "];\n";
    ss << "        if(k < 0) k += " << alen << "ll;\n";
    ss << "        if(k < 0) k = 0; else if(k >= " << alen << "ll) k = " << alen - 1 << "ll;\n";
    std::string off;
    for(std::size_t j = 0; j < data.lens().size(); j++)
    {
        auto st = data.strides()[j];
        if(st == 0)
            continue;
        std::ostringstream term; // (a stream: GCC 12's -Wrestrict misfires on "d" + std::string&&)
        term << (off.empty() ? "" : " + ");
        if(j == axis)
            term << "(idx_t)k";
        else
            term << "d" << (j < axis ? j : j + nind - 1);
        term << " * " << st << "u";
        off += term.str();
    }
    ss << "        y[i] = x0[" << (off.empty() ? "0" : off) << "];\n";
    auto src = ss.str();
    // Rows of 16-byte vectors (an embedding table's rows): 16 bytes a thread where the pointers
    // allow, before the element loop (a BERT batch's 6.3 million halves were a thread each).
    if(auto vecs = gather_vectors(axis, data, out))
    {
        auto vec = *vecs;
        std::ostringstream v;
        v << "    if((((unsigned long long)(const void*)x0 | (unsigned long long)(const void*)y) & 15ull) == 0ull)\n"
          << "    {\n"
          << "        for(idx_t q = blockIdx.x * (idx_t)blockDim.x + threadIdx.x; q < n / " << vec
          << "u; q += (idx_t)gridDim.x * blockDim.x)\n        {\n"
          << "            const idx_t i = q * " << vec << "u;\n";
        std::string body = src.substr(src.find("        idx_t d_r = i;"));
        body             = body.substr(0, body.find("        y[i] = x0["));
        std::istringstream lines(body);
        for(std::string line; std::getline(lines, line);)
            v << "    " << line << "\n";
        v << "            reinterpret_cast<uint4*>(y)[q] = *reinterpret_cast<const uint4*>(x0 + ("
          << (off.empty() ? "0" : off) << "));\n"
          << "        }\n        return;\n    }\n";
        auto loop = src.find("    for(idx_t i = ");
        src.insert(loop, v.str());
    }
    auto k = finish("gather_kernel", src, out.elements());
    if(auto vecs = gather_vectors(axis, data, out))
        k.elements = out.elements() / *vecs; // a thread a vector (the element loop strides over the rest)
    return k;
}

namespace {
/// A channels-last network's stem: NCHW channels padded at the end with a constant into an NHWC
/// output (layout_nhwc pads a convolution's few input channels to 8). One thread a pixel: it reads
/// the pixel's input channels (coalesced over the pixels) and writes the pixel's channels together
/// (16-byte stores where they fill them), instead of one thread an element with a division per dim.
std::optional<kernel_source> pad_channels_nhwc(const std::vector<std::int64_t>& pads,
                                               std::int64_t mode,
                                               std::uint64_t value_bits,
                                               const shape& in,
                                               const shape& out)
{
    const auto& il = in.lens();
    const auto& ol = out.lens();
    if(mode != 0 or il.size() != 4 or pads.size() != 8 or in.type() != out.type())
        return std::nullopt;
    for(std::size_t j = 0; j < 8; j++)
        if(j != 5 and pads[j] != 0)
            return std::nullopt;
    std::size_t N = il[0], C = il[1], H = il[2], W = il[3], CO = ol[1];
    if(pads[5] < 0 or CO != C + static_cast<std::size_t>(pads[5]) or ol[0] != N or ol[2] != H or ol[3] != W or
       out.strides() != std::vector<std::size_t>{H * W * CO, 1, W * CO, CO})
        return std::nullopt;
    auto t     = detail::raw_type(out.type_size());
    auto bytes = CO * out.type_size();
    std::ostringstream ss;
    ss << head("pad_kernel", {t}, t, {in, out}, N * H * W);
    ss << "        const idx_t hw = i % " << H * W << "u, b = i / " << H * W << "u;\n";
    ss << "        const idx_t base = b * " << in.strides()[0] << "u + (hw / " << W << "u) * " << in.strides()[2]
       << "u + (hw % " << W << "u) * " << in.strides()[3] << "u;\n";
    ss << "        union { " << t << " e[" << CO << "]; uint4 v[" << (bytes + 15) / 16 << "]; } px;\n";
    ss << "        for(int c = 0; c < " << C << "; c++)\n            px.e[c] = x0[base + (idx_t)c * "
       << in.strides()[1] << "u];\n";
    ss << "        for(int c = " << C << "; c < " << CO << "; c++)\n            px.e[c] = (" << t << ")" << value_bits
       << "ull;\n";
    if(bytes % 16 == 0)
        ss << "        if(((unsigned long long)y & 15) == 0)\n        {\n"
           << "            for(int k = 0; k < " << bytes / 16 << "; k++)\n"
           << "                reinterpret_cast<uint4*>(y + i * " << CO << "u)[k] = px.v[k];\n"
           << "            continue;\n        }\n";
    ss << "        for(int c = 0; c < " << CO << "; c++)\n            y[i * " << CO << "u + c] = px.e[c];\n";
    return finish("pad_kernel", ss.str(), N * H * W);
}
} // namespace

kernel_source generate_pad(const std::vector<std::int64_t>& pads, std::int64_t mode, std::uint64_t value_bits,
                           const shape& in, const shape& out)
{
    if(auto k = pad_channels_nhwc(pads, mode, value_bits, in, out))
        return *k;
    auto t = detail::raw_type(out.type_size());
    auto n = in.lens().size();
    std::ostringstream ss;
    ss << head("pad_kernel", {t}, t, {in, out}, out.elements());
    // i walks the output in its memory order (an NHWC output too), so y[i] is in place.
    auto d = detail::memory_digits("i", out, "d");
    if(not d)
        MIGRAPHX_THROW("generate_pad: the output must be packed");
    ss << *d;
    ss << "        bool inside = true;\n";
    std::string off;
    for(std::size_t j = 0; j < n; j++)
    {
        auto s   = std::to_string(j);
        auto len = static_cast<std::int64_t>(in.lens()[j]);
        ss << "        long long s" << s << " = (long long)d" << s << " - (" << pads[j] << "ll);\n";
        if(mode == 0)
            ss << "        inside = inside && s" << s << " >= 0 && s" << s << " < " << len << "ll;\n";
        else if(mode == 2 or len == 1)
            ss << "        s" << s << " = s" << s << " < 0 ? 0 : (s" << s << " >= " << len << "ll ? " << len - 1
               << "ll : s" << s << ");\n";
        else
        {
            auto period = 2 * (len - 1);
            ss << "        if(s" << s << " < 0 || s" << s << " >= " << len << "ll) { s" << s << " = ((s" << s << " % "
               << period << "ll) + " << period << "ll) % " << period << "ll; if(s" << s << " >= " << len << "ll) s"
               << s << " = " << period << "ll - s" << s << "; }\n";
        }
        if(in.strides()[j] != 0)
            off += (off.empty() ? "" : " + ") + std::string("(idx_t)s") + s + " * " + std::to_string(in.strides()[j]) +
                   "u";
    }
    ss << "        y[i] = inside ? x0[" << (off.empty() ? "0" : off) << "] : (" << t << ")" << value_bits << "ull;\n";
    return finish("pad_kernel", ss.str(), out.elements());
}

} // namespace gpu
} // namespace migraphx
