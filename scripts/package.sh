#!/usr/bin/env bash
# Debian packages from this tree (dpkg-deb, no debhelper):
#   wheretime        CLI, GUI, man pages, bash/zsh completions, .desktop entry, MIME type for
#                    .wt files, and the SQL extension when the build has it; no CUDA dependency
#   wheretime-cuda   the CUDA plugin libwheretime-cuda.so (needs the CUDA 13 runtime, cuBLAS and
#                    CUPTI, which are not Debian packages: see its description)
#   wheretime-dbgsym the detached debug symbols of both (binaries in the others are stripped)
# Then lintian on each, which must report no error and no warning.
#
#   scripts/package.sh [--build-dir DIR] [--no-build] [--out DIR] [--no-lintian]
#     --build-dir  default build/deb (preset deb: RelWithDebInfo, CUDA when the toolkit is found)
#     --out        where the .deb files go (default build/packages)
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
cd "$src"
bdir=build/deb
out=build/packages
build=1
lint=1
while [ $# -gt 0 ]; do
  case "$1" in
    --build-dir) bdir=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --no-build) build=0; shift ;;
    --no-lintian) lint=0; shift ;;
    *) echo "package.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
die() { echo "package: error: $*" >&2; exit 1; }

if [ "$build" = 1 ]; then
  launcher=()
  command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
  [ -f "$bdir/build.ninja" ] || cmake --preset deb "${launcher[@]}" >/dev/null || die "configure failed"
  cmake --build "$bdir" -j"${PACKAGE_JOBS:-$(nproc)}" || die "build failed"
fi
[ -f "$bdir/CMakeCache.txt" ] || die "$bdir is not configured (run without --no-build)"
version=$(sed -n 's/^CMAKE_PROJECT_VERSION:STATIC=//p' "$bdir/CMakeCache.txt")
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
maint=$(sed -n 's/^ -- \(.*>\)  .*/\1/p' packaging/debian/changelog | head -1)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
all=$work/all
DESTDIR=$all cmake --install "$bdir" --prefix /usr >/dev/null || die "cmake --install failed"
[ -x "$all/usr/bin/wheretime" ] || die "the install has no usr/bin/wheretime"

# Split: the plugin goes to wheretime-cuda, everything else to wheretime.
main=$work/wheretime cuda=$work/wheretime-cuda dbg=$work/wheretime-dbgsym
mkdir -p "$main" "$cuda" "$dbg"
cp -a "$all/." "$main/"
plugin_rel=usr/lib/$multiarch/wheretime/libwheretime-cuda.so
has_cuda=0
if [ -f "$main/$plugin_rel" ]; then
  has_cuda=1
  mkdir -p "$cuda/$(dirname "$plugin_rel")"
  mv "$main/$plugin_rel" "$cuda/$plugin_rel"
  rmdir --ignore-fail-on-non-empty "$main/$(dirname "$plugin_rel")"
fi
install -Dm644 packaging/wheretime-gui.1 "$main/usr/share/man/man1/wheretime-gui.1"
if [ ! -x "$main/usr/bin/wheretime-gui" ]; then   # a build without the GUI: no entry that starts it
  rm -f "$main/usr/share/man/man1/wheretime-gui.1" "$main/usr/share/applications/wheretime.desktop"
fi

# Detached debug symbols by build id; the packaged binaries are stripped.
strip_tree() {
  local root=$1 f id
  while IFS= read -r -d '' f; do
    file -b "$f" | grep -q '^ELF' || continue
    id=$(readelf -n "$f" | sed -n 's/.*Build ID: \([0-9a-f]*\).*/\1/p' | head -1)
    [ -n "$id" ] || die "$f has no build id"
    mkdir -p "$dbg/usr/lib/debug/.build-id/${id:0:2}"
    objcopy --only-keep-debug --compress-debug-sections "$f" "$dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
    chmod 644 "$dbg/usr/lib/debug/.build-id/${id:0:2}/${id:2}.debug"
    case "$f" in
      *.so) strip --remove-section=.comment --remove-section=.note --strip-unneeded "$f" ;;
      *) strip --remove-section=.comment --remove-section=.note "$f" ;;
    esac
  done < <(find "$root" -type f \( -perm -u+x -o -name '*.so*' \) -print0)
}
strip_tree "$main"
strip_tree "$cuda"

docs() {   # copyright, changelog, compressed man pages
  local root=$1 pkg=$2
  install -Dm644 packaging/debian/copyright "$root/usr/share/doc/$pkg/copyright"
  gzip -9nc packaging/debian/changelog >"$root/usr/share/doc/$pkg/changelog.gz"
  chmod 644 "$root/usr/share/doc/$pkg/changelog.gz"
  find "$root/usr/share/man" -type f -name '*.[0-9]' -exec gzip -9nf {} + 2>/dev/null || true
}
docs "$main" wheretime
docs "$cuda" wheretime-cuda
# As Debian's automatic dbgsym packages: the doc folder is the main package's (exact Depends).
mkdir -p "$dbg/usr/share/doc"
ln -s wheretime "$dbg/usr/share/doc/wheretime-dbgsym"

