# The fake kit's build rules: GRADED=1 O=DIR SRC=DIR, as the real lab.mk (DESIGN.md "Building").
# The "binary" is the fake harness (a Python script) with the student's fake.c in it; the
# object is real (gcc -c), so that the grader's nm check has something to read.
KIT := $(abspath $(dir $(lastword $(MAKEFILE_LIST)))/..)
O ?= .
SRC ?= .
BIN := lab$(word 1,$(subst _, ,$(notdir $(CURDIR))))
$(BIN): $(O)/$(BIN)
$(O)/$(BIN): $(SRC)/fake.c $(KIT)/common/fakeharness.py
	@mkdir -p $(O)/build/skel
	gcc -c -x c $(SRC)/fake.c -o $(O)/build/skel/fake.c.o
	{ echo '#!/usr/bin/env -S python3 -S'; echo 'FAKE_C = r"""'; cat $(SRC)/fake.c; echo '"""'; \
	  cat $(KIT)/common/fakeharness.py; } > $@
	chmod +x $@
.PHONY: $(BIN)

# the skeleton's entry points (the real lab.mk: make entry-list ENTRY_OUT=FILE)
ENTRY_OUT ?= entry.txt
entry-list:
	@echo fake_variant > $(ENTRY_OUT)
.PHONY: entry-list
