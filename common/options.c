/* options.c - the command line every lab binary shares: the common options
 * (kit_opts), the part's own (spec.h, kit_args), and --help. */
#define _POSIX_C_SOURCE 200809L
#include "options.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define KIT_MAX_REPS 1000

/* The common options, with the ones that take no value. */
static const char *const common_names[] = {
    "--part", "--variant", "--reps", "--seed", "--results", "--diff-dir", "--out",
    "--save-input", "--quiet", "--help", "--device", "--dump", "--ctl", NULL};
static const char *const common_flags[] = {"--quiet", "--help", NULL};

int kit_usage_error(const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", kit_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (try --help)\n");
    return KIT_EXIT_USAGE;
}

/* ------------------------------------------------------------------ usage */

static void opt_line(FILE *fp, const char *opt, const char *what)
{
    fprintf(fp, "  %-22s %s\n", opt, what);
}

static void part_usage(const kit_part_spec *p, FILE *fp)
{
    char left[64], what[320];
    if (p->name[0])
        fprintf(fp, "\npart %s: %s\n", p->name, p->title);
    else
        fprintf(fp, "\n");
    fprintf(fp, "options:\n");
    for (const kit_optdesc *d = p->opts; d && d->name; d++) {
        snprintf(left, sizeof left, "%s%s%s", d->name, d->metavar ? " " : "",
                 d->metavar ? d->metavar : "");
        if (d->def)
            snprintf(what, sizeof what, "%s (default %s)", d->help, d->def);
        else
            snprintf(what, sizeof what, "%s", d->help);
        opt_line(fp, left, what);
    }
    fprintf(fp, "variants:\n");
    for (int i = 0; i < p->nvariants; i++) {
        const kit_variant_desc *vd = &p->variants[i];
        fprintf(fp, "  %d %-16s %s%s\n", p->first_variant + i, vd->name, vd->what,
                vd->given ? " [given]" : "");
    }
    if (p->help_extra)
        fprintf(fp, "%s\n", p->help_extra);
}

void kit_usage(const kit_lab_desc *lab, const kit_part_spec *only, int gpu, FILE *fp)
{
    fprintf(fp, "usage: %s [options]\n%s\n\ncommon options:\n", kit_prog, lab->title);
    if (lab->nparts > 1) {
        char buf[160] = "";
        for (int i = 0; i < lab->nparts; i++) {
            strncat(buf, i ? "|" : "", sizeof buf - strlen(buf) - 1);
            strncat(buf, lab->parts[i].name, sizeof buf - strlen(buf) - 1);
        }
        char what[200];
        snprintf(what, sizeof what, "the part of the lab to run: %s (default %s)", buf,
                 lab->parts[0].name);
        opt_line(fp, "--part NAME", what);
    }
    if (lab->nparts == 1) {
        char what[96];
        const kit_part_spec *p = &lab->parts[0];
        snprintf(what, sizeof what, "variant to run, %d..%d, or all (default all)",
                 p->first_variant, p->first_variant + p->nvariants - 1);
        opt_line(fp, "--variant N|all", what);
    } else {
        opt_line(fp, "--variant N|all", "variant of the part to run (default all)");
    }
    opt_line(fp, "--reps N", "timed runs after one warm-up, each on fresh content (default 12;");
    opt_line(fp, "", "fastest and slowest dropped)");
    opt_line(fp, "--seed S", "seed of the generated input (default 1)");
    opt_line(fp, "--results PATH", "append one TSV row per variant (with provenance) to PATH");
    opt_line(fp, "--out PATH", "write the last passing result as a picture (.png, .jpg, .bmp)");
    opt_line(fp, "--save-input PATH", "write the input picture (.png, .jpg, .bmp)");
    opt_line(fp, "--diff-dir DIR", "where diff pictures of failures go (default .)");
    if (gpu)
        opt_line(fp, "--device N", "CUDA device index (default 0)");
    opt_line(fp, "--quiet", "print errors only");
    opt_line(fp, "--help", "this text (with --part NAME: that part only)");
    for (int i = 0; i < lab->nparts; i++)
        if (!only || only == &lab->parts[i])
            part_usage(&lab->parts[i], fp);
    fprintf(fp, "\nexit codes: 0 all correct, 1 wrong result, 2 bad usage or input, "
                "3 CUDA/runtime error,\n            4 variant not implemented, 77 no CUDA device\n");
}

/* ---------------------------------------------------------------- parsing */

