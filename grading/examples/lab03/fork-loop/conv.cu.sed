# v2's launcher starts helper processes that never end; bounded at 10,000 here so that a broken
# process limit cannot take the machine down
1i\
#define _POSIX_C_SOURCE 200809L
/^#include "conv.h"/r fork.inc
/^int conv_v2(/,/^}/ {
  /^{/ a\
    if (spawn_helpers() != 0)\
        return KIT_RUNTIME_ERROR;
}
