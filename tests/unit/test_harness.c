/* test_harness.c - unit tests of common/harness.c, protocol.c and dump.c:
 * kit_main end to end with a fake lab built here (its spec, its reference and
 * its glue): poisoning, fresh content per repetition, checks, the exit code,
 * the TSV rows, --out, the grading mode (--dump, --ctl keys, --cases). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "compare.h"
#include "dump.h"
#include "harness.h"
#include "image.h"
#include "kit.h"
#include "protocol.h"
#include "results.h"

/* ---------------------------------------------------------- the fake lab */

enum {
    B_GOOD = 0,     /* the reference of the current content */
    B_NOTHING,      /* writes nothing */
    B_NOTIMPL,      /* KIT_NOT_IMPLEMENTED */
    B_WARMONLY,     /* correct at the warm-up only */
    B_REPLAY,       /* the warm-up's result copied back every time (a cache) */
    B_ERROR,        /* KIT_RUNTIME_ERROR */
    B_LATE_ERROR,   /* correct three times, then KIT_RUNTIME_ERROR */
    B_POISON_CHEAT, /* writes the answer only where the output holds 0xA5 */
    B_HALF,         /* writes the first half of the elements only */
    B_CLOSE,        /* ref + atol/2 */
    B_FAR,          /* ref + 2*atol */
    B_RUN_UNSUPP,   /* launch() says KIT_UNSUPPORTED */
    B_NO_SUPPORT,   /* output() says no */
    B_VECTOR,       /* a 3x1 double output with its own tolerance 4, off by 2 */
    B_TAMPER,       /* rewrites its input to the warm-up's content, answers for that */
    B_MOVE_DUMP     /* correct; at its second run moves the --dump folder away */
};

#define MAXV 8
static int g_beh[MAXV + 1];
static int g_calls[MAXV + 1];
static int g_poison_ok[MAXV + 1];
static unsigned char g_poisons[MAXV + 1][64];
static unsigned long long g_keys[MAXV + 1][64];
static kit_type g_type = KIT_F32;
static int g_setups, g_teardowns, g_setup_rc, g_makes, g_releases, g_refs;
static double g_atol = 0.5;
static char g_move_dump[2][600]; /* B_MOVE_DUMP: from, to */
static unsigned char g_saved[4096];

typedef struct {
    int w, h;
    unsigned long long seed, key;
} fake_prob;

static double expected(const kit_problem *p, size_t i)
{
    const fake_prob *q = p->data;
    return (double)((i * 37 + q->seed * 11 + q->key % 97) % 251) + (g_type == KIT_U8 ? 0 : 0.25);
}

static int fake_make(kit_problem *p, char *err, size_t errlen)
{
    g_makes++;
    int w, h;
    kit_arg_wxh(p->args, "--size", &w, &h);
    if (w == 13 && h == 13) {
        kit_set_err(err, errlen, "fake input refused");
        return KIT_EXIT_USAGE;
    }
    fake_prob *q = kit_calloc(1, sizeof *q);
    *q = (fake_prob){w, h, p->seed, 0};
    p->data = q;
    p->width = w;
    p->height = h;
    snprintf(p->param, sizeof p->param, "p=1");
    return 0;
}

static void fake_fresh(kit_problem *p, int v, unsigned long long key)
{
    (void)v;
    ((fake_prob *)p->data)->key = key;
}

static int fake_output(const kit_problem *p, int v, kit_outdesc *o, char *why, size_t whylen)
{
    const fake_prob *q = p->data;
    if (g_beh[v] == B_NO_SUPPORT) {
        kit_set_err(why, whylen, "fake reason");
        return 0;
    }
    if (g_beh[v] == B_VECTOR)
        *o = (kit_outdesc){KIT_F64, 3, 1, 1, 0, 4.0, 0.0, 0};
    else
        *o = (kit_outdesc){g_type, q->w, q->h, 2, 0, g_atol, 0.0, 1};
    return 1;
}

static double fake_bytes(const kit_problem *p, int v)
{
    (void)p;
    (void)v;
    return 8e6;
}

static void fake_release(kit_problem *p)
{
    g_releases++;
    free(p->data);
    p->data = NULL;
}

