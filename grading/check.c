/* check.c - the grader's checker: one binary per lab (grading/build/check-NN),
 * linked from that lab's spec.c and ref.c, so it makes a case's input and
 * its reference with the very code the lab's harness uses (DESIGN.md, "The
 * checker"). grading/grade runs it outside the sandbox; it never opens a path
 * a submission chose: outputs arrive on standard input.
 *
 *   check-NN describe [--part P] [-- ARGS...]
 *       JSON: the lab, its parts, options and variants; with ARGS, the case:
 *       each variant's output, tolerance, bytes, or why it cannot take it.
 *   check-NN compare --part P --variant V [--key HEX] [--atol A] [--rtol R]
 *                    [--diff PNG] [--cache DIR] [--in FILE] -- ARGS...
 *       the output of variant V on the case ARGS with content KEY (0: the
 *       case's own), from standard input (or --in): first line "pass",
 *       "fail MISMATCHES COUNT MAX_ABS MAX_REL" or "bad REASON", then the
 *       first mismatches. Exit 0 pass, 1 fail or bad, 2 usage or error.
 *   check-NN reference --part P --variant V [--key HEX] --out FILE -- ARGS...
 *       the reference's bytes (tests compare it with the harness's).
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "kit.h"
#include "options.h"
#include "spec.h"

static int usage(const char *msg)
{
    fprintf(stderr,
            "check: %s\n"
            "usage: check-NN describe [--part P] [-- ARGS...]\n"
            "       check-NN compare --part P --variant V [--key HEX] [--atol A] [--rtol R]\n"
            "                        [--diff PNG] [--cache DIR] [--in FILE] -- ARGS...\n"
            "       check-NN reference --part P --variant V [--key HEX] --out FILE -- ARGS...\n",
            msg);
    return 2;
}

/* ------------------------------------------------------------------ JSON */

static void jstr(const char *s)
{
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c < 0x20)
            printf("\\u%04x", c);
        else
            putchar(c);
    }
    putchar('"');
}

static void jnum(double x)
{
    if (isnan(x) || isinf(x))
        printf("null");
    else
        printf("%.17g", x);
}

static const char *kind_name(kit_argkind k)
{
    switch (k) {
    case KIT_ARG_FLAG: return "flag";
    case KIT_ARG_INT: return "int";
    case KIT_ARG_WXH: return "wxh";
    case KIT_ARG_STR: return "str";
    }
    return "?";
}

static void describe_part(const kit_part_spec *p)
{
    printf("{\"name\":");
    jstr(p->name);
    printf(",\"title\":");
    jstr(p->title);
    printf(",\"first_variant\":%d,\"variants\":[", p->first_variant);
    for (int i = 0; i < p->nvariants; i++) {
        const kit_variant_desc *d = &p->variants[i];
        printf("%s{\"v\":%d,\"name\":", i ? "," : "", p->first_variant + i);
        jstr(d->name);
        printf(",\"what\":");
        jstr(d->what);
        printf(",\"span\":\"%s\",\"ceiling\":\"%s\",\"min_launches\":%d,\"given\":%s}",
               kit_span_name(d->span), kit_ceiling_name(d->ceiling), d->min_launches,
               d->given ? "true" : "false");
    }
    printf("],\"options\":[");
    int first = 1;
    for (const kit_optdesc *o = p->opts; o && o->name; o++) {
        printf("%s{\"name\":", first ? "" : ",");
        first = 0;
        jstr(o->name);
        printf(",\"kind\":\"%s\",\"role\":\"%s\",\"default\":", kind_name(o->kind),
               o->role == KIT_ARG_INPUT ? "input" : "run");
        if (o->def)
            jstr(o->def);
        else
            printf("null");
        printf("}");
    }
    printf("]}");
}

/* ------------------------------------------------------------- the case */

typedef struct {
    const kit_part_spec *part;
    kit_args args;
    kit_problem prob;
} the_case;

/* The case of ARGS as the lab's harness reads them (kit_parse_case: the same
 * seed, the same options, the same refusals); part, when not "", overrides a
 * --part among them. */
