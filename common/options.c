/* options.c - the command line every lab binary shares: the common options
 * (kit_opts), the part's own (spec.h, kit_args), --help, and the checks of
 * the files, folders and descriptors the options name. */
#define _POSIX_C_SOURCE 200809L
#include "options.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

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
        if (p->nvariants > 1)
            snprintf(what, sizeof what, "variant to run, %d..%d, a list of them (%d,%d) or all "
                     "(default all)", p->first_variant, p->first_variant + p->nvariants - 1,
                     p->first_variant, p->first_variant + (p->nvariants > 2 ? 2 : 1));
        else
            snprintf(what, sizeof what, "variant to run, %d, or all (default all)",
                     p->first_variant);
        opt_line(fp, "--variant N|all", what);
    } else {
        opt_line(fp, "--variant N|all", "variant of the part to run, a list (1,3) or all "
                 "(default all)");
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

/* The common options of argv (options only), into o: 0, 1 when --help was
 * asked, or -1 with the reason in err. *variant: the text of --variant. */
static int parse_common(int gpu, int argc, char **argv, kit_opts *o, const char **variant,
                        char *err, size_t errlen)
{
    memset(o, 0, sizeof *o);
    o->part = "";
    o->variant = -1;
    o->reps = 12;
    o->seed = 1;
    o->diff_dir = ".";
    o->ctl_in = o->ctl_out = -1;
    *variant = NULL;
    int help = 0;
    for (int i = 0; i < argc; i++) {
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
            if (eq) {
                kit_set_err(err, errlen, "%s takes no value", name);
                return -1;
            }
            if (!strcmp(name, "--quiet"))
                o->quiet = 1;
            else
                help = 1;
            continue;
        }
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc) {
                kit_set_err(err, errlen, "option %s needs a value", name);
                return -1;
            }
            val = argv[++i];
        }
        long v;
        if (!strcmp(name, "--part")) {
            o->part = val;
        } else if (!strcmp(name, "--variant")) {
            *variant = val;
        } else if (!strcmp(name, "--reps")) {
            if (kit_parse_long(val, 1, KIT_MAX_REPS, &v)) {
                kit_set_err(err, errlen, "--reps must be 1..%d, not '%s'", KIT_MAX_REPS, val);
                return -1;
            }
            o->reps = (int)v;
        } else if (!strcmp(name, "--seed")) {
            char *end;
            errno = 0;
            unsigned long long s = strtoull(val, &end, 10);
            if (errno || end == val || *end || val[0] < '0' || val[0] > '9') {
                kit_set_err(err, errlen, "--seed must be an integer 0..%llu, not '%s'",
                            (unsigned long long)-1, val);
                return -1;
            }
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
            if (kit_parse_long(val, 0, 63, &v)) {
                kit_set_err(err, errlen, "--device must be 0..63, not '%s'", val);
                return -1;
            }
            o->device = (int)v;
        } else if (!strcmp(name, "--dump")) {
            o->dump_dir = val;
        } else if (!strcmp(name, "--ctl")) {
            long fi, fo;
            char buf[32], *comma;
            snprintf(buf, sizeof buf, "%s", val);
            comma = strchr(buf, ',');
            if (!comma || strlen(val) >= sizeof buf) {
                kit_set_err(err, errlen, "--ctl must be IN,OUT (two file descriptors)");
                return -1;
            }
            *comma = 0;
            if (kit_parse_long(buf, 0, 1 << 20, &fi) || kit_parse_long(comma + 1, 0, 1 << 20, &fo)) {
                kit_set_err(err, errlen, "--ctl must be IN,OUT (two file descriptors)");
                return -1;
            }
            o->ctl_in = (int)fi;
            o->ctl_out = (int)fo;
        }
    }
    return help;
}

