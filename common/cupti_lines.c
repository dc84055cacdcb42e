/* cupti_lines.c - the plain C half of the GPU activity records (no CUDA, no
 * CUPTI): a record as the kit's tab-separated line and back, kernel names made
 * safe, and the busy time of each engine (format and use: cupti_trace.h;
 * DESIGN.md, "GPU activity records"). cupti_trace.c takes the records from
 * CUPTI; the unit tests feed these functions synthetic ones.
 *
 * Sections: records as text, busy time per engine.
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include "cupti_trace.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* ----------------------------------------------------- records as text */

static const char *const kind_names[] = {"other", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP"};

const char *kit_trace_kind_name(kit_copy_kind k)
{
    return (k >= KIT_COPY_OTHER && k <= KIT_COPY_PTOP) ? kind_names[k] : "other";
}

static const char *const mem_names[] = {"unknown", "pageable", "pinned", "device",
                                        "array",   "managed",  "static", "managed-static"};

const char *kit_trace_mem_name(kit_mem_kind k)
{
    return (k >= KIT_MEM_UNKNOWN && k <= KIT_MEM_MANAGED_STATIC) ? mem_names[k] : "unknown";
}

int kit_trace_mem_parse(const char *s)
{
    for (int k = KIT_MEM_UNKNOWN; k <= KIT_MEM_MANAGED_STATIC; k++)
        if (strcmp(s, mem_names[k]) == 0)
            return k;
    return -1;
}

kit_copy_kind kit_trace_kind_parse(const char *s)
{
    for (int k = KIT_COPY_HTOD; k <= KIT_COPY_PTOP; k++)
        if (strcmp(s, kind_names[k]) == 0)
            return (kit_copy_kind)k;
    return KIT_COPY_OTHER;
}

void kit_trace_clean_name(const char *raw, char *out, size_t len)
{
    if (!len)
        return;
    const char *s = raw ? raw : "";
    size_t n = strlen(s);
    /* a plain mangled function: _Z<length><identifier><parameter codes> */
    if (s[0] == '_' && s[1] == 'Z' && isdigit((unsigned char)s[2])) {
        char *end;
        unsigned long idl = strtoul(s + 2, &end, 10);
        if (idl > 0 && idl <= strlen(end)) {
            s = end;
            n = idl;
        }
    }
    if (n == 0) {
        s = "?";
        n = 1;
    }
    if (n > len - 1)
        n = len - 1;
    for (size_t i = 0; i < n; i++)
        out[i] = (s[i] == '\t' || s[i] == '\n' || s[i] == '\r') ? ' ' : s[i];
    out[n] = 0;
}

int kit_trace_format(const kit_trace_rec *r, char *buf, size_t len)
{
    int n;
    if (r->type == 'K')
        n = snprintf(buf, len, "K\t%llu\t%llu\t%u\t0\t-\t%s\t%u+%u\n", r->start, r->end,
                     r->stream, r->name[0] ? r->name : "?", r->smem_static, r->smem_dynamic);
    else if (r->type == 'C')
        n = snprintf(buf, len, "C\t%llu\t%llu\t%u\t%llu\t%s\t-\t%s>%s\n", r->start, r->end,
                     r->stream, r->bytes, kit_trace_kind_name(r->kind), kit_trace_mem_name(r->src),
                     kit_trace_mem_name(r->dst));
    else
        n = snprintf(buf, len, "M\t%llu\t%llu\t0\t%llu\t%s\t%s\t0x%llx\n", r->start, r->start,
                     r->bytes, kit_trace_mem_name(r->src), r->freed ? "free" : "alloc", r->address);
    return (n < 0 || (size_t)n >= len) ? -1 : n;
}

/* The next tab-separated field of *p (NUL-terminated in place). */
static char *next_field(char **p)
{
    char *s = *p;
    if (!s)
        return NULL;
    char *t = strchr(s, '\t');
    if (t) {
        *t = 0;
        *p = t + 1;
    } else {
        *p = NULL;
    }
    return s;
}

static int parse_u64(const char *s, unsigned long long *v)
{
    if (!s || !isdigit((unsigned char)s[0]))
        return -1;
    char *end;
    *v = strtoull(s, &end, 10);
    return *end ? -1 : 0;
}

int kit_trace_parse(const char *line, kit_trace_rec *r)
{
    char buf[512];
    size_t n = strlen(line);
    while (n && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        n--;
    if (n == 0 || line[0] == '#')
        return 0;
    if (n >= sizeof buf)
        return -1;
    memcpy(buf, line, n);
    buf[n] = 0;
    char *p = buf;
    char *f[8] = {0};
    int nf = 0;
    while (nf < 8 && (f[nf] = next_field(&p)))
        nf++;
    if (p || nf < 7) /* version 2 has seven fields, version 3 eight */
        return -1;
    memset(r, 0, sizeof *r);
    unsigned long long stream;
    if (strlen(f[0]) != 1 || (f[0][0] != 'K' && f[0][0] != 'C' && f[0][0] != 'M') ||
        parse_u64(f[1], &r->start) || parse_u64(f[2], &r->end) || parse_u64(f[3], &stream) ||
        parse_u64(f[4], &r->bytes) || r->end < r->start || stream > 0xffffffffULL)
        return -1;
    r->type = f[0][0];
    r->stream = (unsigned)stream;
    if (r->type == 'K') {
        if (strcmp(f[5], "-") != 0 || r->bytes != 0 || !f[6][0])
            return -1;
        snprintf(r->name, sizeof r->name, "%s", f[6]);
        if (nf == 8) {
            char *plus = strchr(f[7], '+');
            unsigned long long a, b;
            if (!plus)
                return -1;
            *plus = 0;
            if (parse_u64(f[7], &a) || parse_u64(plus + 1, &b) || a > 0xffffffffULL ||
                b > 0xffffffffULL)
                return -1;
            r->smem_static = (unsigned)a;
            r->smem_dynamic = (unsigned)b;
        }
    } else if (r->type == 'C') {
        if (strcmp(f[6], "-") != 0)
            return -1;
        r->kind = kit_trace_kind_parse(f[5]);
        if (r->kind == KIT_COPY_OTHER && strcmp(f[5], "other") != 0)
            return -1;
        if (nf == 8) {
            char *gt = strchr(f[7], '>');
            if (!gt)
                return -1;
            *gt = 0;
            int a = kit_trace_mem_parse(f[7]), b = kit_trace_mem_parse(gt + 1);
            if (a < 0 || b < 0)
                return -1;
            r->src = (kit_mem_kind)a;
            r->dst = (kit_mem_kind)b;
        }
    } else {
        int k = kit_trace_mem_parse(f[5]);
        char *end;
        if (nf != 8 || k < 0 || r->end != r->start || stream != 0 ||
            (strcmp(f[6], "alloc") != 0 && strcmp(f[6], "free") != 0) ||
            strncmp(f[7], "0x", 2) != 0 || !isxdigit((unsigned char)f[7][2]))
            return -1;
        r->address = strtoull(f[7] + 2, &end, 16);
        if (*end)
            return -1;
        r->src = (kit_mem_kind)k;
        r->freed = f[6][0] == 'f';
    }
    return 1;
}

int kit_trace_write(FILE *fp, const kit_trace_rec *r, size_t n, unsigned long long calib_cupti,
                    unsigned long long calib_mono, size_t dropped)
{
    char line[KIT_TRACE_NAME + 128];
    size_t kernels = 0, copies = 0, memory = 0;
    fprintf(fp, "# kitcupti 3\n# calib %llu %llu\n", calib_cupti, calib_mono);
    for (size_t i = 0; i < n; i++) {
        if (kit_trace_format(&r[i], line, sizeof line) < 0)
            continue;
        fputs(line, fp);
        if (r[i].type == 'K')
            kernels++;
        else if (r[i].type == 'C')
            copies++;
        else
            memory++;
    }
    fprintf(fp, "# calib %llu %llu\n# end kernels=%zu copies=%zu memory=%zu dropped=%zu\n",
            calib_cupti, calib_mono, kernels, copies, memory, dropped);
    return ferror(fp) ? -1 : 0;
}

/* ------------------------------------------------ busy time per engine */

typedef struct {
    unsigned long long s, e;
} span_t;

static int span_cmp(const void *a, const void *b)
{
    const span_t *x = a, *y = b;
    return x->s < y->s ? -1 : x->s > y->s;
}

/* Length of the union of the intervals (sorted here). */
static unsigned long long union_ns(span_t *v, size_t n)
{
    if (!n)
        return 0;
    qsort(v, n, sizeof *v, span_cmp);
    unsigned long long total = 0, cs = v[0].s, ce = v[0].e;
    for (size_t i = 1; i < n; i++) {
        if (v[i].s > ce) {
            total += ce - cs;
            cs = v[i].s;
            ce = v[i].e;
        } else if (v[i].e > ce) {
            ce = v[i].e;
        }
    }
    return total + (ce - cs);
}

static int uint_cmp(const void *a, const void *b)
{
    unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
    return x < y ? -1 : x > y;
}

void kit_trace_busy_of(const kit_trace_rec *r, size_t n, unsigned long long t0,
                       unsigned long long t1, kit_trace_busy *b)
{
    memset(b, 0, sizeof *b);
    span_t *v[3];
    size_t nv[3] = {0, 0, 0};
    unsigned *streams = malloc((n ? n : 1) * sizeof *streams);
    for (int k = 0; k < 3; k++)
        v[k] = malloc((n ? n : 1) * sizeof(span_t));
    if (!streams || !v[0] || !v[1] || !v[2]) {
        free(streams);
        for (int k = 0; k < 3; k++)
            free(v[k]);
        return;
    }
    unsigned long long last = t0;
    size_t ns = 0;
    for (size_t i = 0; i < n; i++) {
        const kit_trace_rec *x = &r[i];
        if (x->type == 'M' || x->start < t0 || (t1 && x->start > t1))
            continue;
        int engine = -1;
        if (x->type == 'K') {
            engine = 1;
            b->kernels++;
        } else {
            b->copies++;
            if (x->kind == KIT_COPY_HTOD) {
                engine = 0;
                b->htod_bytes += x->bytes;
            } else if (x->kind == KIT_COPY_DTOH) {
                engine = 2;
                b->dtoh_bytes += x->bytes;
            }
        }
        if (x->end > last)
            last = x->end;
        streams[ns++] = x->stream;
        if (engine >= 0)
            v[engine][nv[engine]++] = (span_t){x->start, x->end};
    }
    b->span_ms = (double)(last - t0) / 1e6;
    b->htod_ms = (double)union_ns(v[0], nv[0]) / 1e6;
    b->kernel_ms = (double)union_ns(v[1], nv[1]) / 1e6;
    b->dtoh_ms = (double)union_ns(v[2], nv[2]) / 1e6;
    b->busiest_ms = b->htod_ms;
    if (b->kernel_ms > b->busiest_ms)
        b->busiest_ms = b->kernel_ms;
    if (b->dtoh_ms > b->busiest_ms)
        b->busiest_ms = b->dtoh_ms;
    b->overlap = b->busiest_ms > 0 ? b->span_ms / b->busiest_ms : 0.0;
    qsort(streams, ns, sizeof *streams, uint_cmp);
    for (size_t i = 0; i < ns; i++)
        if (i == 0 || streams[i] != streams[i - 1])
            b->streams++;
    free(streams);
    for (int k = 0; k < 3; k++)
        free(v[k]);
}

unsigned long long kit_trace_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (unsigned long long)ts.tv_sec * 1000000000ULL + (unsigned long long)ts.tv_nsec;
}
