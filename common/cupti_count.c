/* cupti_count.c - build/libkitcupti.so: which kernels a program launched,
 * for the grader (a GPU variant that launched no kernel computed its result
 * on the CPU), and how long each one ran on the GPU.
 *
 * Loaded through the CUDA injection mechanism, so the program needs no
 * change:  CUDA_INJECTION64_PATH=.../libkitcupti.so KIT_CUPTI_OUT=FILE prog
 * The driver calls InitializeInjection() during cuInit; it enables CUPTI
 * activity records of kind CONCURRENT_KERNEL (KIND_KERNEL would serialise
 * the kernels) and writes FILE:
 *   # kitcupti 1
 *   # calib CUPTI_NS MONOTONIC_NS      (at start and at exit)
 *   NAME<TAB>START_NS<TAB>END_NS<TAB>DURATION_NS     one line per kernel
 *   # end kernels=N dropped=M          (only when the program exited normally)
 * Timestamps are CLOCK_MONOTONIC when CUPTI accepts a timestamp callback; the
 * calibration lines let a reader map them either way. Without KIT_CUPTI_OUT
 * the library does nothing.
 */
#define _POSIX_C_SOURCE 200809L
#include <cupti.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cupti_records.h"

#define KIT_CUPTI_BUF (4u << 20)

static FILE *kc_out;
static pthread_mutex_t kc_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned long long kc_kernels, kc_dropped;

static uint64_t CUPTIAPI kc_monotonic(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void kc_calib(void)
{
    uint64_t c = 0;
    if (cuptiGetTimestamp(&c) == CUPTI_SUCCESS)
        fprintf(kc_out, "# calib %llu %llu\n", (unsigned long long)c,
                (unsigned long long)kc_monotonic());
}

static void CUPTIAPI kc_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    /* CUPTI wants 8-byte aligned buffers */
    *buffer = aligned_alloc(8, KIT_CUPTI_BUF);
    *size = *buffer ? KIT_CUPTI_BUF : 0;
    *max_records = 0;
}

/* Print one line for a kernel record; the name without tabs or newlines. */
static void kc_kernel_line(const char *name, unsigned long long start, unsigned long long end)
{
    char clean[512];
    size_t i = 0;
    for (; name && name[i] && i + 1 < sizeof clean; i++)
        clean[i] = (name[i] == '\t' || name[i] == '\n') ? ' ' : name[i];
    clean[i] = 0;
    fprintf(kc_out, "%s\t%llu\t%llu\t%llu\n", i ? clean : "?", start, end,
            end >= start ? end - start : 0ULL);
}

static void CUPTIAPI kc_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                         size_t size, size_t valid)
{
    (void)size;
    CUpti_Activity *rec = NULL;
    pthread_mutex_lock(&kc_lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
        if (rec->kind != CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL &&
            rec->kind != CUPTI_ACTIVITY_KIND_KERNEL)
            continue;
        const kit_cupti_kernel *k = (const kit_cupti_kernel *)rec;
        kc_kernels++;
        if (kc_out)
            kc_kernel_line(k->name, (unsigned long long)k->start, (unsigned long long)k->end);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        kc_dropped += dropped;
    if (kc_out)
        fflush(kc_out);
    pthread_mutex_unlock(&kc_lock);
    free(buffer);
}

static void kc_at_exit(void)
{
    cuptiActivityFlushAll(1);
    pthread_mutex_lock(&kc_lock);
    if (kc_out) {
        kc_calib();
        fprintf(kc_out, "# end kernels=%llu dropped=%llu\n", kc_kernels, kc_dropped);
        fclose(kc_out);
        kc_out = NULL;
    }
    pthread_mutex_unlock(&kc_lock);
}

/* Called by the CUDA driver (CUDA_INJECTION64_PATH). Returns 1: the program
 * carries on whatever happens here. */
int InitializeInjection(void)
{
    static int done;
    const char *path = getenv("KIT_CUPTI_OUT");
    if (done || !path || !*path)
        return 1;
    done = 1;
    kc_out = fopen(path, "w");
    if (!kc_out) {
        fprintf(stderr, "libkitcupti: cannot write %s\n", path);
        return 1;
    }
    fprintf(kc_out, "# kitcupti 1\n");
    /* before any activity kind is enabled, so every record uses it */
    if (cuptiActivityRegisterTimestampCallback(kc_monotonic) != CUPTI_SUCCESS)
        fprintf(kc_out, "# clock cupti-default\n");
    kc_calib();
    if (cuptiActivityRegisterCallbacks(kc_buffer_requested, kc_buffer_completed) != CUPTI_SUCCESS ||
        cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) != CUPTI_SUCCESS) {
        fprintf(kc_out, "# error cannot enable kernel records\n");
        fclose(kc_out);
        kc_out = NULL;
        return 1;
    }
    fflush(kc_out);
    atexit(kc_at_exit);
    return 1;
}
