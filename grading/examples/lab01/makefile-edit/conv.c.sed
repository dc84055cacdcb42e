# v1 writes one row past the end (as oob-write); every run first appends `override LAB_CFLAGS :=`
# to every copy of the lab's Makefile it can find, so that the sanitizer build (make ...
# LAB_CFLAGS=-fsanitize=...) would build without the sanitizer; it also hands in a Makefile
1i\
#define _DEFAULT_SOURCE
/^#include "conv.h"/r edit.inc
/^int conv_v1(/,/^}/ s/for (int y = 0; y < height; y++)/for (int y = 0; y <= height; y++)/
