// GFLOPS of the cpu target's GEMM kernel (src/targets/cpu/gemm_kernel.cpp) against oneDNN's
// matmul (weights in the blocked format oneDNN picks, as cpu::pack_weights packs them), on the
// BERT encoder's shapes or any given M,N,K. See bench/README.md for the build line.
//
//   gemm_bench [--threads T] [--reps R] [--kc KC] [--misalign FLOATS] [--min] [--gelu]
//              [--cold COPIES [--cold-a] [--cold-c]] [MxNxK ...]

#include "targets/cpu/gemm_kernel.hpp"
#include <dnnl.hpp>
#include <omp.h>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

using namespace migraphx::cpu;

namespace {

struct problem
{
    std::size_t m, n, k;
};

double now_ms()
{
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

bool use_min = false;

template <class F>
double median_ms(int reps, F f)
{
    f();
    f();
    std::vector<double> t;
    for(int i = 0; i < reps; i++)
    {
        double s = now_ms();
        f();
        t.push_back(now_ms() - s);
    }
    std::sort(t.begin(), t.end());
    // the minimum: on a shared machine the median also measures the other processes
    return use_min ? t.front() : t[t.size() / 2];
}

/// The migx kernel spread over threads the way cpu::gemm does (column panels, then rows).
void run_migx(const gemm_args& g, int threads, std::size_t kc)
{
    std::size_t np = (g.n + gemm_panel - 1) / gemm_panel;
#pragma omp parallel num_threads(threads)
    {
        std::size_t t = omp_get_thread_num(), nt = omp_get_num_threads();
        gemm_block(g, 0, g.m, np * t / nt, np * (t + 1) / nt, gemm_isa::avx2, kc);
    }
}

} // namespace

int main(int argc, char** argv)
{
    int threads = 1, reps = 50;
    std::size_t kc = 0, misalign = 0;
    bool gelu = false; // GELU after the product (oneDNN: its gelu_erf post-op)
    std::size_t cold = 1; // copies of the weights, used in turn (enough of them: from memory)
    bool cold_a      = false; // A too
    bool cold_c      = false; // C too
    std::vector<problem> probs;
    for(int i = 1; i < argc; i++)
    {
        std::string a = argv[i];
        if(a == "--threads" and i + 1 < argc)
            threads = std::atoi(argv[++i]);
        else if(a == "--reps" and i + 1 < argc)
            reps = std::atoi(argv[++i]);
        else if(a == "--kc" and i + 1 < argc)
            kc = std::strtoul(argv[++i], nullptr, 10);
        else if(a == "--min")
            use_min = true;
        else if(a == "--gelu")
            gelu = true;
        else if(a == "--cold" and i + 1 < argc)
            cold = std::strtoul(argv[++i], nullptr, 10);
        else if(a == "--cold-a")
            cold_a = true;
        else if(a == "--cold-c")
            cold_c = true;
        else if(a == "--misalign" and i + 1 < argc)
            misalign = std::strtoul(argv[++i], nullptr, 10);
        else
        {
            problem p{};
            if(std::sscanf(a.c_str(), "%zux%zux%zu", &p.m, &p.n, &p.k) != 3)
            {
                std::fprintf(stderr, "usage: gemm_bench [--threads T] [--reps R] [--kc KC] [--misalign F] [--min] [--gelu] [--cold COPIES [--cold-a] [--cold-c]] [MxNxK ...]\n");
                return 2;
            }
            probs.push_back(p);
        }
    }
    if(probs.empty()) // BERT (d 256, FFN 1024, sequence 128): QKV, attention out, FFN1, FFN2
        probs = {{128, 768, 256}, {128, 256, 256}, {128, 1024, 256}, {128, 256, 1024}};
    omp_set_num_threads(threads);
    dnnl::engine eng(dnnl::engine::kind::cpu, 0);
    dnnl::stream strm(eng);
    std::printf("threads %d, %s of %d\n%-16s %10s %10s %10s %10s %8s\n", threads, use_min ? "min" : "median", reps, "MxNxK", "onednn ms",
                "GFLOPS", "migx ms", "GFLOPS", "max err");
    for(auto p : probs)
    {
        std::vector<float> a(p.m * p.k), b(p.k * p.n), c1(p.m * p.n), c2(p.m * p.n);
        for(std::size_t i = 0; i < a.size(); i++)
            a[i] = static_cast<float>((i * 7919) % 1000) / 1000.0f - 0.5f;
        for(std::size_t i = 0; i < b.size(); i++)
            b[i] = static_cast<float>((i * 104729) % 1000) / 1000.0f - 0.5f;
        double flops = 2.0 * p.m * p.n * p.k;

        // oneDNN, weights packed into its chosen format
        using tag = dnnl::memory::format_tag;
        using dt  = dnnl::memory::data_type;
        dnnl::memory::dims ad{1, (long)p.m, (long)p.k}, bd{1, (long)p.k, (long)p.n}, cd{1, (long)p.m, (long)p.n};
        dnnl::primitive_attr attr;
        if(gelu)
        {
            dnnl::post_ops po;
            po.append_eltwise(1.0f, dnnl::algorithm::eltwise_gelu_erf, 0.0f, 0.0f);
            attr.set_post_ops(po);
        }
        dnnl::matmul::primitive_desc pd({{ad, dt::f32, tag::abc}, {bd, dt::f32, tag::any}, {cd, dt::f32, tag::abc}},
                                        attr, eng);
        dnnl::memory am(pd.src_desc(), eng, a.data()), cm(pd.dst_desc(), eng, c1.data());
        dnnl::memory bplain({bd, dt::f32, tag::abc}, eng, b.data()), bm(pd.weights_desc(), eng);
        dnnl::reorder(bplain, bm).execute(strm, bplain, bm);
        dnnl::matmul mm(pd);
        double t1 = median_ms(reps, [&] {
            mm.execute(strm, {{DNNL_ARG_SRC, am}, {DNNL_ARG_WEIGHTS, bm}, {DNNL_ARG_DST, cm}});
            strm.wait();
        });

        // migx
        std::size_t each = gemm_packed_size(p.k, p.n) + misalign + 16;
        std::vector<float> packed(each * cold);
        std::vector<float*> pbs;
        for(std::size_t i = 0; i < cold; i++)
        {
            auto* pb = reinterpret_cast<float*>(
                           (reinterpret_cast<std::uintptr_t>(packed.data() + i * each) + 63) & ~std::uintptr_t{63}) +
                       misalign;
            gemm_pack_b(b.data(), p.n, 1, p.k, p.n, pb, 0, (p.n + 15) / 16);
            pbs.push_back(pb);
        }
        auto* pb = pbs.front();
        std::size_t turn = 0;
        gemm_args g;
        g.m = p.m, g.n = p.n, g.k = p.k, g.a = a.data(), g.lda = p.k, g.b = pb, g.c = c2.data(), g.ldc = p.n;
        gemm_step gs{gemm_step::gelu_erf};
        if(gelu)
            g.steps = &gs, g.nsteps = 1;
        // --cold-a, --cold-c: A, C rotate too (a model's activations are not in cache either)
        std::vector<float> as(cold_a ? cold * a.size() : 0), cs(cold_c ? cold * c2.size() : 0);
        for(std::size_t i = 0; i < as.size(); i++)
            as[i] = a[i % a.size()];
        double t2 = median_ms(reps, [&] {
            std::size_t u = turn++ % cold;
            g.b           = pbs[u];
            if(cold_a)
                g.a = as.data() + u * a.size();
            if(cold_c)
                g.c = cs.data() + u * c2.size();
            run_migx(g, threads, kc);
        });
        g.a = a.data(), g.c = c2.data(), g.b = pbs.front();
        run_migx(g, threads, kc);
        double err = 0;
        for(std::size_t i = 0; i < c1.size(); i++)
            err = std::max(err, (double)std::abs(c1[i] - c2[i]));
        char name[64];
        std::snprintf(name, sizeof name, "%zux%zux%zu", p.m, p.n, p.k);
        std::printf("%-16s %10.4f %10.1f %10.4f %10.1f %8.1e\n", name, t1, flops / t1 / 1e6, t2, flops / t2 / 1e6,
                    err);
    }
    return 0;
}
