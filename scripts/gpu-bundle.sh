#!/usr/bin/env bash
# The relocatable GPU bundle: builds here (preset gpu-bundle: Release, CUDA backend + CUPTI
# tracer for sm_90, no Qt) and assembles a folder that runs on a GPU machine with the CUDA
# toolkit and driver but without Qt or any -dev package:
#   bin/wheretime          the CLI (no CUDA library: it maps none for anything but a GPU capture)
#   bin/libwheretime-cuda.so  the CUDA plugin (CUDA backend + CUPTI tracer), loaded by
#                          `wheretime capture` from beside the CLI
#   bin/tst_capture_gpu    the gpu-labelled capture test (Qt-free)
#   lib/                   OpenBLAS (+ gfortran, quadmath), simdjson, libstdc++, libgcc_s
#                          (SQLite and zlib are static)
#   scripts/gpu-check.sh, scripts/softmax-vs-pytorch.py
# The plugin's cudart, cuBLAS and CUPTI come from the machine it runs on (RUNPATH: $ORIGIN/../lib, then
# /usr/local/cuda's library folders; gpu-check.sh adds others it finds). Checks that nothing
# else outside the bundle is needed (ldd) and that it stays under 64 MiB.
#
#   scripts/gpu-bundle.sh [--build-dir DIR] [--out DIR] [--no-build] [--check]
#     --build-dir DIR  where to build (default build/gpu-bundle in the sources; CTest passes one
#                  inside its own build directory, so any build directory works, in or out of tree)
#     --out DIR    where to assemble it (default BUILD-DIR/wheretime-gpu)
#     --no-build   assemble from the existing build directory
#     --check      then run it here from another folder with a clean environment (env -i):
#                  --version, a CPU capture at tiny, stats of the file, and the plugin
#                  loads (--backend cuda must fail for want of a GPU, not of a library)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
caller=$PWD
cd "$src"
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$caller/$1" ;; esac; }   # relative to where it was called
bdir=build/gpu-bundle
out=
build=1
check=0
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) bdir=$(abspath "$2"); shift 2 ;;
    --out) out=$(abspath "$2"); shift 2 ;;
    --no-build) build=0; shift ;;
    --check) check=1; shift ;;
    *) echo "gpu-bundle.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
die() { echo "gpu-bundle: error: $*" >&2; exit 1; }

out=${out:-$bdir/wheretime-gpu}
if [ "$build" = 1 ] && ! command -v nvcc >/dev/null && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "gpu-bundle: skipped: no CUDA toolkit (nvcc) on this machine; the bundle needs one to build"
  exit 77   # CTest: skipped
fi
if [ "$build" = 1 ]; then
  launcher=()
  if command -v ccache >/dev/null; then
    launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  fi
  # The logs live inside the build directory, which is created first: nothing is written
  # beside it, so a build directory outside the sources (or read-only sources) works.
  mkdir -p "$bdir"
  if [ ! -f "$bdir/build.ninja" ]; then
    cmake --preset gpu-bundle -B "$bdir" "${launcher[@]}" >"$bdir/configure.log" 2>&1 || { tail -30 "$bdir/configure.log"; die "configure failed (log: $bdir/configure.log)"; }
  fi
  cmake --build "$bdir" -j"${BUNDLE_JOBS:-$(nproc)}" --target wheretime wheretime-cuda tst_capture_gpu >"$bdir/build.log" 2>&1 ||
    { tail -40 "$bdir/build.log"; die "build failed (log: $bdir/build.log)"; }
fi
[ -x "$bdir/app/cli/wheretime" ] || die "$bdir/app/cli/wheretime is missing: build first (without --no-build)"
[ -f "$bdir/app/cli/libwheretime-cuda.so" ] || die "$bdir has no CUDA plugin (app/cli/libwheretime-cuda.so): is it a CUDA build?"

rm -rf "$out"
mkdir -p "$out/bin" "$out/lib" "$out/scripts"
cp "$bdir/app/cli/wheretime" "$bdir/app/cli/libwheretime-cuda.so" "$bdir/tests/capture/tst_capture_gpu" "$out/bin/"
strip --strip-unneeded "$out/bin/"*
cp scripts/gpu-check.sh scripts/softmax-vs-pytorch.py "$out/scripts/"
chmod +x "$out/scripts/"*

