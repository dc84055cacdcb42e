# A planted wrong solution for lab 03: v1 to v3 drop the right-most column
# of taps at the picture's right edge (an off-by-one in the border guard).
s/if (xx < 0 || xx >= width)/if (xx < 0 || xx >= width - 1)/