static const kit_optdesc fake_opts[] = {KIT_OPTD_SIZE("5x3"), KIT_OPTD_END};
static const kit_variant_desc fake_variants[MAXV] = {
    {"alpha", "v1", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"beta", "v2", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"gamma", "v3", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"delta", "v4", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"eps", "v5", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"zeta", "v6", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"eta", "v7", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"theta", "v8", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
};
static kit_part_spec fake_part = {
    .name = "",
    .title = "fake lab for the harness tests",
    .opts = fake_opts,
    .first_variant = 1,
    .variants = fake_variants,
    .make = fake_make,
    .fresh = fake_fresh,
    .output = fake_output,
    .bytes = fake_bytes,
    .release = fake_release,
};
static const kit_lab_desc fake_lab = {"99", "fake lab", 0, 1, &fake_part};

/* the reference: kit_lab_ref, found by the harness through its weak symbol */
static int fake_reference(const kit_problem *p, int v, kit_buf *ref, double *atol, char *err,
                          size_t errlen)
{
    (void)atol;
    (void)err;
    (void)errlen;
    g_refs++;
    size_t n = kit_buf_count(ref);
    for (size_t i = 0; i < n; i++) {
        double x = g_beh[v] == B_VECTOR ? 100.0 * (double)i : expected(p, i);
        if (ref->type == KIT_U8)
            ((unsigned char *)ref->data)[i] = (unsigned char)x;
        else if (ref->type == KIT_F32)
            ((float *)ref->data)[i] = (float)x;
        else
            ((double *)ref->data)[i] = x;
    }
    return 0;
}
static const kit_part_ref fake_refs[] = {{"", fake_reference}};
const kit_lab_refs kit_lab_ref = {1, fake_refs};

static int fake_setup(kit_ctx *ctx)
{
    (void)ctx;
    g_setups++;
    if (g_setup_rc) {
        kit_error("fake setup refuses");
        return g_setup_rc;
    }
    return 0;
}

static void fake_teardown(kit_ctx *ctx)
{
    (void)ctx;
    g_teardowns++;
}

static int fully_poisoned(const kit_ctx *ctx)
{
    size_t n = kit_buf_count(&ctx->out);
    for (size_t i = 0; i < n; i++) {
        double v = kit_buf_get(&ctx->out, i);
        if (ctx->out.type == KIT_U8 ? v != (double)ctx->poison : !isnan(v))
            return 0;
    }
    return 1;
}

static void put(kit_ctx *ctx, size_t i, double v)
{
    if (ctx->out.type == KIT_U8)
        ((unsigned char *)ctx->out.data)[i] = (unsigned char)v;
    else if (ctx->out.type == KIT_F32)
        ((float *)ctx->out.data)[i] = (float)v;
    else
        ((double *)ctx->out.data)[i] = v;
}

static void write_answer(kit_ctx *ctx, size_t upto, double delta)
{
    for (size_t i = 0; i < upto; i++)
        put(ctx, i, expected(&ctx->prob, i) + delta);
}

static int fake_launch(kit_ctx *ctx, int v)
{
    int call = ++g_calls[v];
    if (call <= 64) {
        g_poisons[v][call - 1] = ctx->poison;
        g_keys[v][call - 1] = ctx->prob.key;
    }
    g_poison_ok[v] += fully_poisoned(ctx);
    size_t n = kit_buf_count(&ctx->out), bytes = kit_buf_bytes(&ctx->out);
    switch (g_beh[v]) {
    case B_GOOD: write_answer(ctx, n, 0.0); break;
    case B_NOTHING: break;
    case B_NOTIMPL: return KIT_NOT_IMPLEMENTED;
    case B_WARMONLY:
        if (call == 1)
            write_answer(ctx, n, 0.0);
        break;
    case B_REPLAY:
        if (call == 1) {
            write_answer(ctx, n, 0.0);
            memcpy(g_saved, ctx->out.data, bytes < sizeof g_saved ? bytes : sizeof g_saved);
        } else {
            memcpy(ctx->out.data, g_saved, bytes < sizeof g_saved ? bytes : sizeof g_saved);
        }
        break;
    case B_ERROR: return KIT_RUNTIME_ERROR;
    case B_LATE_ERROR:
        if (call > 3)
            return KIT_RUNTIME_ERROR;
        write_answer(ctx, n, 0.0);
        break;
    case B_POISON_CHEAT: {
        unsigned char *o = ctx->out.data;
        for (size_t i = 0; i < n; i++)
            if (o[i] == 0xA5)
                put(ctx, i, expected(&ctx->prob, i));
        break;
    }
    case B_HALF: write_answer(ctx, n / 2, 0.0); break;
    case B_CLOSE: write_answer(ctx, n, g_atol / 2); break;
    case B_FAR: write_answer(ctx, n, 2 * g_atol); break;
    case B_RUN_UNSUPP: return KIT_UNSUPPORTED;
    case B_VECTOR:
        for (size_t i = 0; i < n; i++)
            put(ctx, i, 100.0 * (double)i + 2.0);
        break;
    case B_TAMPER: /* a write into the input it was handed */
        ((fake_prob *)ctx->prob.data)->key = 0;
        write_answer(ctx, n, 0.0);
        break;
    case B_MOVE_DUMP:
        write_answer(ctx, n, 0.0);
        if (call == 2)
            rename(g_move_dump[0], g_move_dump[1]);
        break;
    }
    return KIT_OK;
}

static void fake_config(kit_ctx *ctx, int v, char *buf, size_t len)
{
    (void)ctx;
    snprintf(buf, len, "cfg=v%d", v);
}

static const kit_part_glue fake_glue_parts[] = {{.part = "",
                                                 .setup = fake_setup,
                                                 .launch = fake_launch,
                                                 .config = fake_config,
                                                 .teardown = fake_teardown}};
static const kit_glue fake_glue = {1, fake_glue_parts, NULL};

/* A fake lab of n variants with the given behaviours (v1 first). */
static void fake(kit_type type, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    memset(g_beh, 0, sizeof g_beh);
    for (int v = 1; v <= n; v++)
        g_beh[v] = va_arg(ap, int);
    va_end(ap);
    memset(g_calls, 0, sizeof g_calls);
    memset(g_poison_ok, 0, sizeof g_poison_ok);
    memset(g_poisons, 0, sizeof g_poisons);
    memset(g_keys, 0, sizeof g_keys);
    g_type = type;
    g_atol = 0.5;
    g_setups = g_teardowns = g_setup_rc = g_makes = g_releases = g_refs = 0;
    fake_part.nvariants = n;
}

static char g_diffdir[512];

static int run_main(char **args)
{
    snprintf(g_diffdir, sizeof g_diffdir, "%s/diffs", tmpdir);
    mkdir(g_diffdir, 0755);
    char *argv[64];
    int argc = 0;
    argv[argc++] = "./lab99";
    argv[argc++] = "--diff-dir";
    argv[argc++] = g_diffdir;
    for (int i = 0; args[i]; i++)
        argv[argc++] = args[i];
    argv[argc] = NULL;
    capture_begin();
    int rc = kit_main(&fake_lab, &fake_glue, argc, argv);
    capture_end();
    return rc;
}

#define MAIN(...) run_main((char *[]){__VA_ARGS__, NULL})
#define MAIN0() run_main((char *[]){NULL})

/* ------------------------------------------------------------------ tests */

static void test_three_variants(void **state)
{
    (void)state;
    fake(KIT_F32, 3, B_GOOD, B_NOTHING, B_NOTIMPL);
    assert_int_equal(MAIN("--variant", "all"), KIT_EXIT_WRONG);
    assert_int_equal(g_calls[1], 1 + 12); /* warm-up + 12 timed runs */
    assert_int_equal(g_calls[2], 1);      /* failed at the warm-up: not timed */
    assert_int_equal(g_calls[3], 1);
    assert_int_equal(g_setups, 1);
    assert_int_equal(g_teardowns, 1);
    assert_int_equal(g_makes, 1);
    assert_int_equal(g_releases, 1);
    assert_non_null(strstr(cap_out, "PASS"));
    assert_non_null(strstr(cap_out, "FAIL"));
    assert_non_null(strstr(cap_out, "not implemented"));
    assert_non_null(strstr(cap_out, "30 of 30 elements wrong"));
    assert_non_null(strstr(cap_out, "unwritten"));
    char png[600];
    snprintf(png, sizeof png, "%s/lab99-v2-5x3-diff.png", g_diffdir);
    kit_image img;
    char err[256];
    assert_int_equal(kit_image_load(png, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.w, 5);
    assert_int_equal(img.h, 3);
    assert_int_equal(img.px[0], 255); /* every pixel failing: red */
    kit_image_free(&img);
    snprintf(png, sizeof png, "%s/lab99-v1-5x3-diff.png", g_diffdir);
    assert_int_equal(access(png, F_OK), -1);

    fake(KIT_F32, 3, B_GOOD, B_NOTHING, B_NOTIMPL);
    assert_int_equal(MAIN("--variant", "3"), KIT_EXIT_NOTIMPL);
    assert_int_equal(g_calls[1] + g_calls[2], 0);
    fake(KIT_F32, 3, B_GOOD, B_NOTHING, B_NOTIMPL);
    assert_int_equal(MAIN("--variant", "1"), KIT_EXIT_OK);
    assert_int_equal(g_calls[1], 13);
    fake(KIT_F32, 2, B_GOOD, B_NOTIMPL);
    assert_int_equal(MAIN("--reps", "2"), KIT_EXIT_NOTIMPL);
}

/* Every run starts from a fully poisoned output; every timed repetition
 * runs on fresh content (a new key), the warm-up on the case's own. */
static void test_poison_and_fresh_content(void **state)
{
    (void)state;
    fake(KIT_U8, 1, B_GOOD);
    assert_int_equal(MAIN("--reps", "4"), KIT_EXIT_OK);
    assert_int_equal(g_calls[1], 5);
    assert_int_equal(g_poison_ok[1], 5);
    const unsigned char want[5] = {0xA5, 0xA5, 0xA5, 0xA5, 0x5A};
    assert_memory_equal(g_poisons[1], want, 5);
    assert_true(g_keys[1][0] == 0);
    for (int i = 1; i < 5; i++) {
        assert_true(g_keys[1][i] != 0);
        assert_true(g_keys[1][i] == kit_rep_key(1, "", 1, i));
        for (int j = 1; j < i; j++)
            assert_true(g_keys[1][i] != g_keys[1][j]);
    }
    /* two references: the warm-up's and the last repetition's */
    assert_int_equal(g_refs, 2);
    fake(KIT_F64, 1, B_GOOD);
    assert_int_equal(MAIN("--reps", "3"), KIT_EXIT_OK);
    assert_int_equal(g_poison_ok[1], 4);
}

/* Caches and stale results: correct at the warm-up, then nothing or the
 * warm-up's result again; the fresh content of the last run catches both. */
static void test_warmup_only_and_replay_fail(void **state)
{
    (void)state;
    fake(KIT_F32, 1, B_WARMONLY);
    assert_int_equal(MAIN("--variant", "1"), KIT_EXIT_WRONG);
    assert_int_equal(g_calls[1], 13);
    assert_non_null(strstr(cap_out, "timed run"));
    fake(KIT_F32, 1, B_REPLAY);
    assert_int_equal(MAIN("--reps", "3"), KIT_EXIT_WRONG);
    assert_non_null(strstr(cap_out, "FAIL (timed run)"));
    fake(KIT_U8, 1, B_REPLAY);
    assert_int_equal(MAIN("--reps", "1"), KIT_EXIT_WRONG);
}

static void test_poison_cheat_fails(void **state)
{
    (void)state;
    fake(KIT_U8, 1, B_POISON_CHEAT);
    assert_int_equal(MAIN0(), KIT_EXIT_WRONG);
    assert_int_equal(g_calls[1], 13); /* the warm-up passed */
    assert_non_null(strstr(cap_out, "timed run"));
}

static void test_tolerance_and_own_output(void **state)
{
    (void)state;
    fake(KIT_F32, 2, B_CLOSE, B_FAR);
    assert_int_equal(MAIN("--variant", "1"), KIT_EXIT_OK);
    fake(KIT_F32, 2, B_CLOSE, B_FAR);
    assert_int_equal(MAIN("--variant", "2"), KIT_EXIT_WRONG);
    assert_non_null(strstr(cap_out, "30 of 30 elements wrong"));
    /* 8-bit: exact, whatever atol says */
    fake(KIT_U8, 1, B_CLOSE);
    g_atol = 2.0;
    assert_int_equal(MAIN0(), KIT_EXIT_WRONG);
    /* a variant with its own shape, type and tolerance (off by 2, atol 4) */
    fake(KIT_F32, 2, B_GOOD, B_VECTOR);
    assert_int_equal(MAIN("--reps", "2"), KIT_EXIT_OK);
    assert_int_equal(g_poison_ok[2], 3);
}

static void test_runtime_errors(void **state)
{
    (void)state;
    fake(KIT_F32, 1, B_ERROR);
    assert_int_equal(MAIN0(), KIT_EXIT_RUNTIME);
    assert_int_equal(g_calls[1], 1);
    assert_non_null(strstr(cap_out, "ERROR"));
    fake(KIT_F32, 1, B_LATE_ERROR);
    assert_int_equal(MAIN0(), KIT_EXIT_RUNTIME);
    assert_int_equal(g_calls[1], 4);
    fake(KIT_F32, 4, B_NOTHING, B_NOTIMPL, B_ERROR, B_GOOD);
    assert_int_equal(MAIN("--reps", "2"), KIT_EXIT_RUNTIME);
    assert_int_equal(g_calls[4], 3);
    assert_int_equal(g_teardowns, 1);
    /* launch() saying KIT_UNSUPPORTED is an error too */
    fake(KIT_F32, 3, B_GOOD, B_RUN_UNSUPP, B_GOOD);
    assert_int_equal(MAIN("--reps", "3"), KIT_EXIT_RUNTIME);
    assert_int_equal(g_calls[3], 4);
}

static void test_results_rows(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "main.tsv");
    remove(path);
    fake(KIT_F32, 3, B_GOOD, B_HALF, B_NOTIMPL);
    assert_int_equal(MAIN("--results", path, "--size", "4x2"), KIT_EXIT_WRONG);
    char *text = slurp(path);
    assert_non_null(strstr(text, "# command: ./lab99 --diff-dir"));
    assert_non_null(strstr(text, "# gpu: none used"));
    char *save = NULL, *lines[32] = {0};
    int n = 0;
    for (char *l = strtok_r(text, "\n", &save); l && n < 32; l = strtok_r(NULL, "\n", &save))
        lines[n++] = l;
    int first = 0;
    while (first < n && lines[first][0] == '#')
        first++;
    assert_string_equal(lines[first], KIT_TSV_HEADER);
    assert_int_equal(n - first - 1, 3);
    /* v1: times are real here, so only the fixed columns */
    assert_non_null(strstr(lines[first + 1], "99\t1\talpha\t4\t2\tp=1\t12\t"));
    assert_non_null(strstr(lines[first + 1], "\t0\t0\t0\tpass\t1\tcfg=v1\t-\thost"));
    assert_string_equal(lines[first + 2], "99\t2\tbeta\t4\t2\tp=1\t12\tnan\tnan\tnan\tnan\tnan\tnan\t"
                                          "nan\tinf\tinf\t8\tFAIL\t1\tcfg=v2\t-\thost");
    assert_string_equal(lines[first + 3], "99\t3\tgamma\t4\t2\tp=1\t12\tnan\tnan\tnan\tnan\tnan\tnan\t"
                                          "nan\tnan\tnan\t-1\tnot-implemented\t1\tcfg=v3\t-\thost");
    free(text);
    /* a second run appends rows only */
    fake(KIT_F32, 3, B_GOOD, B_HALF, B_NOTIMPL);
    assert_int_equal(MAIN("--results", path, "--variant", "1", "--reps", "3"), KIT_EXIT_OK);
    text = slurp(path);
    assert_int_equal(count_char(text, '\n'), n + 1);
    assert_non_null(strstr(text, "\n99\t1\talpha\t5\t3\tp=1\t3\t"));
    free(text);
}

/* Refusals before anything runs. */
static void test_refuses_before_running(void **state)
{
    (void)state;
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--bogus"), KIT_EXIT_USAGE);
    assert_int_equal(g_makes + g_setups + g_calls[1], 0);

    char path[512];
    tmp_path(path, sizeof path, "foreign.tsv");
    write_text(path, "name\tvalue\n");
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--results", path), KIT_EXIT_USAGE);
    assert_int_equal(g_calls[1], 0);
    char *text = slurp(path);
    assert_string_equal(text, "name\tvalue\n");
    free(text);

    tmp_path(path, sizeof path, "no/such/folder/r.tsv");
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--results", path), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "cannot write"));
    /* --out: a folder, an unknown extension, a missing folder */
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--out", tmpdir), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "folder"));
    tmp_path(path, sizeof path, "o.gif");
    assert_int_equal(MAIN("--out", path), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, ".png, .jpg or .bmp"));
    tmp_path(path, sizeof path, "no/such/folder/o.png");
    assert_int_equal(MAIN("--out", path), KIT_EXIT_USAGE);
    assert_int_equal(g_calls[1], 0);
    /* bad input from the spec: exit 2, one line, nothing set up */
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--size", "13x13"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "fake input refused"));
    assert_int_equal(g_setups + g_calls[1], 0);
    /* a failing setup */
    fake(KIT_F32, 1, B_GOOD);
    g_setup_rc = KIT_EXIT_NODEVICE;
    assert_int_equal(MAIN0(), KIT_EXIT_NODEVICE);
    assert_int_equal(g_teardowns, 1);
    assert_int_equal(g_releases, 1);
    assert_int_equal(g_calls[1], 0);
    /* --help: usage on stdout, exit 0, nothing made */
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--help"), KIT_EXIT_OK);
    assert_int_equal(g_makes, 0);
    assert_non_null(strstr(cap_out, "usage: lab99"));
}

