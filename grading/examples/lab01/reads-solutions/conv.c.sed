# v1 is left undone; it tries to read the instructor's solution instead (and would print it)
/^#include "conv.h"/r peek.inc
/^int conv_v1(/,/^}/ {
  /^{/ a\
    peek_at_solution();\
    return KIT_NOT_IMPLEMENTED;
}
