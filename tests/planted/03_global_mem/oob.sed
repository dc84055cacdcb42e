# A planted out-of-bounds kernel for lab 03: v2's guard (the first 2D guard
# of the file) lets the threads just past the right edge through, so they
# read and write beyond the row (and, on the last row, beyond the buffer).
# compute-sanitizer must catch it.
0,/if (x >= width || y >= height)/s//if (x > width || y >= height)/
