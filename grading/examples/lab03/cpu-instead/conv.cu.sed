# v2 gave up on its kernel and computes on the host: right, but no kernel is launched
/^__constant__ float c_filter\[CONV_MAX_TAPS\];/r host.inc
/^int conv_v2(/,/^}/ {
  /^{/ a\
    return conv_on_host(d_in, d_out, width, height, d_filter, radius);
}
