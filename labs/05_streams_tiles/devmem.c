/* devmem.c - lab 05's own account of device memory (harness05.h).
 *
 * The lab's Makefile links every binary with -Wl,--wrap=cudaMalloc (and the
 * other calls below), so each call the program makes, from the student's
 * file or from the kit, comes here first: the bytes each live allocation
 * holds are kept, the peak of a run is measured, and in a run with a budget
 * an allocation past it fails as it would on a smaller GPU.
 * Whose memory it is: what the kit takes on its own thread outside a
 * variant's window (the harness's buffers) is the kit's; everything else is
 * the variant's, so memory it took in an earlier call and kept, or took on a
 * thread of its own between calls, counts against the budget of every
 * window it is held in. Memory a variant allocates some other way (the
 * driver API) is not seen here; the grader counts that from CUPTI's records.
 */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "harness05.h"

/* the real calls (the linker's names for them under --wrap) */
cudaError_t __real_cudaMalloc(void **p, size_t n);
cudaError_t __real_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
cudaError_t __real_cudaMallocManaged(void **p, size_t n, unsigned int flags);
cudaError_t __real_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e);
cudaError_t __real_cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t __real_cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t __real_cudaFree(void *p);
cudaError_t __real_cudaFreeAsync(void *p, cudaStream_t s);

cudaError_t __wrap_cudaMalloc(void **p, size_t n);
cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h);
cudaError_t __wrap_cudaMallocManaged(void **p, size_t n, unsigned int flags);
cudaError_t __wrap_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent e);
cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s);
cudaError_t __wrap_cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s);
cudaError_t __wrap_cudaFree(void *p);
cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s);

typedef struct {
    void *p;
    size_t n;
    int kit; /* taken by the kit (its thread, outside a window) */
} block;

static pthread_mutex_t dm_lock = PTHREAD_MUTEX_INITIALIZER;
static block *dm_live;           /* live allocations */
static size_t dm_nlive, dm_cap;
static size_t dm_held;           /* bytes they hold (reserved ones included) */
static size_t dm_kit;            /* of which the kit's */
static size_t dm_peak;           /* the window's peak of the variant's memory */
static pthread_t dm_main;        /* the thread that opens the windows */
static int dm_started;           /* a window was opened: dm_main is known */
static size_t dm_budget;         /* 0: none */
static int dm_window, dm_said, dm_refused;
static char dm_who[64];

/* The variant's memory: all but the kit's (lock held). */
static size_t used(void)
{
    return dm_held - dm_kit;
}

/* This call is the kit's: no window open, on the kit's thread (or before any
 * variant ran). Lock held. */
static int kit_call(void)
{
    return !dm_window && (!dm_started || pthread_equal(pthread_self(), dm_main));
}

static void mib_line(size_t want)
{
    char what[64];
    if (want < 1048576)
        snprintf(what, sizeof what, "%zu bytes", want);
    else
        snprintf(what, sizeof what, "%.1f MiB", want / 1048576.0);
    fprintf(stderr,
            "%s: %s asked for %s of device memory while holding %.1f MiB: past the --gpu-mem "
            "budget of %.1f MiB\n",
            kit_prog, dm_who, what, used() / 1048576.0, dm_budget / 1048576.0);
}

/* Reserve n bytes before the real call: 0 refused. */
static int reserve(size_t n)
{
    pthread_mutex_lock(&dm_lock);
    const int kit = kit_call();
    int ok = !(dm_window && dm_budget && !kit && used() + n > dm_budget);
    if (ok) {
        dm_held += n;
        dm_kit += kit ? n : 0;
        if (dm_window && used() > dm_peak)
            dm_peak = used();
    } else {
        dm_refused++;
        if (!dm_said) { /* one line per window: the first refusal says it all */
            mib_line(n);
            dm_said = 1;
        }
    }
    pthread_mutex_unlock(&dm_lock);
    return ok;
}

/* After the real call: keep the block, or give the reservation back. */
static void settle(cudaError_t e, void *p, size_t reserved, size_t actual)
{
    pthread_mutex_lock(&dm_lock);
    const int kit = kit_call();
    dm_held -= reserved;
    dm_kit -= kit ? reserved : 0;
    if (e == cudaSuccess && p) {
        if (dm_nlive == dm_cap) {
            size_t cap = dm_cap ? 2 * dm_cap : 256;
            block *b = realloc(dm_live, cap * sizeof *b);
            if (!b) {
                pthread_mutex_unlock(&dm_lock);
                kit_die(KIT_EXIT_RUNTIME, "out of host memory for the device memory account");
            }
            dm_live = b;
            dm_cap = cap;
        }
        dm_live[dm_nlive++] = (block){p, actual, kit};
        dm_held += actual;
        dm_kit += kit ? actual : 0;
        if (dm_window && used() > dm_peak)
            dm_peak = used();
    }
    pthread_mutex_unlock(&dm_lock);
}

