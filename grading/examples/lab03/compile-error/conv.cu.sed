# a semicolon lost in v1's launcher
/^int conv_v1(/,/^}/ s/dim3 block(block_w, block_h);/dim3 block(block_w, block_h)/
