/* harness.h - the driver every lab binary shares (DESIGN.md, harness contract).
 *
 * A lab's main.c describes itself in a kit_lab (its variants, options, and
 * four callbacks) and calls kit_main(). The harness parses the command line,
 * validates everything before running anything, poisons the output before
 * each run, checks against the CPU reference, times repeated runs, prints the
 * table, writes --out and --results, and picks the exit code.
 */
#ifndef KIT_HARNESS_H
#define KIT_HARNESS_H

#include <stdio.h>
#include "compare.h"
#include "filters.h"
#include "image.h"
#include "kit.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Lab options beyond the common ones (--variant --reps --seed --results
 * --quiet --help --diff-dir, always accepted). */
enum {
    KIT_OPT_SIZE = 1 << 0,    /* --size WxH */
    KIT_OPT_IMAGE = 1 << 1,   /* --image PATH */
    KIT_OPT_FILTER = 1 << 2,  /* --filter NAME, --radius R */
    KIT_OPT_OUT = 1 << 3,     /* --out PATH, --save-input PATH (PNG) */
    KIT_OPT_BLOCK = 1 << 4,   /* --block WxH */
    KIT_OPT_PINNED = 1 << 5,  /* --pinned */
    KIT_OPT_THREADS = 1 << 6, /* --threads N */
    KIT_OPT_ISA = 1 << 7,     /* --isa sse|avx2|avx512 */
    KIT_OPT_MATRIX = 1 << 8,  /* --rows M --cols N */
    KIT_OPT_DEVICE = 1 << 9,  /* --device N */
    KIT_OPT_TILE = 1 << 10    /* --tile WxH (tile shapes of tiled kernels) */
};

typedef struct {
    int variant;                 /* -1: all */
    int w, h;                    /* --size */
    int rows, cols;              /* --rows/--cols */
    int radius;                  /* --radius (0: filter default) */
    char filter[32];
    const char *image, *out, *results, *diff_dir, *save_input;
    const char *dump_dir;        /* --dump DIR: outputs for the grader (not in --help) */
    int reps;
    unsigned long long seed;
    int quiet;
    int device;
    int block_w, block_h;        /* 0: variant default */
    int tile_w, tile_h;          /* 0: variant default */
    int pinned;
    int threads;                 /* 0: OMP_NUM_THREADS or all cores */
    char isa[16];                /* "" : best the CPU has */
} kit_opts;

typedef struct {
    const char *name; /* short name for tables and TSV */
    const char *what; /* one line: what changed and why it should be faster */
} kit_variant;

typedef struct kit_ctx kit_ctx;

typedef struct {
    const char *lab;        /* "01" */
    const char *title;      /* one line for --help */
    int gpu;                /* needs a CUDA device */
    unsigned options;       /* KIT_OPT_* the lab accepts */
    int default_w, default_h;
    int default_rows, default_cols;
    const char *default_filter;
    double atol, rtol;      /* float tolerance (8-bit outputs are exact) */
    int nvariants;
    const kit_variant *variants; /* variants[0] is v1, or v0 when first_variant is 0 */
    int first_variant;      /* 0 or 1 */
    const char *help_extra; /* lab-specific help lines, may be NULL */

    /* Build inputs, the reference (ctx->ref) and the output buffer (ctx->out,
     * same shape). Prints its own one-line error. Returns an exit code:
     * 0, KIT_EXIT_USAGE, KIT_EXIT_RUNTIME or KIT_EXIT_NODEVICE. */
    int (*setup)(kit_ctx *ctx);
    /* Optional: point ctx->ref/ctx->out (and ctx->atol/rtol) at variant v's
     * buffers when variants produce different layouts or types. */
    void (*select)(kit_ctx *ctx, int v);
    /* 1 when variant v can run on this input; else 0 with a reason. */
    int (*supports)(kit_ctx *ctx, int v, char *why, size_t whylen);
    /* Run variant v once into ctx->out (device outputs must be filled with
     * ctx->poison before the run). Sets the kernel-only and the total time in
     * ms. Returns KIT_OK, KIT_NOT_IMPLEMENTED, KIT_UNSUPPORTED or
     * KIT_RUNTIME_ERROR. */
    int (*run)(kit_ctx *ctx, int v, double *kernel_ms, double *total_ms);
    /* Bytes variant v must move (each input read once, output written once). */
    double (*bytes)(kit_ctx *ctx, int v);
    /* Text for the TSV's config column (block shape, threads, ISA...). */
    void (*config)(kit_ctx *ctx, int v, char *buf, size_t len);
    void (*teardown)(kit_ctx *ctx);
    void (*gpu_lines)(FILE *fp); /* provenance of the device, GPU labs */
} kit_lab;