static void forget(void *p)
{
    if (!p)
        return;
    pthread_mutex_lock(&dm_lock);
    for (size_t i = dm_nlive; i-- > 0;) /* the newest first: frees usually undo the last ones */
        if (dm_live[i].p == p) {
            dm_held -= dm_live[i].n;
            dm_kit -= dm_live[i].kit ? dm_live[i].n : 0;
            dm_live[i] = dm_live[--dm_nlive];
            break;
        }
    pthread_mutex_unlock(&dm_lock);
}

void devmem_begin(size_t budget, const char *who)
{
    pthread_mutex_lock(&dm_lock);
    if (!dm_started) {
        dm_main = pthread_self();
        dm_started = 1;
    }
    dm_window = 1;
    dm_peak = used(); /* what the variant already holds counts from the start */
    dm_budget = budget;
    dm_said = 0;
    snprintf(dm_who, sizeof dm_who, "%s", who ? who : "the variant");
    pthread_mutex_unlock(&dm_lock);
}

void devmem_end(size_t *peak, size_t *left)
{
    pthread_mutex_lock(&dm_lock);
    *peak = dm_peak;
    *left = used();
    dm_window = 0;
    dm_budget = 0;
    pthread_mutex_unlock(&dm_lock);
}

int devmem_refusals(void)
{
    pthread_mutex_lock(&dm_lock);
    int n = dm_refused;
    pthread_mutex_unlock(&dm_lock);
    return n;
}

/* ------------------------------------------------------------- the calls */

cudaError_t __wrap_cudaMalloc(void **p, size_t n)
{
    if (!reserve(n))
        return cudaErrorMemoryAllocation;
    cudaError_t e = __real_cudaMalloc(p, n);
    settle(e, e == cudaSuccess ? *p : NULL, n, n);
    return e;
}

cudaError_t __wrap_cudaMallocPitch(void **p, size_t *pitch, size_t w, size_t h)
{
    if (!reserve(w * h))
        return cudaErrorMemoryAllocation;
    cudaError_t e = __real_cudaMallocPitch(p, pitch, w, h);
    settle(e, e == cudaSuccess ? *p : NULL, w * h, e == cudaSuccess ? *pitch * h : 0);
    return e;
}

cudaError_t __wrap_cudaMallocManaged(void **p, size_t n, unsigned int flags)
{
    if (!reserve(n))
        return cudaErrorMemoryAllocation;
    cudaError_t e = __real_cudaMallocManaged(p, n, flags);
    settle(e, e == cudaSuccess ? *p : NULL, n, n);
    return e;
}

cudaError_t __wrap_cudaMalloc3D(struct cudaPitchedPtr *p, struct cudaExtent x)
{
    const size_t want = x.width * x.height * x.depth;
    if (!reserve(want))
        return cudaErrorMemoryAllocation;
    cudaError_t e = __real_cudaMalloc3D(p, x);
    settle(e, e == cudaSuccess ? p->ptr : NULL, want,
           e == cudaSuccess ? p->pitch * x.height * x.depth : 0);
    return e;
}

cudaError_t __wrap_cudaMallocAsync(void **p, size_t n, cudaStream_t s)
{
    if (!reserve(n))
        return cudaErrorMemoryAllocation;
    cudaError_t e = __real_cudaMallocAsync(p, n, s);
    settle(e, e == cudaSuccess ? *p : NULL, n, n);
    return e;
}

cudaError_t __wrap_cudaMallocFromPoolAsync(void **p, size_t n, cudaMemPool_t pool, cudaStream_t s)
{
    if (!reserve(n))
        return cudaErrorMemoryAllocation;
    cudaError_t e = __real_cudaMallocFromPoolAsync(p, n, pool, s);
    settle(e, e == cudaSuccess ? *p : NULL, n, n);
    return e;
}

cudaError_t __wrap_cudaFree(void *p)
{
    cudaError_t e = __real_cudaFree(p);
    if (e == cudaSuccess)
        forget(p);
    return e;
}

cudaError_t __wrap_cudaFreeAsync(void *p, cudaStream_t s)
{
    cudaError_t e = __real_cudaFreeAsync(p, s);
    if (e == cudaSuccess)
        forget(p);
    return e;
}
