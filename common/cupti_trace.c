/* cupti_trace.c - GPU activity records of kernels and memory copies through
 * CUPTI's activity API, written as the kit's tab-separated lines (the lines
 * and the busy times: cupti_lines.c; format and use: cupti_trace.h; DESIGN.md,
 * "GPU activity records").
 *
 * Built twice, each time with cupti_lines.c:
 *   -DKIT_TRACE_INJECTION   build/libkitcupti.so: InitializeInjection(), which
 *                           the CUDA driver calls when CUDA_INJECTION64_PATH
 *                           names the library; the records go straight to
 *                           KIT_CUPTI_OUT (or KIT_CUPTI_FD) as they complete.
 *   (nothing)               in a program (lab 05): kit_trace_start/collect.
 * -DKIT_TRACE_NO_CUPTI keeps only stubs that say so (a lab built where the
 * toolkit has no CUPTI; the unit tests).
 *
 * Sections: no CUPTI, CUPTI (buffers, conversion), in-process interface,
 * injection entry.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "cupti_trace.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef KIT_TRACE_NO_CUPTI
/* ------------------------------------------ no CUPTI in this build */

int kit_trace_start(char *err, size_t errlen)
{
    if (err && errlen)
        snprintf(err, errlen, "built without CUPTI (no cupti.h in the CUDA toolkit)");
    return -1;
}

int kit_trace_collect(kit_trace_rec **recs, size_t *n, size_t *dropped)
{
    *recs = NULL;
    *n = 0;
    *dropped = 0;
    return -1;
}

unsigned long long kit_trace_cupti_now(void)
{
    return 0;
}

void kit_trace_stop(void)
{
}

#else
/* ----------------------------------------------------------- CUPTI */
#include <cupti.h>
#include <pthread.h>

#include "cupti_records.h"

#define TRACE_BUF_BYTES (4u << 20)

static pthread_mutex_t tr_lock = PTHREAD_MUTEX_INITIALIZER;
static int tr_registered;    /* clock and buffers handed to CUPTI (once a process) */
static int tr_on;            /* records enabled */
static FILE *tr_out;         /* injection: the file the lines go to */
static int tr_format1;       /* injection: KIT_CUPTI_FORMAT=1 */
static kit_trace_rec *tr_recs; /* in-process: records not yet collected */
static size_t tr_n, tr_cap;
static size_t tr_kernels, tr_copies, tr_memory, tr_dropped;

static uint64_t CUPTIAPI tr_clock(void)
{
    return (uint64_t)kit_trace_now();
}

unsigned long long kit_trace_cupti_now(void)
{
    uint64_t c = 0;
    return cuptiGetTimestamp(&c) == CUPTI_SUCCESS ? (unsigned long long)c : 0ULL;
}

static void CUPTIAPI tr_buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    *buffer = aligned_alloc(8, TRACE_BUF_BYTES); /* CUPTI wants 8-byte alignment */
    *size = *buffer ? TRACE_BUF_BYTES : 0;
    *max_records = 0;
}

static kit_copy_kind copy_kind(uint8_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA: return KIT_COPY_HTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH: return KIT_COPY_DTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
    case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
    case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA: return KIT_COPY_DTOD;
    case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH: return KIT_COPY_HTOH;
    case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP: return KIT_COPY_PTOP;
    default: return KIT_COPY_OTHER;
    }
}

static kit_mem_kind mem_kind(uint32_t k)
{
    switch (k) {
    case CUPTI_ACTIVITY_MEMORY_KIND_PAGEABLE: return KIT_MEM_PAGEABLE;
    case CUPTI_ACTIVITY_MEMORY_KIND_PINNED: return KIT_MEM_PINNED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE: return KIT_MEM_DEVICE;
    case CUPTI_ACTIVITY_MEMORY_KIND_ARRAY: return KIT_MEM_ARRAY;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED: return KIT_MEM_MANAGED;
    case CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC: return KIT_MEM_STATIC;
    case CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC: return KIT_MEM_MANAGED_STATIC;
    default: return KIT_MEM_UNKNOWN;
    }
}

