# A planted wrong solution for lab 01: v1 and v2 skip the last output row
# (a classic off-by-one at the border). Poisoned outputs must expose it.
s/for (int y = 0; y < height; y++)/for (int y = 0; y < height - 1; y++)/
