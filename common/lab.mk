# common/lab.mk - the rules every lab Makefile includes.
#
# A lab Makefile sets, then includes this file:
#   LAB_SRCS     kit-owned sources: main.c (the glue), spec.c (the description), ...
#   REF_SRCS     the lab's CPU reference (ref.c): linked into local builds, never graded ones
#   STUDENT_SRCS the files the student edits; the reference versions live in
#                solutions/<lab>/ under the same names
#   GPU          1 for a CUDA lab
#   CHECK_ARGS   argument sets `make check` runs, separated by ';'
#   LAB_LDLIBS   extra libraries (optional)
# and adds its own bench/plot/profile/... targets.
#
# Binaries: labNN (the student's files) and labNN-ref (the solution's).
# The grader builds with  make GRADED=1 O=DIR SRC=DIR labNN : objects and the
# binary under O, the student's files from SRC, the kit read-only, and no
# reference linked (the grader's copy of the kit has none).

include $(dir $(lastword $(MAKEFILE_LIST)))config.mk

LAB_DIR  := .
LAB_NAME := $(lastword $(subst /, ,$(CURDIR)))
LAB_NUM  := $(word 1,$(subst _, ,$(LAB_NAME)))
SOL_DIR  ?= $(KIT_ROOT)/solutions/$(LAB_NAME)
BIN      := lab$(LAB_NUM)
REF_BIN  := $(BIN)-ref
# OUT: where bench/plot/profile write (make bench OUT=dir); an OUT that only
# comes from the environment is ignored (some machines set it for other uses)
ifneq ($(origin OUT),command line)
  OUT := out
endif
# REF=1: bench, plot, profile and sanitize use the reference binary
RUN_BIN  := $(if $(filter 1,$(REF)),./$(REF_BIN),./$(BIN))
GPU      ?= 0
GRADED   ?= 0
O        ?= .
SRC      ?= $(LAB_DIR)
B        := $(O)/build

CFLAGS   := $(CFLAGS_KIT) -I$(LAB_DIR) $(LAB_CFLAGS)
NVCCFLAGS := $(NVCCFLAGS_KIT) -I$(LAB_DIR) $(LAB_NVCCFLAGS)

