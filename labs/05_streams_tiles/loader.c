/* loader.c - the pictures batch v5 decodes (harness05.h, batch.h): before
 * each run, the content of its key (the bytes the other variants get: the
 * base pictures, generated or decoded from the --images files at set-up,
 * XOR the key's pattern) encoded as PNG in memory on every core; and
 * batch_load(), the decoder (stb_image) on several threads that the
 * student's v5 calls. It decodes those bytes and applies nothing afterwards:
 * pictures kept from an earlier run are another key's content.
 *
 * The encoder is the kit's own and plain: each row with PNG's "sub" filter,
 * every byte a literal of deflate's fixed Huffman code, no search for
 * repeats. It runs at memory speed (stb's writer, even at its lowest level,
 * is ten times slower, and on the XOR-ed content falls back to stored
 * blocks, which decode as a copy), and the decoder still does the real work
 * for every byte: a Huffman code to read, the filter to undo.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>
#include <stb/stb_image.h>

#include "harness05.h"
#include "timing.h"

/* ------------------------------------------------------------ encoding */

static uint32_t crc_table[256];
static uint16_t lit_code[256]; /* deflate's fixed code of each literal, bits reversed */
static uint8_t lit_len[256];

static void tables_make(void)
{
    for (uint32_t n = 0; n < 256; n++) {
        uint32_t c = n;
        for (int k = 0; k < 8; k++)
            c = c & 1 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
        crc_table[n] = c;
    }
    for (unsigned v = 0; v < 256; v++) {
        /* RFC 1951, 3.2.6: 0..143 are 8 bits from 0x30, 144..255 9 bits from 0x190 */
        const unsigned code = v < 144 ? 0x30 + v : 0x190 + (v - 144), len = v < 144 ? 8 : 9;
        unsigned r = 0;
        for (unsigned i = 0; i < len; i++)
            if (code >> i & 1)
                r |= 1u << (len - 1 - i);
        lit_code[v] = (uint16_t)r;
        lit_len[v] = (uint8_t)len;
    }
}

static uint32_t crc32_of(const unsigned char *p, size_t n)
{
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++)
        c = crc_table[(c ^ p[i]) & 255] ^ (c >> 8);
    return ~c;
}

static unsigned char *put32(unsigned char *p, uint32_t v)
{
    p[0] = (unsigned char)(v >> 24);
    p[1] = (unsigned char)(v >> 16);
    p[2] = (unsigned char)(v >> 8);
    p[3] = (unsigned char)v;
    return p + 4;
}

/* The most bytes encode() writes for a w x h picture: the signature, IHDR,
 * IDAT around the zlib stream (its header, 3 bits of block header, at most 9
 * bits a byte of every row and its filter byte, 7 bits of end, Adler-32)
 * and IEND. */
static size_t encoded_max(int w, int h)
{
    const size_t raw = (size_t)h * (1 + (size_t)w * 3);
    return 8 + 25 + 12 + 2 + (3 + 9 * raw + 7 + 7) / 8 + 4 + 12;
}

/* w x h RGB bytes as a PNG into out (encoded_max() bytes); its length. */
static size_t encode(unsigned char *out, const unsigned char *px, int w, int h)
{
    unsigned char *o = out;
    memcpy(o, "\x89PNG\r\n\x1a\n", 8);
    o += 8;
    unsigned char *ihdr = o;
    o = put32(o, 13);
    memcpy(o, "IHDR", 4);
    o = put32(o + 4, (uint32_t)w);
    o = put32(o, (uint32_t)h);
    memcpy(o, "\x08\x02\x00\x00\x00", 5); /* 8 bits, RGB, deflate, filters, no interlace */
    o = put32(o + 5, crc32_of(ihdr + 4, 17));
    unsigned char *idat = o, *z = o + 8;
    o = z;
    *o++ = 0x78; /* zlib: deflate, 32 KiB window, no dictionary, check bits */
    *o++ = 0x01;
    uint64_t acc = 3; /* BFINAL 1, BTYPE 01 (fixed codes), first bit lowest */
    int nb = 3;
    uint64_t a = 1, b = 0; /* Adler-32 of the filtered rows */
    const size_t row = (size_t)w * 3;
#define PUT_BITS(code, len)                                                                  \
    do {                                                                                     \
        acc |= (uint64_t)(code) << nb;                                                       \
        nb += (len);                                                                         \
        if (nb >= 32) {                                                                      \
            for (int q_ = 0; q_ < 4; q_++)                                                   \
                *o++ = (unsigned char)(acc >> (8 * q_));                                     \
            acc >>= 32;                                                                      \
            nb -= 32;                                                                        \
        }                                                                                    \
    } while (0)
#define PUT_LITERAL(v)                                                                       \
    do {                                                                                     \
        const unsigned char v_ = (unsigned char)(v);                                         \
        PUT_BITS(lit_code[v_], lit_len[v_]);                                                 \
        a += v_;                                                                             \
        b += a;                                                                              \
    } while (0)
    for (int y = 0; y < h; y++) {
        const unsigned char *r = px + (size_t)y * row;
        PUT_LITERAL(1); /* the row's filter: sub, each byte minus the one a pixel before */
        for (size_t x = 0; x < row; x++)
            PUT_LITERAL(x < 3 ? r[x] : r[x] - r[x - 3]);
        a %= 65521; /* a row is at most 24577 bytes: no overflow in 64 bits */
        b %= 65521;
    }
    PUT_BITS(0, 7); /* the end of the block */
    for (; nb > 0; nb -= 8, acc >>= 8)
        *o++ = (unsigned char)acc;
#undef PUT_LITERAL
#undef PUT_BITS
    o = put32(o, (uint32_t)(b << 16 | a));
    const size_t zlen = (size_t)(o - z);
    put32(idat, (uint32_t)zlen);
    memcpy(idat + 4, "IDAT", 4);
    o = put32(o, crc32_of(idat + 4, zlen + 4));
    unsigned char *iend = o;
    o = put32(o, 0);
    memcpy(o, "IEND", 4);
    o = put32(o + 4, crc32_of(iend + 4, 4));
    return (size_t)(o - out);
}

