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
 * Every name it declares besides CUDA's is reserved (_Ft_...), so that no
 * name or -D macro of the user's file clashes with it.
 * Kernels are launched through FT_LAUNCH(kernel, grid, block, shared_bytes,
 * args...), the one launch seam of flextile's CUDA output; memory calls
 * (cudaMalloc, cudaMemcpy, ...) work on host memory and succeed.
 */
#ifndef _FT_CUDA_EMULATE_H
#define _FT_CUDA_EMULATE_H

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
  dim3(unsigned _Ft_x_ = 1, unsigned _Ft_y_ = 1, unsigned _Ft_z_ = 1) : x(_Ft_x_), y(_Ft_y_), z(_Ft_z_) {}
};
struct uint3 {
  unsigned x, y, z;
};

/* CUDA's built-in variables, variables as in CUDA's headers (a user's file
 * may rename or shadow them): the scheduler sets them before it resumes a
 * thread. */
inline uint3 threadIdx, blockIdx;
inline dim3 blockDim, gridDim;
inline const int warpSize = 32;

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __shared__ static
#define __restrict__ __restrict

namespace _Ft_emu {

enum class _Ft_Wait { _Ft_Run, _Ft_Block, _Ft_Warp, _Ft_Done };
/** What a lane asks of a shuffle: the lane whose value it reads. */
enum class _Ft_Shfl { _Ft_None, _Ft_Idx, _Ft_Up, _Ft_Down, _Ft_Xor };

struct _Ft_Thread {
  ucontext_t _Ft_ctx;
  uint3 _Ft_tid;
  _Ft_Wait _Ft_wait = _Ft_Wait::_Ft_Run;
  _Ft_Shfl _Ft_shfl = _Ft_Shfl::_Ft_None;
  int _Ft_arg = 0;      /* source lane, delta or lane mask */
  int _Ft_width = 32;   /* shuffle segment width */
  uint64_t _Ft_put = 0; /* the value deposited */
  uint64_t _Ft_got = 0; /* the value received */
};

struct _Ft_State {
  std::vector<_Ft_Thread> _Ft_threads;
  /* The threads' stacks, uninitialised (a block of 1024 threads takes 256 MiB
   * of address space; only the pages a thread touches are used). */
  std::unique_ptr<char[]> _Ft_stacks;
  size_t _Ft_stacks_for = 0;
  size_t _Ft_stack_bytes = 256 * 1024;
  ucontext_t _Ft_sched;
  size_t _Ft_current = 0;
  dim3 _Ft_grid_dim, _Ft_block_dim;
  uint3 _Ft_block_idx{0, 0, 0};
  std::function<void()> _Ft_body;
  uint64_t _Ft_rng = 0x9e3779b97f4a7c15ull;
  int _Ft_order = 2; /* 0 forward, 1 reverse, 2 seeded */
  bool _Ft_configured = false;
};

inline _Ft_State &_Ft_st() {
  static _Ft_State _Ft_s;
  return _Ft_s;
}

[[noreturn]] inline void _Ft_fail(const char *_Ft_what) {
  _Ft_State &_Ft_s = _Ft_st();
  std::fprintf(stderr, "cuda emulation: %s (block %u,%u,%u)\n", _Ft_what, _Ft_s._Ft_block_idx.x, _Ft_s._Ft_block_idx.y,
               _Ft_s._Ft_block_idx.z);
  std::exit(70);
}

inline void _Ft_configure() {
  _Ft_State &_Ft_s = _Ft_st();
  if (_Ft_s._Ft_configured) return;
  _Ft_s._Ft_configured = true;
  if (const char *_Ft_o = std::getenv("FT_EMU_ORDER")) {
    if (!std::strcmp(_Ft_o, "forward")) _Ft_s._Ft_order = 0;
    else if (!std::strcmp(_Ft_o, "reverse")) _Ft_s._Ft_order = 1;
    else if (!std::strncmp(_Ft_o, "seed:", 5)) _Ft_s._Ft_rng = std::strtoull(_Ft_o + 5, nullptr, 10) * 2654435761ull + 1;
    else _Ft_fail("FT_EMU_ORDER must be forward, reverse or seed:N");
  }
}

inline uint64_t _Ft_next_random() {
  uint64_t &x = _Ft_st()._Ft_rng;
  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  return x;
}

inline _Ft_Thread &_Ft_me() { return _Ft_st()._Ft_threads[_Ft_st()._Ft_current]; }

inline void _Ft_yield(_Ft_Wait _Ft_w) {
  _Ft_State &_Ft_s = _Ft_st();
  _Ft_Thread &_Ft_t = _Ft_me();
  _Ft_t._Ft_wait = _Ft_w;
  swapcontext(&_Ft_t._Ft_ctx, &_Ft_s._Ft_sched);
}

inline void _Ft_trampoline() {
  _Ft_st()._Ft_body();
  _Ft_me()._Ft_wait = _Ft_Wait::_Ft_Done;
  /* uc_link returns to the scheduler */
}

/** Releases the warps whose live lanes all wait at a warp barrier,
 * computing their shuffles from the values deposited; true if any. */
inline bool _Ft_release_warps() {
  _Ft_State &_Ft_s = _Ft_st();
  bool _Ft_any = false;
  size_t _Ft_n = _Ft_s._Ft_threads.size();
  for (size_t _Ft_w0 = 0; _Ft_w0 < _Ft_n; _Ft_w0 += 32) {
    size_t _Ft_w1 = std::min(_Ft_n, _Ft_w0 + 32);
    bool _Ft_live = false, _Ft_all = true;
    for (size_t _Ft_i = _Ft_w0; _Ft_i < _Ft_w1; _Ft_i++) {
      if (_Ft_s._Ft_threads[_Ft_i]._Ft_wait == _Ft_Wait::_Ft_Done) continue;
      _Ft_live = true;
      _Ft_all = _Ft_all && _Ft_s._Ft_threads[_Ft_i]._Ft_wait == _Ft_Wait::_Ft_Warp;
    }
    if (!_Ft_live || !_Ft_all) continue;
    for (size_t _Ft_i = _Ft_w0; _Ft_i < _Ft_w1; _Ft_i++) {
      _Ft_Thread &_Ft_t = _Ft_s._Ft_threads[_Ft_i];
      if (_Ft_t._Ft_wait == _Ft_Wait::_Ft_Done) continue;
      int _Ft_lane = int(_Ft_i - _Ft_w0), _Ft_seg = _Ft_lane - _Ft_lane % _Ft_t._Ft_width, _Ft_src = _Ft_lane;
      switch (_Ft_t._Ft_shfl) {
        case _Ft_Shfl::_Ft_None: break;
        case _Ft_Shfl::_Ft_Idx: _Ft_src = _Ft_seg + ((_Ft_t._Ft_arg % _Ft_t._Ft_width) + _Ft_t._Ft_width) % _Ft_t._Ft_width; break;
        case _Ft_Shfl::_Ft_Up: _Ft_src = _Ft_lane - _Ft_t._Ft_arg >= _Ft_seg ? _Ft_lane - _Ft_t._Ft_arg : _Ft_lane; break;
        case _Ft_Shfl::_Ft_Down: _Ft_src = _Ft_lane + _Ft_t._Ft_arg < _Ft_seg + _Ft_t._Ft_width ? _Ft_lane + _Ft_t._Ft_arg : _Ft_lane; break;
        case _Ft_Shfl::_Ft_Xor: _Ft_src = (_Ft_lane ^ _Ft_t._Ft_arg) < _Ft_seg + _Ft_t._Ft_width ? (_Ft_lane ^ _Ft_t._Ft_arg) : _Ft_lane; break;
      }
      if (_Ft_t._Ft_shfl != _Ft_Shfl::_Ft_None) {
        const _Ft_Thread &_Ft_from = _Ft_s._Ft_threads[_Ft_w0 + size_t(_Ft_src)];
        if (_Ft_w0 + size_t(_Ft_src) >= _Ft_w1 || _Ft_from._Ft_wait != _Ft_Wait::_Ft_Warp || _Ft_from._Ft_shfl == _Ft_Shfl::_Ft_None)
          _Ft_fail("a shuffle reads a lane that is not at the same shuffle");
        _Ft_t._Ft_got = _Ft_from._Ft_put;
      }
    }
    for (size_t _Ft_i = _Ft_w0; _Ft_i < _Ft_w1; _Ft_i++)
      if (_Ft_s._Ft_threads[_Ft_i]._Ft_wait == _Ft_Wait::_Ft_Warp) _Ft_s._Ft_threads[_Ft_i]._Ft_wait = _Ft_Wait::_Ft_Run;
    _Ft_any = true;
  }
  return _Ft_any;
}

inline void _Ft_run_block() {
  _Ft_State &_Ft_s = _Ft_st();
  size_t _Ft_n = size_t(_Ft_s._Ft_block_dim.x) * _Ft_s._Ft_block_dim.y * _Ft_s._Ft_block_dim.z;
  _Ft_s._Ft_threads.assign(_Ft_n, _Ft_Thread());
  if (_Ft_s._Ft_stacks_for < _Ft_n) {
    _Ft_s._Ft_stacks.reset(new char[_Ft_n * _Ft_s._Ft_stack_bytes]);
    _Ft_s._Ft_stacks_for = _Ft_n;
  }
  for (size_t _Ft_i = 0; _Ft_i < _Ft_n; _Ft_i++) {
    _Ft_Thread &_Ft_t = _Ft_s._Ft_threads[_Ft_i];
    _Ft_t._Ft_tid = uint3{unsigned(_Ft_i % _Ft_s._Ft_block_dim.x), unsigned(_Ft_i / _Ft_s._Ft_block_dim.x % _Ft_s._Ft_block_dim.y),
                  unsigned(_Ft_i / (size_t(_Ft_s._Ft_block_dim.x) * _Ft_s._Ft_block_dim.y))};
    getcontext(&_Ft_t._Ft_ctx);
    _Ft_t._Ft_ctx.uc_stack.ss_sp = &_Ft_s._Ft_stacks[_Ft_i * _Ft_s._Ft_stack_bytes];
    _Ft_t._Ft_ctx.uc_stack.ss_size = _Ft_s._Ft_stack_bytes;
    _Ft_t._Ft_ctx.uc_link = &_Ft_s._Ft_sched;
    makecontext(&_Ft_t._Ft_ctx, _Ft_trampoline, 0);
  }
  std::vector<size_t> _Ft_order;
  for (;;) {
    _Ft_order.clear();
    for (size_t _Ft_i = 0; _Ft_i < _Ft_n; _Ft_i++)
      if (_Ft_s._Ft_threads[_Ft_i]._Ft_wait == _Ft_Wait::_Ft_Run) _Ft_order.push_back(_Ft_i);
    if (!_Ft_order.empty()) {
      if (_Ft_s._Ft_order == 1) std::reverse(_Ft_order.begin(), _Ft_order.end());
      if (_Ft_s._Ft_order == 2)
        for (size_t _Ft_i = _Ft_order.size(); _Ft_i > 1; _Ft_i--) std::swap(_Ft_order[_Ft_i - 1], _Ft_order[_Ft_next_random() % _Ft_i]);
      for (size_t _Ft_i : _Ft_order) {
        _Ft_s._Ft_current = _Ft_i;
        threadIdx = _Ft_s._Ft_threads[_Ft_i]._Ft_tid;
        blockIdx = _Ft_s._Ft_block_idx;
        blockDim = _Ft_s._Ft_block_dim;
        gridDim = _Ft_s._Ft_grid_dim;
        swapcontext(&_Ft_s._Ft_sched, &_Ft_s._Ft_threads[_Ft_i]._Ft_ctx);
      }
      continue;
    }
    bool _Ft_live = false, _Ft_all_block = true;
    for (const _Ft_Thread &_Ft_t : _Ft_s._Ft_threads) {
      if (_Ft_t._Ft_wait == _Ft_Wait::_Ft_Done) continue;
      _Ft_live = true;
      _Ft_all_block = _Ft_all_block && _Ft_t._Ft_wait == _Ft_Wait::_Ft_Block;
    }
    if (!_Ft_live) break;
    if (_Ft_release_warps()) continue;
    if (!_Ft_all_block) _Ft_fail("deadlock: the threads of a block wait at different barriers");
    for (_Ft_Thread &_Ft_t : _Ft_s._Ft_threads)
      if (_Ft_t._Ft_wait == _Ft_Wait::_Ft_Block) _Ft_t._Ft_wait = _Ft_Wait::_Ft_Run;
  }
}

template <typename _Ft_K, typename... _Ft_A>
void _Ft_launch(_Ft_K _Ft_kernel, dim3 _Ft_grid, dim3 _Ft_block, size_t _Ft_shared_bytes, _Ft_A... _Ft_args) {
  _Ft_configure();
  _Ft_State &_Ft_s = _Ft_st();
  if (_Ft_shared_bytes != 0) _Ft_fail("dynamic shared memory is not emulated");
  if (_Ft_block.x * _Ft_block.y * _Ft_block.z == 0 || _Ft_block.x * _Ft_block.y * _Ft_block.z > 1024)
    _Ft_fail("a block has between 1 and 1024 threads");
  _Ft_s._Ft_grid_dim = _Ft_grid;
  _Ft_s._Ft_block_dim = _Ft_block;
  _Ft_s._Ft_body = [=]() { _Ft_kernel(_Ft_args...); };
  for (unsigned z = 0; z < _Ft_grid.z; z++)
    for (unsigned y = 0; y < _Ft_grid.y; y++)
      for (unsigned x = 0; x < _Ft_grid.x; x++) {
        _Ft_s._Ft_block_idx = uint3{x, y, z};
        _Ft_run_block();
      }
  _Ft_s._Ft_body = nullptr;
}

template <typename _Ft_T>
_Ft_T _Ft_shuffle(_Ft_Shfl _Ft_kind, _Ft_T _Ft_v, int _Ft_arg, int _Ft_width) {
  static_assert(sizeof(_Ft_T) <= sizeof(uint64_t), "shuffles move at most 8 bytes");
  _Ft_Thread &_Ft_t = _Ft_me();
  _Ft_t._Ft_shfl = _Ft_kind;
  _Ft_t._Ft_arg = _Ft_arg;
  _Ft_t._Ft_width = _Ft_width;
  _Ft_t._Ft_put = 0;
  std::memcpy(&_Ft_t._Ft_put, &_Ft_v, sizeof(_Ft_T));
  _Ft_yield(_Ft_Wait::_Ft_Warp);
  _Ft_Thread &_Ft_back = _Ft_me();
  _Ft_back._Ft_shfl = _Ft_Shfl::_Ft_None;
  _Ft_T _Ft_r;
  std::memcpy(&_Ft_r, &_Ft_back._Ft_got, sizeof(_Ft_T));
  return _Ft_r;
}

}  // namespace _Ft_emu


