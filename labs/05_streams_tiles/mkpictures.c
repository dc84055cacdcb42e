/* mkpictures.c - `make pictures`: write the pictures of a generated batch
 * (part batch, the same scenes as --count N --size WxH --seed S) as PNG
 * files DIR/00000.png, DIR/00001.png, ..., for batch v5 to decode from disk.
 *   build/mkpictures DIR COUNT WxH [SEED]
 */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <stb/stb_image_write.h>

#include "image.h"
#include "kit.h"
#include "lab05.h"

int main(int argc, char **argv)
{
    kit_prog = "mkpictures";
    int count = 0, w = 0, h = 0;
    unsigned long long seed = 1;
    if (argc < 4 || argc > 5 || sscanf(argv[2], "%d", &count) != 1 || count < 1 ||
        sscanf(argv[3], "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 8192 || h > 8192 ||
        (argc == 5 && sscanf(argv[4], "%llu", &seed) != 1)) {
        fprintf(stderr, "usage: mkpictures DIR COUNT WxH [SEED]\n");
        return KIT_EXIT_USAGE;
    }
    if (mkdir(argv[1], 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "mkpictures: cannot make %s: %s\n", argv[1], strerror(errno));
        return KIT_EXIT_USAGE;
    }
    /* quick to write; decoding costs about the same at any level */
    stbi_write_png_compression_level = 1;
    stbi_write_force_png_filter = 1;
    int failed = 0;
#pragma omp parallel for schedule(dynamic, 4)
    for (int i = 0; i < count; i++) {
        unsigned char *px = kit_malloc((size_t)w * (size_t)h * 3);
        char path[4096], err[512];
        batch_generate(px, w, h, seed, i);
        snprintf(path, sizeof path, "%s/%05d.png", argv[1], i);
        if (kit_png_write(path, px, w, h, 3, err, sizeof err)) {
#pragma omp critical(mkpictures)
            {
                if (!failed)
                    fprintf(stderr, "mkpictures: %s\n", err);
                failed = 1;
            }
        }
        free(px);
    }
    if (failed)
        return KIT_EXIT_RUNTIME;
    printf("wrote %d pictures of %dx%d into %s\n", count, w, h, argv[1]);
    return 0;
}
