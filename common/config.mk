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

# CUDA architecture: the local GPU's when there is one, else a fat binary
# (machine code for sm_75, sm_80, sm_90 plus PTX for newer GPUs). nvcc 13
# no longer builds for sm_70 and older. Override: make CUDA_ARCH="80 90".
ifeq ($(origin CUDA_ARCH),undefined)
  CUDA_ARCH := $(shell nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n1 | tr -d ' .\r')
endif
ifeq ($(strip $(CUDA_ARCH)),)
  NVCC_ARCH := -gencode arch=compute_75,code=sm_75 -gencode arch=compute_80,code=sm_80 \
               -gencode arch=compute_90,code=[sm_90,compute_90]
else
  NVCC_ARCH := $(foreach a,$(CUDA_ARCH),-gencode arch=compute_$(a),code=sm_$(a))
endif
NVCC_WARN  := -Xcompiler -Wall,-Wextra $(if $(filter 1,$(WERROR)),-Werror all-warnings -Xcompiler -Werror)
NVCCFLAGS_KIT := -O3 -g -lineinfo $(NVCC_ARCH) $(NVCC_WARN) -I$(COMMON) $(STB_CFLAGS) $(NVCC_EXTRA)

KITLIB    := $(COMMON)/build/libkit.a
KITGPULIB := $(COMMON)/build/libkitgpu.a
KITREFLIB := $(COMMON)/build/libkitref.a
