/*
 * kernel_host.cpp - csrc/gpu/kernel.cu built for the CPU, one thread (tests/test_gpu.py):
 * the kernel's own code (its row slots, its columns, the F1 switch's tables) checked
 * against uno_play_games on a machine without a GPU.  The CUDA words become plain C++:
 * one block of one thread, shared memory a static.
 */
#define __global__
#define __launch_bounds__(threads, blocks)
#define __device__
#define __shared__ static
struct uno_dim3 {
    unsigned x;
};
static const uno_dim3 threadIdx = {0}, blockIdx = {0}, blockDim = {1}, gridDim = {1};
#define __syncthreads() ((void)0)
#include "gpu/kernel.cu"

/* The host compile keeps the calls that only the CPU makes (UNO_DEVICE is 0 here): the search
   players (search.c, not part of the GPU build) are never reached without a search seat. */
int uno_search_any(const uno_policy *, int)
{
    return 0;
}
void uno_search_turn(uno_game *, int) {}
int uno_search_begin(uno_game *)
{
    return 0;
}
void uno_search_end(uno_game *) {}
void uno_search_fork(uno_game *, int64_t, uno_result *) {}
void uno_search_start(uno_game *, int) {}
void uno_search_event(uno_game *, int) {}
int uno_search_press(uno_game *, int k)
{
    return k;
}
void uno_search_stats(const uno_game *, int64_t *) {}
