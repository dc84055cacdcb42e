/* handler.h - where each result of a variant's runs goes. harness.c's one
 * run loop (run_variant) makes the runs of a variant, numbered k: 0 the
 * warm-up on the case's own input, 1..reps the timed repetitions on fresh
 * content, KIT_RUN_FOR_OUT the run again on the case's own input for --out.
 * It hands each result to one of two handlers: the check (selfcheck.c, a
 * student's run: compared with the CPU reference) or the dump (dump.c, the
 * grader's run under --dump DIR: written to files for the grader's checker,
 * judged there). */
#ifndef KIT_HANDLER_H
#define KIT_HANDLER_H

#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One timed repetition, as the run reports it (the dump's vV.txt). */
typedef struct {
    int k;
    unsigned long long key;
    long long l0, l1;            /* launch window, CLOCK_MONOTONIC ns */
    double kernel_ms, total_ms;
} kit_rep_rec;

enum { KIT_RUN_FOR_OUT = -1 };

typedef struct {
    const char *pass_status, *pass_word; /* the row's status and the table's word when all went well */
    int judged;                          /* 1: outputs are compared here (mismatches counted) */
    /* Optional: the handler's state for one case (NULL: none), and its end. */
    void *(*start)(void);
    void (*finish)(void *st);
    /* Optional: before run k (its input content set, its output poisoned):
     * 0, or -1 after one line. */
    int (*before)(kit_ctx *ctx, int v, int k, void *st);
    /* Run k's result in ctx->out: 0 right or kept, 1 wrong (cmp filled), -1 error. */
    int (*result)(kit_ctx *ctx, int v, int k, kit_cmp *cmp, void *st);
    /* Optional: a wrong result's report (what: "FAIL", "FAIL (timed run)"). */
    void (*wrong)(kit_ctx *ctx, int v, const kit_cmp *cmp, const char *what, void *st);
    /* Optional: the variant is over (status: "ok", "unsupported" or the
     * row's; recs: its n timed runs): 0, or -1 after one line. */
    int (*end)(const kit_ctx *ctx, int v, const char *status, long long t0, long long t1,
               const kit_rep_rec *recs, int n);
} kit_result_handler;

extern const kit_result_handler kit_check_handler; /* selfcheck.c */
extern const kit_result_handler kit_dump_handler;  /* dump.c */

#ifdef __cplusplus
}
#endif
#endif
