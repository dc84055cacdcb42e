/* harness05.h - the pieces of lab 05's glue (main.c) that live in files of
 * their own: parts device and copies (basics.c), the account of device
 * memory (devmem.c), the pictures v5 decodes (loader.c) and the GPU activity
 * of each run (timeline.c). The kit's, not the student's.
 */
#ifndef LAB05_HARNESS05_H
#define LAB05_HARNESS05_H

#include <stddef.h>
#include "batch.h"
#include "cupti_trace.h"
#include "harness.h"
#include "lab05.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- basics.c: the glue of parts device and copies (main.c's table) */
int lab05_device_setup(kit_ctx *ctx);
int lab05_device_prepare(kit_ctx *ctx, int v);
int lab05_device_launch(kit_ctx *ctx, int v);
int lab05_device_download(kit_ctx *ctx, int v);
void lab05_device_config(kit_ctx *ctx, int v, char *buf, size_t len);
void lab05_device_teardown(kit_ctx *ctx);
int lab05_copies_setup(kit_ctx *ctx);
int lab05_copies_prepare(kit_ctx *ctx, int v);
int lab05_copies_upload(kit_ctx *ctx, int v);
int lab05_copies_launch(kit_ctx *ctx, int v);
int lab05_copies_download(kit_ctx *ctx, int v);
void lab05_copies_config(kit_ctx *ctx, int v, char *buf, size_t len);
void lab05_copies_teardown(kit_ctx *ctx);

/* ---- devmem.c: every cudaMalloc, cudaMallocPitch, cudaMallocManaged,
 * cudaMalloc3D, cudaMallocAsync, cudaMallocFromPoolAsync, cudaFree and
 * cudaFreeAsync of the program goes through the harness (the link wraps
 * them), which keeps the bytes each allocation holds. */

/* Open a window: with budget > 0 an allocation that would make the variant
 * hold more than budget bytes fails with cudaErrorMemoryAllocation after one
 * line naming `who`. The variant's memory is all but the kit's (what the
 * kit took on its own thread outside a window): memory kept from an earlier
 * call, or taken on another thread between calls, counts from the start. */
void devmem_begin(size_t budget, const char *who);
/* Close it: the window's peak of the variant's memory, and what the variant
 * still holds (a variant that does not free what it allocated). */
void devmem_end(size_t *peak, size_t *left);
/* Allocations the budget refused since the program started. */
int devmem_refusals(void);

/* ---- loader.c: the pictures of batch v5. Before each of v5's runs (in
 * prepare(), outside the timed span) the harness encodes the content of that
 * run's key, the bytes the other variants get in h_in, as PNG in memory;
 * batch_load() decodes those bytes and does nothing else to them. The key is
 * held here by no field: a picture decoded in an earlier run is the content
 * of another key, and nothing in v5's reach turns it into this one. */
struct batch_source {
    int w, h, count;
    unsigned char **enc;     /* picture i of the content in force as a PNG */
    size_t *enc_len;
};

/* An empty source for d's pictures (d->base: generated, or the --images
 * files decoded at set-up); nothing is encoded yet. */
void batch_source_make(batch_source *s, const batch_data *d);
/* Encode the content of key of every picture of d (lab05.h's batch_content
 * of d->base) as PNG into s, on all the cores. 0, or -1 after one line. */
int batch_source_encode(batch_source *s, const batch_data *d, unsigned long long key);
void batch_source_free(batch_source *s);
/* Decoding alone, as v5 does it (groups of `group` into two page-locked
 * buffers) with no GPU work: the median of `reps` passes, ms. */
double batch_decode_alone(const batch_source *s, int group, unsigned char *stage[2], int threads,
                          int reps);

/* ---- timeline.c: GPU activity per run (CUPTI, in-process) */
typedef struct lab_trace lab_trace;

/* Start recording unless the run is graded (--dump), --no-trace is given,
 * or an injected library already records this process; says why not, once
 * (unless --quiet). Never NULL. */
lab_trace *lab_trace_open(const kit_ctx *ctx);
/* 1 when it records. */
int lab_trace_on(const lab_trace *t);
/* A run's launch window: at the call of launch() (begin 1) and when it
 * returns (begin 0); v is the variant. */
void lab_trace_launch(lab_trace *t, int v, int begin);
/* The records of the run before (outside any timed span: before every run
 * and at the end), kept as that variant's: all that came since the last
 * collection (the harness records nothing of its own between the end of one
 * run and the prepare step of the next; its L2 flush is a memset). */
void lab_trace_collect(lab_trace *t);
/* Variant v is done: print its engines' busy times (medians over its timed
 * runs) unless quiet, and with --timeline DIR write its last run's records
 * to DIR/PART-vV.tsv and a row to DIR/engines.tsv; label (a word on how it
 * ran: "pinned", "budget 256 MiB"...; NULL: print and write nothing, as for
 * a variant with no good run), peak_mib and decode_ms (or negative) go into
 * that row. Forgets the variant's runs. */
void lab_trace_done(lab_trace *t, const kit_ctx *ctx, int v, const char *label, double peak_mib,
                    double decode_ms);
void lab_trace_close(lab_trace *t);

#ifdef __cplusplus
}
#endif
#endif