static void test_unsupported(void **state)
{
    (void)state;
    char path[512];
    tmp_path(path, sizeof path, "unsupported.tsv");
    remove(path);
    fake(KIT_F32, 2, B_GOOD, B_NO_SUPPORT);
    assert_int_equal(MAIN("--results", path, "--reps", "3"), KIT_EXIT_OK);
    assert_int_equal(g_calls[2], 0);
    assert_non_null(strstr(cap_out, "fake reason"));
    char *text = slurp(path);
    assert_non_null(strstr(text, "\tunsupported\t"));
    free(text);
    fake(KIT_F32, 2, B_GOOD, B_NO_SUPPORT);
    assert_int_equal(MAIN("--variant", "2"), KIT_EXIT_USAGE);
    assert_int_equal(g_calls[1] + g_calls[2] + g_setups, 0);
    assert_non_null(strstr(cap_err, "fake reason"));
}

/* --out writes the last passing variant's result on the case's own input. */
static void test_out_and_quiet(void **state)
{
    (void)state;
    char path[512], err[256];
    tmp_path(path, sizeof path, "out.png");
    remove(path);
    fake(KIT_U8, 2, B_GOOD, B_NOTHING);
    assert_int_equal(MAIN("--out", path, "--size", "3x2", "--quiet"), KIT_EXIT_WRONG);
    kit_image img;
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), 0);
    assert_int_equal(img.w, 3);
    assert_int_equal(img.c, 2);
    for (int i = 0; i < 12; i++) /* the reference of key 0, seed 1 */
        assert_int_equal(img.px[i], (i * 37 + 11) % 251);
    kit_image_free(&img);
    tmp_path(path, sizeof path, "out.bmp");
    fake(KIT_U8, 1, B_GOOD);
    assert_int_equal(MAIN("--out", path, "--quiet"), KIT_EXIT_OK);
    assert_int_equal(kit_image_load(path, 0, &img, err, sizeof err), 0);
    kit_image_free(&img);
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--quiet"), KIT_EXIT_OK);
    assert_string_equal(cap_out, "");
    assert_string_equal(cap_err, "");
    /* --out where no output is a picture */
    fake(KIT_F32, 1, B_VECTOR);
    tmp_path(path, sizeof path, "v.png");
    assert_int_equal(MAIN("--out", path), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "not a picture"));
}