# Shared-library dependencies of the main package, from dpkg's shlibs data.
shlibdeps() {   # root [dpkg-shlibdeps options]
  local root=$1 bins; shift
  bins=$(find "$root" -type f \( -perm -u+x -o -name '*.so' \) -exec sh -c 'file -b "$1" | grep -q ^ELF && echo "$1"' _ {} \;)
  [ -n "$bins" ] || return 0
  mkdir -p "$work/shlib/debian"
  printf 'Source: wheretime\n\nPackage: wheretime\nArchitecture: any\n' >"$work/shlib/debian/control"
  (cd "$work/shlib" && dpkg-shlibdeps -O "$@" $bins 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
}
depends=$(shlibdeps "$main")
[ -n "$depends" ] || die "dpkg-shlibdeps found no dependencies for wheretime"

control() {   # root package depends description...
  local root=$1 pkg=$2 dep=$3 section=$4; shift 4
  mkdir -p "$root/DEBIAN"
  {
    echo "Package: $pkg"
    echo "Version: $version"
    echo "Architecture: $arch"
    echo "Maintainer: $maint"
    echo "Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)"
    [ -n "$dep" ] && echo "Depends: $dep"
    echo "Section: $section"
    echo "Priority: optional"
    echo "Homepage: https://github.com/wheretime/wheretime"
    printf '%s\n' "$@"
  } >"$root/DEBIAN/control"
}
# The plugin: its Debian libraries (libc, libstdc++, OpenBLAS); the CUDA ones are no packages.
cuda_depends="wheretime (= $version)"
if [ "$has_cuda" = 1 ]; then
  extra=$(shlibdeps "$cuda" --ignore-missing-info)
  [ -n "$extra" ] && cuda_depends="$cuda_depends, $extra"
fi
control "$main" wheretime "$depends" devel \
  "Description: where the time of language-model workloads goes on a GPU" \
  " wheretime captures training steps of bundled language-model workloads under" \
  " a CPU tracer (or, with the wheretime-cuda package, under CUPTI on an NVIDIA" \
  " GPU), stores the runs in a SQLite file, imports Nsight Systems exports and" \
  " PyTorch profiler (Kineto) traces, and shows where the time goes by layer," \
  " scope, op and kernel." \
  " ." \
  " This package holds the command-line tool wheretime (runs, stats, compare," \
  " import, export, capture on the CPU), the desktop viewer wheretime-gui, their" \
  " manual pages, bash and zsh completions and the MIME type of .wt files. It" \
  " needs no CUDA library."
if [ "$has_cuda" = 1 ]; then
  control "$cuda" wheretime-cuda "$cuda_depends" devel \
    "Description: CUDA backend and CUPTI tracer for wheretime" \
    " The plugin libwheretime-cuda.so that \`wheretime capture\` loads to run the" \
    " bundled workloads on an NVIDIA GPU and record their kernels with CUPTI." \
    " Commands other than capture never load it." \
    " ." \
    " It needs the NVIDIA driver and the CUDA 13 runtime libraries, which are not" \
    " Debian packages: libcudart.so.13, libcublas.so.13, libcublasLt.so.13 and" \
    " libcupti.so.13 (from the CUDA toolkit in /usr/local/cuda, or found through" \
    " ldconfig or LD_LIBRARY_PATH). Without them \`wheretime capture --backend" \
    " cuda\` says so in one line and --backend auto captures on the CPU."
fi
control "$dbg" wheretime-dbgsym "wheretime (= $version)" debug \
  "Description: debug symbols for wheretime and wheretime-cuda" \
  " The detached debug symbols of the wheretime and wheretime-cuda binaries," \
  " found by gdb through their build ids." \
  "Auto-Built-Package: debug-symbols"

mkdir -p "$out"
debs=()
for root in "$main" "$dbg" $([ "$has_cuda" = 1 ] && echo "$cuda"); do
  pkg=$(basename "$root")
  find "$root" -type d -exec chmod 755 {} +
  deb="$out/${pkg}_${version}_${arch}.deb"
  [ "$pkg" = wheretime-dbgsym ] && deb="$out/${pkg}_${version}_${arch}.ddeb"
  dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null || die "dpkg-deb failed for $pkg"
  debs+=("$deb")
  echo "package: $deb ($(du -h "$deb" | cut -f1))"
done
if [ "$lint" = 1 ] && command -v lintian >/dev/null; then
  report=$(lintian --fail-on none "${debs[@]}" 2>&1 || true)
  echo "$report" | sed 's/^/lintian: /'
  if echo "$report" | grep -qE '^[EW]: '; then
    die "lintian reports errors or warnings"
  fi
  echo "package: lintian: 0 errors, 0 warnings"
fi
