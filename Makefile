# The kit's top-level Makefile.
#   make            build every lab: labNN (skeleton) and labNN-ref (solution)
#   make demo       the kit's main job on built-in inputs -> out/demo/index.md
#   make test       the whole test suite (ends with "N passed, N failed, N skipped")
#   make skeletons  regenerate every lab's skeleton from solutions/
#   make bench      every lab's benchmark with the reference (REF=1)
#   make gpu-check  on a machine with a GPU: build, figures, demo and GPU tests, one summary
#   make gpu        the same with the sanitizer, profiles and benchmarks too
#   make figures    every lab's reference figures (labs/NN/figures/GPU.tsv), into the handouts
#   make figures-table  the handouts' figures blocks (README.md and every README.LANG.md)
#                   rendered again from labs/NN/figures; make figures-check: are they?
#   make glossary   docs/glossary.md (the course's terms in the handouts' languages) from
#                   docs/glossary/terms.txt and LANG.tsv; make glossary-check: is it?
#   make compat     every lab built with CUDA 12.4 for sm_70 and up (downloads ~500 MB
#                   once into .deps/cuda12; not part of make test)
#   make dist-student   the tarball handed to students (LABS=01,02: a release of some labs;
#                   LANG=el, ru, it or hu: each lab's README.md is the handout in that language,
#                   the English one beside it as README.en.md)
#   make new-lab NN=08 NAME=scale   lay out a new lab (labs/08_scale, its solution, rubric,
#                   grading example and tests/cli/lab08.bats): a stub that builds and passes
LABS := $(patsubst %/Makefile,%,$(sort $(wildcard labs/*/Makefile)))

all: common $(LABS)

common:
	@$(MAKE) --no-print-directory -C common

$(LABS): common
	@$(MAKE) --no-print-directory -C $@

setup:
	@common/scripts/setup.sh

test: setup
	@tests/run

demo: setup
	@common/scripts/demo.sh

skeletons:
	@for d in $(LABS); do $(MAKE) --no-print-directory -C $$d skeleton || exit 1; done

bench: all
	@for d in $(LABS); do $(MAKE) --no-print-directory -C $$d bench REF=1 || exit 1; done

plot:
	@for d in $(LABS); do $(MAKE) --no-print-directory -C $$d plot || exit 1; done

gpu:
	@common/scripts/gpu-run.sh build figures demo tests sanitize profile bench

gpu-check:
	@common/scripts/gpu-run.sh build figures demo tests

figures: all
	@common/scripts/figures.sh

figures-table:
	@for d in $(LABS); do $(MAKE) --no-print-directory -s -C $$d figures-table || exit 1; done

figures-check:
	@for d in $(LABS); do $(MAKE) --no-print-directory -s -C $$d figures-check || exit 1; done

glossary:
	@python3 common/scripts/glossary.py render

glossary-check:
	@python3 common/scripts/glossary.py render --check

compat:
	@common/scripts/compat.sh

# LABS on the command line names the labs of a release (01,02); else every lab.
# LANG on the command line names the handouts' language; LANG from the
# environment is the locale, and no choice of language
dist-student:
	@common/scripts/dist-student.sh $(if $(filter command line,$(origin LANG)),--lang "$(LANG)") \
	  $(if $(filter command line,$(origin LABS)),"$(LABS)")

new-lab:
	@common/scripts/new-lab.sh "$(NN)" "$(NAME)"

clean:
	@$(MAKE) --no-print-directory -C common clean
	@$(MAKE) --no-print-directory -C tests clean
	@for d in $(LABS); do $(MAKE) --no-print-directory -C $$d clean; done
	rm -rf out tests/log

.PHONY: all common $(LABS) setup test demo skeletons bench plot gpu gpu-check figures figures-table figures-check glossary glossary-check compat dist-student new-lab clean
