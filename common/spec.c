/* spec.c - reading a lab's description (spec.h): a part's options parsed
 * into kit_args, lookups by name, parts and variants, the keys of timed
 * repetitions. Shared by the harness and the grader's checker. */
#define _POSIX_C_SOURCE 200809L
#include "spec.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kit.h"

/* ------------------------------------------------------------ lookups */

const kit_part_spec *kit_spec_part(const kit_lab_desc *lab, const char *name)
{
    if (!name || !name[0])
        return lab->nparts > 0 ? &lab->parts[0] : NULL;
    for (int i = 0; i < lab->nparts; i++)
        if (!strcmp(lab->parts[i].name, name))
            return &lab->parts[i];
    return NULL;
}

const kit_variant_desc *kit_spec_variant(const kit_part_spec *p, int v)
{
    if (!p || v < p->first_variant || v >= p->first_variant + p->nvariants)
        return NULL;
    return &p->variants[v - p->first_variant];
}

const kit_part_ref *kit_part_reference(const kit_lab_refs *r, const char *name)
{
    if (!r)
        return NULL;
    for (int i = 0; i < r->nparts; i++)
        if (!strcmp(r->parts[i].part, name ? name : ""))
            return &r->parts[i];
    return NULL;
}

const char *kit_span_name(kit_span s)
{
    switch (s) {
    case KIT_SPAN_HOST: return "host";
    case KIT_SPAN_KERNEL: return "kernel";
    case KIT_SPAN_TOTAL: return "total";
    }
    return "?";
}

const char *kit_ceiling_name(kit_ceiling c)
{
    switch (c) {
    case KIT_CEIL_NONE: return "none";
    case KIT_CEIL_HOST_MEM: return "host-mem";
    case KIT_CEIL_DEVICE_COPY: return "device-copy";
    case KIT_CEIL_PCIE: return "pcie";
    }
    return "?";
}

