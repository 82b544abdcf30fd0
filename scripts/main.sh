#!/usr/bin/env bash
# The README's main command: installs what is missing, builds wheretime (Release), captures
# the default workload (gcn with the adaptive softmax, CUDA when a GPU is usable, else the
# CPU) into wheretime.wt, prints where its time goes, and opens it in the GUI when a display
# is present.
#   scripts/main.sh [CAPTURE OPTIONS...]   e.g. --workload transformer --variant full
set -euo pipefail
cd "$(dirname "$0")/.."

bash scripts/install-deps.sh
cmake --preset app >/dev/null
cmake --build build/app -j"$(nproc)"

cli=build/app/app/cli/wheretime
gui=build/app/app/gui/wheretime-gui
out=${WHERETIME_OUT:-wheretime.wt}

"$cli" --version
# Each run of this command adds one run to the file; compare them with `wheretime stats`.
"$cli" capture --workload gcn --variant adaptive --backend auto -o "$out" "$@"
"$cli" stats "$out" --group-by layer
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ] && [ -x "$gui" ]; then
  echo "opening $out in wheretime-gui"
  "$gui" "$out" >/dev/null 2>&1 &
else
  echo "no display: open $out later with: $gui $out"
fi
