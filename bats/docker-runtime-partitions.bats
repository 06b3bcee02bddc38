#!/usr/bin/env bats
# AMD's toolkit README's "Docker Runtime Integration" and "GPU UUID Support" commands on
# 8 MI300X in CPX mode (mi300x-cpx-x8: 63 partitions, so `0-3,5,8` exists),
# served over FUSE, with a real private dockerd and Debian's rocm-smi in the
# containers. See helpers/docker_gpu.bash.

load helpers/common
load helpers/dockerd
load helpers/images
load helpers/amd_tools
load helpers/fakefs
load helpers/docker_gpu

setup_file() { gpu_docker_start mi300x-cpx-x8; }
teardown_file() { gpu_docker_stop; }
setup() { gpu_docker_baseline; }
teardown() { gpu_docker_after_test; }

# mi300x-cpx-x8.json: GPU k (PCI 05, 27, 47, 65, 85, a5, c5, e5:00.0) has
# card_minor 8k and render_minor 128+8k; its partitions p = 0..7 (0..6 for
# the last one) are cards 8k+p and renderD 128+8k+p and take indices 8k+p.
# So index i is card i and renderD 128+i, for i = 0..62.
gpu_minors() {
        [ "$1" -ge 0 ] && [ "$1" -le 62 ] || {
                echo "no GPU $1 in mi300x-cpx-x8" >&2
                return 1
        }
        echo "$1" "$((128 + $1))"
}

# rocm-smi reads the whole KFD topology of the 63 partitions (their links
# to one another: some 25,000 files) from the FUSE host whatever the
# container may use, seconds per run: where the point is which nodes the
# runtime gave, `ls -ln /dev/dri /dev/kfd` shows it, and rocm-smi runs where
# the point is what a container's ROCm sees.

@test "AMD_VISIBLE_DEVICES=all: all 63 partitions (63 card + 63 render nodes) and /dev/kfd" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus $(seq 0 62)
}

@test "AMD_VISIBLE_DEVICES=0,1,2: partitions 0-2 of the first GPU" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,1,2 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 0 1 2
}

@test "AMD_VISIBLE_DEVICES=0-3,5,8: rocm-smi lists exactly those six partitions (ls -ln /dev/dri /dev/kfd agrees)" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal rocm-smi
        assert_gpus 0 1 2 3 5 8
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 0 1 2 3 5 8
}

@test "a UUID selects every partition of that GPU, in any spelling" {
        # 0000:27:00.0 (partitions 8-15)
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0x2250F807CAF2231A rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus $(seq 8 15)
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=2250f807caf2231a rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus $(seq 8 15)
        # 0000:e5:00.0 has 7 partitions (56-62)
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0xdd197ad1b50577f6 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus $(seq 56 62)
}

@test "UUIDs mixed with indices; DOCKER_RESOURCE_GPU=<uuid>" {
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0,0x2250F807CAF2231A,9 rocm/rocm-terminal \
                ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 0 $(seq 8 15)
        ok docker run --rm --runtime=amd -e DOCKER_RESOURCE_GPU=0x2250F807CAF2231A rocm/rocm-terminal \
                ls -ln /dev/dri /dev/kfd
        assert_ls_gpus $(seq 8 15)
}

@test "AMD_VISIBLE_DEVICES=63 and a range past the end fail naming the valid range" {
        fails_with "AMD_VISIBLE_DEVICES: GPU 63 does not exist (this host has GPUs 0-62)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=63 rocm/rocm-terminal rocm-smi
        [ "$status" -eq 125 ]
        fails_with "amd-container-runtime: AMD_VISIBLE_DEVICES: GPU range 60-2000000000 goes past the last GPU (this host has GPUs 0-62)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=60-2000000000 rocm/rocm-terminal rocm-smi
        [ -z "$(docker ps -aq)" ]
}

@test "no variable and none: no GPU node" {
        ok docker run --rm --runtime=amd rocm/rocm-terminal rocm-smi
        assert_no_amdgpu
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=none rocm/rocm-terminal rocm-smi
        assert_gpus
}

@test "a live host over FUSE: repartitioning between two docker runs, then a hot-unplugged GPU" {
        gpu_host_mount "$PROFILES/mi300x-spx-x8.json"
        toolkit_config root "$GPU_HOST"
        # 8 MI300X in SPX: GPU k is card 8k, renderD 128+8k
        gpu_minors() { echo "$((8 * $1))" "$((128 + 8 * $1))"; }
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 0 1 2 3 4 5 6 7
        # GPU 0 (0000:05:00.0) to CPX: 8 partitions, indices 0-7; the others follow as 8-14
        echo CPX >"$GPU_HOST/sys/bus/pci/devices/0000:05:00.0/current_compute_partition"
        gpu_minors() {
                if [ "$1" -lt 8 ]; then echo "$1" "$((128 + $1))"; else
                        echo "$((8 * ($1 - 7)))" "$((128 + 8 * ($1 - 7)))"
                fi
        }
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        assert_gpus $(seq 0 14)
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=0-3,5,8 rocm/rocm-terminal ls -ln /dev/dri /dev/kfd
        assert_ls_gpus 0 1 2 3 5 8
        # the last GPU (0000:e5:00.0, index 14) goes away
        echo "unplug 0000:e5:00.0" >"$GPU_HOST/.fakefs/ctl"
        fails_with "AMD_VISIBLE_DEVICES: GPU 14 does not exist (this host has GPUs 0-13)" \
                docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=14 rocm/rocm-terminal rocm-smi
        ok docker run --rm --runtime=amd -e AMD_VISIBLE_DEVICES=all rocm/rocm-terminal rocm-smi
        assert_gpus $(seq 0 13)
}
