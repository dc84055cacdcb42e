# v4 first launches a kernel that spins on a flag nobody sets: the harness's synchronisation never
# returns, and v4's own kernel, queued behind it, never runs
/^#include "matvec.h"/r spin.inc
/^int matvec_v4(/,/^{/ {
  /^{/ a\
    spin_forever<<<1, 1>>>();\
    KIT_CHECK_LAUNCH();
}
