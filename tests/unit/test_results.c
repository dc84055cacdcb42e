/* test_results.c - unit tests of common/results.c (the TSV results file and
 * its provenance lines). */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include "unit.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results.h"

/* ---------------------------------------------------------------- helpers */




/* Split text into lines in place (no trailing empty line). */
static int split_lines(char *text, char **lines, int max)
{
    int n = 0;
    char *p = text;
    while (*p && n < max) {
        lines[n++] = p;
        char *nl = strchr(p, '\n');
        if (!nl)
            break;
        *nl = 0;
        p = nl + 1;
    }
    return n;
}

/* Split a line at tabs (in place). */
static int split_tabs(char *line, char **f, int max)
{
    int n = 0;
    f[n++] = line;
    for (char *p = line; *p; p++)
        if (*p == '\t') {
            *p = 0;
            if (n < max)
                f[n++] = p + 1;
            else
                return -1;
        }
    return n;
}

static kit_row sample_row(void)
{
    kit_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.lab, sizeof r.lab, "05");
    r.variant = 3;
    snprintf(r.name, sizeof r.name, "shared-tiled");
    r.width = 1024;
    r.height = 768;
    snprintf(r.param, sizeof r.param, "gauss r=2");
    r.reps = 12;
    r.kernel_ms = 1.5;
    r.kernel_ms_std = 0.25;
    r.kernel_ms_median = 1.25;
    r.total_ms = 3.0;
    r.total_ms_std = 0.125;
    r.total_ms_median = 2.75;
    r.gbps = 123.456789;
    r.max_abs_err = 0.0;
    r.max_rel_err = 1e-7;
    r.mismatches = 0;
    snprintf(r.status, sizeof r.status, "pass");
    r.threads = 8;
    snprintf(r.config, sizeof r.config, "block=16x16 pinned=1");
    return r;
}

static char *row_to_string(const kit_row *r)
{
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    kit_results_write_row(fp, r);
    assert_int_equal(fclose(fp), 0);
    return text;
}

static void gpu_two_lines(FILE *fp)
{
    fprintf(fp, "# gpu: Test GPU 9000\n# compute capability: 9.9\n");
}

/* ------------------------------------------------------ the header itself */

static void test_header_has_22_columns_in_order(void **state)
{
    (void)state;
    char h[] = KIT_TSV_HEADER;
    char *f[32];
    assert_int_equal(split_tabs(h, f, 32), 22);
    /* the first 20 as they always were (plot scripts read them by number), then the new ones */
    static const char *want[22] = {
        "lab", "variant", "name", "width", "height", "param", "reps", "kernel_ms",
        "kernel_ms_std", "kernel_ms_median", "total_ms", "total_ms_std", "total_ms_median",
        "gbps", "max_abs_err", "max_rel_err", "mismatches", "status", "threads", "config",
        "part", "span"};
    for (int i = 0; i < 22; i++)
        assert_string_equal(f[i], want[i]);
}

/* ---------------------------------------------------- kit_results_write_row */

static void test_write_row_exact(void **state)
{
    (void)state;
    kit_row r = sample_row();
    char *text = row_to_string(&r);
    assert_string_equal(text, "05\t3\tshared-tiled\t1024\t768\tgauss r=2\t12\t1.5\t0.25\t1.25\t3\t"
                              "0.125\t2.75\t123.457\t0\t1e-07\t0\tpass\t8\tblock=16x16 pinned=1\t-\t-\n");
    free(text);
}

static void test_write_row_nan_and_empty(void **state)
{
    (void)state;
    kit_row r;
    memset(&r, 0, sizeof r);
    snprintf(r.lab, sizeof r.lab, "01");
    r.variant = 0;
    snprintf(r.name, sizeof r.name, "naive");
    r.width = 1;
    r.height = 1;
    r.reps = 1;
    r.kernel_ms = r.kernel_ms_std = r.kernel_ms_median = NAN;
    r.total_ms = r.total_ms_std = r.total_ms_median = r.gbps = NAN;
    r.max_abs_err = INFINITY;
    r.max_rel_err = NAN;
    r.mismatches = -1;
    snprintf(r.status, sizeof r.status, "not-implemented");
    r.threads = 1;
    char *text = row_to_string(&r);
    assert_string_equal(text, "01\t0\tnaive\t1\t1\t-\t1\tnan\tnan\tnan\tnan\tnan\tnan\tnan\tinf\t"
                              "nan\t-1\tnot-implemented\t1\t-\t-\t-\n");
    /* 22 fields, one newline, at the end */
    assert_int_equal(strchr(text, '\n') - text + 1, (long)strlen(text));
    text[strlen(text) - 1] = 0;
    char *f[32];
    assert_int_equal(split_tabs(text, f, 32), 22);
    free(text);
}

