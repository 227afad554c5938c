// Timing for the standalone device probes (int8_probe.cpp, gemm_out_probe.cpp): f run 5 times,
// then `rounds` rounds of `reps` calls between CUDA events; the median round's ms a call, or -1
// where f fails (returns false) while warming up.
#ifndef MIGX_TOOLS_GPU_PROBE_TIME_HPP
#define MIGX_TOOLS_GPU_PROBE_TIME_HPP
#include <cuda_runtime.h>
#include <algorithm>
#include <functional>
#include <vector>

static float time_ms(const std::function<bool()>& f, int reps = 50, int rounds = 7)
{
    for(int i = 0; i < 5; i++)
        if(not f())
            return -1;
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    std::vector<float> t;
    for(int r = 0; r < rounds; r++)
    {
        cudaEventRecord(a);
        for(int i = 0; i < reps; i++)
            f();
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms = 0;
        cudaEventElapsedTime(&ms, a, b);
        t.push_back(ms / reps);
    }
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

#endif
