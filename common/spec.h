/* spec.h - the one description of a lab's public problem, read by both the
 * lab's harness (labs/NN/main.c) and the grader's checker (grading/check.c).
 *
 * A lab folder holds:
 *   spec.c  the description: parts, options, variants (timed span, bytes,
 *           ceiling), how a case's inputs are made from its arguments and
 *           seed, how a timed repetition gets fresh content, each variant's
 *           output shape and tolerance. Defines `kit_lab_spec`.
 *   ref.c   the CPU reference of every variant's output. Defines
 *           `kit_lab_ref`. Linked into the student's local build (make check)
 *           and into the checker; never into a graded build (the grader's
 *           copy of the kit has no ref.c and no libkitref).
 *   main.c  the glue between the harness and the student's functions
 *           (device buffers, copies, launches): harness.h.
 * Adding a variant or a lab touches these files and the lab's own code;
 * nothing in grading/ names a lab.
 *
 * Everything here is plain C with no CUDA: the checker runs without a GPU.
 */
#ifndef KIT_SPEC_H
#define KIT_SPEC_H

#include <stddef.h>
#include "compare.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------- options */

typedef enum {
    KIT_ARG_FLAG,  /* --pinned */
    KIT_ARG_INT,   /* --radius 3 (range lo..hi) */
    KIT_ARG_WXH,   /* --size 640x480 (each side lo..hi) */
    KIT_ARG_STR    /* --filter gauss5, --image PATH (at most KIT_ARG_STRLEN-1 bytes) */
} kit_argkind;

/* Does an option change the problem (its inputs or outputs: the checker must
 * know it) or only how a variant runs (block shape, threads, pinned host
 * memory: the checker ignores it)? */
enum { KIT_ARG_RUN = 0, KIT_ARG_INPUT = 1 };

typedef struct {
    const char *name;    /* "--radius" */
    kit_argkind kind;
    int role;            /* KIT_ARG_INPUT or KIT_ARG_RUN */
    const char *metavar; /* "R" (NULL for flags) */
    const char *help;    /* one line for --help */
    const char *def;     /* default, written as on the command line; NULL: unset */
    long lo, hi;         /* KIT_ARG_INT range, KIT_ARG_WXH range of each side */
} kit_optdesc;

/* Options most labs share, to list in a part's option table. */
#define KIT_OPTD_SIZE(def)                                                                 \
    {"--size", KIT_ARG_WXH, KIT_ARG_INPUT, "WxH", "generated input of W x H pixels", def, \
     1, 65535}
#define KIT_OPTD_IMAGE                                                                     \
    {"--image", KIT_ARG_STR, KIT_ARG_INPUT, "PATH",                                        \
     "input picture (PNG, JPG, BMP, PPM) instead of a generated one", NULL, 0, 0}
#define KIT_OPTD_FILTER(def)                                                               \
    {"--filter", KIT_ARG_STR, KIT_ARG_INPUT, "NAME",                                       \
     "filter: laplace5 edge3 sharpen3 gauss5 box gaussian", def, 0, 0}
#define KIT_OPTD_RADIUS                                                                    \
    {"--radius", KIT_ARG_INT, KIT_ARG_INPUT, "R", "radius of box and gaussian filters",    \
     NULL, 1, 80}
#define KIT_OPTD_BLOCK                                                                     \
    {"--block", KIT_ARG_WXH, KIT_ARG_RUN, "WxH",                                           \
     "thread-block shape where the variant allows it", NULL, 1, 1024}
#define KIT_OPTD_PINNED                                                                    \
    {"--pinned", KIT_ARG_FLAG, KIT_ARG_RUN, NULL,                                          \
     "pinned (page-locked) host buffers instead of pageable", NULL, 0, 0}
#define KIT_OPTD_END {NULL, KIT_ARG_FLAG, 0, NULL, NULL, NULL, 0, 0}

#define KIT_ARG_STRLEN 256
#define KIT_MAX_ARGS 32

/* The values of one part's options after parsing (defaults filled in). */
typedef struct {
    int n;
    struct kit_argval {
        const kit_optdesc *d;
        int given;                 /* on the command line (else the default, or unset) */
        int set;                   /* has a value (given, or a default) */
        long i;                    /* INT; 1 for a given FLAG */
        int w, h;                  /* WXH */
        char s[KIT_ARG_STRLEN];    /* STR */
    } v[KIT_MAX_ARGS];
} kit_args;

/* Lookups by option name ("--radius"). An option the part does not declare
 * is a programming error: these print one line and exit 3. */
int kit_arg_set(const kit_args *a, const char *name);   /* has a value */
int kit_arg_given(const kit_args *a, const char *name); /* on the command line */
long kit_arg_int(const kit_args *a, const char *name);  /* 0 when unset */
void kit_arg_wxh(const kit_args *a, const char *name, int *w, int *h); /* 0x0 when unset */
const char *kit_arg_str(const kit_args *a, const char *name);          /* "" when unset */

/* ------------------------------------------------------------ variants */

/* What a variant's timed span holds. */
typedef enum {
    KIT_SPAN_HOST = 0,   /* host code (CPU labs) */
    KIT_SPAN_KERNEL = 1, /* the launcher's kernels only: copies happen outside, L2 flushed */
    KIT_SPAN_TOTAL = 2   /* copies in, kernels, copies out (the copies are the lesson) */
} kit_span;

/* The ceiling that bounds bytes() / time for a variant. */
typedef enum {
    KIT_CEIL_NONE = 0,
    KIT_CEIL_HOST_MEM = 1,    /* host memory bandwidth */
    KIT_CEIL_DEVICE_COPY = 2, /* device-to-device copy, bytes read + written */
    KIT_CEIL_PCIE = 3         /* host<->device copies (pinned) */
} kit_ceiling;

