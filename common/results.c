/* results.c - TSV results with '#' provenance lines. */
#define _POSIX_C_SOURCE 200809L
#include "results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

static void host_cpu(char *buf, size_t len)
{
    snprintf(buf, len, "unknown");
    FILE *fp = fopen("/proc/cpuinfo", "r");
    if (!fp)
        return;
    char line[512];
    while (fgets(line, sizeof line, fp)) {
        if (strncmp(line, "model name", 10) == 0) {
            char *p = strchr(line, ':');
            if (p) {
                p++;
                while (*p == ' ' || *p == '\t')
                    p++;
                p[strcspn(p, "\n")] = 0;
                snprintf(buf, len, "%s", p);
            }
            break;
        }
    }
    fclose(fp);
}

void kit_provenance(FILE *fp, const char *lab, int argc, char **argv, int threads,
                    void (*gpu_lines)(FILE *fp))
{
    char cpu[256], date[64];
    time_t now = time(NULL);
    struct tm tmv;
    gmtime_r(&now, &tmv);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tmv);
    host_cpu(cpu, sizeof cpu);
    struct utsname u;
    if (uname(&u) != 0)
        snprintf(u.nodename, sizeof u.nodename, "unknown");
    fprintf(fp, "# kit: CUDA teaching lab kit, lab %s\n", lab);
    fprintf(fp, "# command:");
    for (int i = 0; i < argc; i++)
        fprintf(fp, " %s", argv[i]);
    fprintf(fp, "\n# date: %s\n# host: %s, %s, %ld cores\n", date, u.nodename, cpu,
            sysconf(_SC_NPROCESSORS_ONLN));
    fprintf(fp, "# threads: %d\n", threads);
    if (gpu_lines)
        gpu_lines(fp);
    else
        fprintf(fp, "# gpu: none used\n");
}

static void fmt_num(FILE *fp, double v)
{
    if (v != v)
        fputs("nan", fp);
    else
        fprintf(fp, "%.6g", v);
}

void kit_results_write_row(FILE *fp, const kit_row *r)
{
    fprintf(fp, "%s\t%d\t%s\t%ld\t%ld\t%s\t%d\t", r->lab, r->variant, r->name, r->width, r->height,
            r->param[0] ? r->param : "-", r->reps);
    const double v[] = {r->kernel_ms, r->kernel_ms_std, r->kernel_ms_median, r->total_ms,
                        r->total_ms_std, r->total_ms_median, r->gbps, r->max_abs_err,
                        r->max_rel_err};
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        fmt_num(fp, v[i]);
        fputc('\t', fp);
    }
    fprintf(fp, "%ld\t%s\t%d\t%s\t%s\t%s\n", r->mismatches, r->status, r->threads,
            r->config[0] ? r->config : "-", r->part[0] ? r->part : "-",
            r->span[0] ? r->span : "-");
}

/* The first line of fp that does not start with '#', or "" when none. */
static void first_data_line(FILE *fp, char *buf, size_t len)
{
    buf[0] = 0;
    char *line = NULL;
    size_t cap = 0;
    while (getline(&line, &cap, fp) != -1) {
        if (line[0] == '#')
            continue;
        line[strcspn(line, "\n")] = 0;
        snprintf(buf, len, "%s", line);
        break;
    }
    free(line);
}

int kit_results_check(const char *path, char *err, size_t errlen)
{
    /* only a regular file has a header to read: /dev/null, a pipe or a
     * terminal is written to, never read (reading /dev/zero never ends) */
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
        return 0;
    FILE *in = fopen(path, "r");
    if (!in)
        return 0;
    char head[1024];
    first_data_line(in, head, sizeof head);
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fclose(in);
    if (size > 0 && strcmp(head, KIT_TSV_HEADER) != 0) {
        snprintf(err, errlen,
                 "%s exists but is not a kit results file of this version (header differs); "
                 "choose another --results path",
                 path);
        return -1;
    }
    return 0;
}

int kit_results_append(const char *path, const kit_row *rows, int nrows, const char *lab,
                       int argc, char **argv, int threads, void (*gpu_lines)(FILE *fp),
                       char *err, size_t errlen)
{
    if (kit_results_check(path, err, errlen))
        return -1;
    struct stat st;
    FILE *in = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? fopen(path, "r") : NULL;
    int fresh = 1;
    if (in) {
        fseek(in, 0, SEEK_END);
        fresh = ftell(in) == 0;
        fclose(in);
    }
    /* Build the whole text first, then append it with one write. */
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem) {
        snprintf(err, errlen, "cannot build results: %s", strerror(errno));
        return -1;
    }
    if (fresh) {
        kit_provenance(mem, lab, argc, argv, threads, gpu_lines);
        fprintf(mem, "%s\n", KIT_TSV_HEADER);
    }
    for (int i = 0; i < nrows; i++)
        kit_results_write_row(mem, &rows[i]);
    fclose(mem);
    FILE *fp = fopen(path, "a");
    if (!fp) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        free(text);
        return -1;
    }
    size_t w = fwrite(text, 1, len, fp);
    int bad = (w != len);
    if (fclose(fp) != 0)
        bad = 1;
    free(text);
    if (bad) {
        snprintf(err, errlen, "cannot write %s: %s", path, strerror(errno));
        return -1;
    }
    return 0;
}
