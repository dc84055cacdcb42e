# v1 first takes 2048 MiB of device memory (twice the examples' GPU memory limit,
# grading/examples/lab06/rubric), writes it, and keeps it for the life of the process
/^#include "matvec.h"/r hog.inc
/^int matvec_v1(/,/^{/ {
  /^{/ a\
    if (hog_device_memory() != KIT_OK)\
        return KIT_RUNTIME_ERROR;
}