# What the machine must provide: glibc, the CUDA libraries and the driver. Everything else
# that the binaries need is copied into lib/ (with what it needs in turn).
system_re='^(linux-vdso|ld-linux-x86-64|libc|libm|libdl|libpthread|librt|libutil|libresolv)\.so'
cuda_re='^(libcudart|libcublas|libcublasLt|libcupti|libcuda|libnvidia-[a-z-]+|libnvrtc)\.so'
copy_deps() {
  local f=$1 line name path
  while read -r line; do
    name=${line%% *}
    name=${name##*/}
    [[ "$name" =~ $system_re || "$name" =~ $cuda_re ]] && continue
    path=$(echo "$line" | sed -n 's/.*=> \(\/[^ ]*\).*/\1/p')
    [ -n "$path" ] || die "$(basename "$f") needs $name, which is not found here"
    if [ ! -f "$out/lib/$name" ]; then
      cp -L "$path" "$out/lib/$name"
      copy_deps "$out/lib/$name"
    fi
  done < <(env -u LD_LIBRARY_PATH ldd "$f" | sed 's/^[[:space:]]*//' | grep '\.so')
}
for f in "$out/bin/"*; do copy_deps "$f"; done
# libstdc++ and libgcc_s go with the bundle even when the binaries only reach them through
# libsimdjson: one libstdc++ (this one, found first through RUNPATH) for the whole process.
for so in libstdc++.so.6 libgcc_s.so.1; do
  [ -f "$out/lib/$so" ] || cp -L "$(env -u LD_LIBRARY_PATH ldd "$out/bin/wheretime" | awk -v n="$so" '$1 == n {print $3}')" "$out/lib/$so" 2>/dev/null ||
    cp -L "$(/sbin/ldconfig -p | awk -v n="$so" '$1 == n && /x86-64/ {print $NF; exit}')" "$out/lib/$so"
done

# Checks: RUNPATH, nothing needed from outside but glibc/CUDA/driver, size.
for f in "$out/bin/"*; do
  readelf -d "$f" | grep -q 'RUNPATH.*\$ORIGIN/\.\./lib' || die "$(basename "$f") has no RUNPATH \$ORIGIN/../lib"
  outside=""
  while read -r name path; do
    [[ "$name" =~ $system_re || "$name" =~ $cuda_re ]] && continue
    [ "$(readlink -f "$path")" = "$(readlink -f "$out/lib/$name")" ] || outside="$outside $name ($path)"
  done < <(env -u LD_LIBRARY_PATH ldd "$f" | awk '$2 == "=>" {n = $1; sub(/.*\//, "", n); print n, $3}')
  [ -z "$outside" ] || die "$(basename "$f") needs libraries from outside the bundle: $outside"
done
bytes=$(du -sb "$out" | cut -f1)
[ "$bytes" -lt $((64 * 1024 * 1024)) ] || die "the bundle is $((bytes / 1048576)) MiB, over 64 MiB"
glibc=$(objdump -T "$out/bin/"* "$out/lib/"* 2>/dev/null | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
cat >"$out/README" <<TXT
wheretime GPU bundle, built $(date -u +%Y-%m-%dT%H:%MZ) from $(git -C "$src" rev-parse --short HEAD 2>/dev/null || echo unknown)
Needs: x86-64 Linux with glibc >= ${glibc#GLIBC_}, an NVIDIA driver, the CUDA 13 libraries (cudart, cuBLAS, CUPTI).
Run:   scripts/gpu-check.sh OUTDIR      (see the README of the wheretime sources, "GPU check")
TXT
echo "gpu-bundle: $out ($((bytes / 1048576)) MiB; needs $glibc and, from the machine, $(env -u LD_LIBRARY_PATH ldd "$out/bin/libwheretime-cuda.so" | awk '{print $1}' | grep -E "$cuda_re" | tr '\n' ' '))"

if [ "$check" = 1 ]; then
  abs=$(cd "$out" && pwd)
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  cd "$tmp"
  run() { env -i HOME="$tmp" PATH=/usr/bin:/bin "$@"; }
  run "$abs/bin/wheretime" --version || die "the bundled wheretime does not start from a clean environment"
  run "$abs/bin/wheretime" capture --workload gcn --preset tiny --backend cpu --steps 2 -o "$tmp/check.wt" ||
    die "the bundled wheretime could not capture on the CPU"
  run "$abs/bin/wheretime" capture --workload transformer --variant fused --preset tiny --backend cpu --steps 2 -o "$tmp/check.wt" ||
    die "the bundled wheretime could not capture the transformer on the CPU"
  run "$abs/bin/wheretime" stats "$tmp/check.wt" >/dev/null || die "the bundled wheretime could not read its capture"
  run "$abs/bin/wheretime" --version | grep -qx "cuda plugin: $abs/bin/libwheretime-cuda.so.*" ||
    die "the bundled wheretime does not find the plugin beside it"
  # The plugin and its CUDA libraries load here; only the GPU is missing (or it captures).
  set +e
  run "$abs/bin/wheretime" capture --workload gcn --preset tiny --backend cuda --steps 1 -o "$tmp/cuda.wt" >"$tmp/cuda.log" 2>&1
  rc=$?
  set -e
  if [ "$rc" != 0 ]; then
    [ "$(wc -l <"$tmp/cuda.log")" = 1 ] || { cat "$tmp/cuda.log"; die "capture --backend cuda without a GPU is not one line"; }
    grep -q "no usable GPU" "$tmp/cuda.log" || die "the bundled plugin does not load: $(cat "$tmp/cuda.log")"
  fi
  set +e
  run "$abs/bin/tst_capture_gpu" >"$tmp/gputest.log" 2>&1
  rc=$?
  set -e
  [ "$rc" = 77 ] || [ "$rc" = 0 ] || { cat "$tmp/gputest.log"; die "bin/tst_capture_gpu failed (exit $rc)"; }
  echo "gpu-bundle: runs from $tmp with a clean environment (tst_capture_gpu: $(tail -1 "$tmp/gputest.log"))"
fi
