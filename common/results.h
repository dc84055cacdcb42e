/* results.h - the TSV results file gnuplot and the grader read.
 *
 * A file starts with '#' provenance lines (kit, lab, command, date, host CPU,
 * threads, GPU, compute capability, driver, CUDA), then one header line, then
 * one row per (variant, input). Appending to an existing file adds rows only;
 * its header must match (checked), so runs can be collected in one file.
 */
#ifndef KIT_RESULTS_H
#define KIT_RESULTS_H

#include <stddef.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The columns, tab-separated, in this order. */
#define KIT_TSV_HEADER                                                                      \
    "lab\tvariant\tname\twidth\theight\tparam\treps\tkernel_ms\tkernel_ms_std\t"            \
    "kernel_ms_median\ttotal_ms\ttotal_ms_std\ttotal_ms_median\tgbps\tmax_abs_err\t"        \
    "max_rel_err\tmismatches\tstatus\tthreads\tconfig\tpart\tspan"

typedef struct {
    char lab[8];
    int variant;
    char name[48];
    long width, height;   /* image size, or columns x rows for matrices */
    char param[48];       /* filter name, radius, ... */
    int reps;
    double kernel_ms, kernel_ms_std, kernel_ms_median;
    double total_ms, total_ms_std, total_ms_median;
    double gbps;          /* bytes the variant must move / median kernel time */
    double max_abs_err, max_rel_err;
    long mismatches;
    char status[24];      /* pass, FAIL, not-implemented, unsupported, error */
    int threads;
    char config[96];      /* block=16x16 pinned=1 isa=avx2 ... */
    char part[24];        /* the lab's part ("-" in a lab of one part) */
    char span[12];        /* what the times hold: host, kernel or total */
} kit_row;

/* Provenance lines for a results file or a report. gpu_lines, when not NULL,
 * adds the GPU's lines. */
void kit_provenance(FILE *fp, const char *lab, int argc, char **argv, int threads,
                    void (*gpu_lines)(FILE *fp));

/* Append rows to path (creating it with provenance and header when it does
 * not exist or is empty). 0, or -1 with a one-line reason. */
int kit_results_append(const char *path, const kit_row *rows, int nrows, const char *lab,
                       int argc, char **argv, int threads, void (*gpu_lines)(FILE *fp),
                       char *err, size_t errlen);

/* 0 when rows can be appended to path (absent, empty, or a kit results
 * file with this header); else -1 with a one-line reason. */
int kit_results_check(const char *path, char *err, size_t errlen);

/* Write one row, tab-separated, with a newline. */
void kit_results_write_row(FILE *fp, const kit_row *r);

#ifdef __cplusplus
}
#endif
#endif