/* every field lands in its column, per the header's names */
static void test_write_row_columns_match_header(void **state)
{
    (void)state;
    kit_row r = sample_row();
    r.mismatches = 77;
    r.gbps = 42.0;
    char *text = row_to_string(&r);
    text[strcspn(text, "\n")] = 0;
    char h[] = KIT_TSV_HEADER;
    char *hf[32], *f[32];
    assert_int_equal(split_tabs(h, hf, 32), 22);
    assert_int_equal(split_tabs(text, f, 32), 22);
    for (int i = 0; i < 22; i++) {
        if (!strcmp(hf[i], "mismatches"))
            assert_string_equal(f[i], "77");
        if (!strcmp(hf[i], "gbps"))
            assert_string_equal(f[i], "42");
        if (!strcmp(hf[i], "total_ms_median"))
            assert_string_equal(f[i], "2.75");
        if (!strcmp(hf[i], "kernel_ms_median"))
            assert_string_equal(f[i], "1.25");
        if (!strcmp(hf[i], "status"))
            assert_string_equal(f[i], "pass");
        if (!strcmp(hf[i], "threads"))
            assert_string_equal(f[i], "8");
        if (!strcmp(hf[i], "height"))
            assert_string_equal(f[i], "768");
    }
    free(text);
}

/* ------------------------------------------------------- kit_provenance */

static void test_provenance_lines(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    char *argv[] = {"./lab07", "--size", "3x3", NULL};
    kit_provenance(fp, "07", 3, argv, 6, NULL);
    assert_int_equal(fclose(fp), 0);
    char *lines[16];
    int n = split_lines(text, lines, 16);
    assert_int_equal(n, 6);
    for (int i = 0; i < n; i++)
        assert_true(lines[i][0] == '#');
    assert_non_null(strstr(lines[0], "kit"));
    assert_non_null(strstr(lines[0], "lab 07"));
    assert_string_equal(lines[1], "# command: ./lab07 --size 3x3");
    int Y, M, D, hh, mm, ss;
    char z = 0;
    assert_int_equal(sscanf(lines[2], "# date: %4d-%2d-%2dT%2d:%2d:%2d%c", &Y, &M, &D, &hh, &mm,
                            &ss, &z),
                     7);
    assert_true(Y >= 2024 && M >= 1 && M <= 12 && D >= 1 && D <= 31);
    assert_int_equal(z, 'Z');
    assert_true(strncmp(lines[3], "# host: ", 8) == 0);
    assert_non_null(strstr(lines[3], "cores"));
    assert_string_equal(lines[4], "# threads: 6");
    assert_string_equal(lines[5], "# gpu: none used");
    free(text);
}

static void test_provenance_gpu_callback(void **state)
{
    (void)state;
    char *text = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&text, &len);
    assert_non_null(fp);
    char *argv[] = {"lab01", NULL};
    kit_provenance(fp, "01", 1, argv, 1, gpu_two_lines);
    assert_int_equal(fclose(fp), 0);
    assert_null(strstr(text, "none used"));
    assert_non_null(strstr(text, "\n# gpu: Test GPU 9000\n# compute capability: 9.9\n"));
    assert_non_null(strstr(text, "# command: lab01\n"));
    free(text);
}

/* ---------------------------------------------------- kit_results_append */