int kit_parse_case(const kit_lab_desc *lab, int gpu, int argc, char **argv, kit_opts *o,
                   const kit_part_spec **part, kit_args *args, char *err, size_t errlen)
{
    const char *variant;
    *part = NULL;
    int help = parse_common(gpu, argc, argv, o, &variant, err, errlen);
    if (help < 0)
        return KIT_EXIT_USAGE;
    *part = kit_spec_part(lab, o->part);
    if (help)
        return 1;
    if (!*part) {
        kit_set_err(err, errlen, "lab %s has no part '%s'", lab->lab, o->part);
        return KIT_EXIT_USAGE;
    }
    const kit_part_spec *p = *part;
    int lo = p->first_variant, hi = p->first_variant + p->nvariants - 1;
    o->vlist = 0;
    if (variant && strcmp(variant, "all")) {
        /* N, or a list N,M,... (each once, at most 64 variants in a part) */
        char buf[256];
        snprintf(buf, sizeof buf, "%s", variant);
        int n = 0, bad = strlen(variant) >= sizeof buf || hi - lo >= 64 || !buf[0];
        long v = -1;
        for (char *save = NULL, *tok = bad ? NULL : strtok_r(buf, ",", &save); tok && !bad;
             tok = strtok_r(NULL, ",", &save), n++) {
            unsigned long long bit;
            bad = kit_parse_long(tok, lo, hi, &v) != 0;
            bit = bad ? 0 : 1ULL << (v - lo);
            bad = bad || (o->vlist & bit);
            o->vlist |= bit;
        }
        if (bad || variant[0] == ',' || variant[strlen(variant) - 1] == ',' ||
            strstr(variant, ",,")) {
            kit_set_err(err, errlen, "--variant must be all, %d..%d or a list of them (1,3)%s%s, "
                        "not '%s'", lo, hi, p->name[0] ? " for part " : "", p->name, variant);
            o->vlist = 0;
            return KIT_EXIT_USAGE;
        }
        if (n == 1) {
            o->variant = (int)v;
            o->vlist = 0;
        }
    }
    const char *skip[sizeof common_names / sizeof common_names[0]];
    int ns = 0;
    for (int k = 0; common_names[k]; k++)
        if (gpu || strcmp(common_names[k], "--device"))
            skip[ns++] = common_names[k];
    skip[ns] = NULL;
    if (kit_args_parse(p, argc, argv, skip, common_flags, args, err, errlen))
        return KIT_EXIT_USAGE;
    return 0;
}

int kit_parse_command(const kit_lab_desc *lab, int gpu, int argc, char **argv, kit_opts *o,
                      const kit_part_spec **part, kit_args *args)
{
    char err[512];
    int rc = kit_parse_case(lab, gpu, argc - 1, argv + 1, o, part, args, err, sizeof err);
    if (rc == 1) /* a part's help, or the whole lab's */
        kit_usage(lab, *part && o->part[0] ? *part : NULL, gpu, stdout);
    else if (rc)
        kit_usage_error("%s", err);
    return rc;
}

/* ------------------------------------------- the paths the options name */

/* A file can be written at path: its folder exists and is writable, and it
 * is not a folder itself. 0, or -1 after one line. */
static int check_writable(const char *opt, const char *path, int picture)
{
    struct stat st;
    if (stat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
        kit_error("%s %s: that is a folder; give a file name", opt, path);
        return -1;
    }
    if (picture && kit_picture_format(path) == KIT_PIC_NONE) {
        kit_error("%s %s: the file name must end in .png, .jpg or .bmp", opt, path);
        return -1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == dir)
        dir[1] = 0;
    else
        *slash = 0;
    if ((access(path, F_OK) == 0 && access(path, W_OK) != 0) || access(dir, W_OK) != 0) {
        kit_error("cannot write %s %s: %s", opt, path, strerror(errno));
        return -1;
    }
    return 0;
}

/* --dump DIR, --diff-dir DIR: an existing folder the run can write in. 0,
 * or -1 after one line. */
static int check_folder(const char *opt, const char *dir)
{
    struct stat st;
    if (stat(dir, &st) != 0) {
        kit_error("%s %s: %s", opt, dir, strerror(errno));
        return -1;
    }
    if (!S_ISDIR(st.st_mode)) {
        kit_error("%s %s: not a folder", opt, dir);
        return -1;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        kit_error("cannot write in %s %s: %s", opt, dir, strerror(errno));
        return -1;
    }
    return 0;
}

/* --ctl IN,OUT: two open descriptors, IN readable and OUT writable. 0, or
 * -1 after one line. */
static int check_ctl(int in, int out)
{
    int fi = fcntl(in, F_GETFL), fo = fcntl(out, F_GETFL);
    if (fi < 0 || fo < 0) {
        kit_error("--ctl %d,%d: descriptor %d is not open", in, out, fi < 0 ? in : out);
        return -1;
    }
    if ((fi & O_ACCMODE) == O_WRONLY || (fo & O_ACCMODE) == O_RDONLY) {
        kit_error("--ctl %d,%d: descriptor %d cannot be %s", in, out,
                  (fi & O_ACCMODE) == O_WRONLY ? in : out,
                  (fi & O_ACCMODE) == O_WRONLY ? "read" : "written");
        return -1;
    }
    return 0;
}

int kit_check_paths(const kit_opts *o)
{
    if ((o->out && check_writable("--out", o->out, 1)) ||
        (o->save_input && check_writable("--save-input", o->save_input, 1)) ||
        (o->results && check_writable("--results", o->results, 0)) ||
        (o->dump_dir && check_folder("--dump", o->dump_dir)) ||
        (strcmp(o->diff_dir, ".") && check_folder("--diff-dir", o->diff_dir)) ||
        (o->ctl_in >= 0 && check_ctl(o->ctl_in, o->ctl_out)))
        return -1;
    return 0;
}
