# a renamed variable in v2 that the rest of the function still calls by its old name
/^int conv_v2(/,/^}/ s/const long ext_row = (long)ext_width/const long ext_stride = (long)ext_width/