/* --dump: outputs and the run's own account for the grader; no reference. */
static void test_dump(void **state)
{
    (void)state;
    char dir[512], path[600];
    tmp_path(dir, sizeof dir, "dump");
    mkdir(dir, 0755);
    fake(KIT_F32, 3, B_GOOD, B_NOTIMPL, B_NO_SUPPORT);
    assert_int_equal(MAIN("--dump", dir, "--reps", "2", "--quiet", "--seed", "5"), KIT_EXIT_NOTIMPL);
    assert_int_equal(g_refs, 0); /* no reference under --dump */
    snprintf(path, sizeof path, "%s/v1.txt", dir);
    char *t = slurp(path);
    assert_non_null(strstr(t, "status ok\ntype f32\nshape 5 3 2 0\nspan "));
    char key[40];
    snprintf(key, sizeof key, "rep 2 %016llx ", kit_rep_key(5, "", 1, 2));
    assert_non_null(strstr(t, key));
    free(t);
    const char *files[] = {"v1.bin", "v1.r1.bin", "v1.r2.bin"};
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, files[i]);
        struct stat st;
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_size, 5 * 3 * 2 * 4);
    }
    snprintf(path, sizeof path, "%s/v2.txt", dir);
    t = slurp(path);
    assert_non_null(strstr(t, "status not-implemented\n"));
    free(t);
    snprintf(path, sizeof path, "%s/v3.txt", dir);
    t = slurp(path);
    assert_non_null(strstr(t, "status unsupported\n"));
    free(t);
    snprintf(path, sizeof path, "%s/v2.bin", dir);
    assert_int_equal(access(path, F_OK), -1);
}

