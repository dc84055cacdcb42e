/* kit.h - basics shared by every part of the kit: exit codes, return codes of
 * variant functions, small allocation and error helpers.
 *
 * Exit codes (DESIGN.md, harness contract):
 *   0  every selected variant correct      1  a variant gave a wrong result
 *   2  bad usage or invalid input          3  CUDA or runtime error
 *   4  a selected variant not implemented  77 no CUDA device (test skipped)
 */
#ifndef KIT_H
#define KIT_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    KIT_EXIT_OK = 0,
    KIT_EXIT_WRONG = 1,
    KIT_EXIT_USAGE = 2,
    KIT_EXIT_RUNTIME = 3,
    KIT_EXIT_NOTIMPL = 4,
    KIT_EXIT_NODEVICE = 77
};

/* What a variant function (conv_v1, matvec_v2, ...) returns. */
enum {
    KIT_OK = 0,
    KIT_NOT_IMPLEMENTED = -1, /* the skeleton's untouched body */
    KIT_UNSUPPORTED = -2,     /* valid input this variant cannot take */
    KIT_RUNTIME_ERROR = -3    /* CUDA or system error, already reported */
};

#define KIT_UNUSED(x) ((void)(x))
/* a helper the skeleton may not call yet */
#define KIT_MAYBE_UNUSED __attribute__((unused))
#define KIT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define KIT_MAX(a, b) ((a) > (b) ? (a) : (b))

/* malloc/calloc that print one line and exit 3 when memory runs out. */
void *kit_malloc(size_t bytes);
void *kit_calloc(size_t count, size_t size);

/* Zeroed memory aligned to 64 bytes (a cache line, an AVX-512 register);
 * free() releases it; exit 3 when out. */
void *kit_calloc_aligned64(size_t bytes);

/* Print "PROG: message" to stderr and exit with code. */
void kit_die(int code, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/* Format a one-line reason into err (a caller's buffer; NULL or 0 ignored). */
void kit_set_err(char *err, size_t errlen, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* Print "PROG: message" and a newline to stderr. */
void kit_vmessage(const char *fmt, va_list ap);

/* Print "PROG: message" to stderr, one line (errors print even with --quiet). */
void kit_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/* Program name used in messages (set by the harness from argv[0]). */
extern const char *kit_prog;

/* Deterministic 64-bit generator (splitmix64) for seeded inputs. Inline: a
 * content fill draws one number an element (a call each took twice as long). */
typedef struct { unsigned long long s; } kit_rng;
static inline void kit_rng_seed(kit_rng *r, unsigned long long seed)
{
    r->s = seed;
}

static inline unsigned long long kit_rng_next(kit_rng *r)
{
    unsigned long long z = (r->s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

double kit_rng_uniform(kit_rng *r); /* [0, 1) */

/* Numbers first .. first+count-1 of the seeded stream that starts at state
 * s0, each uniform in [-1, 1). Element k of the stream does not depend on
 * the ones before it, so a large array can be filled in pieces, on any
 * number of threads, and a checker in another process regenerates exactly
 * the same values. */
void kit_fill_uniform(double *v, size_t count, unsigned long long s0, size_t first);

/* A whole decimal number lo..hi in s (nothing before or after it): 0 with
 * *out set, else -1 (*out untouched). */
int kit_parse_long(const char *s, long lo, long hi, long *out);

/* Write to PATH.tmp then rename, so a reader never sees half a file.
 * Returns 0 or -1 with errno set. */
int kit_write_file_atomic(const char *path, const void *data, size_t bytes);

#ifdef __cplusplus
}
#endif
#endif