void batch_source_make(batch_source *s, const batch_data *d)
{
    tables_make();
    memset(s, 0, sizeof *s);
    s->w = d->w;
    s->h = d->h;
    s->count = d->count;
    s->enc = kit_calloc((size_t)d->count, sizeof *s->enc);
    s->enc_len = kit_calloc((size_t)d->count, sizeof *s->enc_len);
}

int batch_source_encode(batch_source *s, const batch_data *d, unsigned long long key)
{
    const size_t pic = batch_data_picture(d), max = encoded_max(d->w, d->h);
    int failed = 0;
#pragma omp parallel
    {
        unsigned char *px = malloc(pic); /* this thread's picture of the key's content */
#pragma omp for schedule(dynamic, 4)
        for (int i = 0; i < d->count; i++) {
            s->enc_len[i] = 0;
            if (!s->enc[i])
                s->enc[i] = malloc(max); /* written over by every later encoding */
            if (!px || !s->enc[i]) {
#pragma omp atomic write
                failed = 1;
                continue;
            }
            batch_content(px, d->base + (size_t)i * pic, pic, key, i);
            s->enc_len[i] = encode(s->enc[i], px, d->w, d->h);
        }
        free(px);
    }
    if (failed) {
        kit_error("cannot allocate %.1f MiB for the PNG pictures of v5",
                  (double)max * d->count / 1048576.0);
        return -1;
    }
    return 0;
}

void batch_source_free(batch_source *s)
{
    for (int i = 0; s->enc && i < s->count; i++)
        free(s->enc[i]);
    free(s->enc);
    free(s->enc_len);
    memset(s, 0, sizeof *s);
}

/* ------------------------------------------------------------ decoding */

/* Picture i into dst; 0, or -1 with the reason. */
static int decode_one(const batch_source *s, int i, unsigned char *dst, char *err, size_t errlen)
{
    int w = 0, h = 0, n = 0;
    unsigned char *px = NULL;
    if (s->enc_len[i] > 0 && s->enc_len[i] <= (size_t)0x7fffffff)
        px = stbi_load_from_memory(s->enc[i], (int)s->enc_len[i], &w, &h, &n, 3);
    if (!px) {
        const char *why = s->enc_len[i] ? stbi_failure_reason() : "not encoded";
        snprintf(err, errlen, "cannot decode picture %d: %s", i, why ? why : "unknown reason");
        return -1;
    }
    if (w != s->w || h != s->h) {
        snprintf(err, errlen, "picture %d is %dx%d, not %dx%d", i, w, h, s->w, s->h);
        stbi_image_free(px);
        return -1;
    }
    memcpy(dst, px, (size_t)w * (size_t)h * 3);
    stbi_image_free(px);
    return 0;
}

int batch_load(const batch_source *src, int first, int n, unsigned char *dst, int threads)
{
    if (!src || !dst || first < 0 || n < 1 || first > src->count - n || threads < 1) {
        kit_error("batch_load: pictures %d..%d of %d on %d threads: not a valid request", first,
                  first + n - 1, src ? src->count : 0, threads);
        return KIT_RUNTIME_ERROR;
    }
    const size_t pic = (size_t)src->w * (size_t)src->h * 3;
    int bad = -1;
    char why[512] = "";
#pragma omp parallel for num_threads(threads) schedule(dynamic, 1)
    for (int k = 0; k < n; k++) {
        char e[512];
        if (decode_one(src, first + k, dst + (size_t)k * pic, e, sizeof e)) {
#pragma omp critical(lab05_decode)
            if (bad < 0 || k < bad) {
                bad = k;
                snprintf(why, sizeof why, "%s", e);
            }
        }
    }
    if (bad >= 0) {
        kit_error("batch_load: %s", why);
        return KIT_RUNTIME_ERROR;
    }
    return KIT_OK;
}

double batch_decode_alone(const batch_source *s, int group, unsigned char *stage[2], int threads,
                          int reps)
{
    double *t = kit_malloc((size_t)reps * sizeof *t);
    int ok = 1;
    for (int r = 0; r < reps && ok; r++) {
        double t0 = kit_now_ms();
        for (int g = 0, first = 0; first < s->count && ok; g++, first += group)
            ok = batch_load(s, first, KIT_MIN(group, s->count - first), stage[g & 1], threads) ==
                 KIT_OK;
        t[r] = kit_now_ms() - t0;
    }
    double med = -1.0;
    if (ok) {
        kit_stats st;
        kit_stats_compute(t, reps, &st);
        med = st.median;
    }
    free(t);
    return med;
}
