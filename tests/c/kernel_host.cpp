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
/* one thread: an atomic is a plain read-modify-write (aggregate.c adds with += on the host) */
static unsigned long long atomicMin(unsigned long long *a, unsigned long long v)
{
    unsigned long long old = *a;
    if (v < old)
        *a = v;
    return old;
}
#include "gpu/kernel.cu"

/* the stop flag (csrc/stop.c) is the CPU engine's: the kernel's code never stops (on the
   device UNO_STOP_REQUESTED() is 0), so its host build answers "no stop" */
int uno_stop_requested(void)
{
    return 0;
}