/* One CUPTI record as the kit's; 0 when it is of no kind we keep. */
static int convert(const CUpti_Activity *a, kit_trace_rec *r)
{
    memset(r, 0, sizeof *r);
    if (a->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || a->kind == CUPTI_ACTIVITY_KIND_KERNEL) {
        const kit_cupti_kernel *k = (const kit_cupti_kernel *)a;
        r->type = 'K';
        r->start = k->start;
        r->end = k->end;
        r->stream = k->streamId;
        r->smem_static = k->staticSharedMemory > 0 ? (unsigned)k->staticSharedMemory : 0;
        r->smem_dynamic = k->dynamicSharedMemory > 0 ? (unsigned)k->dynamicSharedMemory : 0;
        kit_trace_clean_name(k->name, r->name, sizeof r->name);
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
        const kit_cupti_memcpy *m = (const kit_cupti_memcpy *)a;
        r->type = 'C';
        r->start = m->start;
        r->end = m->end;
        r->stream = m->streamId;
        r->bytes = m->bytes;
        r->kind = copy_kind(m->copyKind);
        r->src = mem_kind(m->srcKind);
        r->dst = mem_kind(m->dstKind);
    } else if (a->kind == CUPTI_ACTIVITY_KIND_MEMORY2) {
        const kit_cupti_memory *m = (const kit_cupti_memory *)a;
        if (m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION &&
            m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
            return 0;
        r->type = 'M';
        r->start = r->end = m->timestamp;
        r->bytes = m->bytes;
        r->src = mem_kind(m->memoryKind);
        r->freed = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE;
        r->address = m->address;
    } else {
        return 0;
    }
    if (r->end < r->start) /* never seen; keep the file well-formed */
        r->end = r->start;
    return 1;
}

/* Hand one record to where it goes (lock held). */
static void take(const kit_trace_rec *r, const char *raw_name)
{
    if (r->type == 'K')
        tr_kernels++;
    else if (r->type == 'C')
        tr_copies++;
    else
        tr_memory++;
    if (tr_out) {
        if (tr_format1) { /* version 1: kernels only, NAME START END DURATION */
            if (r->type == 'K') {
                char name[512];
                kit_trace_clean_name(raw_name, name, sizeof name);
                fprintf(tr_out, "%s\t%llu\t%llu\t%llu\n", name, r->start, r->end, r->end - r->start);
            }
        } else {
            char line[KIT_TRACE_NAME + 128];
            if (kit_trace_format(r, line, sizeof line) > 0)
                fputs(line, tr_out);
        }
        return;
    }
    if (tr_n == tr_cap) {
        size_t cap = tr_cap ? 2 * tr_cap : 4096;
        kit_trace_rec *p = realloc(tr_recs, cap * sizeof *p);
        if (!p) {
            tr_dropped++;
            return;
        }
        tr_recs = p;
        tr_cap = cap;
    }
    tr_recs[tr_n++] = *r;
}

static void CUPTIAPI tr_buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer,
                                         size_t size, size_t valid)
{
    (void)size;
    CUpti_Activity *a = NULL;
    pthread_mutex_lock(&tr_lock);
    while (cuptiActivityGetNextRecord(buffer, valid, &a) == CUPTI_SUCCESS) {
        kit_trace_rec r;
        if (!convert(a, &r))
            continue;
        const char *raw = r.type == 'K' ? ((const kit_cupti_kernel *)a)->name : NULL;
        take(&r, raw);
    }
    size_t dropped = 0;
    if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS)
        tr_dropped += dropped;
    if (tr_out)
        fflush(tr_out);
    pthread_mutex_unlock(&tr_lock);
    free(buffer);
}

/* Register the clock and the buffers, enable kernels and copies (and, for the
 * grader's injected library, what the process takes and gives back). */
static int tr_enable(int memory, char *err, size_t errlen)
{
    CUptiResult e = CUPTI_SUCCESS;
    if (!tr_registered) {
        /* before any kind is enabled, so that every record uses this clock */
        (void)cuptiActivityRegisterTimestampCallback(tr_clock);
        e = cuptiActivityRegisterCallbacks(tr_buffer_requested, tr_buffer_completed);
        tr_registered = e == CUPTI_SUCCESS;
    }
    if (e == CUPTI_SUCCESS)
        e = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    if (e == CUPTI_SUCCESS)
        e = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
    if (e == CUPTI_SUCCESS && memory)
        e = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2);
    if (e != CUPTI_SUCCESS) {
        const char *why = NULL;
        cuptiGetResultString(e, &why);
        if (err && errlen)
            snprintf(err, errlen, "CUPTI refused the activity records: %s", why ? why : "?");
        return -1;
    }
    tr_on = 1;
    return 0;
}