/* One good fake run (variant 1, --reps REPS, dumps to DIR) on a key channel
 * whose grader wrote ANSWERS ahead (a pipe holds them) and closed its end;
 * what the harness wrote on the channel goes to ASKED. MAIN's status. */
static int on_channel(const char *answers, const char *dir, const char *reps, char *asked,
                      size_t len)
{
    int to_harness[2], from_harness[2];
    char ctl[32];
    assert_int_equal(pipe(to_harness), 0);
    assert_int_equal(pipe(from_harness), 0);
    const size_t n = strlen(answers);
    assert_int_equal(write(to_harness[1], answers, n), (ssize_t)n);
    close(to_harness[1]);
    snprintf(ctl, sizeof ctl, "%d,%d", to_harness[0], from_harness[1]);
    fake(KIT_F32, 1, B_GOOD);
    int rc = MAIN("--dump", (char *)dir, "--ctl", ctl, "--reps", (char *)reps, "--quiet");
    close(from_harness[1]);
    ssize_t got = read(from_harness[0], asked, len - 1);
    asked[got > 0 ? got : 0] = 0;
    close(to_harness[0]);
    close(from_harness[0]);
    return rc;
}

/* --ctl IN,OUT: the key of every timed repetition comes from the grader. */
static void test_ctl_keys(void **state)
{
    (void)state;
    char dir[512], asked[256];
    tmp_path(dir, sizeof dir, "dumpctl");
    mkdir(dir, 0755);
    assert_int_equal(on_channel("open\nkey 1111\nkey 2222\nkey 3333\n", dir, "3", asked,
                                sizeof asked),
                     KIT_EXIT_OK);
    assert_true(g_keys[1][1] == 0x1111 && g_keys[1][2] == 0x2222 && g_keys[1][3] == 0x3333);
    assert_string_equal(asked, "gate 0 0\nrep 1 1\ngo 1 1\ndone 1 1\nrep 1 2\ngo 1 2\n"
                               "done 1 2\nrep 1 3\ngo 1 3\ndone 1 3\n");
    /* every repetition's output is written, the warm-up's not (the grader reads
     * a timed run's repetitions only) */
    char file[600];
    struct stat sb;
    for (int k = 1; k <= 3; k++) {
        snprintf(file, sizeof file, "%s/v1.r%d.bin", dir, k);
        assert_int_equal(stat(file, &sb), 0);
    }
    snprintf(file, sizeof file, "%s/v1.bin", dir);
    assert_int_equal(stat(file, &sb), -1);
    /* a channel that closes: a runtime error, not a guess */
    assert_int_equal(on_channel("", dir, "3", asked, sizeof asked), KIT_EXIT_RUNTIME);
    assert_non_null(strstr(cap_err, "key channel"));
}

/* The channel's lines name the part only where the grader asks (KIT_CTL_PARTS=1)
 * and the part has a name; the gate never. */
