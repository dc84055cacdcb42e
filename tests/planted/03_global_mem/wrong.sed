# A planted wrong solution for lab 03: v1 to v5 drop the right-most column
# of taps at the picture's right edge (an off-by-one in the border guard of
# the shared pixel helper and of the unrolled kernels).
s/if (xx < 0 || xx >= width)/if (xx < 0 || xx >= width - 1)/
