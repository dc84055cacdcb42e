# every variant right; at exit the run folder (the parent of the first --dump folder) is moved
# aside and replaced by a link to /etc, a folder the student does not own: a grader that then
# creates, removes or chowns through that path as root works on /etc
1i\
#define _DEFAULT_SOURCE
/^#include "conv.h"/{
  r ../dump-dirs.inc
  r swap.inc
}