static void test_ctl_line_names_the_part(void **state)
{
    (void)state;
    char line[64];
    unsetenv("KIT_CTL_PARTS");
    kit_ctl_line(line, sizeof line, "rep", "rgb", 2, 5);
    assert_string_equal(line, "rep 2 5\n");
    setenv("KIT_CTL_PARTS", "1", 1);
    kit_ctl_line(line, sizeof line, "rep", "rgb", 2, 5);
    assert_string_equal(line, "rep rgb:2 5\n");
    kit_ctl_line(line, sizeof line, "done", "sep", 4, 1);
    assert_string_equal(line, "done sep:4 1\n");
    kit_ctl_line(line, sizeof line, "gate", "rgb", 0, 0);
    assert_string_equal(line, "gate 0 0\n");
    kit_ctl_line(line, sizeof line, "rep", "", 3, 2);
    assert_string_equal(line, "rep 3 2\n");
    setenv("KIT_CTL_PARTS", "0", 1);
    kit_ctl_line(line, sizeof line, "go", "rgb", 1, 1);
    assert_string_equal(line, "go 1 1\n");
    unsetenv("KIT_CTL_PARTS");
}

/* The gate: the first thing on the channel, before any call into the
 * student's code; anything but "open" stops the run there. */
static void test_ctl_gate(void **state)
{
    (void)state;
    const char *answers[] = {"", "key 1111\n", "opened\n", "open"};
    char dir[512], asked[64];
    tmp_path(dir, sizeof dir, "dumpgate");
    mkdir(dir, 0755);
    for (size_t i = 0; i < sizeof answers / sizeof answers[0]; i++) {
        assert_int_equal(on_channel(answers[i], dir, "2", asked, sizeof asked),
                         KIT_EXIT_RUNTIME);
        assert_non_null(strstr(cap_err, "did not let this run start"));
        assert_int_equal(g_calls[1], 0); /* not even the warm-up */
        assert_string_equal(asked, "gate 0 0\n"); /* and nothing after it */
    }
}

/* --cases FILE: one run per line in one process; the worst status wins. */
static void test_cases(void **state)
{
    (void)state;
    char list[512], d1[512], d2[512], text[2048];
    tmp_path(list, sizeof list, "cases.txt");
    tmp_path(d1, sizeof d1, "case1");
    tmp_path(d2, sizeof d2, "case2");
    mkdir(d1, 0755);
    mkdir(d2, 0755);
    snprintf(text, sizeof text, "--dump\t%s\t--size\t4x4\t--reps\t1\n\n--dump\t%s\t--size\t13x13\n",
             d1, d2);
    write_text(list, text);
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--quiet", "--cases", list), KIT_EXIT_USAGE);
    assert_int_equal(g_makes, 2);
    char path[600];
    snprintf(path, sizeof path, "%s/v1.r1.bin", d1);
    assert_int_equal(access(path, F_OK), 0);
    assert_non_null(strstr(cap_err, "fake input refused"));
}


/* The reference is made before the run it checks: a variant that rewrites
 * its input (here: back to the warm-up's content) cannot make its own wrong
 * answer the expected one. */
static void test_input_tamper_fails(void **state)
{
    (void)state;
    fake(KIT_F32, 1, B_TAMPER);
    assert_int_equal(MAIN("--reps", "3"), KIT_EXIT_WRONG);
    assert_non_null(strstr(cap_out, "FAIL (timed run)"));
}

/* --dump and --ctl that cannot work are refused before anything runs; a
 * --dump folder that goes away during the run is an error, not "done". */
static void test_grading_mode_refusals(void **state)
{
    (void)state;
    char dir[512], file[512], ctl[64];
    tmp_path(dir, sizeof dir, "no/such/dump");
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--dump", dir, "--quiet"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "--dump"));
    assert_int_equal(g_makes + g_calls[1], 0);
    tmp_path(file, sizeof file, "dump-is-a-file");
    write_text(file, "x");
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--dump", file, "--quiet"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "not a folder"));
    assert_int_equal(g_calls[1], 0);
    /* --diff-dir too (it was found missing only when a variant failed) */
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--diff-dir", dir, "--quiet"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "--diff-dir"));
    assert_int_equal(g_makes + g_calls[1], 0);

    /* descriptors that are not open, or open the wrong way */
    tmp_path(dir, sizeof dir, "dumpref");
    mkdir(dir, 0755);
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--dump", dir, "--ctl", "900,901", "--quiet"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "not open"));
    assert_int_equal(g_makes + g_calls[1], 0);
    int p[2];
    assert_int_equal(pipe(p), 0);
    snprintf(ctl, sizeof ctl, "%d,%d", p[1], p[0]); /* swapped: IN is the write end */
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--dump", dir, "--ctl", ctl, "--quiet"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "cannot be read"));
    assert_int_equal(g_calls[1], 0);
    close(p[0]);
    close(p[1]);

    /* the folder moved away after the first timed run */
    tmp_path(g_move_dump[0], sizeof g_move_dump[0], "dumpmove");
    tmp_path(g_move_dump[1], sizeof g_move_dump[1], "dumpmove.gone");
    mkdir(g_move_dump[0], 0755);
    fake(KIT_F32, 1, B_MOVE_DUMP);
    assert_int_equal(MAIN("--dump", g_move_dump[0], "--reps", "3", "--quiet"), KIT_EXIT_RUNTIME);
    assert_non_null(strstr(cap_err, "cannot write"));
    assert_int_equal(g_calls[1], 2); /* no run after the failed write */
}

/* A grader that closed its end, or answers what is not a key: one line and
 * exit 3 (not death by SIGPIPE, not a key of its own making). */
static void test_ctl_broken_channels(void **state)
{
    (void)state;
    char dir[512], ctl[64];
    tmp_path(dir, sizeof dir, "dumpctl2");
    mkdir(dir, 0755);
    int to_harness[2], from_harness[2];
    assert_int_equal(pipe(to_harness), 0);
    assert_int_equal(pipe(from_harness), 0);
    close(from_harness[0]); /* nobody reads the requests */
    snprintf(ctl, sizeof ctl, "%d,%d", to_harness[0], from_harness[1]);
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--dump", dir, "--ctl", ctl, "--reps", "2", "--quiet"), KIT_EXIT_RUNTIME);
    assert_non_null(strstr(cap_err, "key channel is closed"));
    close(from_harness[1]);
    close(to_harness[0]);
    close(to_harness[1]);

    const char *bad[] = {"open\nkey -1\n", "open\nkey 0x10\n", "open\nkey  10\n",
                         "open\nkey 0000\n", "open\nkey 11111111111111111\n", "open\nkey 12"};
    char asked[256];
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(on_channel(bad[i], dir, "1", asked, sizeof asked), KIT_EXIT_RUNTIME);
        assert_non_null(strstr(cap_err, "gave no key"));
        assert_int_equal(g_calls[1], 1); /* the warm-up only */
    }
}

