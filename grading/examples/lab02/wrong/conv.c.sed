# v1's threads share out every row but the last: the bottom row keeps the poison
/^SCALAR_CODE int conv_v1(/,/^}/ s/for (int y = 0; y < height; y++) {/for (int y = 0; y < height - 1; y++) {/
