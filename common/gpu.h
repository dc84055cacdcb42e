/* gpu.h - CUDA helpers shared by every GPU lab: error checks with file:line,
 * precondition checks for launchers, device start-up (exit 77 without a
 * device), CUDA-event timing, provenance lines, memory checks and the
 * measured copy ceiling, the grid size (kit_blocks_for), the device's
 * float -> byte rules (kit_to_u8f, kit_sum_to_u8) and the mixed dp4a (kit_dot4). Callable from C (host code) and from .cu files.
 */
#ifndef KIT_GPU_H
#define KIT_GPU_H

#include <stddef.h>
#include <stdio.h>
#include <cuda_runtime_api.h>
#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Report a failed CUDA call as "file:line: call: error (name)". */
void kit_cuda_report(cudaError_t e, const char *what, const char *file, int line);

/* Check a CUDA call; on failure report it and return KIT_RUNTIME_ERROR from
 * the enclosing function (launchers and lab glue return int status codes). */
#define CUDA_CHECK(call)                                                        \
    do {                                                                        \
        cudaError_t kit_e_ = (call);                                            \
        if (kit_e_ != cudaSuccess) {                                            \
            kit_cuda_report(kit_e_, #call, __FILE__, __LINE__);                 \
            return KIT_RUNTIME_ERROR;                                           \
        }                                                                       \
    } while (0)

/* The same, for code that cannot return a status: exits with code 3. */
#define CUDA_CHECK_EXIT(call)                                                   \
    do {                                                                        \
        cudaError_t kit_e_ = (call);                                            \
        if (kit_e_ != cudaSuccess) {                                            \
            kit_cuda_report(kit_e_, #call, __FILE__, __LINE__);                 \
            exit(KIT_EXIT_RUNTIME);                                             \
        }                                                                       \
    } while (0)

/* After every launch: the launch error now and, when the environment sets
 * KIT_SYNC_CHECK=1 (make sanitize and the GPU tests do), the execution error
 * too, so a fault is reported at the launch that caused it. */
extern int kit_gpu_sync_launches;
#define KIT_CHECK_LAUNCH()                                                      \
    do {                                                                        \
        CUDA_CHECK(cudaGetLastError());                                         \
        if (kit_gpu_sync_launches)                                              \
            CUDA_CHECK(cudaDeviceSynchronize());                                \
    } while (0)

/* A launcher's precondition: on failure say which and return KIT_UNSUPPORTED. */
#define KIT_REQUIRE(cond)                                                       \
    do {                                                                        \
        if (!(cond)) {                                                          \
            fprintf(stderr, "%s:%d: precondition failed: %s\n", __FILE__,       \
                    __LINE__, #cond);                                           \
            return KIT_UNSUPPORTED;                                             \
        }                                                                       \
    } while (0)

/* Blocks of b threads (or items) needed to cover n: the grid size of every
 * launcher. b > 0; n >= 0. */
static inline unsigned int kit_blocks_for(long long n, int b)
{
    return (unsigned int)((n + b - 1) / b);
}

#ifdef __CUDACC__
/* The kit's one float -> byte rule on the device (kit_to_u8 on the host):
 * clamp to 0..255, round half up, in one conversion. */
__device__ static inline unsigned char kit_to_u8f(float v)
{
    v = fminf(fmaxf(v, 0.0f), 255.0f);
    return (unsigned char)__float2uint_rd(v + 0.5f);
}

/* The same rule for an integer sum of 8-bit taps, acc / 2^shift:
 * floor(acc / 2^shift + 1/2) = (2 acc + 2^shift) >> (shift + 1), clamped. */
__device__ static inline unsigned char kit_sum_to_u8(int acc, int shift)
{
    return (unsigned char)min(max((2 * acc + (1 << shift)) >> (shift + 1), 0), 255);
}

/* acc + four unsigned bytes (pixels) times four signed bytes (taps): one
 * dp4a. CUDA C's __dp4a takes both signed or both unsigned, so this one line
 * of PTX asks for the mixed form. */
__device__ static inline int kit_dot4(unsigned int pixels, int taps, int acc)
{
    int d;
    asm("dp4a.u32.s32 %0, %1, %2, %3;" : "=r"(d) : "r"(pixels), "r"(taps), "r"(acc));
    return d;
}
#endif

/* Select the device. 0 when ready; KIT_EXIT_NODEVICE after one line when
 * there is no usable CUDA device; KIT_EXIT_USAGE for a bad index. */
int kit_gpu_init(int device);

/* Provenance lines: GPU name, compute capability, SMs, memory, driver, CUDA. */
void kit_gpu_lines(FILE *fp);

/* 0 when `bytes` more device memory is free; else one line and KIT_EXIT_USAGE. */
int kit_gpu_require_bytes(size_t bytes);

/* Event timer on the default stream. */
typedef struct { cudaEvent_t start, stop; } kit_gpu_timer;
int kit_gpu_timer_create(kit_gpu_timer *t);
int kit_gpu_timer_start(kit_gpu_timer *t);
int kit_gpu_timer_stop(kit_gpu_timer *t, double *ms); /* synchronises */
void kit_gpu_timer_destroy(kit_gpu_timer *t);

/* Device-to-device copy ceiling: GB/s counting bytes read + written, median
 * of reps copies of `bytes` bytes. Negative on error. */
double kit_gpu_copy_ceiling(size_t bytes, int reps);

/* Host buffers that are pinned (page-locked) or pageable. */
void *kit_host_alloc(size_t bytes, int pinned);
void kit_host_free(void *p, int pinned);
/* The same as a part's host_alloc/host_free (kit_part_glue): pinned where the
 * part's --pinned flag was given, pageable otherwise. */
struct kit_ctx;
void *kit_pinned_host_alloc(struct kit_ctx *ctx, size_t bytes);
void kit_pinned_host_free(struct kit_ctx *ctx, void *p);

#ifdef __cplusplus
}
#endif
#endif