typedef struct {
    const char *name;  /* short name for tables and TSV */
    const char *what;  /* one line: what changed and why it should be faster */
    kit_span span;
    kit_ceiling ceiling;
    int min_launches;  /* GPU: kernels one run must launch at least (0 for CPU variants) */
    int given;         /* 1: the skeleton ships it written (given, not the student's work) */
} kit_variant_desc;

/* ------------------------------------------------------------- problems */

/* One case's inputs, made by a part's make() from the parsed arguments. */
typedef struct kit_problem {
    const struct kit_part_spec *part;
    const kit_args *args;
    unsigned long long seed;  /* --seed */
    unsigned long long key;   /* content in force: 0 is the case's own input */
    long width, height;       /* for tables and the TSV */
    char param[48];           /* filter name etc. for tables and the TSV */
    kit_buf input;            /* a view of the input picture, for --save-input (optional) */
    void *data;               /* the part's own inputs (owned; release() frees) */
} kit_problem;

/* What a variant writes: its shape and type, and the tolerance it is held
 * to (8-bit outputs exact; atol NaN: the reference computes one per input). */
typedef struct {
    kit_type type;
    int w, h, c, planar;
    double atol, rtol;
    int ref_class;     /* variants with the same nonzero class share one reference
                          (the harness computes it once per content); 0: its own */
} kit_outdesc;

/* An output that --out and diff pictures can show: at most 4 channels, and
 * more than one row or more than one channel (one row of single values is a
 * vector, such as lab 06's y; a 1x1 RGBA result is still a picture). */
static inline int kit_out_is_picture(int h, int c)
{
    return c <= 4 && (h > 1 || c > 1);
}

/* How many entries a table (a static array, not a pointer) has: a part's
 * .nvariants = KIT_NELEMS(its variants table), so the count follows the table. */
#define KIT_NELEMS(table) ((int)(sizeof(table) / sizeof((table)[0])))

typedef struct kit_part_spec {
    const char *name;             /* "" for a lab of one part; else "strip", "batch", ... */
    const char *title;            /* one line for --help */
    const kit_optdesc *opts;      /* the part's options, KIT_OPTD_END last */
    int first_variant, nvariants;
    const kit_variant_desc *variants; /* variants[0] is first_variant */
    const char *help_extra;       /* tolerance and limits, for --help (may be NULL) */

    /* The inputs of a case from p->args and p->seed (set by the caller).
     * 0, or KIT_EXIT_USAGE with a one-line reason in err. */
    int (*make)(kit_problem *p, char *err, size_t errlen);
    /* Set the input's content to the one of key (0: the case's own input),
     * for variant v (only the layouts v reads need to change). A pure
     * function of (the case, key): the checker repeats it. Fresh content for
     * every timed repetition keeps a variant from replaying an old result. */
    void (*fresh)(kit_problem *p, int v, unsigned long long key);
    /* Variant v's output on this input: 1, or 0 with a reason when v cannot
     * take this input (a filter it does not support...: "n/a"). */
    int (*output)(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen);
    /* Bytes variant v must move at least (each input read once, each output
     * written once), for GB/s and for the grader's physical bound. */
    double (*bytes)(const kit_problem *p, int v);
    void (*release)(kit_problem *p);
} kit_part_spec;

typedef struct {
    const char *lab;     /* "03" */
    const char *title;
    int gpu;             /* needs a CUDA device */
    int nparts;
    const kit_part_spec *parts;
} kit_lab_desc;

/* Every lab's spec.c defines this. */
extern const kit_lab_desc kit_lab_spec;

/* ------------------------------------------------------------ references */

typedef struct {
    const char *part;   /* the part's name */
    /* Variant v's expected output for p's current content (p->key), into
     * ref, which the caller allocated with output()'s shape. *atol: a
     * tolerance computed for this input, or NaN to keep output()'s. 0, or -1
     * with a reason. */
    int (*reference)(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                     size_t errlen);
} kit_part_ref;

typedef struct {
    int nparts;
    const kit_part_ref *parts;
} kit_lab_refs;

/* Every lab's ref.c defines this; a graded build has none (weak). */
extern const kit_lab_refs kit_lab_ref;

/* ------------------------------------------------------------ helpers */

const kit_part_spec *kit_spec_part(const kit_lab_desc *lab, const char *name); /* NULL: none */
const kit_variant_desc *kit_spec_variant(const kit_part_spec *p, int v);       /* NULL: none */
const kit_part_ref *kit_part_reference(const kit_lab_refs *r, const char *name);

/* Parse a part's arguments (argv holds options only; unknown ones, bad values
 * and a missing value are errors). Defaults first. 0, or -1 with a one-line
 * reason. Options not of the part are left to the caller: `skip` lists names
 * (NULL-terminated) that are the caller's and are passed over with their
 * value, `flags` those of them that take none. --image and --size given
 * together are an error. */
int kit_args_parse(const kit_part_spec *p, int argc, char **argv, const char *const *skip,
                   const char *const *flags, kit_args *out, char *err, size_t errlen);

/* The key of timed repetition k (1-based) of variant v in a run with this
 * seed, when the grader does not hand keys out itself: local runs and
 * correctness cases. Never 0. */
unsigned long long kit_rep_key(unsigned long long seed, const char *part, int v, int k);

/* Names for the TSV, the JSON and the grader. */
const char *kit_span_name(kit_span s);       /* host, kernel, total */
const char *kit_ceiling_name(kit_ceiling c); /* none, host-mem, device-copy, pcie */

#ifdef __cplusplus
}
#endif
#endif
