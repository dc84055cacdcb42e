# v2 first takes and touches 768 MB, twice the examples' memory limit (grading/examples/lab01/rubric)
/^#include "conv.h"/r hog.inc
/^int conv_v2(/,/^{/ {
  /^{/ a\
    if (hog_memory() != 0)\
        return KIT_RUNTIME_ERROR;
}
