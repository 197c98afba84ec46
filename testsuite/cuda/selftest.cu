/* Self-test of the CUDA emulation (emulate.h), and of this test against a
 * real GPU: kernels that depend on block barriers, warp barriers and
 * shuffles, each checked against the same computation on the host. Exit 0
 * when every result matches, 1 otherwise.
 *
 * Emulated:  g++ -std=c++17 -x c++ -include emulate.h selftest.cu
 * Real GPU:  nvcc -arch=sm_90 selftest.cu
 * -DDROP_SYNCTHREADS / -DDROP_SYNCWARP delete one barrier: the emulation
 * must then give a wrong answer (tests/cuda_emulation.rs checks both).
 * -DDIVERGENT_BARRIER first launches a kernel whose barriers can never all
 * be reached: the emulation must stop with a message. */
#include <cstdio>
#include <cstdlib>

#ifdef __CUDACC__
#define FT_LAUNCH(kernel, grid, block, shared, ...) kernel<<<grid, block, shared>>>(__VA_ARGS__)
#endif

#define CHECK(call)                                                                   \
  do {                                                                                \
    cudaError_t e_ = (call);                                                          \
    if (e_ != cudaSuccess) {                                                          \
      std::fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); \
      std::exit(2);                                                                   \
    }                                                                                 \
  } while (0)

enum { N = 1024, B = 128 };

/* Each thread stages its element in shared memory; after the barrier it
 * reads its right neighbour's (the last thread wraps to the first). */
__global__ void neighbours(const int *in, int *out) {
  __shared__ int s[B];
  int t = threadIdx.x, g = blockIdx.x * B + t;
  s[t] = in[g] * 3;
#ifndef DROP_SYNCTHREADS
  __syncthreads();
#endif
  out[g] = s[t] + s[(t + 1) % B];
}

/* A 2-D block: each warp reverses its lanes' values through shared memory
 * (a warp barrier between the write and the read), then adds an inclusive
 * prefix sum over the warp by shuffles up and the warp's total by a
 * butterfly of xor shuffles. */
__global__ void warps(const int *in, int *out, int width) {
  __shared__ int s[8][32];
  int lane = threadIdx.x, w = threadIdx.y;
  int x = blockIdx.x * 32 + lane, y = blockIdx.y * 8 + w;
  int v = in[y * width + x];
  s[w][lane] = v;
#ifndef DROP_SYNCWARP
  __syncwarp();
#endif
  int r = s[w][31 - lane];
  int scan = v;
  for (int d = 1; d < 32; d *= 2) {
    int up = __shfl_up_sync(0xffffffffu, scan, d);
    if (lane >= d) scan += up;
  }
  int total = v;
  for (int m = 16; m > 0; m /= 2) total += __shfl_xor_sync(0xffffffffu, total, m);
  int first = __shfl_sync(0xffffffffu, v, 0);
  out[y * width + x] = r * 1000000 + scan * 1000 + (total - first);
}

#ifdef DIVERGENT_BARRIER
/* Half of a warp waits for the warp, the other half for the block: a
 * deadlock on the emulation (undefined behaviour on a GPU). */
__global__ void divergent(int *out) {
  if (threadIdx.x % 32 < 16)
    __syncwarp();
  else
    __syncthreads();
  out[threadIdx.x] = 1;
}
#endif

int main() {
#ifdef DIVERGENT_BARRIER
  int *d;
  CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  FT_LAUNCH(divergent, dim3(1), dim3(64), 0, d);
  CHECK(cudaDeviceSynchronize());
  std::printf("divergent: returned\n");
#endif
  static int in[N], out[N], want[N];
  for (int i = 0; i < N; i++) in[i] = (i * 37 + 11) % 101;
  for (int i = 0; i < N; i++) {
    int b = i / B * B, t = i % B;
    want[i] = in[i] * 3 + in[b + (t + 1) % B] * 3;
  }
  int *din, *dout;
  CHECK(cudaMalloc(&din, sizeof in));
  CHECK(cudaMalloc(&dout, sizeof out));
  CHECK(cudaMemcpy(din, in, sizeof in, cudaMemcpyHostToDevice));
  FT_LAUNCH(neighbours, dim3(N / B), dim3(B), 0, din, dout);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(out, dout, sizeof out, cudaMemcpyDeviceToHost));
  int bad = 0;
  for (int i = 0; i < N; i++) bad += out[i] != want[i];
  std::printf("neighbours: %d of %d wrong\n", bad, N);

  enum { W = 64, H = 16 };
  static int a[W * H], r[W * H], w2[W * H];
  for (int i = 0; i < W * H; i++) a[i] = (i * 7 + 3) % 29;
  for (int y = 0; y < H; y++)
    for (int x = 0; x < W; x++) {
      int base = y * W + x / 32 * 32, lane = x % 32, scan = 0, total = 0;
      for (int l = 0; l <= lane; l++) scan += a[base + l];
      for (int l = 0; l < 32; l++) total += a[base + l];
      w2[y * W + x] = a[base + 31 - lane] * 1000000 + scan * 1000 + (total - a[base]);
    }
  int *da, *dr;
  CHECK(cudaMalloc(&da, sizeof a));
  CHECK(cudaMalloc(&dr, sizeof r));
  CHECK(cudaMemcpy(da, a, sizeof a, cudaMemcpyHostToDevice));
  FT_LAUNCH(warps, dim3(W / 32, H / 8), dim3(32, 8), 0, da, dr, (int)W);
  CHECK(cudaGetLastError());
  CHECK(cudaMemcpy(r, dr, sizeof r, cudaMemcpyDeviceToHost));
  int bad2 = 0;
  for (int i = 0; i < W * H; i++) bad2 += r[i] != w2[i];
  std::printf("warps: %d of %d wrong\n", bad2, W * H);
  CHECK(cudaFree(din));
  CHECK(cudaFree(dout));
  CHECK(cudaFree(da));
  CHECK(cudaFree(dr));
  return bad || bad2;
}
