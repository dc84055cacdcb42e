/* ctx.h - the types the harness and its parts share (DESIGN.md, "Harness"):
 * the common options (kit_opts), a lab's glue (kit_part_glue, kit_glue), the
 * GPU side of the timing protocol (kit_gpu_ops) and the context of one case
 * (kit_ctx). The parts of the harness (options.c, dump.c, protocol.c,
 * gpu.cu) include this, not harness.h, which is the driver's own interface
 * (kit_main) for the labs' main.c.
 */
#ifndef KIT_CTX_H
#define KIT_CTX_H

#include <stdio.h>
#include "compare.h"
#include "convin.h"
#include "filters.h"
#include "image.h"
#include "kit.h"
#include "spec.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The options every lab binary takes (the part's own are in kit_args). */
typedef struct {
    const char *part;            /* --part NAME ("" : the lab's first part) */
    int variant;                 /* --variant N; -1: all (or the list below) */
    unsigned long long vlist;    /* --variant N,M,...: bit v - first variant of each; 0: none */
    int reps;                    /* --reps N (default 12) */
    unsigned long long seed;     /* --seed S (default 1) */
    const char *results;         /* --results PATH: append TSV rows */
    const char *diff_dir;        /* --diff-dir DIR (default .) */
    const char *out;             /* --out PATH: the last passing output as a picture */
    const char *save_input;      /* --save-input PATH */
    int quiet;                   /* --quiet */
    int device;                  /* --device N (GPU labs) */
    const char *dump_dir;        /* --dump DIR: the grader's mode (not in --help) */
    int ctl_in, ctl_out;         /* --ctl IN,OUT: the grader's key channel (fds; -1: none) */
} kit_opts;

typedef struct kit_ctx kit_ctx;

/* The glue of one part (main.c). Every callback returns KIT_OK or a KIT_*
 * code (KIT_NOT_IMPLEMENTED from the student's untouched function,
 * KIT_UNSUPPORTED, KIT_RUNTIME_ERROR) unless it says otherwise. */
typedef struct {
    const char *part;  /* the part's name, as in the spec */
    /* After the spec's make(): device buffers, constant uploads, threads.
     * Returns 0 or a KIT_EXIT_* code (after one line). */
    int (*setup)(kit_ctx *ctx);
    /* Optional: 1 when variant v can run with these run options (block
     * shape...); else 0 with a reason. The spec's output() said the input
     * suits it. */
    int (*supports)(kit_ctx *ctx, int v, char *why, size_t whylen);
    /* Optional, outside the timed span, before every run: poison device
     * outputs (and temporaries) with kit_poison_byte(ctx). */
    int (*prepare)(kit_ctx *ctx, int v);
    /* Optional (GPU): the input's current content to the device. */
    int (*upload)(kit_ctx *ctx, int v);
    /* The variant: what the timed span holds (the student's launcher, or a
     * CPU function writing ctx->out). Work it puts on other streams must be
     * ordered before the legacy default stream's next work (blocking
     * streams, or synchronised). */
    int (*launch)(kit_ctx *ctx, int v);
    /* Optional (GPU): the result into ctx->out.data. */
    int (*download)(kit_ctx *ctx, int v);
    /* Optional: text for the TSV's config column (block shape, threads...). */
    void (*config)(kit_ctx *ctx, int v, char *buf, size_t len);
    /* Optional: host memory for ctx->out (pinned where it matters) and its
     * release; default malloc/free. */
    void *(*host_alloc)(kit_ctx *ctx, size_t bytes);
    void (*host_free)(kit_ctx *ctx, void *p);
    void (*teardown)(kit_ctx *ctx);
} kit_part_glue;

/* The GPU side of the timing protocol (libkitgpu: kit_gpu_protocol). Slots
 * are CUDA events on the legacy default stream. */
typedef struct {
    int (*init)(int device);          /* 0, or KIT_EXIT_NODEVICE / USAGE / RUNTIME */
    int (*mark)(int slot);            /* record event slot (0..7) */
    int (*wait)(int slot);            /* wait for the event of slot, then every stream */
    int (*elapsed)(int a, int b, double *ms);
    int (*flush_l2)(void);            /* evict the L2: write a buffer twice its size */
    void (*lines)(FILE *fp);          /* provenance lines for the TSV */
    void (*shutdown)(void);           /* optional: the end of a case */
    int (*healthy)(void);             /* 0 once a sticky CUDA error has spoilt the context */
} kit_gpu_ops;

/* The GPU side, in libkitgpu (gpu.cu): GPU labs pass &kit_gpu_protocol. */
extern const kit_gpu_ops kit_gpu_protocol;

typedef struct {
    int nparts;
    const kit_part_glue *parts;  /* in the spec's order */
    const kit_gpu_ops *gpu;      /* &kit_gpu_protocol for GPU labs, NULL for CPU labs */
} kit_glue;

struct kit_ctx {
    const kit_lab_desc *lab;
    const kit_part_spec *part;
    const kit_part_glue *glue;
    kit_opts opt;          /* common options */
    kit_args args;         /* the part's options */
    kit_problem prob;      /* the case's input (spec make()/fresh()) */
    kit_outdesc od;        /* the current variant's output */
    kit_buf out;           /* where the current variant's result ends up; poisoned before each run */
    unsigned char poison;  /* byte pattern of the current poisoning */
    int threads;           /* threads used (CPU labs), for the TSV */
    void *user;            /* the glue's own state */
    const kit_gpu_ops *gpu; /* the lab's GPU ops (NULL for CPU labs) */
};

#ifdef __cplusplus
}
#endif
#endif
