# Section 6 of sim/sim.sh: the GPU tracker document's exclusive-GPU session,
# replayed literally against the simulated host (sourced by sim.sh).

demo_section "GPU Tracker: exclusive GPUs (GPU tracker document)" \
        "The tracker records which containers use which GPUs; an exclusive GPU serves one container."
if [ $HAVE_AMD = 0 ]; then
        demo_unavailable "the GPU tracker demo (needs docker run --runtime=amd)"
        return 0
fi
if ! has_ctk gpu-tracker; then
        demo_unavailable "amd-ctk gpu-tracker"
        return 0
fi
demo_run amd-ctk gpu-tracker status
demo_run amd-ctk gpu-tracker enable
demo_run amd-ctk gpu-tracker status
demo_run docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=0-2 rocm/rocm-terminal bash
first=$DEMO_OUT
demo_run docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=1,3 rocm/rocm-terminal bash
demo_run amd-ctk gpu-tracker status
demo_run docker rm -f "$first"
demo_run amd-ctk gpu-tracker status
demo_say "" "Make GPUs 1-3 exclusive; GPU 1 is in use, so a container asking for 0-2 is refused as a whole:"
demo_run amd-ctk gpu-tracker 1-3 exclusive
demo_fails docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=0-2 rocm/rocm-terminal bash
demo_run docker ps -a
demo_run amd-ctk gpu-tracker status
demo_say "" "Shared again, the same request succeeds:"
demo_run amd-ctk gpu-tracker 1 shared
demo_run docker run --runtime=amd -itd -e AMD_VISIBLE_DEVICES=0-2 rocm/rocm-terminal bash
demo_run amd-ctk gpu-tracker status
demo_run amd-ctk gpu-tracker disable