static int make_case(const char *part, int argc, char **argv, the_case *c, char *err, size_t len)
{
    memset(c, 0, sizeof *c);
    char **av = kit_calloc((size_t)argc + 3, sizeof *av);
    for (int i = 0; i < argc; i++)
        av[i] = argv[i];
    int n = argc;
    if (part && part[0]) {
        av[n++] = "--part";
        av[n++] = (char *)part;
    }
    kit_opts o;
    const kit_part_spec *p = NULL;
    int rc = kit_parse_case(&kit_lab_spec, kit_lab_spec.gpu, n, av, &o, &p, &c->args, err, len);
    free(av);
    if (rc == 1)
        kit_set_err(err, len, "--help is not a case's argument");
    if (rc)
        return -1;
    c->part = p;
    c->prob.part = c->part;
    c->prob.args = &c->args;
    c->prob.seed = o.seed;
    if (c->part->make(&c->prob, err, len)) {
        if (c->part->release)
            c->part->release(&c->prob);
        c->part = NULL;
        return -1;
    }
    return 0;
}

static void free_case(the_case *c)
{
    if (c->part && c->part->release)
        c->part->release(&c->prob);
}

static int cmd_describe(const char *part, int argc, char **argv)
{
    printf("{\"lab\":");
    jstr(kit_lab_spec.lab);
    printf(",\"title\":");
    jstr(kit_lab_spec.title);
    printf(",\"gpu\":%s,\"parts\":[", kit_lab_spec.gpu ? "true" : "false");
    for (int i = 0; i < kit_lab_spec.nparts; i++) {
        if (i)
            putchar(',');
        describe_part(&kit_lab_spec.parts[i]);
    }
    printf("]");
    if (argc > 0) {
        the_case c;
        char err[512];
        if (make_case(part, argc, argv, &c, err, sizeof err)) {
            printf(",\"case\":{\"error\":");
            jstr(err);
            printf("}}\n");
            return 1;
        }
        printf(",\"case\":{\"part\":");
        jstr(c.part->name);
        printf(",\"width\":%ld,\"height\":%ld,\"param\":", c.prob.width, c.prob.height);
        jstr(c.prob.param);
        printf(",\"variants\":[");
        static const char *tn[] = {"u8", "f32", "f64"};
        for (int i = 0; i < c.part->nvariants; i++) {
            int v = c.part->first_variant + i;
            kit_outdesc od;
            char why[256] = "";
            int ok = c.part->output(&c.prob, v, &od, why, sizeof why);
            printf("%s{\"v\":%d,\"supported\":%s", i ? "," : "", v, ok ? "true" : "false");
            if (ok) {
                printf(",\"type\":\"%s\",\"w\":%d,\"h\":%d,\"c\":%d,\"planar\":%d,\"atol\":",
                       tn[od.type], od.w, od.h, od.c, od.planar);
                jnum(od.atol);
                printf(",\"rtol\":");
                jnum(od.rtol);
                printf(",\"bytes\":");
                jnum(c.part->bytes ? c.part->bytes(&c.prob, v) : 0.0);
            } else {
                printf(",\"why\":");
                jstr(why);
            }
            printf("}");
        }
        printf("]}");
        free_case(&c);
    }
    printf("}\n");
    return 0;
}

/* ---------------------------------------------------------- references */

