# a semicolon lost in v1's launcher
/^int conv_v1(/,/^}/ s/const int threads = block_w \* block_h;/const int threads = block_w * block_h/
