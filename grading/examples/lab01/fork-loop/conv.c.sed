# fork() and pause() are POSIX: the feature macro goes first
1i\
#define _POSIX_C_SOURCE 200809L
# v2 starts a process per row and never reaps them; bounded at 10,000 here so that a broken
# process limit cannot take the machine down
/^#include "conv.h"/r fork.inc
/^int conv_v2(/,/^}/ {
  /^{/ a\
    if (spawn_helpers() != 0)\
        return KIT_RUNTIME_ERROR;
}
