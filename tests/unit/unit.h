/* unit.h - what several unit-test files need: a private temporary folder
 * per test program (cmocka group setup/teardown) and small file helpers.
 * Include after <cmocka.h>. */
#ifndef KIT_TEST_UNIT_H
#define KIT_TEST_UNIT_H

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "kit.h"

static char tmpdir[256];

/* Remove a folder and everything below it. */
KIT_MAYBE_UNUSED static int remove_tree(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    char p[1024];
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
        struct stat st;
        if (lstat(p, &st) == 0 && S_ISDIR(st.st_mode))
            remove_tree(p);
        else
            remove(p);
    }
    closedir(d);
    return rmdir(dir);
}

/* cmocka group setup and teardown: a fresh folder in /tmp, then gone. */
KIT_MAYBE_UNUSED static int make_tmpdir(void **state)
{
    (void)state;
    snprintf(tmpdir, sizeof tmpdir, "/tmp/kit_unit.XXXXXX");
    return mkdtemp(tmpdir) ? 0 : -1;
}

KIT_MAYBE_UNUSED static int remove_tmpdir(void **state)
{
    (void)state;
    return remove_tree(tmpdir);
}

/* tmpdir/name into buf. */
KIT_MAYBE_UNUSED static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/%s", tmpdir, name);
}

/* The whole file as a string (caller frees). */
KIT_MAYBE_UNUSED static char *slurp(const char *path)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    assert_non_null(s);
    assert_int_equal(fread(s, 1, (size_t)n, fp), (size_t)n);
    s[n] = 0;
    fclose(fp);
    return s;
}

KIT_MAYBE_UNUSED static void write_text(const char *path, const char *text)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    fputs(text, fp);
    assert_int_equal(fclose(fp), 0);
}

/* ------------------------------------------------------------------
 * Captured stdout and stderr of the code under test (capture_begin, then
 * capture_end; restore_std as a cmocka teardown puts them back after a
 * failure), and a character count for "one line" checks. */
#include <fcntl.h>

KIT_MAYBE_UNUSED static int count_char(const char *s, char c)
{
    int n = 0;
    for (; *s; s++)
        n += *s == c;
    return n;
}

/* Captured stdout and stderr of the last call through capture_begin/end. */
static char *cap_out, *cap_err;
static int saved_out = -1, saved_err = -1;

KIT_MAYBE_UNUSED static void capture_begin(void)
{
    char po[512], pe[512];
    tmp_path(po, sizeof po, "captured.out");
    tmp_path(pe, sizeof pe, "captured.err");
    fflush(stdout);
    fflush(stderr);
    saved_out = dup(1);
    saved_err = dup(2);
    int fo = open(po, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int fe = open(pe, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (saved_out < 0 || saved_err < 0 || fo < 0 || fe < 0)
        abort();
    dup2(fo, 1);
    dup2(fe, 2);
    close(fo);
    close(fe);
}

KIT_MAYBE_UNUSED static int restore_std(void **state)
{
    (void)state;
    if (saved_out < 0)
        return 0;
    fflush(stdout);
    fflush(stderr);
    dup2(saved_out, 1);
    dup2(saved_err, 2);
    close(saved_out);
    close(saved_err);
    saved_out = saved_err = -1;
    return 0;
}

KIT_MAYBE_UNUSED static void capture_end(void)
{
    restore_std(NULL);
    char po[512], pe[512];
    tmp_path(po, sizeof po, "captured.out");
    tmp_path(pe, sizeof pe, "captured.err");
    free(cap_out);
    free(cap_err);
    cap_out = slurp(po);
    cap_err = slurp(pe);
}


#endif
