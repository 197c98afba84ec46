/* CPU emulation of the CUDA execution model, for testing generated CUDA
 * without a GPU (issue 20, item 5). Compile a .cu file as C++ with this
 * header first:  g++ -std=c++17 -x c++ -include emulate.h prog.cu
 *
 * The blocks of a grid run one after another. The threads of a block are
 * coroutines (ucontext) on the calling thread: each runs until it reaches a
 * barrier or its end, in an adversarial order (a seeded permutation, new for
 * every phase; FT_EMU_ORDER=forward|reverse|seed:N in the environment
 * chooses), so a missing barrier shows up as a wrong answer instead of
 * passing by luck of a sequential order.
 *   - __syncthreads(): every live thread of the block stops there before any
 *     goes on.
 *   - __syncwarp(), __shfl_*_sync(): every live lane of the warp (32
 *     consecutive threads in x-fastest order) stops there before any goes
 *     on; shuffles exchange the values the lanes deposited at that point.
 *   - A block whose threads wait at different barriers that can never all
 *     be reached (a barrier in divergent code) stops the program with a
 *     message: on a GPU that is undefined behaviour.
 * __shared__ variables are static: one copy for the block running now (not
 * cleared between blocks; the GPU does not clear shared memory either).
 * Dynamic shared memory (extern __shared__) is not emulated.
 * Kernels are launched through FT_LAUNCH(kernel, grid, block, shared_bytes,
 * args...), the one launch seam of flextile's CUDA output; memory calls
 * (cudaMalloc, cudaMemcpy, ...) work on host memory and succeed.
 */
#ifndef FT_CUDA_EMULATE_H
#define FT_CUDA_EMULATE_H

#include <ucontext.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <vector>

struct dim3 {
  unsigned x, y, z;
  dim3(unsigned x_ = 1, unsigned y_ = 1, unsigned z_ = 1) : x(x_), y(y_), z(z_) {}
};
struct uint3 {
  unsigned x, y, z;
};

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict

namespace ft_emu {

enum class Wait { Run, Block, Warp, Done };
/** What a lane asks of a shuffle: the lane whose value it reads. */
enum class Shfl { None, Idx, Up, Down, Xor };

struct Thread {
  ucontext_t ctx;
  uint3 tid;
  Wait wait = Wait::Run;
  Shfl shfl = Shfl::None;
  int arg = 0;      /* source lane, delta or lane mask */
  int width = 32;   /* shuffle segment width */
  uint64_t put = 0; /* the value deposited */
  uint64_t got = 0; /* the value received */
};

struct State {
  std::vector<Thread> threads;
  /* The threads' stacks, uninitialised (a block of 1024 threads takes 256 MiB
   * of address space; only the pages a thread touches are used). */
  std::unique_ptr<char[]> stacks;
  size_t stacks_for = 0;
  size_t stack_bytes = 256 * 1024;
  ucontext_t sched;
  size_t current = 0;
  dim3 grid_dim, block_dim;
  uint3 block_idx{0, 0, 0};
  std::function<void()> body;
  uint64_t rng = 0x9e3779b97f4a7c15ull;
  int order = 2; /* 0 forward, 1 reverse, 2 seeded */
  bool configured = false;
};

inline State &st() {
  static State s;
  return s;
}

[[noreturn]] inline void fail(const char *what) {
  State &s = st();
  std::fprintf(stderr, "cuda emulation: %s (block %u,%u,%u)\n", what, s.block_idx.x, s.block_idx.y,
               s.block_idx.z);
  std::exit(70);
}

inline void configure() {
  State &s = st();
  if (s.configured) return;
  s.configured = true;
  if (const char *o = std::getenv("FT_EMU_ORDER")) {
    if (!std::strcmp(o, "forward")) s.order = 0;
    else if (!std::strcmp(o, "reverse")) s.order = 1;
    else if (!std::strncmp(o, "seed:", 5)) s.rng = std::strtoull(o + 5, nullptr, 10) * 2654435761ull + 1;
    else fail("FT_EMU_ORDER must be forward, reverse or seed:N");
  }
}

inline uint64_t next_random() {
  uint64_t &x = st().rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

inline Thread &me() { return st().threads[st().current]; }

inline void yield(Wait w) {
  State &s = st();
  Thread &t = me();
  t.wait = w;
  swapcontext(&t.ctx, &s.sched);
}

inline void trampoline() {
  st().body();
  me().wait = Wait::Done;
  /* uc_link returns to the scheduler */
}

/** Releases the warps whose live lanes all wait at a warp barrier,
 * computing their shuffles from the values deposited; true if any. */
inline bool release_warps() {
  State &s = st();
  bool any = false;
  size_t n = s.threads.size();
  for (size_t w0 = 0; w0 < n; w0 += 32) {
    size_t w1 = std::min(n, w0 + 32);
    bool live = false, all = true;
    for (size_t i = w0; i < w1; i++) {
      if (s.threads[i].wait == Wait::Done) continue;
      live = true;
      all = all && s.threads[i].wait == Wait::Warp;
    }
    if (!live || !all) continue;
    for (size_t i = w0; i < w1; i++) {
      Thread &t = s.threads[i];
      if (t.wait == Wait::Done) continue;
      int lane = int(i - w0), seg = lane - lane % t.width, src = lane;
      switch (t.shfl) {
        case Shfl::None: break;
        case Shfl::Idx: src = seg + ((t.arg % t.width) + t.width) % t.width; break;
        case Shfl::Up: src = lane - t.arg >= seg ? lane - t.arg : lane; break;
        case Shfl::Down: src = lane + t.arg < seg + t.width ? lane + t.arg : lane; break;
        case Shfl::Xor: src = (lane ^ t.arg) < seg + t.width ? (lane ^ t.arg) : lane; break;
      }
      if (t.shfl != Shfl::None) {
        const Thread &from = s.threads[w0 + size_t(src)];
        if (w0 + size_t(src) >= w1 || from.wait != Wait::Warp || from.shfl == Shfl::None)
          fail("a shuffle reads a lane that is not at the same shuffle");
        t.got = from.put;
      }
    }
    for (size_t i = w0; i < w1; i++)
      if (s.threads[i].wait == Wait::Warp) s.threads[i].wait = Wait::Run;
    any = true;
  }
  return any;
}

inline void run_block() {
  State &s = st();
  size_t n = size_t(s.block_dim.x) * s.block_dim.y * s.block_dim.z;
  s.threads.assign(n, Thread());
  if (s.stacks_for < n) {
    s.stacks.reset(new char[n * s.stack_bytes]);
    s.stacks_for = n;
  }
  for (size_t i = 0; i < n; i++) {
    Thread &t = s.threads[i];
    t.tid = uint3{unsigned(i % s.block_dim.x), unsigned(i / s.block_dim.x % s.block_dim.y),
                  unsigned(i / (size_t(s.block_dim.x) * s.block_dim.y))};
    getcontext(&t.ctx);
    t.ctx.uc_stack.ss_sp = &s.stacks[i * s.stack_bytes];
    t.ctx.uc_stack.ss_size = s.stack_bytes;
    t.ctx.uc_link = &s.sched;
    makecontext(&t.ctx, trampoline, 0);
  }
  std::vector<size_t> order;
  for (;;) {
    order.clear();
    for (size_t i = 0; i < n; i++)
      if (s.threads[i].wait == Wait::Run) order.push_back(i);
    if (!order.empty()) {
      if (s.order == 1) std::reverse(order.begin(), order.end());
      if (s.order == 2)
        for (size_t i = order.size(); i > 1; i--) std::swap(order[i - 1], order[next_random() % i]);
      for (size_t i : order) {
        s.current = i;
        swapcontext(&s.sched, &s.threads[i].ctx);
      }
      continue;
    }
    bool live = false, all_block = true;
    for (const Thread &t : s.threads) {
      if (t.wait == Wait::Done) continue;
      live = true;
      all_block = all_block && t.wait == Wait::Block;
    }
    if (!live) break;
    if (release_warps()) continue;
    if (!all_block) fail("deadlock: the threads of a block wait at different barriers");
    for (Thread &t : s.threads)
      if (t.wait == Wait::Block) t.wait = Wait::Run;
  }
}

template <typename K, typename... A>
void launch(K kernel, dim3 grid, dim3 block, size_t shared_bytes, A... args) {
  configure();
  State &s = st();
  if (shared_bytes != 0) fail("dynamic shared memory is not emulated");
  if (block.x * block.y * block.z == 0 || block.x * block.y * block.z > 1024)
    fail("a block has between 1 and 1024 threads");
  s.grid_dim = grid;
  s.block_dim = block;
  s.body = [=]() { kernel(args...); };
  for (unsigned z = 0; z < grid.z; z++)
    for (unsigned y = 0; y < grid.y; y++)
      for (unsigned x = 0; x < grid.x; x++) {
        s.block_idx = uint3{x, y, z};
        run_block();
      }
  s.body = nullptr;
}

template <typename T>
T shuffle(Shfl kind, T v, int arg, int width) {
  static_assert(sizeof(T) <= sizeof(uint64_t), "shuffles move at most 8 bytes");
  Thread &t = me();
  t.shfl = kind;
  t.arg = arg;
  t.width = width;
  t.put = 0;
  std::memcpy(&t.put, &v, sizeof(T));
  yield(Wait::Warp);
  Thread &back = me();
  back.shfl = Shfl::None;
  T r;
  std::memcpy(&r, &back.got, sizeof(T));
  return r;
}

}  // namespace ft_emu

#define threadIdx (ft_emu::me().tid)
#define blockIdx (ft_emu::st().block_idx)
#define blockDim (ft_emu::st().block_dim)
#define gridDim (ft_emu::st().grid_dim)
#define warpSize 32

inline void __syncthreads() { ft_emu::yield(ft_emu::Wait::Block); }
inline void __syncwarp(unsigned = 0xffffffffu) {
  ft_emu::me().shfl = ft_emu::Shfl::None;
  ft_emu::yield(ft_emu::Wait::Warp);
}
template <typename T>
T __shfl_sync(unsigned, T v, int src, int width = 32) {
  return ft_emu::shuffle(ft_emu::Shfl::Idx, v, src, width);
}
template <typename T>
T __shfl_up_sync(unsigned, T v, unsigned delta, int width = 32) {
  return ft_emu::shuffle(ft_emu::Shfl::Up, v, int(delta), width);
}
template <typename T>
T __shfl_down_sync(unsigned, T v, unsigned delta, int width = 32) {
  return ft_emu::shuffle(ft_emu::Shfl::Down, v, int(delta), width);
}
template <typename T>
T __shfl_xor_sync(unsigned, T v, int mask, int width = 32) {
  return ft_emu::shuffle(ft_emu::Shfl::Xor, v, mask, width);
}

/* The runtime API on host memory. */
typedef int cudaError_t;
enum { cudaSuccess = 0 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
inline cudaError_t cudaMalloc(void **p, size_t n) {
  *p = std::malloc(n ? n : 1);
  return *p ? cudaSuccess : 2;
}
template <typename T>
cudaError_t cudaMalloc(T **p, size_t n) {
  return cudaMalloc(reinterpret_cast<void **>(p), n);
}
inline cudaError_t cudaFree(void *p) {
  std::free(p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *d, const void *s, size_t n, cudaMemcpyKind) {
  std::memmove(d, s, n);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *d, int v, size_t n) {
  std::memset(d, v, n);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t) { return "cuda emulation error"; }

/* Events, on the host's clock (bench/cuda_timing.h times launches with them). */
struct ft_emu_event {
  double ms;
};
typedef ft_emu_event *cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t *e) {
  *e = new ft_emu_event{0.0};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t e, void * = nullptr) {
  using namespace std::chrono;
  e->ms = duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t stop) {
  *ms = float(stop->ms - start->ms);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t e) {
  delete e;
  return cudaSuccess;
}

#define FT_LAUNCH(kernel, grid, block, shared, ...) \
  ft_emu::launch(kernel, grid, block, shared, __VA_ARGS__)

#endif
