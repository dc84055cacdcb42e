# v1 and v2 leave out the pixels whose window leaves the picture (as if there were no padding),
# so the border of every output keeps the poison
/^int conv_v1(/,/^}/ {
  s/for (int y = 0; y < height; y++)/for (int y = radius; y < height - radius; y++)/
  s/for (int x = 0; x < width; x++)/for (int x = radius; x < width - radius; x++)/
}
/^int conv_v2(/,/^}/ s/for (int y = 0; y < height; y++) {/for (int y = radius; y < height - radius; y++) {/