unsigned long long kit_rep_key(unsigned long long seed, const char *part, int v, int k)
{
    unsigned long long h = 1469598103934665603ULL; /* FNV-1a of the part's name */
    for (const char *s = part ? part : ""; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    kit_rng r;
    kit_rng_seed(&r, seed ^ h ^ ((unsigned long long)(unsigned)v << 40) ^ (unsigned long long)(unsigned)k);
    unsigned long long key = kit_rng_next(&r);
    return key ? key : 1;
}

/* ------------------------------------------------------------ values */

static struct kit_argval *find(const kit_args *a, const char *name)
{
    for (int i = 0; i < a->n; i++)
        if (!strcmp(a->v[i].d->name, name))
            return (struct kit_argval *)&a->v[i];
    kit_die(KIT_EXIT_RUNTIME, "internal error: option %s is not declared by this part", name);
}

int kit_arg_set(const kit_args *a, const char *name)
{
    return find(a, name)->set;
}

int kit_arg_given(const kit_args *a, const char *name)
{
    return find(a, name)->given;
}

long kit_arg_int(const kit_args *a, const char *name)
{
    const struct kit_argval *v = find(a, name);
    return v->set ? v->i : 0;
}

void kit_arg_wxh(const kit_args *a, const char *name, int *w, int *h)
{
    const struct kit_argval *v = find(a, name);
    *w = v->set ? v->w : 0;
    *h = v->set ? v->h : 0;
}

const char *kit_arg_str(const kit_args *a, const char *name)
{
    const struct kit_argval *v = find(a, name);
    return v->set ? v->s : "";
}

/* ------------------------------------------------------------ parsing */

static int parse_wxh(const char *s, long lo, long hi, int *w, int *h)
{
    char tmp[64];
    if (strlen(s) >= sizeof tmp)
        return -1;
    snprintf(tmp, sizeof tmp, "%s", s);
    char *x = strchr(tmp, 'x');
    if (!x)
        x = strchr(tmp, 'X');
    if (!x)
        return -1;
    *x = 0;
    long a, b;
    if (kit_parse_long(tmp, lo, hi, &a) || kit_parse_long(x + 1, lo, hi, &b))
        return -1;
    *w = (int)a;
    *h = (int)b;
    return 0;
}

/* Give v the value text; 0, or -1 with the reason. */
static int assign(struct kit_argval *v, const char *text, char *err, size_t errlen)
{
    const kit_optdesc *d = v->d;
    switch (d->kind) {
    case KIT_ARG_FLAG:
        v->i = 1;
        break;
    case KIT_ARG_INT:
        if (kit_parse_long(text, d->lo, d->hi, &v->i)) {
            kit_set_err(err, errlen, "%s must be %ld..%ld, not '%s'", d->name, d->lo, d->hi, text);
            return -1;
        }
        break;
    case KIT_ARG_WXH:
        if (parse_wxh(text, d->lo, d->hi, &v->w, &v->h)) {
            kit_set_err(err, errlen, "%s must be WxH with %ld..%ld on each side, not '%s'",
                        d->name, d->lo, d->hi, text);
            return -1;
        }
        if (!strcmp(d->name, "--block") && (long)v->w * v->h > 1024) {
            kit_set_err(err, errlen, "--block must be WxH with W*H <= 1024 threads, not '%s'",
                        text);
            return -1;
        }
        break;
    case KIT_ARG_STR:
        if (strlen(text) >= sizeof v->s) {
            kit_set_err(err, errlen, "%s: the value is longer than %zu characters", d->name,
                        sizeof v->s - 1);
            return -1;
        }
        snprintf(v->s, sizeof v->s, "%s", text);
        break;
    }
    v->set = 1;
    return 0;
}

static int in_list(const char *const *list, const char *name)
{
    for (int i = 0; list && list[i]; i++)
        if (!strcmp(list[i], name))
            return 1;
    return 0;
}

int kit_args_parse(const kit_part_spec *p, int argc, char **argv, const char *const *skip,
                   const char *const *flags, kit_args *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    for (const kit_optdesc *d = p->opts; d && d->name; d++) {
        if (out->n >= KIT_MAX_ARGS) {
            kit_set_err(err, errlen, "internal error: part '%s' declares more than %d options",
                        p->name, KIT_MAX_ARGS);
            return -1;
        }
        struct kit_argval *v = &out->v[out->n++];
        v->d = d;
        if (d->def && assign(v, d->def, err, errlen))
            return -1;
    }
    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        char name[64];
        const char *val = NULL;
        if (strncmp(a, "--", 2) != 0) {
            kit_set_err(err, errlen, "unexpected argument '%s'", a);
            return -1;
        }
        const char *eq = strchr(a, '=');
        size_t n = eq ? (size_t)(eq - a) : strlen(a);
        if (n >= sizeof name) {
            kit_set_err(err, errlen, "unknown option '%.40s...'", a);
            return -1;
        }
        memcpy(name, a, n);
        name[n] = 0;
        if (eq)
            val = eq + 1;
        if (in_list(skip, name)) {
            if (!eq && !in_list(flags, name))
                i++; /* the caller's option and its value */
            continue;
        }
        struct kit_argval *v = NULL;
        for (int j = 0; j < out->n; j++)
            if (!strcmp(out->v[j].d->name, name))
                v = &out->v[j];
        if (!v) {
            if (p->name[0])
                kit_set_err(err, errlen, "unknown option '%s' for part %s", name, p->name);
            else
                kit_set_err(err, errlen, "unknown option '%s'", name);
            return -1;
        }
        if (v->d->kind == KIT_ARG_FLAG) {
            if (val) {
                kit_set_err(err, errlen, "%s takes no value", name);
                return -1;
            }
        } else if (!val) {
            if (i + 1 >= argc) {
                kit_set_err(err, errlen, "option %s needs a value", name);
                return -1;
            }
            val = argv[++i];
        }
        if (assign(v, val ? val : "", err, errlen))
            return -1;
        v->given = 1;
    }
    /* a generated picture and a file exclude each other */
    int has_image = 0, has_size = 0;
    for (int i = 0; i < out->n; i++) {
        has_image |= !strcmp(out->v[i].d->name, "--image") && out->v[i].given;
        has_size |= !strcmp(out->v[i].d->name, "--size") && out->v[i].given;
    }
    if (has_image && has_size) {
        kit_set_err(err, errlen, "--image and --size exclude each other");
        return -1;
    }
    return 0;
}
