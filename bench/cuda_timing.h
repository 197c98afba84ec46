/* Kernel time of a flextile CUDA output (bench/gpu.py, `make bench-gpu`).
 *
 * Included before the output (nvcc -include bench/cuda_timing.h), it defines
 * the output's launch seam FT_LAUNCH: each launch is bracketed by two CUDA
 * events and its elapsed time added up; at exit the program prints, on
 * standard error,
 *
 *   ft_kernels launches=N kernel_ms=T
 *
 * (T: the sum over every launch of the run, all repetitions). The events
 * synchronise each launch: the kernels run one after another, as the output
 * runs them anyway (one stream). */
#ifndef FT_CUDA_TIMING_H
#define FT_CUDA_TIMING_H

#include <stdio.h>
#include <stdlib.h>

static double ft_timing_ms = 0.0;
static long ft_timing_launches = 0;

static void ft_timing_report(void)
{
  fprintf(stderr, "ft_kernels launches=%ld kernel_ms=%.6f\n", ft_timing_launches, ft_timing_ms);
}

/* The events of one launch; registers the report at the first. */
struct ft_timing_span {
  cudaEvent_t start, stop;
  ft_timing_span()
  {
    static bool registered = false;
    if (!registered) {
      registered = true;
      atexit(ft_timing_report);
    }
    cudaEventCreate(&start);
    cudaEventCreate(&stop);
    cudaEventRecord(start, 0);
  }
  ~ft_timing_span()
  {
    float ms = 0.0f;
    cudaEventRecord(stop, 0);
    cudaEventSynchronize(stop);
    cudaEventElapsedTime(&ms, start, stop);
    cudaEventDestroy(start);
    cudaEventDestroy(stop);
    ft_timing_ms += ms;
    ft_timing_launches += 1;
  }
};

/* On the CPU emulation of CUDA (testsuite/cuda/emulate.h, included first)
 * the launch is the emulation's: the same plumbing, host times. */
#ifdef _FT_CUDA_EMULATE_H
#define FT_TIMING_LAUNCH(kernel, grid, block, shared, ...) \
  _Ft_emu::_Ft_launch(kernel, grid, block, shared, __VA_ARGS__)
#else
#define FT_TIMING_LAUNCH(kernel, grid, block, shared, ...) \
  kernel<<<grid, block, shared>>>(__VA_ARGS__)
#endif

#undef FT_LAUNCH
#define FT_LAUNCH(kernel, grid, block, shared, ...)                     \
  do {                                                                   \
    ft_timing_span ft_timing_span_;                                      \
    FT_TIMING_LAUNCH(kernel, grid, block, shared, __VA_ARGS__);          \
  } while (0)

#endif
