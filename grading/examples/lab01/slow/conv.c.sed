# v2 is right but no faster than v1: it calls the naive loops
/^int conv_v2(/,/^{/ {
  /^{/ a\
    /* the loop order did not make a difference on my laptop, so v2 reuses v1 */\
    return conv_v1(h_src, ext_width, h_dst, width, height, h_filter, radius);
}
