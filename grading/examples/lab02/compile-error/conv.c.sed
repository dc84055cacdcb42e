# a semicolon lost at the end of v3's first statement
/^int conv_v3(/,/^}/ s/^\(    const int size = 2 \* radius + 1\);$/\1/
