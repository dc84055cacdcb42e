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

#endif
