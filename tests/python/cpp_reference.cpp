// The C++ API's answer for the spec's Python programs: the same model, input, target and
// quantization through migraphx:: calls, output written as raw float32 for the Python test to
// compare bit for bit.
// usage: cpp_reference MODEL.onnx TARGET INPUT.bin N,C,H,W OUTPUT.bin [fp16|int8] [--map-input-dims N,C,H,W]
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <migraphx/target.hpp>
#if __has_include(<migraphx/quantization.hpp>)
#include <migraphx/quantization.hpp>
#define HAVE_QUANTIZATION 1
#endif
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

static std::vector<std::size_t> parse_dims(const std::string& s)
{
    std::vector<std::size_t> r;
    std::stringstream ss(s);
    std::string x;
    while(std::getline(ss, x, ','))
        r.push_back(std::stoul(x));
    return r;
}

int main(int argc, char** argv)
{
    if(argc < 6)
    {
        std::cerr << "usage: cpp_reference MODEL TARGET INPUT.bin N,C,H,W OUTPUT.bin [fp16|int8] "
                     "[--map-input-dims N,C,H,W]\n";
        return 2;
    }
    std::string quant;
    migraphx::onnx_options onnx_options;
    for(int i = 6; i < argc; i++)
    {
        std::string a = argv[i];
        if(a == "--map-input-dims" and i + 1 < argc)
            onnx_options.map_input_dims["input"] = parse_dims(argv[++i]);
        else
            quant = a;
    }
    try
    {
        auto p      = migraphx::parse_onnx(argv[1], onnx_options);
        auto t      = migraphx::get_target(argv[2]);
        auto inputs = p.get_inputs();
        auto name   = p.get_parameter_names().front();
        migraphx::shape s{migraphx::shape::float_type, parse_dims(argv[4])};
        std::vector<float> data(s.elements());
        std::ifstream in(argv[3], std::ios::binary);
        in.read(reinterpret_cast<char*>(data.data()), static_cast<std::streamsize>(data.size() * sizeof(float)));
        if(not in)
            throw std::runtime_error(std::string("cannot read ") + argv[3]);
        migraphx::parameter_map params{{name, migraphx::argument{s, data.data()}}};
#ifdef HAVE_QUANTIZATION
        if(quant == "fp16")
            migraphx::quantize_fp16(p);
        else if(quant == "int8")
            migraphx::quantize_int8(p, t, {params});
#endif
        if(not quant.empty() and quant != "fp16" and quant != "int8")
            throw std::runtime_error("unknown option " + quant);
        migraphx::compile_options options;
        options.offload_copy = true;
        p.compile(t, options);
        auto result = p.eval(params).at(0);
        auto values = result.to_vector<float>();
        std::ofstream out(argv[5], std::ios::binary);
        out.write(reinterpret_cast<const char*>(values.data()),
                  static_cast<std::streamsize>(values.size() * sizeof(float)));
        std::cout << "cpp_reference: " << result.get_shape() << "\n";
    }
    catch(const std::exception& e)
    {
        std::cerr << "cpp_reference: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
