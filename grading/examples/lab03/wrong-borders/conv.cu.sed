# the pixel helper of v1 to v3 repeats the edge pixels instead of reading zeros outside the picture
/^__device__ KIT_MAYBE_UNUSED static inline void conv_pixel(/,/^}/ {
  s/const int yy = y + i - radius;/const int yy = min(max(y + i - radius, 0), height - 1);/
  s/const int xx = x + j - radius;/const int xx = min(max(x + j - radius, 0), width - 1);/
}