static void test_append_creates_then_adds_rows(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "fresh.tsv");
    remove(path);
    kit_row rows[2] = {sample_row(), sample_row()};
    rows[1].variant = 4;
    snprintf(rows[1].status, sizeof rows[1].status, "FAIL");
    char *argv[] = {"./lab05", "--variant", "all", NULL};
    err[0] = 0;
    assert_int_equal(kit_results_append(path, rows, 2, "05", 3, argv, 8, NULL, err, sizeof err),
                     0);
    char *text = slurp(path);
    char *lines[32];
    int n = split_lines(text, lines, 32);
    assert_int_equal(n, 6 + 1 + 2);
    assert_non_null(strstr(lines[0], "lab 05"));
    assert_string_equal(lines[1], "# command: ./lab05 --variant all");
    assert_true(strncmp(lines[2], "# date: ", 8) == 0);
    assert_true(strncmp(lines[3], "# host: ", 8) == 0);
    assert_string_equal(lines[4], "# threads: 8");
    assert_string_equal(lines[5], "# gpu: none used");
    assert_string_equal(lines[6], KIT_TSV_HEADER);
    assert_true(strncmp(lines[7], "05\t3\tshared-tiled\t", 18) == 0);
    assert_true(strncmp(lines[8], "05\t4\tshared-tiled\t", 18) == 0);
    assert_non_null(strstr(lines[8], "\tFAIL\t"));
    free(text);

    /* a second append adds rows only: no new provenance, one header */
    kit_row more = sample_row();
    more.variant = 9;
    char *argv2[] = {"./other", NULL};
    assert_int_equal(
        kit_results_append(path, &more, 1, "05", 1, argv2, 2, gpu_two_lines, err, sizeof err), 0);
    text = slurp(path);
    n = split_lines(text, lines, 32);
    assert_int_equal(n, 10);
    int headers = 0, hashes = 0;
    for (int i = 0; i < n; i++) {
        headers += !strcmp(lines[i], KIT_TSV_HEADER);
        hashes += lines[i][0] == '#';
    }
    assert_int_equal(headers, 1);
    assert_int_equal(hashes, 6);
    assert_true(strncmp(lines[9], "05\t9\t", 5) == 0);
    assert_null(strstr(lines[9], "other"));
    free(text);
}

static void test_append_with_gpu_lines(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "gpu.tsv");
    remove(path);
    kit_row r = sample_row();
    char *argv[] = {"lab02", NULL};
    assert_int_equal(
        kit_results_append(path, &r, 1, "02", 1, argv, 1, gpu_two_lines, err, sizeof err), 0);
    char *text = slurp(path);
    assert_non_null(strstr(text, "\n# gpu: Test GPU 9000\n# compute capability: 9.9\n" KIT_TSV_HEADER
                                 "\n05\t3\t"));
    assert_null(strstr(text, "none used"));
    free(text);
}

/* An existing empty file is treated as new: provenance and header. */
static void test_append_to_empty_file(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "empty.tsv");
    write_text(path, "");
    kit_row r = sample_row();
    char *argv[] = {"lab03", NULL};
    assert_int_equal(kit_results_append(path, &r, 1, "03", 1, argv, 1, NULL, err, sizeof err), 0);
    char *text = slurp(path);
    assert_true(text[0] == '#');
    assert_non_null(strstr(text, "\n" KIT_TSV_HEADER "\n05\t3\t"));
    free(text);
}

/* Zero rows on a fresh file: provenance and header only. */
static void test_append_zero_rows(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "zero.tsv");
    remove(path);
    char *argv[] = {"lab03", NULL};
    assert_int_equal(kit_results_append(path, NULL, 0, "03", 1, argv, 1, NULL, err, sizeof err),
                     0);
    char *text = slurp(path);
    size_t n = strlen(text), hl = strlen(KIT_TSV_HEADER);
    assert_true(n > hl + 1);
    assert_string_equal(text + n - hl - 1, KIT_TSV_HEADER "\n");
    free(text);
}

