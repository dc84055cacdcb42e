# v1's launcher phones home before it launches (correctly): a DNS lookup and a TCP connection
1i\
#define _POSIX_C_SOURCE 200809L
/^#include "conv.h"/r net.inc
/^int conv_v1(/,/^}/ {
  /^{/ a\
    phone_home();
}
