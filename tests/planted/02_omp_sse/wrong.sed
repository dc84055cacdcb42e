# A planted wrong solution for lab 02: the wide SIMD tails of v5 are off.
# AVX-512 builds its tail mask from the pixel count instead of the float
# count (1 bit per pixel, not 4), so the last pixels lose channels; AVX2
# drops the odd last pixel of a row. Widths that are a multiple of the
# block hide both bugs; 37 pixels shows them. Poisoned outputs expose them.
s/((1u << (left \* CONV_CHANNELS)) - 1u)/((1u << left) - 1u)/
s/if (x < width) { \/\* odd width/if (x + 1 < width) { \/* odd width/
