#!/usr/bin/env bats
# Debian's rocm-smi inside containers on a simulated host, on Debian sid's
# engines (Docker 28.5, Podman 5.8) with the cgroup v2 view: a container
# sees exactly its GPUs, because the simulator answers EPERM to a read of
# another GPU's KFD node as amdkfd does, deciding by the container's cgroup
# (its eBPF device program).  helpers/amd_tools_containers.bash

bats_require_minimum_version 1.5.0

load helpers/common
load helpers/images
load helpers/engines
load helpers/fakefs
load helpers/amd_tools
load helpers/amd_tools_containers

export BATS_TEST_TIMEOUT=${BATS_TEST_TIMEOUT:-900}

setup_file() { amd_containers_start sid v2; }
teardown_file() { engines_stop; }
setup() { fakefs_require_fuse; }
teardown() { fakefs_teardown; }

@test "docker --runtime=amd AMD_VISIBLE_DEVICES=0,1: rocm-smi --showuniqueid lists exactly GPUs 0 and 1" { scenario_visible_0_1; }

@test "the README's UUID workflow, AMD's tool at both ends: a UUID from the host's rocm-smi gives that GPU" { scenario_uuid_workflow; }

@test "podman --device amd.com/gpu=1 (our CDI spec): rocm-smi lists GPU 1 only" { scenario_podman_gpu1; }

@test "a container given no GPU lists none, as rocm-smi does on a real host (not 'driver not loaded')" { scenario_no_gpu; }

@test "mi300x-cpx-x8: podman --device amd.com/gpu=9 lists one partition, the one asked for" { scenario_cpx_partition; }