/* ------------------------------------------------ in-process interface */

int kit_trace_start(char *err, size_t errlen)
{
    if (tr_on)
        return 0;
    const char *inj = getenv("CUDA_INJECTION64_PATH");
    if (inj && *inj) {
        if (err && errlen)
            snprintf(err, errlen, "an injected library (%s) records this process", inj);
        return -1;
    }
    return tr_enable(0, err, errlen);
}

int kit_trace_collect(kit_trace_rec **recs, size_t *n, size_t *dropped)
{
    *recs = NULL;
    *n = 0;
    *dropped = 0;
    if (!tr_on)
        return -1;
    if (cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != CUPTI_SUCCESS)
        return -1;
    pthread_mutex_lock(&tr_lock);
    *recs = tr_recs;
    *n = tr_n;
    *dropped = tr_dropped;
    tr_recs = NULL;
    tr_n = tr_cap = 0;
    tr_dropped = 0;
    pthread_mutex_unlock(&tr_lock);
    return 0;
}

void kit_trace_stop(void)
{
    if (!tr_on)
        return;
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
    cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMCPY);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&tr_lock);
    free(tr_recs);
    tr_recs = NULL;
    tr_n = tr_cap = 0;
    tr_on = 0;
    pthread_mutex_unlock(&tr_lock);
}

#ifdef KIT_TRACE_INJECTION
/* ------------------------------------------------------ injection entry */

static void tr_calib(void)
{
    fprintf(tr_out, "# calib %llu %llu\n", kit_trace_cupti_now(), kit_trace_now());
}

static void tr_at_exit(void)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&tr_lock);
    if (tr_out) {
        tr_calib();
        if (tr_format1)
            fprintf(tr_out, "# end kernels=%zu dropped=%zu\n", tr_kernels, tr_dropped);
        else
            fprintf(tr_out, "# end kernels=%zu copies=%zu memory=%zu dropped=%zu\n", tr_kernels,
                    tr_copies, tr_memory, tr_dropped);
        fclose(tr_out);
        tr_out = NULL;
    }
    pthread_mutex_unlock(&tr_lock);
}

/* Called by the CUDA driver during cuInit. Returns 1 whatever happens here:
 * the program carries on without records rather than fail. */
__attribute__((visibility("default"))) int InitializeInjection(void)
{
    static int done;
    if (done)
        return 1;
    done = 1;
    const char *path = getenv("KIT_CUPTI_OUT"), *fd = getenv("KIT_CUPTI_FD");
    const char *fmt = getenv("KIT_CUPTI_FORMAT");
    tr_format1 = fmt && strcmp(fmt, "1") == 0;
    if (fd && *fd) {
        char *end;
        long n = strtol(fd, &end, 10);
        if (*end || n < 0 || n > 1 << 20 || !(tr_out = fdopen((int)n, "w"))) {
            fprintf(stderr, "libkitcupti: KIT_CUPTI_FD=%s is not an open descriptor\n", fd);
            return 1;
        }
    } else if (path && *path) {
        if (!(tr_out = fopen(path, "w"))) {
            fprintf(stderr, "libkitcupti: cannot write %s\n", path);
            return 1;
        }
    } else {
        return 1; /* nowhere to write: do nothing */
    }
    fprintf(tr_out, "# kitcupti %d\n", tr_format1 ? 1 : 3);
    char err[256];
    if (tr_enable(!tr_format1, err, sizeof err)) {
        fprintf(tr_out, "# error %s\n", err);
        fclose(tr_out);
        tr_out = NULL;
        return 1;
    }
    tr_calib();
    fflush(tr_out);
    atexit(tr_at_exit);
    return 1;
}
#endif /* KIT_TRACE_INJECTION */
#endif /* KIT_TRACE_NO_CUPTI */