static unsigned long long fnv1a(const char *s, unsigned long long h)
{
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* The reference of variant v for content key, from the cache folder when it
 * is there (every submission of a class shares the hidden cases). The cache
 * key holds the input options only, so run options (--block) share it. */
static int get_ref(const char *cache, the_case *c, int v, unsigned long long key,
                   const kit_outdesc *od, kit_buf *ref, double *atol, char *err, size_t len)
{
    char path[4096];
    kit_buf b = {od->type, od->w, od->h, od->c, od->planar, NULL};
    size_t nb = kit_buf_bytes(&b);
    unsigned long long h = 1469598103934665603ULL;
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s|%s|%d|%d|%llu|%016llx|", kit_lab_spec.lab, c->part->name,
             od->ref_class ? -od->ref_class : v, od->type, c->prob.seed, key);
    h = fnv1a(tmp, h);
    for (int i = 0; i < c->args.n; i++) {
        const struct kit_argval *a = &c->args.v[i];
        if (a->d->role != KIT_ARG_INPUT || !a->set)
            continue;
        snprintf(tmp, sizeof tmp, "%s=%ld,%dx%d,%s|", a->d->name, a->i, a->w, a->h, a->s);
        h = fnv1a(tmp, h);
    }
    if (cache) {
        snprintf(path, sizeof path, "%s/ref-%016llx.bin", cache, h);
        FILE *fp = fopen(path, "rb");
        if (fp) {
            char *data = kit_malloc(nb + sizeof(double) + 1);
            size_t got = fread(data, 1, nb + sizeof(double) + 1, fp);
            fclose(fp);
            if (got == nb + sizeof(double)) {
                memcpy(atol, data + nb, sizeof(double));
                b.data = data;
                *ref = b;
                return 0;
            }
            free(data);
        }
    }
    const kit_part_ref *pr = kit_part_reference(&kit_lab_ref, c->part->name);
    if (!pr) {
        kit_set_err(err, len, "no reference for part '%s'", c->part->name);
        return -1;
    }
    c->part->fresh(&c->prob, v, key);
    c->prob.key = key;
    b.data = kit_malloc(nb + sizeof(double));
    *atol = NAN;
    if (pr->reference(&c->prob, v, &b, atol, err, len)) {
        free(b.data);
        return -1;
    }
    *ref = b;
    if (cache) {
        memcpy((char *)b.data + nb, atol, sizeof(double));
        (void)kit_write_file_atomic(path, b.data, nb + sizeof(double));
    }
    return 0;
}

/* ------------------------------------------------------------- compare */

typedef struct {
    const char *part, *diff, *cache, *in, *out;
    int v;
    unsigned long long key;
    double atol, rtol;
    int argc;
    char **argv;
} cmd_opts;

static int parse_opts(int argc, char **argv, cmd_opts *o)
{
    memset(o, 0, sizeof *o);
    o->part = "";
    o->v = -1;
    o->atol = o->rtol = NAN;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--")) {
            o->argc = argc - i - 1;
            o->argv = argv + i + 1;
            return 0;
        }
        if (i + 1 >= argc)
            return usage("an option lacks its value");
        const char *k = argv[i], *val = argv[++i];
        char *end;
        if (!strcmp(k, "--part"))
            o->part = val;
        else if (!strcmp(k, "--variant")) {
            errno = 0;
            long v = strtol(val, &end, 10);
            if (errno || end == val || *end || v < 0 || v > 1000000)
                return usage("--variant must be a variant number");
            o->v = (int)v;
        }
        else if (!strcmp(k, "--key")) {
            size_t n = strspn(val, "0123456789abcdefABCDEF");
            if (n == 0 || n > 16 || val[n])
                return usage("--key must be 1 to 16 hexadecimal digits");
            o->key = strtoull(val, NULL, 16);
        } else if (!strcmp(k, "--atol") || !strcmp(k, "--rtol")) {
            double x = strtod(val, &end);
            if (end == val || *end || !(x >= 0) || isinf(x))
                return usage("--atol and --rtol must be numbers >= 0");
            *(k[2] == 'a' ? &o->atol : &o->rtol) = x;
        }
        else if (!strcmp(k, "--diff"))
            o->diff = val;
        else if (!strcmp(k, "--cache"))
            o->cache = val;
        else if (!strcmp(k, "--in"))
            o->in = val;
        else if (!strcmp(k, "--out"))
            o->out = val;
        else
            return usage("unknown option");
    }
    return 0; /* no "--": no case arguments */
}

/* Read at most max bytes of fp; *n the count (max + 1 means: more). */
static char *slurp(FILE *fp, size_t max, size_t *n)
{
    char *buf = kit_malloc(max + 1);
    *n = fread(buf, 1, max + 1, fp);
    return buf;
}