LAB_OBJS    := $(patsubst %,$(B)/%.o,$(LAB_SRCS))
SKEL_OBJS   := $(patsubst %,$(B)/skel/%.o,$(STUDENT_SRCS))
SOL_OBJS    := $(patsubst %,$(B)/sol/%.o,$(STUDENT_SRCS))
HEADERS     := $(wildcard $(LAB_DIR)/*.h) $(wildcard $(COMMON)/*.h)

ifeq ($(GRADED),1)
  # the grader's build: no reference anywhere, the kit's libraries prebuilt
  LABREF_OBJS :=
  LIBS := $(KITLIB) $(if $(filter 1,$(GPU)),$(KITGPULIB))
else
  LABREF_OBJS := $(patsubst %,$(B)/%.o,$(REF_SRCS))
  LIBS := $(KITLIB) $(KITREFLIB) $(if $(filter 1,$(GPU)),$(KITGPULIB))
endif

ifeq ($(GPU),1)
  LINK = $(NVCC) $(NVCC_ARCH) -Xcompiler -fopenmp $^ -o $@ $(LDLIBS_KIT) $(LAB_LDLIBS)
  # CUDA objects of other architectures go (config.mk, NVCC_STAMP_NAME)
  NVCC_STAMP := $(B)/$(NVCC_STAMP_NAME)
  $(call nvcc_stale,$(B),find $(B) -name '*.cu.o' -delete)
  NVCC_DONE = @touch $(NVCC_STAMP)
else
  LINK = $(CC) $(CFLAGS) $^ -o $@ $(LDLIBS_KIT) $(LAB_LDLIBS)
endif

# the reference binary exists only where solutions/ does (not in the
# student tarball, not in a graded build)
ifeq ($(GRADED),1)
all: $(O)/$(BIN)
ifneq ($(O),.)
$(BIN): $(O)/$(BIN)
.PHONY: $(BIN)
endif
else
all: $(BIN) $(if $(wildcard $(SOL_DIR)),$(REF_BIN))
endif

$(O)/$(BIN): $(LAB_OBJS) $(SKEL_OBJS) $(LABREF_OBJS) $(LIBS)
	$(LINK)

$(REF_BIN): $(LAB_OBJS) $(SOL_OBJS) $(LABREF_OBJS) $(LIBS)
	$(LINK)

# the kit's libraries are built by their own Makefile; a graded build only
# uses them (its kit is read-only)
ifneq ($(GRADED),1)
$(KITLIB) $(KITREFLIB) $(KITGPULIB): FORCE
	@$(MAKE) --no-print-directory -s -C $(COMMON)
endif

$(B)/%.c.o: $(LAB_DIR)/%.c $(HEADERS) | $(B)/skel $(B)/sol
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/%.cu.o: $(LAB_DIR)/%.cu $(HEADERS) | $(B)/skel $(B)/sol
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
	$(NVCC_DONE)
$(B)/skel/%.c.o: $(SRC)/%.c $(HEADERS) | $(B)/skel
	$(CC) $(CFLAGS) -c $< -o $@
	$(LOCALIZE)
$(B)/skel/%.cu.o: $(SRC)/%.cu $(HEADERS) | $(B)/skel
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
	$(NVCC_DONE)
	$(LOCALIZE)

# ---- a graded build keeps global only the student's entry points: the
# symbols the skeleton defines (make entry-list ENTRY_OUT=FILE writes them
# once; a graded build gets ENTRY=FILE). Anything else the student's files
# define (a clock_gettime of their own, say) becomes local to them, so it
# cannot stand in for the C library or the kit in the harness's code.
ENTRY_OUT ?= $(B)/entry.txt
LOCALIZE   = $(if $(ENTRY),objcopy --keep-global-symbols=$(ENTRY) $@)
entry-list: $(patsubst %,$(B)/entry/%.o,$(STUDENT_SRCS))
	@nm -g --defined-only $^ | awk 'NF == 3 { print $$3 }' | sort -u >$(ENTRY_OUT)
$(B)/entry/%.c.o: $(LAB_DIR)/%.c $(HEADERS)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/entry/%.cu.o: $(LAB_DIR)/%.cu $(HEADERS)
	@mkdir -p $(@D)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
	$(NVCC_DONE)
$(B)/sol/%.c.o: $(SOL_DIR)/%.c $(HEADERS) | $(B)/sol
	$(CC) $(CFLAGS) -c $< -o $@
$(B)/sol/%.cu.o: $(SOL_DIR)/%.cu $(HEADERS) | $(B)/sol
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
	$(NVCC_DONE)
$(B)/skel $(B)/sol:
	@mkdir -p $@

# ---- planted wrong solutions: the reference with a sed script of
# tests/planted/<lab>/NAME.sed applied (a deliberate bug). The tests, the
# sanitizer check and the plot panel use them:  make PLANTED=NAME labNN-NAME
PLANTED     ?= wrong
PLANTED_SED := $(KIT_ROOT)/tests/planted/$(LAB_NAME)/$(PLANTED).sed
PLANTED_DIR := build/planted-$(PLANTED)
PLANTED_OBJS := $(patsubst %,$(PLANTED_DIR)/%.o,$(STUDENT_SRCS))
$(PLANTED_DIR)/%: $(SOL_DIR)/% $(PLANTED_SED)
	@mkdir -p $(PLANTED_DIR)
	sed -f $(PLANTED_SED) $< > $@
$(PLANTED_DIR)/%.c.o: $(PLANTED_DIR)/%.c $(HEADERS)
	$(CC) $(CFLAGS) -c $< -o $@
$(PLANTED_DIR)/%.cu.o: $(PLANTED_DIR)/%.cu $(HEADERS)
	$(NVCC) $(NVCCFLAGS) -c $< -o $@
	$(NVCC_DONE)
# a planted bug must change at least one of the student's files
$(BIN)-$(PLANTED): $(LAB_OBJS) $(PLANTED_OBJS) $(LABREF_OBJS) $(LIBS)
	@changed=0; for f in $(STUDENT_SRCS); do cmp -s $(SOL_DIR)/$$f $(PLANTED_DIR)/$$f || changed=1; done; \
	  [ $$changed = 1 ] || { echo "$(PLANTED_SED) changed nothing in $(STUDENT_SRCS)"; exit 1; }
	$(LINK)

# ---- the student's tools: make check, make bench's runs, make presubmit
# (common/student/). They go variant by variant: a variant not written yet
# is reported as such and the others are still checked, timed and plotted.
STUDENT_TOOLS := $(COMMON)/student
ifeq ($(REF),1)
ifeq ($(wildcard $(SOL_DIR)),)
$(error REF=1 runs the reference solution, which this copy of the kit does not have; make check, make bench and make plot without it use your own $(BIN))
endif
endif

# make check: every variant on every input of CHECK_ARGS (REF=1: the
# solution's). V=N (or V=PART:N) checks one variant. The diff picture of each
# failing case goes to $(OUT)/check/, named after the case.
CHECK_TIMEOUT ?= 300
check: all
	@$(STUDENT_TOOLS)/check.sh --bin $(RUN_BIN) --lab $(LAB_NUM) --cases '$(CHECK_ARGS)' \
	  --out "$(OUT)/check" --timeout $(CHECK_TIMEOUT) $(if $(V),--only $(V)) $(CHECK_FLAGS)

# A lab's bench runs its binary through $(RUN_VARIANTS) instead of $(RUN_BIN):
# the same run, that goes on past variants not written yet or broken.
RUN_VARIANTS = $(STUDENT_TOOLS)/run-variants.sh $(RUN_BIN)

# make presubmit: the student's files built in a fresh copy of the kit the
# way the grader builds them (GRADED=1, warnings as errors, no reference),
# the forbidden-symbol check, and the public cases (CHECK_ARGS) run in the
# grader's mode and judged by the grader's checker (grading/check.c, built
# here for this lab from spec.c and ref.c).
PRESUBMIT_CHECKER := build/check-$(LAB_NUM)
$(PRESUBMIT_CHECKER): $(KIT_ROOT)/grading/check.c $(wildcard $(LAB_DIR)/spec*.c) $(REF_SRCS) $(HEADERS) $(KITLIB) $(KITREFLIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $< $(wildcard $(LAB_DIR)/spec*.c) $(REF_SRCS) -o $@ $(KITREFLIB) $(KITLIB) $(LDLIBS_KIT)
# the toolchain choices of this make (CC, NVCC, CUDA_ARCH) go to the grader's
# build too; nothing else of its command line does
PRESUBMIT_PASS := $(foreach v,CC NVCC CUDA_ARCH,$(if $(filter command line environment,$(origin $(v))),--make-arg "$(v)=$($(v))"))
presubmit: $(KITLIB) $(if $(filter 1,$(GPU)),$(KITGPULIB)) $(PRESUBMIT_CHECKER)
	@$(STUDENT_TOOLS)/presubmit.sh --lab $(LAB_NUM) --srcs "$(STUDENT_SRCS)" \
	  --checker $(PRESUBMIT_CHECKER) --cases '$(CHECK_ARGS)' --out "$(OUT)/presubmit" \
	  --timeout $(CHECK_TIMEOUT) $(PRESUBMIT_PASS)

# ---- the skeleton is generated from the solution, never edited by hand
skeleton:
	@for f in $(STUDENT_SRCS); do \
	  awk -f $(COMMON)/scripts/mkskel.awk $(SOL_DIR)/$$f > $$f.tmp && mv $$f.tmp $$f || exit 1; \
	  echo "generated $(LAB_NAME)/$$f from solutions/$(LAB_NAME)/$$f"; done

skeleton-check:
	@for f in $(STUDENT_SRCS); do \
	  awk -f $(COMMON)/scripts/mkskel.awk $(SOL_DIR)/$$f | diff -u $$f - >/dev/null || \
	  { echo "$(LAB_NAME)/$$f differs from the skeleton generated from solutions/ (run make skeletons)"; exit 1; }; done

# ---- make figures (on the machine the figures are for): the reference's
# figures the handout shows, measured into figures/$(MACHINE).tsv with their
# provenance. A lab sets FIGURES_RUN (its targets that measure, run with REF=1
# into FIGURES_OUT; name=value words after a target go to that target's make)
# and FIGURES_FILES (the TSVs they write there). common/scripts/figures.sh
# runs it for every lab with MACHINE, DRIVER and COMMIT set; make figures-table
# renders figures/*.tsv into the figures block of the handout and of each of
# its translations (README.LANG.md: the same block, in English), make
# figures-check says whether they are rendered.
FIGURES_RUN   ?= bench
FIGURES_FILES ?= bench.tsv
FIGURES_OUT   ?= out/figures
MACHINE       ?= $(shell nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | tr -c 'A-Za-z0-9.\n' - | tr -d '\n')
figures: all
	@test -n "$(MACHINE)" || { echo "figures: no GPU named (set MACHINE=NAME)"; exit 2; }
	@rm -rf $(FIGURES_OUT); mkdir -p $(FIGURES_OUT)
	@set -- $(FIGURES_RUN); while [ $$# -gt 0 ]; do t=$$1; shift; args=""; \
	  while [ $$# -gt 0 ] && case $$1 in *=*) true ;; *) false ;; esac; do args="$$args $$1"; shift; done; \
	  s=$$(date +%s); $(MAKE) --no-print-directory -s $$t REF=1 OUT=$(FIGURES_OUT) $$args || exit $$?; \
	  echo "figures-step: $$t $$(( $$(date +%s) - s )) s"; done
	@python3 $(COMMON)/scripts/figures.py collect --lab-dir . --machine "$(MACHINE)" --commit "$(COMMIT)" \
	  --sources "$(SOURCES)" --driver "$(DRIVER)" $(addprefix $(FIGURES_OUT)/,$(FIGURES_FILES))
FIGURES_HANDOUTS := README.md $(sort $(wildcard README.*.md))
figures-table:
	@python3 $(COMMON)/scripts/figures.py render $(FIGURES_HANDOUTS) figures
figures-check:
	@python3 $(COMMON)/scripts/figures.py render $(FIGURES_HANDOUTS) figures --check

$(OUT):
	@mkdir -p $@

clean:
	rm -rf build $(BIN) $(REF_BIN) $(BIN)-* $(OUT) *-diff.png

FORCE:
.PHONY: all check presubmit skeleton skeleton-check entry-list clean bench plot profile sanitize figures figures-table figures-check FORCE
