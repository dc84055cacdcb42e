/* test_options.c - unit tests of the command line every lab binary shares:
 * common/options.c (common options, parts, --help) and common/spec.c (a
 * part's own options from its description, lookups, repetition keys). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "options.h"
#include "spec.h"

static int argc_of(char **argv)
{
    int n = 0;
    while (argv[n])
        n++;
    return n;
}

/* ---------------------------------------------------- labs for the parser */

static const kit_variant_desc three[] = {
    {"one", "the first", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
    {"two", "the second", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 1},
    {"three", "the third", KIT_SPAN_HOST, KIT_CEIL_HOST_MEM, 0, 0},
};

static const kit_optdesc all_opts[] = {
    KIT_OPTD_SIZE("64x48"),
    KIT_OPTD_IMAGE,
    KIT_OPTD_FILTER("box"),
    KIT_OPTD_RADIUS,
    KIT_OPTD_BLOCK,
    KIT_OPTD_PINNED,
    {"--threads", KIT_ARG_INT, KIT_ARG_RUN, "N", "threads", NULL, 1, 4096},
    {"--rows", KIT_ARG_INT, KIT_ARG_INPUT, "M", "rows", "10", 1, 1 << 20},
    KIT_OPTD_END};
static const kit_optdesc min_opts[] = {KIT_OPTD_SIZE("7x5"), KIT_OPTD_END};
static const kit_optdesc other_opts[] = {
    {"--count", KIT_ARG_INT, KIT_ARG_INPUT, "N", "how many", "4", 1, 100}, KIT_OPTD_END};

static const kit_part_spec all_parts[] = {
    {.name = "", .title = "every option", .opts = all_opts, .first_variant = 1,
     .nvariants = KIT_NELEMS(three), .variants = three,
     .help_extra = "extra help line for lab 98"}};
static const kit_lab_desc lab_all = {"98", "parser test lab, every option", 1, 1, all_parts};

static const kit_part_spec min_parts[] = {
    {.name = "", .title = "--size only", .opts = min_opts, .first_variant = 0,
     .nvariants = KIT_NELEMS(three), .variants = three}};
static const kit_lab_desc lab_min = {"97", "parser test lab, --size only", 0, 1, min_parts};

static const kit_part_spec two_parts[] = {
    {.name = "pics", .title = "pictures", .opts = min_opts, .first_variant = 1,
     .nvariants = KIT_NELEMS(three), .variants = three},
    {.name = "nums", .title = "numbers", .opts = other_opts, .first_variant = 1, .nvariants = 2,
     .variants = three}}; /* two of the table's three, on purpose */
static const kit_lab_desc lab_two = {"96", "parser test lab, two parts", 0, 2, two_parts};

static kit_opts o;
static kit_args args;
static const kit_part_spec *part;

/* Parse argv (NULL-terminated, argv[0] included) with stderr/stdout captured. */
static int parse(const kit_lab_desc *lab, char **argv)
{
    capture_begin();
    int rc = kit_parse_command(lab, lab->gpu, argc_of(argv), argv, &o, &part, &args);
    capture_end();
    return rc;
}

#define PARSE(lab, ...) parse((lab), (char *[]){"labtest", __VA_ARGS__, NULL})

/* A rejected command line: exit code 2, one line on stderr, nothing else. */
#define REJECT(lab, ...)                                                          \
    do {                                                                          \
        assert_int_equal(PARSE((lab), __VA_ARGS__), KIT_EXIT_USAGE);              \
        assert_int_equal(count_char(cap_err, '\n'), 1);                           \
        assert_non_null(strstr(cap_err, "try --help"));                           \
        assert_string_equal(cap_out, "");                                         \
    } while (0)

static void test_defaults(void **state)
{
    (void)state;
    assert_int_equal(parse(&lab_all, (char *[]){"labtest", NULL}), 0);
    assert_int_equal(o.variant, -1);
    assert_int_equal(o.reps, 12);
    assert_true(o.seed == 1);
    assert_null(o.out);
    assert_null(o.results);
    assert_null(o.dump_dir);
    assert_string_equal(o.diff_dir, ".");
    assert_int_equal(o.ctl_in, -1);
    assert_ptr_equal(part, &all_parts[0]);
    int w, h;
    kit_arg_wxh(&args, "--size", &w, &h);
    assert_int_equal(w, 64);
    assert_int_equal(h, 48);
    assert_string_equal(kit_arg_str(&args, "--filter"), "box");
    assert_int_equal(kit_arg_int(&args, "--rows"), 10);
    assert_false(kit_arg_set(&args, "--radius"));
    assert_int_equal(kit_arg_int(&args, "--radius"), 0);
    assert_false(kit_arg_given(&args, "--size"));
    assert_false(kit_arg_given(&args, "--pinned"));
    assert_string_equal(kit_arg_str(&args, "--image"), "");
    assert_string_equal(cap_out, "");
    assert_string_equal(cap_err, "");
}

static void test_variant(void **state)
{
    (void)state;
    assert_int_equal(PARSE(&lab_all, "--variant", "2"), 0);
    assert_int_equal(o.variant, 2);
    assert_int_equal(PARSE(&lab_all, "--variant=3"), 0);
    assert_int_equal(o.variant, 3);
    assert_int_equal(PARSE(&lab_all, "--variant", "2", "--variant", "all"), 0);
    assert_int_equal(o.variant, -1);
    assert_int_equal(PARSE(&lab_min, "--variant", "0"), 0);
    assert_int_equal(o.variant, 0);
    REJECT(&lab_min, "--variant", "3");
    REJECT(&lab_all, "--variant", "0");
    REJECT(&lab_all, "--variant", "4");
    REJECT(&lab_all, "--variant", "-1");
    REJECT(&lab_all, "--variant", "two");
    REJECT(&lab_all, "--variant", "1x");
    REJECT(&lab_all, "--variant", "ALL");
    REJECT(&lab_all, "--variant=");
    REJECT(&lab_all, "--variant", "99999999999999999999");
}

static void test_part_options(void **state)
{
    (void)state;
    int w, h;
    assert_int_equal(PARSE(&lab_all, "--size", "640x480", "--radius=3", "--pinned"), 0);
    kit_arg_wxh(&args, "--size", &w, &h);
    assert_int_equal(w, 640);
    assert_int_equal(h, 480);
    assert_int_equal(kit_arg_int(&args, "--radius"), 3);
    assert_true(kit_arg_given(&args, "--radius"));
    assert_true(kit_arg_given(&args, "--pinned"));
    assert_int_equal(PARSE(&lab_all, "--size", "65535x1"), 0);
    assert_int_equal(PARSE(&lab_all, "--size", "3X4"), 0);
    REJECT(&lab_all, "--size", "0x5");
    REJECT(&lab_all, "--size", "10");
    REJECT(&lab_all, "--size", "70000x1");
    REJECT(&lab_all, "--size", "5x5x5");
    REJECT(&lab_all, "--size", "x5");
    REJECT(&lab_all, "--size=");
    REJECT(&lab_all, "--radius", "81");
    REJECT(&lab_all, "--radius", "0");
    REJECT(&lab_all, "--threads", "0");
    REJECT(&lab_all, "--threads", "4097");
    REJECT(&lab_all, "--pinned=1");
    REJECT(&lab_all, "--block", "1025x1");
    REJECT(&lab_all, "--block", "64x32"); /* 2048 threads */
    REJECT(&lab_all, "--block", "1024x1024");
    assert_int_equal(PARSE(&lab_all, "--block", "32x32"), 0);
    /* options the part does not declare */
    REJECT(&lab_min, "--threads", "4");
    REJECT(&lab_min, "--pinned");
    REJECT(&lab_min, "--image", "x.png");
    REJECT(&lab_min, "--device", "0"); /* a CPU lab */
    REJECT(&lab_all, "--bogus");
    REJECT(&lab_all, "stray");
    REJECT(&lab_all, "-v");
    assert_int_equal(PARSE(&lab_min, "--threads", "4"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "--threads"));
    /* a value may start with "--" after a space; '=' inside the = form */
    assert_int_equal(PARSE(&lab_all, "--results", "--odd.tsv", "--filter=a=b"), 0);
    assert_string_equal(o.results, "--odd.tsv");
    assert_string_equal(kit_arg_str(&args, "--filter"), "a=b");
}

static void test_common_numbers(void **state)
{
    (void)state;
    assert_int_equal(PARSE(&lab_all, "--reps", "1000", "--seed", "18446744073709551615"), 0);
    assert_int_equal(o.reps, 1000);
    assert_true(o.seed == 18446744073709551615ULL);
    REJECT(&lab_all, "--reps", "0");
    REJECT(&lab_all, "--reps", "1001");
    REJECT(&lab_all, "--reps", "2.5");
    REJECT(&lab_all, "--seed", "-1");
    REJECT(&lab_all, "--seed", "18446744073709551616");
    REJECT(&lab_all, "--seed", "");
    assert_int_equal(PARSE(&lab_all, "--device", "63"), 0);
    assert_int_equal(o.device, 63);
    REJECT(&lab_all, "--device", "64");
    assert_int_equal(PARSE(&lab_all, "--ctl", "5,6", "--dump", "d"), 0);
    assert_int_equal(o.ctl_in, 5);
    assert_int_equal(o.ctl_out, 6);
    assert_string_equal(o.dump_dir, "d");
    REJECT(&lab_all, "--ctl", "5");
    REJECT(&lab_all, "--ctl", "a,b");
    REJECT(&lab_all, "--reps");
    REJECT(&lab_all, "--variant", "1", "--results");
    REJECT(&lab_all, "--quiet=1");
}

static void test_image_excludes_size(void **state)
{
    (void)state;
    REJECT(&lab_all, "--image", "x.png", "--size", "3x3");
    REJECT(&lab_all, "--size=3x3", "--image=x.png");
    assert_int_equal(PARSE(&lab_all, "--image", "x.png"), 0);
    assert_string_equal(kit_arg_str(&args, "--image"), "x.png");
}

/* kit_parse_case: what the grader's checker reads a case with. The same
 * case arguments must mean the same seed and options as in the harness,
 * and be refused where the harness refuses them. */
static void test_parse_case_agrees(void **state)
{
    (void)state;
    char err[256];
    kit_opts co;
    kit_args ca;
    const kit_part_spec *cp;
    char *eq[] = {"--size", "9x4", "--seed=77", "--variant", "2", "--dump", "d", "--quiet"};
    assert_int_equal(kit_parse_case(&lab_min, 0, 8, eq, &co, &cp, &ca, err, sizeof err), 0);
    assert_true(co.seed == 77);
    int w, h;
    kit_arg_wxh(&ca, "--size", &w, &h);
    assert_int_equal(w, 9);
    /* as the harness reads the same arguments */
    assert_int_equal(
        PARSE(&lab_min, "--size", "9x4", "--seed=77", "--variant", "2", "--dump", "d", "--quiet"),
        0);
    assert_true(o.seed == co.seed);
    char *badseed[] = {"--seed", "banana"};
    assert_int_equal(kit_parse_case(&lab_min, 0, 2, badseed, &co, &cp, &ca, err, sizeof err),
                     KIT_EXIT_USAGE);
    assert_non_null(strstr(err, "--seed"));
    char *both[] = {"--image", "x.png", "--size", "3x3"};
    assert_int_equal(kit_parse_case(&lab_all, 1, 4, both, &co, &cp, &ca, err, sizeof err),
                     KIT_EXIT_USAGE);
    assert_non_null(strstr(err, "exclude"));
    /* kit_args_parse alone refuses them too */
    assert_int_equal(kit_args_parse(&all_parts[0], 4, both, NULL, NULL, &ca, err, sizeof err), -1);
    char *dev[] = {"--device", "0"};
    assert_int_equal(kit_parse_case(&lab_min, 0, 2, dev, &co, &cp, &ca, err, sizeof err),
                     KIT_EXIT_USAGE); /* a CPU lab has no --device */
    assert_int_equal(kit_parse_case(&lab_all, 1, 2, dev, &co, &cp, &ca, err, sizeof err), 0);
    char *part[] = {"--part", "nums", "--count", "5"};
    assert_int_equal(kit_parse_case(&lab_two, 0, 4, part, &co, &cp, &ca, err, sizeof err), 0);
    assert_ptr_equal(cp, &two_parts[1]);
    assert_int_equal(kit_arg_int(&ca, "--count"), 5);
}

static void test_parts(void **state)
{
    (void)state;
    assert_int_equal(parse(&lab_two, (char *[]){"labtest", NULL}), 0);
    assert_ptr_equal(part, &two_parts[0]); /* the first part by default */
    assert_int_equal(PARSE(&lab_two, "--part", "nums", "--count", "7", "--variant", "2"), 0);
    assert_ptr_equal(part, &two_parts[1]);
    assert_int_equal(kit_arg_int(&args, "--count"), 7);
    assert_int_equal(o.variant, 2);
    /* each part takes its own options and its own variants */
    REJECT(&lab_two, "--part", "nums", "--size", "3x3");
    REJECT(&lab_two, "--part", "pics", "--count", "3");
    REJECT(&lab_two, "--part", "nums", "--variant", "3");
    assert_int_equal(PARSE(&lab_two, "--part", "nums", "--variant", "3"), KIT_EXIT_USAGE);
    assert_non_null(strstr(cap_err, "part nums"));
    REJECT(&lab_two, "--part", "bogus");
    assert_non_null(strstr(cap_err, "no part 'bogus'"));
    assert_ptr_equal(kit_spec_part(&lab_two, "nums"), &two_parts[1]);
    assert_null(kit_spec_part(&lab_two, "none"));
    assert_ptr_equal(kit_spec_variant(&two_parts[1], 2), &three[1]);
    assert_null(kit_spec_variant(&two_parts[1], 3));
    assert_null(kit_spec_variant(&two_parts[1], 0));
}

static void test_help(void **state)
{
    (void)state;
    assert_int_equal(PARSE(&lab_all, "--help"), 1);
    assert_non_null(strstr(cap_out, "usage: "));
    assert_non_null(strstr(cap_out, "parser test lab, every option"));
    assert_non_null(strstr(cap_out, "--size WxH"));
    assert_non_null(strstr(cap_out, "(default 64x48)"));
    assert_non_null(strstr(cap_out, "--threads N"));
    assert_non_null(strstr(cap_out, "--device N"));
    assert_non_null(strstr(cap_out, "extra help line for lab 98"));
    assert_non_null(strstr(cap_out, "the second [given]"));
    assert_non_null(strstr(cap_out, "exit codes"));
    assert_null(strstr(cap_out, "--dump")); /* the grader's, not in --help */
    assert_string_equal(cap_err, "");
    assert_int_equal(PARSE(&lab_min, "--variant", "1", "--help"), 1);
    assert_null(strstr(cap_out, "--threads"));
    assert_null(strstr(cap_out, "--device"));
    /* two parts: both, or the one asked for */
    assert_int_equal(PARSE(&lab_two, "--help"), 1);
    assert_non_null(strstr(cap_out, "part pics"));
    assert_non_null(strstr(cap_out, "part nums"));
    assert_non_null(strstr(cap_out, "--part NAME"));
    assert_int_equal(PARSE(&lab_two, "--part", "nums", "--help"), 1);
    assert_null(strstr(cap_out, "part pics"));
    assert_non_null(strstr(cap_out, "--count N"));
}

/* The key of a repetition: never 0, different per repetition, variant and
 * part, the same for the same arguments. */
static void test_rep_keys(void **state)
{
    (void)state;
    unsigned long long a = kit_rep_key(1, "", 1, 1);
    assert_true(a != 0);
    assert_true(a == kit_rep_key(1, "", 1, 1));
    assert_true(a != kit_rep_key(1, "", 1, 2));
    assert_true(a != kit_rep_key(1, "", 2, 1));
    assert_true(a != kit_rep_key(2, "", 1, 1));
    assert_true(a != kit_rep_key(1, "strip", 1, 1));
    assert_string_equal(kit_span_name(KIT_SPAN_KERNEL), "kernel");
    assert_string_equal(kit_ceiling_name(KIT_CEIL_PCIE), "pcie");
}

/* kit_bytes_fresh: key 0 copies; another key changes every byte, the same
 * way every time. */
static void test_bytes_fresh(void **state)
{
    (void)state;
    unsigned char base[200], a[200], b[200];
    for (int i = 0; i < 200; i++)
        base[i] = (unsigned char)(i * 7);
    kit_bytes_fresh(a, base, 200, 0);
    assert_memory_equal(a, base, 200);
    kit_bytes_fresh(a, base, 200, 12345);
    kit_bytes_fresh(b, base, 200, 12345);
    assert_memory_equal(a, b, 200);
    for (int i = 0; i < 200; i++)
        assert_true(a[i] != base[i]);
    kit_bytes_fresh(b, base, 200, 12346);
    assert_memory_not_equal(a, b, 200);
    /* one 64-byte pattern, whatever the length: the word loop and the byte
     * tail agree (a prefix of any length is the same, the pattern repeats) */
    for (int i = 0; i + 64 < 200; i++)
        assert_int_equal(a[i] ^ base[i], a[i + 64] ^ base[i + 64]);
    for (size_t n = 1; n <= 200; n += 13) {
        memset(b, 0, sizeof b);
        kit_bytes_fresh(b, base, n, 12345);
        assert_memory_equal(a, b, n);
        for (size_t i = n; i < 200; i++)
            assert_int_equal(b[i], 0);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_teardown(test_defaults, restore_std),
        cmocka_unit_test_teardown(test_variant, restore_std),
        cmocka_unit_test_teardown(test_part_options, restore_std),
        cmocka_unit_test_teardown(test_common_numbers, restore_std),
        cmocka_unit_test_teardown(test_image_excludes_size, restore_std),
        cmocka_unit_test_teardown(test_parse_case_agrees, restore_std),
        cmocka_unit_test_teardown(test_parts, restore_std),
        cmocka_unit_test_teardown(test_help, restore_std),
        cmocka_unit_test_teardown(test_rep_keys, restore_std),
        cmocka_unit_test_teardown(test_bytes_fresh, restore_std),
    };
    int rc = cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
    free(cap_out);
    free(cap_err);
    return rc;
}
