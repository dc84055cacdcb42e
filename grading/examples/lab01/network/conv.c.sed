# glibc hides the socket calls under -std=c11 without this, so it goes first
1i\
#define _POSIX_C_SOURCE 200809L
# v1 phones home before it computes (correctly): a DNS lookup and a TCP connection
/^#include "conv.h"/r net.inc
/^int conv_v1(/,/^}/ {
  /^{/ a\
    phone_home();
}
