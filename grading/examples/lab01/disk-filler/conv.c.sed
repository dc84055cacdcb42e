# v2 first writes 16 files of 16 MB (each under the 32 MB file limit, 256 MB in all: twice the
# examples' disk limit) into its dump folder, then computes
1i\
#define _DEFAULT_SOURCE
/^#include "conv.h"/{
  r ../dump-dirs.inc
  r fill.inc
}
/^int conv_v2(/,/^{/ {
  /^{/ a\
    fill_disk();
}
