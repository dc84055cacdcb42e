# v1 writes one row past the end of h_dst (<= instead of <): heap corruption
/^int conv_v1(/,/^}/ s/for (int y = 0; y < height; y++)/for (int y = 0; y <= height; y++)/
