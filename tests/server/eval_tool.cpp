// The library's own run of a model, to compare the server's answers with:
//   migx_server_eval MODEL.onnx|MODEL.mxr TARGET INPUT.bin OUTPUT.bin
// parses (ONNX, symbolic dims 1) and compiles for TARGET, or loads the .mxr; feeds INPUT.bin's
// raw bytes as the first input; writes the first output's raw bytes.
#include <migraphx/load_save.hpp>
#include <migraphx/onnx.hpp>
#include <migraphx/program.hpp>
#include <cstring>
#include <fstream>
#include <iostream>
#include <sstream>

int main(int argc, char** argv)
{
    if(argc != 5)
    {
        std::cerr << "usage: migx_server_eval MODEL TARGET INPUT.bin OUTPUT.bin\n";
        return 2;
    }
    try
    {
        std::string file = argv[1];
        migraphx::program p;
        if(file.size() > 4 and file.substr(file.size() - 4) == ".mxr")
            p = migraphx::load(file);
        else
        {
            migraphx::onnx_options o;
            o.default_dim_value = 1;
            p                   = migraphx::parse_onnx(file, o);
            migraphx::compile_options c;
            c.offload_copy = true;
            p.compile(migraphx::get_target(argv[2]), c);
        }
        auto names = p.get_parameter_names();
        auto ins   = p.get_inputs();
        std::string name;
        for(const auto& n : names)
            if(ins.count(n))
            {
                name = n;
                break;
            }
        std::ifstream f(argv[3], std::ios::binary);
        std::stringstream ss;
        ss << f.rdbuf();
        std::string bytes = ss.str();
        const auto& s     = ins.at(name);
        if(bytes.size() != s.bytes())
        {
            std::cerr << "input has " << bytes.size() << " bytes, the model's " << name << " needs " << s.bytes() << "\n";
            return 1;
        }
        auto out = p.eval({{name, migraphx::argument(s, bytes.data())}}).at(0).contiguous();
        std::ofstream(argv[4], std::ios::binary).write(out.data(), static_cast<std::streamsize>(out.get_shape().bytes()));
        return 0;
    }
    catch(const std::exception& e)
    {
        std::cerr << "migx_server_eval: " << e.what() << "\n";
        return 1;
    }
}
