/* harness.h - the driver every lab binary shares (DESIGN.md, "Harness").
 *
 * A lab is three files besides the student's: spec.c (the description, see
 * spec.h), ref.c (the CPU reference) and main.c, the glue below, which hands
 * the student's functions their buffers. main.c ends with
 *
 *     int main(int argc, char **argv) { return kit_main(&kit_lab_spec, &glue, argc, argv); }
 *
 * The harness parses the command line (common options here, the part's own
 * from its spec), makes the case's input, and for every selected variant:
 * one checked warm-up run on the case's own input, then --reps timed runs,
 * each on fresh content (spec fresh(), a new key each time), with the output
 * poisoned before every run. The timing protocol is in one place, here:
 *   CPU variant (span host):   host clock around launch()
 *   GPU, span kernel:          upload() (waited for); L2 flushed; events around launch();
 *                              download()   (total = upload + launch + download)
 *   GPU, span total:           L2 flushed; events around upload(), launch(),
 *                              download()   (kernel = launch() alone)
 * The reference (ref.c, linked into local builds only) checks the warm-up and
 * the last timed run. Under --dump DIR (the grader) nothing is checked here:
 * the outputs go to files and the grader's checker judges them.
 */
#ifndef KIT_HARNESS_H
#define KIT_HARNESS_H

#include "ctx.h" /* kit_ctx, kit_opts, kit_part_glue, kit_glue, kit_gpu_ops */

#ifdef __cplusplus
extern "C" {
#endif

/* Whether variant v runs in this process: --variant all, N or a list N,M. */
int kit_variant_chosen(const kit_ctx *ctx, int v);

/* The whole program: returns the exit code. */
int kit_main(const kit_lab_desc *lab, const kit_glue *glue, int argc, char **argv);

/* The byte a GPU lab must cudaMemset its device output with in prepare():
 * ctx->poison for 8-bit outputs, 0xFF (NaN) for float and double. */
unsigned char kit_poison_byte(const kit_ctx *ctx);
/* Fill a buffer with the byte pattern (u8) or NaN (float, double). */
void kit_poison(kit_buf *b, unsigned char pattern);

#ifdef __cplusplus
}
#endif
#endif
