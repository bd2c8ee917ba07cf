/*
 * uno_port.h - one engine source for two targets: the C compiler (the CPU
 * build) and CUDA C++ (the GPU build, csrc/gpu/kernel.cu).
 *
 * UNO_HD marks every engine function: __host__ __device__ under a CUDA
 * compiler, nothing for C.  UNO_DEVICE is 1 while device code is compiled
 * (__CUDA_ARCH__), where the few things a GPU cannot do (a user policy's
 * callback, a trace's realloc, setjmp/longjmp, the UNO_CHECK report) are
 * left out; the GPU runner refuses the configurations that need them.
 * NVRTC (run-time compilation) has no C library headers: the fixed-width
 * types come from here then.  The rules themselves hold nothing GPU-specific.
 */
#ifndef UNO_PORT_H
#define UNO_PORT_H

#if defined(__CUDACC__)
#define UNO_HD __host__ __device__
#else
#define UNO_HD
#endif

#if defined(__CUDA_ARCH__)
#define UNO_DEVICE 1
#else
#define UNO_DEVICE 0
#endif

#if defined(__CUDACC_RTC__)
typedef signed char int8_t;
typedef unsigned char uint8_t;
typedef short int16_t;
typedef unsigned short uint16_t;
typedef int int32_t;
typedef unsigned int uint32_t;
typedef long long int64_t;
typedef unsigned long long uint64_t;
#define INT64_C(c) c##LL
#define UINT64_C(c) c##ULL
#define INT32_MAX 2147483647
#define INT32_MIN (-INT32_MAX - 1)
#define UINT32_MAX 4294967295u
typedef unsigned long size_t;
#else
#include <stdint.h>
#include <string.h>
#endif

#if UNO_DEVICE
/* Device code has memcpy and memset, not memmove nor memcmp (UNO_CHECK). */
static __device__ inline void *uno_memmove(void *dst, const void *src, size_t n)
{
    unsigned char *d = (unsigned char *)dst;
    const unsigned char *s = (const unsigned char *)src;
    if (d < s)
        for (size_t i = 0; i < n; i++)
            d[i] = s[i];
    else
        for (size_t i = n; i > 0; i--)
            d[i - 1] = s[i - 1];
    return dst;
}
#define memmove uno_memmove
static __device__ inline int uno_memcmp(const void *a, const void *b, size_t n)
{
    const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return x[i] < y[i] ? -1 : 1;
    return 0;
}
#define memcmp uno_memcmp
#endif

#endif /* UNO_PORT_H */
