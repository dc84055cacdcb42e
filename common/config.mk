# common/config.mk - toolchain settings shared by common/Makefile and lab.mk.
# Override on the command line: make CUDA_ARCH=90, make CC=clang, make WERROR=1.

# Relative paths (from the folder make runs in), so a kit unpacked under a path
# with a space in it (a WSL home such as /mnt/c/Users/First Last) still builds.
COMMON   := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
KIT_ROOT := $(COMMON)/..

CC       := gcc
NVCC     ?= $(shell command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)
CUDA_HOME ?= $(patsubst %/bin/nvcc,%,$(NVCC))

# stb: the system package (Debian libstb-dev), else the local prefix that
# common/scripts/setup.sh unpacks into .deps/ when there is no root.
LOCAL_PREFIX := $(KIT_ROOT)/.deps/usr
STB_LIB_DIR  := $(firstword $(wildcard /usr/lib/x86_64-linux-gnu/libstb.a /usr/lib/aarch64-linux-gnu/libstb.a /usr/lib/libstb.a) $(wildcard $(LOCAL_PREFIX)/lib/*/libstb.a))
ifeq ($(wildcard /usr/include/stb/stb_image.h),)
  STB_CFLAGS := -I$(LOCAL_PREFIX)/include
else
  STB_CFLAGS :=
endif
# static, so binaries run on a machine without libstb (the GPU machine)
STB_LIBS := $(if $(STB_LIB_DIR),$(STB_LIB_DIR),-lstb)

WARN     := -Wall -Wextra
ifeq ($(WERROR),1)
  WARN   += -Werror
endif
OPT      ?= -O2
CFLAGS_KIT := -std=c11 $(OPT) -g $(WARN) -fopenmp -I$(COMMON) -I$(CUDA_HOME)/include $(STB_CFLAGS)
LDLIBS_KIT := $(STB_LIBS) -lm -lgomp

# CUDA architecture: the local GPU's when there is one, else a fat binary of
# the architectures of KIT_FAT_ARCH that the nvcc in use builds for (it is
# asked: nvcc --list-gpu-code), machine code for each and PTX of the newest
# for newer GPUs. CUDA 13 builds sm_75 and newer; CUDA 12 builds sm_70 (V100)
# too. sm_86 and sm_89 GPUs run the sm_80 code. Override: make CUDA_ARCH="80 90"
# (machine code for exactly those), or make KIT_FAT_ARCH="70 75 80 86 89 90".
KIT_FAT_ARCH ?= 70 75 80 90
ifeq ($(origin CUDA_ARCH),undefined)
  CUDA_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r')
  KIT_ARCH_FOUND := $(CUDA_ARCH)
endif
# what this nvcc builds (75 80 ...; empty without an nvcc): asked where
# CUDA_ARCH is found or empty, not where the command line or environment gives it
ifeq ($(filter-out $(KIT_ARCH_FOUND),$(CUDA_ARCH)),)
  NVCC_CODES := $(patsubst sm_%,%,$(filter sm_%,$(shell $(NVCC) --list-gpu-code 2>/dev/null)))
endif
ifeq ($(strip $(CUDA_ARCH)),)
  # KIT_FAT_ARCH's order (oldest first); no answer from nvcc: sm_75, sm_80, sm_90
  FAT_ARCH := $(or $(filter $(NVCC_CODES),$(KIT_FAT_ARCH)),75 80 90)
  FAT_PTX  := $(lastword $(FAT_ARCH))
  NVCC_ARCH := $(foreach a,$(filter-out $(FAT_PTX),$(FAT_ARCH)),-gencode arch=compute_$(a),code=sm_$(a)) \
               -gencode arch=compute_$(FAT_PTX),code=[sm_$(FAT_PTX),compute_$(FAT_PTX)]
else
  ifneq ($(and $(KIT_ARCH_FOUND),$(NVCC_CODES)),)
    ifeq ($(filter $(KIT_ARCH_FOUND),$(NVCC_CODES)),)
      $(warning this GPU is sm_$(KIT_ARCH_FOUND), which $(NVCC) does not build for: use a CUDA toolkit that does (make NVCC=/path/to/its/bin/nvcc; README.md, Support))
    endif
  endif
  NVCC_ARCH := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a))
endif
NVCC_WARN  := -Xcompiler -Wall,-Wextra $(if $(filter 1,$(WERROR)),-Werror all-warnings -Xcompiler -Werror)
NVCCFLAGS_KIT := -O3 -g -lineinfo $(NVCC_ARCH) $(NVCC_WARN) -I$(COMMON) $(STB_CFLAGS) $(NVCC_EXTRA)

# CUDA objects hold machine code for the architectures they were built for. A makefile that
# builds them keeps a stamp in its build folder, NVCC_STAMP_NAME (a checksum of the flags that
# choose the code), touched by each nvcc rule; a build that finds a stamp of other flags (built
# on another GPU, or with another CUDA_ARCH) removes those objects first, so that no binary
# links code for a GPU it will not run on ("no kernel image is available")
NVCC_STAMP_NAME = .nvcc-$(firstword $(shell printf '%s' '$(NVCC_ARCH) $(NVCC_EXTRA)' | cksum))
# $(call nvcc_stale,DIR,OBJECTS): removes OBJECTS (a find -name pattern, or files) where DIR
# holds a stamp of other flags; nothing where it holds none (a fresh or seeded folder)
nvcc_stale = $(if $(wildcard $(1)/.nvcc-*),$(if $(wildcard $(1)/$(NVCC_STAMP_NAME)),,$(shell $(2); rm -f $(1)/.nvcc-*)))

KITLIB    := $(COMMON)/build/libkit.a
KITGPULIB := $(COMMON)/build/libkitgpu.a
KITREFLIB := $(COMMON)/build/libkitref.a
