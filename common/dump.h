/* dump.h - the harness's grading mode: --dump files, --ctl keys, --cases
 * (dump.c; DESIGN.md "The grading mode of the harness"). */
#ifndef KIT_DUMP_H
#define KIT_DUMP_H

#include "ctx.h"
#include "handler.h" /* kit_rep_rec, kit_dump_handler */

#ifdef __cplusplus
extern "C" {
#endif

/* ctx->out as DIR/vV.bin (k = 0, the warm-up) or DIR/vV.rK.bin, atomically.
 * 0, or -1 after one line. */
int kit_dump_output(const kit_ctx *ctx, int v, int k);
/* DIR/vV.txt: status, type, shape, span, one rep line per repetition. 0, or
 * -1 after one line. */
int kit_dump_meta(const kit_ctx *ctx, int v, const char *status, long long t0, long long t1,
                  const kit_rep_rec *reps, int nreps);
/* The key of timed repetition k of variant v: asked of the grader on --ctl,
 * else kit_rep_key() of the seed. 0, or -1 after one line. */
int kit_rep_key_for(const kit_ctx *ctx, int v, int k, unsigned long long *key);

/* The line "WHAT V K" of the key channel into LINE (LEN bytes); snprintf's
 * count. V is "PART:V" where the grader sets KIT_CTL_PARTS=1 and the part has
 * a name (not for "gate"), so that one timed run can hold the variants of
 * several parts whose numbers repeat (lab 04's rgb:2 and sep:2). */
int kit_ctl_line(char *line, size_t len, const char *what, const char *part, int v, int k);

/* With --ctl: "go V K" right before timed repetition K runs and "done V K"
 * right after, so the grader times it with its own clock (a CPU variant's
 * times in vV.txt are the run's word). No-op without --ctl. 0, or -1 after
 * one line when the channel is closed. */
int kit_ctl_note(const kit_ctx *ctx, const char *what, int v, int k);

/* With --ctl: "gate 0 0", then wait for the line "open". The harness calls
 * it in each case after the GPU's context exists and before any call into
 * the student's code, so that the grader can start a timed run early and
 * hold it at the first gate while another is timed (later gates open at
 * once). No-op without --ctl. 0, or -1 after one line. */
int kit_ctl_gate(const kit_ctx *ctx);

/* --cases FILE found at argv[at] (taking `taken` arguments): once() for
 * each line (its tab-separated arguments after argv's others). Returns the
 * most serious exit status; 77 at once when there is no device; stops after
 * a case that leaves broken() true (a GPU spoilt by a fault). */
int kit_main_cases(int argc, char **argv, int at, int taken, const char *file,
                   int (*once)(void *, int, char **), int (*broken)(void *), void *arg);

#ifdef __cplusplus
}
#endif
#endif
