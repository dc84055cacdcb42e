# batch v5 decodes the whole batch before its first GPU call (first.inc), then filters it
/^#include "batch.h"/r first.inc
/^int batch_v5(/,/^}/ s/^    KIT_REQUIRE(j->loaders >= 1);$/&\n    return decode_first(j);/
