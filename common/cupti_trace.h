/* cupti_trace.h - GPU activity records (DESIGN.md, "GPU activity records"):
 * the interface of common/cupti_trace.c.
 *
 * Two ways to use it:
 *  - as an injection library (build/libkitcupti.so), with no change to the
 *    program:  CUDA_INJECTION64_PATH=.../libkitcupti.so KIT_CUPTI_OUT=FILE prog
 *    (or KIT_CUPTI_FD=N, a descriptor the program inherits). Every kernel and
 *    memory copy of the run goes to FILE as one tab-separated line.
 *  - in-process (lab 05's harness): kit_trace_start(), then after each run
 *    kit_trace_collect() hands over the records gathered since the last call.
 *
 * The file, version 3:
 *   # kitcupti 3
 *   # calib CUPTI_NS MONOTONIC_NS          at start, and again at the end
 *   K START_NS END_NS STREAM 0     -    NAME SHARED   a kernel; SHARED: its shared memory
 *                                                     per block, STATIC+DYNAMIC bytes
 *   C START_NS END_NS STREAM BYTES KIND - SRC>DST     a copy (KIND: HtoD DtoH DtoD HtoH
 *                                                     PtoP other) between memories of
 *                                                     the kinds SRC and DST (below)
 *   M TIME_NS TIME_NS 0 BYTES MEM OP ADDRESS          device memory taken (OP alloc) or
 *                                                     given back (free), of kind MEM
 *                                                     (injection only)
 *   # end kernels=N copies=M memory=X dropped=D   written last: without it the file is incomplete
 * Memory kinds: unknown pageable pinned device array managed static managed-static.
 * Version 2 is the same without the last column and without M lines.
 * Times are CLOCK_MONOTONIC nanoseconds where CUPTI takes the kit's clock
 * (it does on Linux; the calibration lines map them either way).
 * KIT_CUPTI_FORMAT=1 writes the older version 1 instead (kernels only:
 * NAME START END DURATION), for readers that do not know version 2 yet.
 *
 * The record, formatting, parsing and busy-time functions are plain C and
 * need no CUDA (tests/unit/test_cupti_trace.c feeds them synthetic records).
 */
#ifndef KIT_CUPTI_TRACE_H
#define KIT_CUPTI_TRACE_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What a copy moved between (the KIND column). */
typedef enum {
    KIT_COPY_OTHER = 0,
    KIT_COPY_HTOD = 1,
    KIT_COPY_DTOH = 2,
    KIT_COPY_DTOD = 3,
    KIT_COPY_HTOH = 4,
    KIT_COPY_PTOP = 5
} kit_copy_kind;

/* What kind of memory a copy read or wrote, or an allocation took (CUPTI's). */
typedef enum {
    KIT_MEM_UNKNOWN = 0,
    KIT_MEM_PAGEABLE = 1,
    KIT_MEM_PINNED = 2,
    KIT_MEM_DEVICE = 3,
    KIT_MEM_ARRAY = 4,
    KIT_MEM_MANAGED = 5,
    KIT_MEM_STATIC = 6,
    KIT_MEM_MANAGED_STATIC = 7
} kit_mem_kind;

#define KIT_TRACE_NAME 96

typedef struct {
    char type;                     /* 'K' kernel, 'C' copy, 'M' memory taken or given back */
    unsigned long long start, end; /* ns (M: start = end, the time of the call) */
    unsigned stream;
    unsigned long long bytes;      /* copies and memory; 0 for kernels */
    kit_copy_kind kind;            /* copies */
    kit_mem_kind src, dst;         /* copies: what they read and wrote; M: src, the kind taken */
    unsigned smem_static, smem_dynamic; /* kernels: shared memory per block, bytes */
    int freed;                     /* M: 1 given back (free), 0 taken (alloc) */
    unsigned long long address;    /* M: where */
    char name[KIT_TRACE_NAME];     /* kernels: the function's name (no tab or newline) */
} kit_trace_rec;

/* "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "other". */
const char *kit_trace_kind_name(kit_copy_kind k);
/* The kind of a name as above; KIT_COPY_OTHER for anything else. */
kit_copy_kind kit_trace_kind_parse(const char *s);
/* "unknown", "pageable", "pinned", "device", "array", "managed", "static", "managed-static". */
const char *kit_trace_mem_name(kit_mem_kind k);
/* The kind of a name as above; -1 for anything else. */
int kit_trace_mem_parse(const char *s);

/* A kernel's name for the file: the identifier of a plain mangled C++
 * function (_Z17strip_rows_kernelPKdPdiii -> strip_rows_kernel), otherwise
 * the name as it is; tabs and newlines become spaces; at most len-1 bytes. */
void kit_trace_clean_name(const char *raw, char *out, size_t len);

/* One record as a line of the file, newline included. Returns the length,
 * or -1 when it does not fit in len bytes. */
int kit_trace_format(const kit_trace_rec *r, char *buf, size_t len);
/* One line of the file (version 2 or 3): 1 and *r filled for a record; 0 for
 * a comment or a blank line; -1 for anything malformed (end before start,
 * unknown type...). */
int kit_trace_parse(const char *line, kit_trace_rec *r);

/* A whole file: the header, a calibration line, the records, a second
 * calibration line and the end line (calib: the two clocks' readings, or
 * 0 0 when unknown). Returns 0 or -1 (write error). */
int kit_trace_write(FILE *fp, const kit_trace_rec *r, size_t n, unsigned long long calib_cupti,
                    unsigned long long calib_mono, size_t dropped);

/* How busy each engine was over the records that start in [t0, t1] (ns;
 * t1 = 0: no upper bound): the union of the intervals of host-to-device
 * copies, of kernels and of device-to-host copies, so two kernels that
 * overlap count once. M records are not engine work and are left out. */
typedef struct {
    double span_ms;      /* t0 to the end of the last record */
    double htod_ms, kernel_ms, dtoh_ms;
    double busiest_ms;   /* the largest of the three */
    double overlap;      /* span / busiest (1: the busiest engine never idles); 0 when idle */
    unsigned long long htod_bytes, dtoh_bytes;
    size_t kernels, copies;
    int streams;         /* distinct streams among the records counted */
} kit_trace_busy;
void kit_trace_busy_of(const kit_trace_rec *r, size_t n, unsigned long long t0,
                       unsigned long long t1, kit_trace_busy *b);

/* ---- in-process use (needs CUPTI; without it these fail politely) ---- */

/* The clock the records use: CLOCK_MONOTONIC in ns. */
unsigned long long kit_trace_now(void);
/* Register with CUPTI and enable kernel and copy records, before or after
 * CUDA starts. 0, or -1 with a one-line reason in err (no CUPTI in this
 * build, an injected library already records this process, CUPTI refused). */
int kit_trace_start(char *err, size_t errlen);
/* Flush CUPTI's buffers (waits for the GPU work already recorded) and hand
 * over every record gathered since the last call, in completion order:
 * *recs (free() it) and *n; *dropped: records CUPTI lost. 0 or -1. */
int kit_trace_collect(kit_trace_rec **recs, size_t *n, size_t *dropped);
/* CUPTI's clock now, for a calibration line (0 when unknown). */
unsigned long long kit_trace_cupti_now(void);
/* Disable the records and free what is left. */
void kit_trace_stop(void);

#ifdef __cplusplus
}
#endif
#endif
