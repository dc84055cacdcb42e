/* dump.c - the harness's grading mode (DESIGN.md, "The grading mode of the
 * harness"): outputs and the run's own account written for the grader under
 * --dump DIR, the keys of timed repetitions asked for on --ctl IN,OUT, and
 * --cases FILE (many runs in one process). */
#define _POSIX_C_SOURCE 200809L
#include "dump.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char *type_name(kit_type t)
{
    static const char *names[] = {"u8", "f32", "f64"};
    return names[t];
}

int kit_dump_output(const kit_ctx *ctx, int v, int k)
{
    char path[4096];
    if (k == 0)
        snprintf(path, sizeof path, "%s/v%d.bin", ctx->opt.dump_dir, v);
    else
        snprintf(path, sizeof path, "%s/v%d.r%d.bin", ctx->opt.dump_dir, v, k);
    if (kit_write_file_atomic(path, ctx->out.data, kit_buf_bytes(&ctx->out))) {
        kit_error("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}

int kit_dump_meta(const kit_ctx *ctx, int v, const char *status, long long t0, long long t1,
                  const kit_rep_rec *reps, int nreps)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/v%d.txt", ctx->opt.dump_dir, v);
    char *text = NULL;
    size_t n = 0;
    FILE *mem = open_memstream(&text, &n);
    if (!mem) {
        kit_error("cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    fprintf(mem, "status %s\n", status);
    if (ctx->out.data)
        fprintf(mem, "type %s\nshape %d %d %d %d\n", type_name(ctx->out.type), ctx->out.w,
                ctx->out.h, ctx->out.c, ctx->out.planar);
    fprintf(mem, "span %lld %lld\n", t0, t1);
    for (int i = 0; i < nreps; i++)
        fprintf(mem, "rep %d %016llx %lld %lld %.6f %.6f\n", reps[i].k, reps[i].key, reps[i].l0,
                reps[i].l1, reps[i].kernel_ms, reps[i].total_ms);
    int bad = fclose(mem) != 0;
    if (bad || kit_write_file_atomic(path, text, n)) {
        kit_error("cannot write %s: %s", path, strerror(errno));
        free(text);
        return -1;
    }
    free(text);
    return 0;
}

/* One line from fd (without its newline); 0, or -1 at EOF or error. */
static int read_line(int fd, char *buf, size_t len)
{
    size_t n = 0;
    while (n + 1 < len) {
        char c;
        ssize_t r = read(fd, &c, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        if (c == '\n')
            break;
        buf[n++] = c;
    }
    buf[n] = 0;
    return 0;
}

/* The key of "key HEX": 1 to 16 hexadecimal digits, not all zero. */
static int parse_key(const char *line, unsigned long long *key)
{
    if (strncmp(line, "key ", 4))
        return -1;
    const char *h = line + 4;
    size_t n = strspn(h, "0123456789abcdefABCDEF");
    if (n == 0 || n > 16 || h[n])
        return -1;
    *key = strtoull(h, NULL, 16);
    return *key ? 0 : -1;
}

int kit_ctl_line(char *line, size_t len, const char *what, const char *part, int v, int k)
{
    const char *by_part = getenv("KIT_CTL_PARTS");
    if (part && part[0] && by_part && !strcmp(by_part, "1") && strcmp(what, "gate"))
        return snprintf(line, len, "%s %s:%d %d\n", what, part, v, k);
    return snprintf(line, len, "%s %d %d\n", what, v, k);
}

/* One line to the grader; 0, or -1 after one line when the channel is closed. */
static int ctl_say(const kit_ctx *ctx, const char *what, int v, int k)
{
    char line[128];
    int n = kit_ctl_line(line, sizeof line, what, ctx->part ? ctx->part->name : "", v, k);
    if (n < 0 || (size_t)n >= sizeof line) {
        kit_error("the part's name is too long for the grader's key channel");
        return -1;
    }
    /* a grader that went away is an error with a reason, not death by SIGPIPE */
    struct sigaction ign, old;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigemptyset(&ign.sa_mask);
    sigaction(SIGPIPE, &ign, &old);
    ssize_t w;
    do
        w = write(ctx->opt.ctl_out, line, (size_t)n);
    while (w < 0 && errno == EINTR);
    int e = errno;
    sigaction(SIGPIPE, &old, NULL);
    if (w != n) {
        kit_error("the grader's key channel is closed (%s)", strerror(w < 0 ? e : EIO));
        return -1;
    }
    return 0;
}

int kit_ctl_note(const kit_ctx *ctx, const char *what, int v, int k)
{
    return ctx->opt.ctl_in < 0 ? 0 : ctl_say(ctx, what, v, k);
}

int kit_ctl_gate(const kit_ctx *ctx)
{
    if (ctx->opt.ctl_in < 0)
        return 0;
    char line[128];
    if (ctl_say(ctx, "gate", 0, 0))
        return -1;
    if (read_line(ctx->opt.ctl_in, line, sizeof line) || strcmp(line, "open")) {
        kit_error("the grader did not let this run start (its key channel gave no 'open')");
        return -1;
    }
    return 0;
}

int kit_rep_key_for(const kit_ctx *ctx, int v, int k, unsigned long long *key)
{
    if (ctx->opt.ctl_in < 0) {
        *key = kit_rep_key(ctx->opt.seed, ctx->part->name, v, k);
        return 0;
    }
    char line[128];
    if (ctl_say(ctx, "rep", v, k))
        return -1;
    if (read_line(ctx->opt.ctl_in, line, sizeof line) || parse_key(line, key)) {
        kit_error("the grader's key channel gave no key for repetition %d of variant %d", k, v);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------------ cases */

#define KIT_CASE_MAX_ARGS 64

static int severity(int rc)
{
    switch (rc) {
    case KIT_EXIT_OK: return 0;
    case KIT_EXIT_NOTIMPL: return 1;
    case KIT_EXIT_WRONG: return 2;
    case KIT_EXIT_USAGE: return 3;
    default: return 4;
    }
}

int kit_main_cases(int argc, char **argv, int at, int taken, const char *file,
                   int (*once)(void *, int, char **), int (*broken)(void *), void *arg)
{
    FILE *fp = fopen(file, "r");
    if (!fp) {
        kit_error("cannot read --cases %s: %s", file, strerror(errno));
        return KIT_EXIT_USAGE;
    }
    char **av = kit_calloc((size_t)argc + KIT_CASE_MAX_ARGS + 1, sizeof *av);
    int base = 0;
    for (int i = 0; i < argc; i++)
        if (i < at || i >= at + taken)
            av[base++] = argv[i];
    int worst = KIT_EXIT_OK;
    char *line = NULL;
    size_t cap = 0;
    errno = 0;
    while (getline(&line, &cap, fp) != -1) { /* a line of any length stays one case */
        line[strcspn(line, "\r\n")] = 0;
        int n = base;
        char *save = NULL;
        for (char *tok = strtok_r(line, "\t", &save); tok; tok = strtok_r(NULL, "\t", &save)) {
            if (n - base >= KIT_CASE_MAX_ARGS) {
                kit_error("--cases %s: a line has more than %d arguments", file, KIT_CASE_MAX_ARGS);
                worst = KIT_EXIT_USAGE;
                goto out;
            }
            av[n++] = tok;
        }
        if (n == base) /* an empty line (or tabs only) names no case */
            continue;
        av[n] = NULL;
        int rc = once(arg, n, av);
        fflush(stdout);
        if (rc == KIT_EXIT_NODEVICE) {
            worst = rc;
            goto out;
        }
        if (severity(rc) > severity(worst))
            worst = severity(rc) == 4 ? KIT_EXIT_RUNTIME : rc;
        if (broken && broken(arg)) {
            kit_error("--cases: the GPU is in an error state after this case; the cases after it "
                      "are not run");
            worst = KIT_EXIT_RUNTIME;
            goto out;
        }
        errno = 0;
    }
    if (ferror(fp)) {
        kit_error("cannot read --cases %s: %s", file, strerror(errno ? errno : EIO));
        worst = severity(worst) > severity(KIT_EXIT_USAGE) ? worst : KIT_EXIT_USAGE;
    }
out:
    fclose(fp);
    free(line);
    free(av);
    return worst;
}

/* ------------------------------------------------- the dump handler */

/* Every result of the warm-up and the timed runs to a file, none judged
 * here (the grader's checker does); the variant's record (vV.txt) at its end.
 * A timed run's (--ctl) warm-up output is not written: the grader checks the
 * outputs of a correctness run's warm-up, and of a timed run's repetitions
 * only (writing it cost a timed run of lab 07 a seventh of its outputs' time,
 * on the GPU's clock). */
static int dump_result(kit_ctx *ctx, int v, int k, kit_cmp *cmp, void *st)
{
    KIT_UNUSED(cmp);
    KIT_UNUSED(st);
    if (k == KIT_RUN_FOR_OUT || (k == 0 && ctx->opt.ctl_in >= 0))
        return 0;
    return kit_dump_output(ctx, v, k) ? -1 : 0;
}

const kit_result_handler kit_dump_handler = {"done", "done", 0, NULL, NULL, NULL,
                                             dump_result, NULL, kit_dump_meta};
