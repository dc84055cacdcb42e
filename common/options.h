/* options.h - the command line every lab binary shares: common options
 * (kit_opts, ctx.h) and the part's own (spec.h), and --help. */
#ifndef KIT_OPTIONS_H
#define KIT_OPTIONS_H

#include <stdio.h>
#include "ctx.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Parse argv (argv[0] is the program) into the common options o, the part
 * they select and that part's options. Returns 0; 1 after printing --help;
 * KIT_EXIT_USAGE after one line. gpu: the lab takes --device. */
int kit_parse_command(const kit_lab_desc *lab, int gpu, int argc, char **argv, kit_opts *o,
                      const kit_part_spec **part, kit_args *args);

/* The same without printing, for the grader's checker too (argv: options
 * only, no program name), so that a case's arguments mean the same to both:
 * 0; 1 when --help was asked (*part NULL when --part names none); or
 * KIT_EXIT_USAGE with a one-line reason in err. */
int kit_parse_case(const kit_lab_desc *lab, int gpu, int argc, char **argv, kit_opts *o,
                   const kit_part_spec **part, kit_args *args, char *err, size_t errlen);

/* --help text: every part, or only one. */
void kit_usage(const kit_lab_desc *lab, const kit_part_spec *only, int gpu, FILE *fp);

/* Before any work: the files and folders the options name can be written
 * (--out, --save-input, --results, --dump, --diff-dir) and the --ctl
 * descriptors are open the right way. 0, or -1 after one line. */
int kit_check_paths(const kit_opts *o);

/* "PROG: message (try --help)" on stderr; returns KIT_EXIT_USAGE. */
int kit_usage_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

#ifdef __cplusplus
}
#endif
#endif
