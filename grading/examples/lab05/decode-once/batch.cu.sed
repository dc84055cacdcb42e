# v5 decodes every picture once, in its first call, and afterwards copies the kept pictures
# into its staging buffers instead of calling batch_load() (kept.inc)
1i\
#include <stdlib.h>\
#include <string.h>
/^#include "batch.h"/r kept.inc
/^int batch_v5(/,/^}/ s/batch_load(j->src, /kept_load(j, /