inline void __syncthreads() { _Ft_emu::_Ft_yield(_Ft_emu::_Ft_Wait::_Ft_Block); }
inline void __syncwarp(unsigned = 0xffffffffu) {
  _Ft_emu::_Ft_me()._Ft_shfl = _Ft_emu::_Ft_Shfl::_Ft_None;
  _Ft_emu::_Ft_yield(_Ft_emu::_Ft_Wait::_Ft_Warp);
}
template <typename _Ft_T>
_Ft_T __shfl_sync(unsigned, _Ft_T _Ft_v, int _Ft_src, int _Ft_width = 32) {
  return _Ft_emu::_Ft_shuffle(_Ft_emu::_Ft_Shfl::_Ft_Idx, _Ft_v, _Ft_src, _Ft_width);
}
template <typename _Ft_T>
_Ft_T __shfl_up_sync(unsigned, _Ft_T _Ft_v, unsigned _Ft_delta, int _Ft_width = 32) {
  return _Ft_emu::_Ft_shuffle(_Ft_emu::_Ft_Shfl::_Ft_Up, _Ft_v, int(_Ft_delta), _Ft_width);
}
template <typename _Ft_T>
_Ft_T __shfl_down_sync(unsigned, _Ft_T _Ft_v, unsigned _Ft_delta, int _Ft_width = 32) {
  return _Ft_emu::_Ft_shuffle(_Ft_emu::_Ft_Shfl::_Ft_Down, _Ft_v, int(_Ft_delta), _Ft_width);
}
template <typename _Ft_T>
_Ft_T __shfl_xor_sync(unsigned, _Ft_T _Ft_v, int _Ft_mask, int _Ft_width = 32) {
  return _Ft_emu::_Ft_shuffle(_Ft_emu::_Ft_Shfl::_Ft_Xor, _Ft_v, _Ft_mask, _Ft_width);
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
inline cudaError_t cudaMalloc(void **_Ft_p, size_t _Ft_n) {
  *_Ft_p = std::malloc(_Ft_n ? _Ft_n : 1);
  return *_Ft_p ? cudaSuccess : 2;
}
template <typename _Ft_T>
cudaError_t cudaMalloc(_Ft_T **_Ft_p, size_t _Ft_n) {
  return cudaMalloc(reinterpret_cast<void **>(_Ft_p), _Ft_n);
}
inline cudaError_t cudaFree(void *_Ft_p) {
  std::free(_Ft_p);
  return cudaSuccess;
}
inline cudaError_t cudaMemcpy(void *_Ft_d, const void *_Ft_s, size_t _Ft_n, cudaMemcpyKind) {
  std::memmove(_Ft_d, _Ft_s, _Ft_n);
  return cudaSuccess;
}
inline cudaError_t cudaMemset(void *_Ft_d, int _Ft_v, size_t _Ft_n) {
  std::memset(_Ft_d, _Ft_v, _Ft_n);
  return cudaSuccess;
}
inline cudaError_t cudaDeviceSynchronize() { return cudaSuccess; }
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
inline const char *cudaGetErrorString(cudaError_t) { return "cuda emulation error"; }

/* Events, on the host's clock (bench/cuda_timing.h times launches with them). */
struct _Ft_emu_event {
  double _Ft_ms;
};
typedef _Ft_emu_event *cudaEvent_t;
inline cudaError_t cudaEventCreate(cudaEvent_t *_Ft_e) {
  *_Ft_e = new _Ft_emu_event{0.0};
  return cudaSuccess;
}
inline cudaError_t cudaEventRecord(cudaEvent_t _Ft_e, void * = nullptr) {
  using namespace std::chrono;
  _Ft_e->_Ft_ms = duration<double, std::milli>(steady_clock::now().time_since_epoch()).count();
  return cudaSuccess;
}
inline cudaError_t cudaEventSynchronize(cudaEvent_t) { return cudaSuccess; }
inline cudaError_t cudaEventElapsedTime(float *_Ft_ms, cudaEvent_t _Ft_start, cudaEvent_t _Ft_stop) {
  *_Ft_ms = float(_Ft_stop->_Ft_ms - _Ft_start->_Ft_ms);
  return cudaSuccess;
}
inline cudaError_t cudaEventDestroy(cudaEvent_t _Ft_e) {
  delete _Ft_e;
  return cudaSuccess;
}

#define FT_LAUNCH(_Ft_kernel, _Ft_grid, _Ft_block, _Ft_shared, ...) \
  _Ft_emu::_Ft_launch(_Ft_kernel, _Ft_grid, _Ft_block, _Ft_shared, __VA_ARGS__)

#endif