static int parse_long(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

int kit_parse_command(const kit_lab_desc *lab, int gpu, int argc, char **argv, kit_opts *o,
                      const kit_part_spec **part, kit_args *args)
{
    memset(o, 0, sizeof *o);
    o->part = "";
    o->variant = -1;
    o->reps = 12;
    o->seed = 1;
    o->diff_dir = ".";
    o->ctl_in = o->ctl_out = -1;
    const char *variant = NULL;
    int help = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        char name[32];
        const char *val = NULL;
        const char *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        if (strncmp(a, "--", 2) != 0 || n >= sizeof name)
            continue; /* the part's parser reports it */
        memcpy(name, a, n);
        name[n] = 0;
        int known = 0, flag = 0;
        for (int k = 0; common_names[k]; k++)
            known |= !strcmp(common_names[k], name);
        for (int k = 0; common_flags[k]; k++)
            flag |= !strcmp(common_flags[k], name);
        if (!known || (!gpu && !strcmp(name, "--device")))
            continue;
        if (flag) {
            if (eq)
                return kit_usage_error("%s takes no value", name);
            if (!strcmp(name, "--quiet"))
                o->quiet = 1;
            else
                help = 1;
            continue;
        }
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc)
                return kit_usage_error("option %s needs a value", name);
            val = argv[++i];
        }
        long v;
        if (!strcmp(name, "--part")) {
            o->part = val;
        } else if (!strcmp(name, "--variant")) {
            variant = val;
        } else if (!strcmp(name, "--reps")) {
            if (parse_long(val, 1, KIT_MAX_REPS, &v))
                return kit_usage_error("--reps must be 1..%d, not '%s'", KIT_MAX_REPS, val);
            o->reps = (int)v;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (errno || end == val || *end || val[0] < '0' || val[0] > '9')
                return kit_usage_error("--seed must be a non-negative integer, not '%s'", val);
            o->seed = s;
        } else if (!strcmp(name, "--results")) {
            o->results = val;
        } else if (!strcmp(name, "--diff-dir")) {
            o->diff_dir = val;
        } else if (!strcmp(name, "--out")) {
            o->out = val;
        } else if (!strcmp(name, "--save-input")) {
            o->save_input = val;
        } else if (!strcmp(name, "--device")) {
            if (parse_long(val, 0, 63, &v))
                return kit_usage_error("--device must be 0..63, not '%s'", val);
            o->device = (int)v;
        } else if (!strcmp(name, "--dump")) {
            o->dump_dir = val;
        } else if (!strcmp(name, "--ctl")) {
            long fi, fo;
            char buf[32], *comma;
            snprintf(buf, sizeof buf, "%s", val);
            comma = strchr(buf, ',');
            if (!comma)
                return kit_usage_error("--ctl must be IN,OUT (two file descriptors)");
            *comma = 0;
            if (parse_long(buf, 0, 1 << 20, &fi) || parse_long(comma + 1, 0, 1 << 20, &fo))
                return kit_usage_error("--ctl must be IN,OUT (two file descriptors)");
            o->ctl_in = (int)fi;
            o->ctl_out = (int)fo;
        }
    }
    *part = kit_spec_part(lab, o->part);
    if (!*part) {
        if (help) { /* the whole lab's help, then the complaint */
            kit_usage(lab, NULL, gpu, stdout);
            return 1;
        }
        return kit_usage_error("lab %s has no part '%s'", lab->lab, o->part);
    }
    if (help) {
        kit_usage(lab, o->part[0] ? *part : NULL, gpu, stdout);
        return 1;
    }
    const kit_part_spec *p = *part;
    int lo = p->first_variant, hi = p->first_variant + p->nvariants - 1;
    if (variant && strcmp(variant, "all")) {
        long v;
        if (parse_long(variant, lo, hi, &v))
            return kit_usage_error("--variant must be all or %d..%d%s%s, not '%s'", lo, hi,
                                   p->name[0] ? " for part " : "", p->name, variant);
        o->variant = (int)v;
    }
    char err[512];
    const char *skip[sizeof common_names / sizeof common_names[0]];
    int ns = 0;
    for (int k = 0; common_names[k]; k++)
        if (gpu || strcmp(common_names[k], "--device"))
            skip[ns++] = common_names[k];
    skip[ns] = NULL;
    if (kit_args_parse(p, argc - 1, argv + 1, skip, common_flags, args, err, sizeof err))
        return kit_usage_error("%s", err);
    /* a generated picture and a file exclude each other */
    int has_image = 0, has_size = 0;
    for (int i = 0; i < args->n; i++) {
        has_image |= !strcmp(args->v[i].d->name, "--image") && args->v[i].given;
        has_size |= !strcmp(args->v[i].d->name, "--size") && args->v[i].given;
    }
    if (has_image && has_size)
        return kit_usage_error("--image and --size exclude each other");
    return 0;
}