static void test_append_refuses_foreign_file(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "foreign.tsv");
    const char *orig = "# a comment\nx\ty\n1\t2\n";
    write_text(path, orig);
    kit_row r = sample_row();
    char *argv[] = {"lab03", NULL};
    err[0] = 0;
    assert_int_equal(kit_results_append(path, &r, 1, "03", 1, argv, 1, NULL, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    assert_null(strchr(err, '\n'));
    char *text = slurp(path);
    assert_string_equal(text, orig); /* untouched */
    free(text);
}

static void test_append_unwritable(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "no/such/folder/r.tsv");
    kit_row r = sample_row();
    char *argv[] = {"lab03", NULL};
    err[0] = 0;
    assert_int_equal(kit_results_append(path, &r, 1, "03", 1, argv, 1, NULL, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    assert_non_null(strstr(err, path));
    assert_null(strchr(err, '\n'));
    /* a folder is not a results file */
    err[0] = 0;
    assert_int_equal(kit_results_append(tmpdir, &r, 1, "03", 1, argv, 1, NULL, err, sizeof err),
                     -1);
    assert_true(strlen(err) > 0);
}

/* A long command line (long paths) makes a provenance line longer than any
 * fixed line buffer; the file must still be accepted for a second append.
 * KNOWN LIBRARY BUG (results.c, first_data_line): lines are read with a
 * 1024-byte fgets, so the rest of a long '#' line is taken as the header. */
static void test_append_twice_with_long_command_line(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "long.tsv");
    remove(path);
    static char longarg[3000];
    memset(longarg, 'a', sizeof longarg - 1);
    longarg[sizeof longarg - 1] = 0;
    char *argv[] = {"lab03", "--image", longarg, NULL};
    kit_row r = sample_row();
    err[0] = 0;
    assert_int_equal(kit_results_append(path, &r, 1, "03", 3, argv, 1, NULL, err, sizeof err), 0);
    err[0] = 0;
    int rc = kit_results_check(path, err, sizeof err);
    if (rc != 0)
        fail_msg("kit_results_check refuses its own file: %s", err);
    assert_int_equal(kit_results_append(path, &r, 1, "03", 3, argv, 1, NULL, err, sizeof err), 0);
}

/* ----------------------------------------------------- kit_results_check */

static void test_check_absent_and_empty(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "absent.tsv");
    remove(path);
    err[0] = 0;
    assert_int_equal(kit_results_check(path, err, sizeof err), 0);
    assert_int_equal(access(path, F_OK), -1); /* checking creates nothing */
    tmp_path(path, sizeof path, "check-empty.tsv");
    write_text(path, "");
    assert_int_equal(kit_results_check(path, err, sizeof err), 0);
}

static void test_check_header(void **state)
{
    (void)state;
    char path[512], err[512];
    tmp_path(path, sizeof path, "check.tsv");
    /* ours: comments, then the header, then rows */
    write_text(path, "# kit\n# more\n" KIT_TSV_HEADER "\n05\t1\n");
    err[0] = 0;
    assert_int_equal(kit_results_check(path, err, sizeof err), 0);
    /* the header with no comments at all */
    write_text(path, KIT_TSV_HEADER "\n");
    assert_int_equal(kit_results_check(path, err, sizeof err), 0);
    /* first non-# line differs: one column fewer */
    write_text(path, "# kit\nlab\tvariant\tname\n");
    err[0] = 0;
    assert_int_equal(kit_results_check(path, err, sizeof err), -1);
    assert_non_null(strstr(err, path));
    /* the header, but not as the first non-# line */
    write_text(path, "# kit\n\n" KIT_TSV_HEADER "\n");
    assert_int_equal(kit_results_check(path, err, sizeof err), -1);
    /* the header with an extra column */
    write_text(path, KIT_TSV_HEADER "\textra\n");
    assert_int_equal(kit_results_check(path, err, sizeof err), -1);
    /* comments only, no header */
    write_text(path, "# just a comment\n");
    assert_int_equal(kit_results_check(path, err, sizeof err), -1);
    /* some other file */
    write_text(path, "hello world\n");
    err[0] = 0;
    assert_int_equal(kit_results_check(path, err, sizeof err), -1);
    assert_true(strlen(err) > 0);
    assert_null(strchr(err, '\n'));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_header_has_22_columns_in_order),
        cmocka_unit_test(test_write_row_exact),
        cmocka_unit_test(test_write_row_nan_and_empty),
        cmocka_unit_test(test_write_row_columns_match_header),
        cmocka_unit_test(test_provenance_lines),
        cmocka_unit_test(test_provenance_gpu_callback),
        cmocka_unit_test(test_append_creates_then_adds_rows),
        cmocka_unit_test(test_append_with_gpu_lines),
        cmocka_unit_test(test_append_to_empty_file),
        cmocka_unit_test(test_append_zero_rows),
        cmocka_unit_test(test_append_refuses_foreign_file),
        cmocka_unit_test(test_append_unwritable),
        cmocka_unit_test(test_append_twice_with_long_command_line),
        cmocka_unit_test(test_check_absent_and_empty),
        cmocka_unit_test(test_check_header),
    };
    return cmocka_run_group_tests(tests, make_tmpdir, remove_tmpdir);
}
