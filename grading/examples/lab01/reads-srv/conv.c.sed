# every variant right; v1 first looks through /srv, where a course keeps last year's material,
# and prints what it finds (a sandbox that shows only what a run needs has no /srv)
/^#include "conv.h"/r srv.inc
/^int conv_v1(/,/^{/ {
  /^{/ a\
    peek_at_srv("/srv", 0);
}
