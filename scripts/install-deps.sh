#!/usr/bin/env bash
# Installs the Debian 12 packages wheretime needs to build, test and run; only what is missing.
# As root it runs apt-get; otherwise, with packages missing, it prints the exact command and
# exits non-zero. The CUDA toolkit (optional) is not a Debian package: install it from NVIDIA
# into /usr/local/cuda to build the CUDA backend and the CUPTI tracer.
#
#   scripts/install-deps.sh [--gui|--no-gui] [--dev] [--pytorch]
#     --no-gui  skip Qt Widgets/QCustomPlot (GPU machines without a desktop)
#     --dev     also what the tests need (Xvfb, clang for the fuzzers)
#     --pytorch also Debian's python3-torch (CPU) for scripts/softmax-vs-pytorch.py --device cpu
set -euo pipefail

gui=1
dev=0
pytorch=0
for arg in "$@"; do
  case "$arg" in
    --gui) gui=1 ;;
    --no-gui) gui=0 ;;
    --dev) dev=1 ;;
    --pytorch) pytorch=1 ;;
    *) echo "install-deps.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

packages=(cmake ninja-build g++ pkg-config libsqlite3-dev sqlite3 zlib1g-dev libopenblas-dev libsimdjson-dev
          qt6-base-dev python3)
if [ "$gui" = 1 ]; then
  packages+=(qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6 libgl-dev)
fi
if [ "$dev" = 1 ]; then
  packages+=(xvfb xauth clang libclang-rt-14-dev file)
fi
if [ "$pytorch" = 1 ]; then
  packages+=(python3-torch)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

if [ "$(id -u)" != 0 ]; then
  echo "install-deps.sh: missing Debian packages; install them with:" >&2
  echo "  sudo apt-get install -y ${missing[*]}" >&2
  exit 1
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