struct kit_ctx {
    const kit_lab *lab;
    kit_opts opt;
    kit_buf ref;           /* the CPU reference result */
    kit_buf out;           /* where variants write; poisoned before each run */
    kit_buf input;         /* the input picture, for --save-input (optional) */
    unsigned char poison;  /* byte pattern of the current poisoning */
    double atol, rtol;     /* tolerance in force (lab's, unless select changes it) */
    long width, height;    /* for the table and the TSV */
    char param[48];        /* filter name etc. for the TSV */
    int threads;           /* threads used (CPU labs), for the TSV */
    void *user;            /* the lab's own state */
};

/* The whole program: returns the exit code. */
/* 0 under --dump, the grader's mode: the grader's own checker compares the
 * outputs, so the lab need not compute its CPU reference (setup skips it)
 * and the harness does not compare; 1 otherwise. */
int kit_want_reference(const kit_ctx *ctx);

int kit_main(const kit_lab *lab, int argc, char **argv);

/* Parse the command line into o (defaults from lab). Returns 0, 1 for
 * --help (already printed), or KIT_EXIT_USAGE after printing one line. */
int kit_parse_args(const kit_lab *lab, int argc, char **argv, kit_opts *o);
void kit_usage(const kit_lab *lab, FILE *fp);

/* Fill a buffer with the byte pattern (u8) or NaN (float, double). */
void kit_poison(kit_buf *b, unsigned char pattern);
/* The byte a GPU lab must cudaMemset its device output with before a run:
 * ctx->poison for 8-bit outputs, 0xFF (NaN) for float and double. */
unsigned char kit_poison_byte(const kit_ctx *ctx);

/* The lab's input picture with `channels` channels: --image when given,
 * else the procedural scene of --size and --seed. Returns 0, or
 * KIT_EXIT_USAGE after one line naming the file and what is wrong. */
int kit_input_picture(const kit_opts *o, int channels, kit_image *img);

/* The float-picture convolution input of the CPU labs: the filter (--filter,
 * --radius), the picture as floats, its zero-padded extended copy with rows
 * of `stride` floats ((W+2R)*c rounded up to stride_align floats; 64-byte
 * aligned), the clamped CPU reference and the output. */
typedef struct {
    kit_filter filter;
    int w, h, c;
    size_t stride;           /* floats per row of h_ext */
    float *h_src;            /* W x H x c */
    float *h_ext;            /* (W+2R) x (H+2R) pixels, rows of stride floats */
    float *h_ref, *h_out;    /* W x H x c */
} kit_conv_input;

/* Build it and point ctx's ref, out, input, width, height and param at it.
 * Returns 0, or KIT_EXIT_USAGE after one line (bad filter or picture). */
int kit_conv_input_setup(kit_ctx *ctx, int channels, int stride_align, kit_conv_input *in);
/* Bytes a variant must move: the extended picture read once, the output written once. */
double kit_conv_input_bytes(const kit_conv_input *in);
void kit_conv_input_free(kit_conv_input *in);

/* Save a w x h x c buffer (any type, clamped and rounded to 8 bits) as PNG. */
int kit_buf_save_png(const char *path, const kit_buf *b, char *err, size_t errlen);

/* Print "PROG: message" to stderr, one line (errors print even with --quiet). */
void kit_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