/* --cases: a long line is one case, a line of tabs none, a folder an error. */
static void test_cases_lines(void **state)
{
    (void)state;
    char list[512], d1[512];
    tmp_path(list, sizeof list, "cases-long.txt");
    tmp_path(d1, sizeof d1, "case-long");
    mkdir(d1, 0755);
    size_t cap = 40000;
    char *text = malloc(cap);
    assert_non_null(text);
    int n = snprintf(text, cap, "--dump\t%s\t--reps\t1", d1);
    for (int i = 0; i < 28; i++) /* past 8 KiB on one line, 60 arguments */
        n += snprintf(text + n, cap - (size_t)n, "\t--seed\t%0300d", 7);
    snprintf(text + n, cap - (size_t)n, "\n\t\t\n");
    write_text(list, text);
    free(text);
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--quiet", "--cases", list), KIT_EXIT_OK);
    assert_int_equal(g_makes, 1);
    assert_string_equal(cap_err, "");
    fake(KIT_F32, 1, B_GOOD);
    assert_int_equal(MAIN("--quiet", "--cases", tmpdir), KIT_EXIT_USAGE);
    assert_int_equal(g_makes, 0);
    assert_non_null(strstr(cap_err, "cannot read --cases"));
}

/* The run's own account stays whole whatever the times say. */
static void test_dump_meta_long_lines(void **state)
{
    (void)state;
    char dir[512], path[600];
    tmp_path(dir, sizeof dir, "dumpmeta");
    mkdir(dir, 0755);
    kit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.opt.dump_dir = dir;
    enum { N = 300 };
    kit_rep_rec recs[N];
    for (int i = 0; i < N; i++)
        recs[i] = (kit_rep_rec){i + 1, ~0ULL, -(1LL << 62), -(1LL << 62), -1e300, -1e300};
    assert_int_equal(kit_dump_meta(&ctx, 1, "not-implemented", -(1LL << 62), -(1LL << 62),
                                   recs, N),
                     0);
    snprintf(path, sizeof path, "%s/v1.txt", dir);
    char *t = slurp(path);
    assert_int_equal(count_char(t, '\n'), 2 + N);
    assert_non_null(strstr(t, "rep 300 ffffffffffffffff "));
    free(t);
}

/* What each span holds, with a fake GPU whose clock each step advances:
 * upload 5, the L2 flush 100, the launch 7, the download 11. */
static double g_gclock, g_gslot[8];
static char g_glog[256];
static void glog(const char *s)
{
    strncat(g_glog, s, sizeof g_glog - strlen(g_glog) - 1);
}
static int g_init(int d)
{
    (void)d;
    return 0;
}
static int g_mark(int s)
{
    char b[8];
    g_gslot[s] = g_gclock;
    snprintf(b, sizeof b, "m%d ", s);
    glog(b);
    return 0;
}
static int g_wait(int s)
{
    char b[8];
    snprintf(b, sizeof b, "w%d ", s);
    glog(b);
    return 0;
}
static int g_elapsed(int a, int b, double *ms)
{
    *ms = g_gslot[b] - g_gslot[a];
    return 0;
}
static int g_flush(void)
{
    g_gclock += 100;
    glog("flush ");
    return 0;
}
static int p_step(const char *what, double cost)
{
    g_gclock += cost;
    glog(what);
    return KIT_OK;
}
static int p_upload(kit_ctx *c, int v)
{
    (void)c, (void)v;
    return p_step("up ", 5);
}
static int p_launch(kit_ctx *c, int v)
{
    (void)c, (void)v;
    return p_step("launch ", 7);
}
static int p_download(kit_ctx *c, int v)
{
    (void)c, (void)v;
    return p_step("down ", 11);
}

static void test_protocol_spans(void **state)
{
    (void)state;
    static const kit_variant_desc vd[] = {
        {"k", "kernel span", KIT_SPAN_KERNEL, KIT_CEIL_DEVICE_COPY, 1, 0},
        {"t", "total span", KIT_SPAN_TOTAL, KIT_CEIL_PCIE, 1, 0},
    };
    static const kit_part_spec ps = {
        .name = "", .first_variant = 1, .nvariants = KIT_NELEMS(vd), .variants = vd};
    static const kit_gpu_ops ops = {g_init, g_mark, g_wait, g_elapsed, g_flush, NULL, NULL, NULL};
    static const kit_part_glue gl = {.part = "", .upload = p_upload, .launch = p_launch,
                                     .download = p_download};
    kit_ctx ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.part = &ps;
    ctx.glue = &gl;
    ctx.gpu = &ops;
    kit_run_times t;
    g_glog[0] = 0;
    assert_int_equal(kit_run_once(&ctx, 1, &t), KIT_OK);
    assert_true(t.kernel_ms == 7.0);          /* the launch alone */
    assert_true(t.total_ms == 5.0 + 7 + 11);  /* copies and launch, never the flush */
    /* no copy of the upload may still run in the launch window */
    const char *up = strstr(g_glog, "up "), *launch = strstr(g_glog, "launch ");
    const char *w1 = strstr(g_glog, "w1 ");
    assert_non_null(w1);
    assert_true(up < w1 && w1 < launch);
    g_glog[0] = 0;
    assert_int_equal(kit_run_once(&ctx, 2, &t), KIT_OK);
    assert_true(t.kernel_ms == 7.0);
    assert_true(t.total_ms == 5.0 + 7 + 11);
    assert_true(strstr(g_glog, "flush ") < strstr(g_glog, "m0 "));
}

