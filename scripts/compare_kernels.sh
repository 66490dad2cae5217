#!/usr/bin/env bash
# Regenerates docs/devices.md: the calibrated device model (sim/devices/device_model.hpp) against the
# kernels of one GPT-3 175B layer measured on an H100 (docs/data/h100_gpt3_block.yaml, a validation set
# made by scripts/gpu_microbench.py beside the efficiency table, never table rows), and the same
# kernels on the A100 preset (published efficiencies, nothing measured to compare with).
#   scripts/compare_kernels.sh [BUILD_DIR]   (default build; needs build/bin/kernel_check)
set -euo pipefail
. "$(dirname "$0")/help_option.sh" "$@"  # --help: the comment above
cd "$(dirname "$0")/.."
build=${1:-build}
check="$build/bin/kernel_check"
[ -x "$check" ] || { echo "compare_kernels.sh: $check not built (scripts/build.sh)" >&2; exit 2; }
out=docs/devices.md
tmp=$(mktemp)
{
  echo "# Calibrated devices against measured kernels"
  echo
  echo "Made by \`scripts/compare_kernels.sh\` on $(date -u +%Y-%m-%d) at partsim $(git rev-parse --short HEAD)."
  echo
  echo "**Inputs**: the H100 efficiency table \`configs/devices/h100_sxm5_80gb.yaml\` (347 kernel timings of"
  echo "square GEMMs, ResNet-like convolutions, attention at 512-8192 tokens and memory-bound kernels of"
  echo "1 MB-1 GB, measured by \`scripts/gpu_microbench.py\` on an H100 80GB HBM3 on 2026-11-28) and the"
  echo "datasheet peaks of the \`h100_sxm5_80gb\` preset. **Compared**: the same run's timings of the"
  echo "operators of one GPT-3 175B layer (hidden 12288, 96 heads, sequence 2048, micro-batch 1, bf16) as"
  echo "they run, unsharded and as a tensor-parallel shard of 8 (\`docs/data/h100_gpt3_block.yaml\`): their"
  echo "shapes (2048 x 36864 x 12288 and so on) are not in the table, which the model reaches by its"
  echo "interpolation in log size. Nothing was fitted. 'roofline' is the datasheet model partsim used before."
  echo
  echo "## H100: model against the measured layer (CUDA-graph timing)"
  echo
  "$check" --config configs/dgx_h100.yaml --measured docs/data/h100_gpt3_block.yaml --markdown
  echo
  echo "## H100, first run (eager timing: the framework's dispatch gaps included in table and layer alike)"
  echo
  "$check" --config configs/dgx_h100.yaml --set "system.device_types.gpu.efficiency_table=$PWD/docs/data/h100_sxm5_80gb_eager.yaml" \
           --measured docs/data/h100_gpt3_block_eager.yaml --markdown
  echo
  echo "## A100 (published efficiencies, \`configs/devices/a100_sxm4_80gb.yaml\`): the same kernels, model only"
  echo
  echo "The A100 table has few rows (see its sources); a class without rows runs at the datasheet peak"
  echo "(the preset's compute_efficiency and memory_efficiency are 1)."
  echo
  "$check" --config configs/dgx_a100.yaml --measured docs/data/h100_gpt3_block.yaml --model-only --markdown
} > "$tmp"
mv "$tmp" "$out"
echo "compare_kernels.sh: wrote $out" >&2
