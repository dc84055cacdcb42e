# The kit's top-level Makefile.
#   make            build every lab: labNN (skeleton) and labNN-ref (solution)
#   make demo       the kit's main job on built-in inputs -> out/demo/index.md
#   make test       the whole test suite (ends with "N passed, N failed, N skipped")
#   make skeletons  regenerate every lab's skeleton from solutions/
#   make bench      every lab's benchmark with the reference (REF=1)
#   make gpu        on a machine with a GPU: build, GPU tests, sanitizer, benchmarks
#   make compat     every lab built with CUDA 12.4 for sm_70 and up (downloads ~500 MB
#                   once into .deps/cuda12; not part of make test)
#   make dist-student   the tarball handed to students (LABS=01,02: a release of some labs)
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
	@common/scripts/gpu-run.sh

compat:
	@common/scripts/compat.sh

# LABS on the command line names the labs of a release (01,02); else every lab
dist-student:
	@common/scripts/dist-student.sh $(if $(filter command line,$(origin LABS)),"$(LABS)")

clean:
	@$(MAKE) --no-print-directory -C common clean
	@$(MAKE) --no-print-directory -C tests clean
	@for d in $(LABS); do $(MAKE) --no-print-directory -C $$d clean; done
	rm -rf out tests/log

.PHONY: all common $(LABS) setup test demo skeletons bench plot gpu compat dist-student clean