static int cmd_compare(int argc, char **argv, int write_ref)
{
    cmd_opts o;
    if (parse_opts(argc, argv, &o))
        return 2;
    if (o.v < 0 || !o.argv)
        return usage("compare and reference need --variant and -- ARGS");
    if (write_ref && !o.out)
        return usage("reference needs --out FILE");
    the_case c;
    char err[512];
    if (make_case(o.part, o.argc, o.argv, &c, err, sizeof err)) {
        fprintf(stderr, "check: the case's arguments: %s\n", err);
        return 2;
    }
    kit_outdesc od;
    char why[256];
    if (!kit_spec_variant(c.part, o.v)) {
        fprintf(stderr, "check: part '%s' has no variant %d\n", c.part->name, o.v);
        free_case(&c);
        return 2;
    }
    if (!c.part->output(&c.prob, o.v, &od, why, sizeof why)) {
        printf("bad variant %d does not take this case: %s\n", o.v, why);
        free_case(&c);
        return 1;
    }
    kit_buf ref;
    double ref_atol;
    if (get_ref(o.cache, &c, o.v, o.key, &od, &ref, &ref_atol, err, sizeof err)) {
        fprintf(stderr, "check: %s\n", err);
        free_case(&c);
        return 2;
    }
    size_t want = kit_buf_bytes(&ref);
    if (write_ref) {
        int rc = kit_write_file_atomic(o.out, ref.data, want) ? 2 : 0;
        if (rc)
            fprintf(stderr, "check: cannot write %s: %s\n", o.out, strerror(errno));
        free(ref.data);
        free_case(&c);
        return rc;
    }
    FILE *fp = o.in ? fopen(o.in, "rb") : stdin;
    size_t n = 0;
    char *got = fp ? slurp(fp, want, &n) : NULL;
    if (fp && fp != stdin)
        fclose(fp);
    int rc = 1;
    if (!got) {
        printf("bad no output\n");
    } else if (n != want) {
        if (n > want)
            printf("bad the output has more than the %zu bytes expected\n", want);
        else
            printf("bad the output has %zu bytes, expected %zu\n", n, want);
    } else {
        double atol = !isnan(o.atol) ? o.atol : !isnan(ref_atol) ? ref_atol : od.atol;
        double rtol = !isnan(o.rtol) ? o.rtol : od.rtol;
        if (isnan(atol))
            atol = 0.0;
        kit_buf g = ref;
        g.data = got;
        kit_cmp cmp;
        size_t bad = kit_compare(&ref, &g, atol, rtol, &cmp);
        if (bad == 0) {
            printf("pass\n");
            rc = 0;
        } else {
            printf("fail %zu %zu %.6g %.6g\n", cmp.mismatches, cmp.count, cmp.max_abs_err,
                   cmp.max_rel_err);
            kit_cmp_print(stdout, &cmp, "  ");
            if (o.diff && kit_out_is_picture(ref.h, ref.c) &&
                kit_diff_picture(o.diff, &ref, &g, atol, rtol, err, sizeof err))
                fprintf(stderr, "check: diff picture not written: %s\n", err);
        }
    }
    free(got);
    free(ref.data);
    free_case(&c);
    return rc;
}

int main(int argc, char **argv)
{
    kit_prog = "check";
    if (argc < 2)
        return usage("no subcommand");
    if (!strcmp(argv[1], "describe")) {
        const char *part = "";
        int i = 2;
        if (i + 1 < argc && !strcmp(argv[i], "--part")) {
            part = argv[i + 1];
            i += 2;
        }
        if (i < argc && !strcmp(argv[i], "--"))
            i++;
        else if (i < argc)
            return usage("describe takes [--part P] [-- ARGS...]");
        return cmd_describe(part, argc - i, argv + i);
    }
    if (!strcmp(argv[1], "compare"))
        return cmd_compare(argc - 2, argv + 2, 0);
    if (!strcmp(argv[1], "reference"))
        return cmd_compare(argc - 2, argv + 2, 1);
    return usage("unknown subcommand");
}
