# A planted out-of-bounds kernel for lab 05 (both given kernels): the guards
# let the threads one past the right edge through, so they read past the row
# and write one element past it; in a buffer of exactly the picture (strip
# v1's tmp, batch v1's output) that is past the allocation. compute-sanitizer
# must catch it.
0,/if (x >= width || y >= n)/s//if (x > width || y >= n)/
0,/if (x >= width || y >= height)/s//if (x > width || y >= height)/
