# the preprocessor reads /dev/zero for ever: the build grows until the memory limit stops it
1i\
#include "/dev/zero"