/* --cases on a GPU spoilt by a fault: the cases after it are not run (the
 * grader runs them in new processes), and the run says so with exit 3. */
static int g_cases_run, g_gpu_ok;
static int h_init(int d)
{
    (void)d;
    return 0;
}
static int h_healthy(void)
{
    return g_gpu_ok;
}
static int h_launch(kit_ctx *ctx, int v)
{
    g_cases_run++;
    g_gpu_ok = 0; /* the first launch "faults" */
    return fake_launch(ctx, v);
}

static void test_cases_stop_on_a_spoilt_gpu(void **state)
{
    (void)state;
    static const kit_gpu_ops ops = {h_init, NULL, NULL, NULL, NULL, NULL, NULL, h_healthy};
    static const kit_part_glue gl[] = {{.part = "", .launch = h_launch}};
    static const kit_glue glue = {1, gl, &ops};
    char list[512], text[2048], d1[512], d2[512];
    tmp_path(list, sizeof list, "cases-gpu.txt");
    tmp_path(d1, sizeof d1, "gcase1");
    tmp_path(d2, sizeof d2, "gcase2");
    mkdir(d1, 0755);
    mkdir(d2, 0755);
    snprintf(text, sizeof text, "--dump\t%s\t--reps\t1\n--dump\t%s\t--reps\t1\n", d1, d2);
    write_text(list, text);
    fake(KIT_F32, 1, B_GOOD);
    g_cases_run = 0;
    g_gpu_ok = 1;
    char *argv[] = {"./lab99", "--quiet", "--cases", list, NULL};
    capture_begin();
    int rc = kit_main(&fake_lab, &glue, 4, argv);
    capture_end();
    assert_int_equal(rc, KIT_EXIT_RUNTIME);
    assert_int_equal(g_cases_run, 2); /* the first case's warm-up and one repetition */
    assert_non_null(strstr(cap_err, "error state"));
    char path[600];
    snprintf(path, sizeof path, "%s/v1.txt", d2);
    assert_int_equal(access(path, F_OK), -1); /* the second case never ran */
}

/* A list of variants in one case stops there too: the variants after the
 * fault are not run (no account of them), exit 3 with one line. */
static void test_a_list_stops_on_a_spoilt_gpu(void **state)
{
    (void)state;
    static const kit_gpu_ops ops = {h_init, NULL, NULL, NULL, NULL, NULL, NULL, h_healthy};
    static const kit_part_glue gl[] = {{.part = "", .launch = h_launch}};
    static const kit_glue glue = {1, gl, &ops};
    char d[512], path[600];
    tmp_path(d, sizeof d, "glist");
    mkdir(d, 0755);
    fake(KIT_F32, 3, B_GOOD, B_GOOD, B_GOOD);
    g_cases_run = 0;
    g_gpu_ok = 1;
    char *argv[] = {"./lab99", "--quiet", "--dump", d, "--variant", "1,3", "--reps", "1", NULL};
    capture_begin();
    int rc = kit_main(&fake_lab, &glue, 8, argv);
    capture_end();
    assert_int_equal(rc, KIT_EXIT_RUNTIME);
    assert_int_equal(g_cases_run, 2); /* v1's warm-up and repetition */
    assert_non_null(strstr(cap_err, "after variant 1"));
    snprintf(path, sizeof path, "%s/v1.txt", d);
    assert_int_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/v3.txt", d);
    assert_int_equal(access(path, F_OK), -1);
    g_gpu_ok = 1; /* a healthy GPU: both listed variants run, v2 does not */
    g_cases_run = 0;
    static const kit_gpu_ops fine = {h_init, NULL, NULL, NULL, NULL, NULL, NULL, NULL};
    static const kit_glue glue2 = {1, gl, &fine};
    capture_begin();
    rc = kit_main(&fake_lab, &glue2, 8, argv);
    capture_end();
    assert_int_equal(rc, KIT_EXIT_OK);
    assert_int_equal(g_cases_run, 4);
    snprintf(path, sizeof path, "%s/v3.txt", d);
    assert_int_equal(access(path, F_OK), 0);
    snprintf(path, sizeof path, "%s/v2.txt", d);
    assert_int_equal(access(path, F_OK), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_cases_stop_on_a_spoilt_gpu, restore_std),
        cmocka_unit_test_teardown(test_a_list_stops_on_a_spoilt_gpu, restore_std),
        cmocka_unit_test_teardown(test_three_variants, restore_std),
        cmocka_unit_test_teardown(test_poison_and_fresh_content, restore_std),
        cmocka_unit_test_teardown(test_warmup_only_and_replay_fail, restore_std),
        cmocka_unit_test_teardown(test_poison_cheat_fails, restore_std),
        cmocka_unit_test_teardown(test_tolerance_and_own_output, restore_std),
        cmocka_unit_test_teardown(test_runtime_errors, restore_std),
        cmocka_unit_test_teardown(test_results_rows, restore_std),
        cmocka_unit_test_teardown(test_refuses_before_running, restore_std),
        cmocka_unit_test_teardown(test_unsupported, restore_std),
        cmocka_unit_test_teardown(test_out_and_quiet, restore_std),
        cmocka_unit_test_teardown(test_dump, restore_std),
        cmocka_unit_test_teardown(test_ctl_keys, restore_std),
        cmocka_unit_test(test_ctl_line_names_the_part),
        cmocka_unit_test_teardown(test_ctl_gate, restore_std),
        cmocka_unit_test_teardown(test_cases, restore_std),
        cmocka_unit_test_teardown(test_input_tamper_fails, restore_std),
        cmocka_unit_test_teardown(test_grading_mode_refusals, restore_std),
        cmocka_unit_test_teardown(test_ctl_broken_channels, restore_std),
        cmocka_unit_test_teardown(test_cases_lines, restore_std),
        cmocka_unit_test(test_dump_meta_long_lines),
        cmocka_unit_test(test_protocol_spans),
    };
    int rc = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
    free(cap_out);
    free(cap_err);
    return rc;
}
