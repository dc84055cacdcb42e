# v4 (delete a plane, struct of arrays) still indexes the picture as the array of structs: it
# zeroes float 3*i + channel of the planes' one allocation (from img.r), as v3 zeroes img[i].g.
# In bounds (3*i + 2 < 3n) and right for a single pixel only: for more it zeroes every third
# float of all three planes, from the channel's offset on, and leaves most of the plane it
# should clear
/^__global__ void delete_plane_soa(/,/^}/ {
  s/^    float \*p = plane == 'r' ? img\.r : plane == 'g' ? img\.g : img\.b;$/    const int c = plane == 'r' ? 0 : plane == 'g' ? 1 : 2;/
  s/^    p\[i\] = 0\.0f;$/    img.r[3 * i + c] = 0.0f; \/\/ pixel i's channel c, as in r g b r g b .../
}
