# A planted out-of-bounds kernel for lab 06: v1's guard lets the thread
# just past the last row through, so it reads one row beyond A and writes
# one element beyond y. compute-sanitizer memcheck must catch it.
0,/if (i >= m)/s//if (i > m)/
