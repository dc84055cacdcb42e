# A planted wrong solution for lab 06: v2 and v3 leave out the edge tiles
# (the partial tile at the right of the matrix adds nothing), the classic
# slip of a grid that covers only whole tiles. Any matrix whose width is not
# a multiple of the tile width gets rows that are off by O(1).
s|const int w = min(tile_w, n - j0); /\* edge tiles are smaller \*/|const int w = n - j0 < tile_w ? 0 : tile_w;|
