# the pixel helper of v1 to v3 repeats the edge pixels instead of reading zeros outside the
# picture: wrong, also where the first content hid it (a 1x1 picture of value 0) and only a
# repetition's fresh content shows it (wrong, not replayed: its output is not the first one)
/^__device__ KIT_MAYBE_UNUSED static inline void conv_pixel(/,/^}/ {
  s/const int yy = y + i - radius;/const int yy = min(max(y + i - radius, 0), height - 1);/
  s/const int xx = x + j - radius;/const int xx = min(max(x + j - radius, 0), width - 1);/
}
