# WHERETIME_BUNDLE: build for the relocatable GPU bundle (preset gpu-bundle,
# scripts/gpu-bundle.sh). The GPU machine has the CUDA toolkit and driver but no Qt and no
# -dev packages, so the binaries take:
#   - SQLite and zlib statically (Debian ships their .a files);
#   - OpenBLAS, simdjson (Debian ships no static simdjson), libstdc++ and libgcc_s from the
#     bundle's lib/ (one libstdc++ for everything in the process). OpenBLAS is shared on
#     purpose: its static library carries kernels for every x86 generation (26 MB of code),
#     and the bundle has two executables that would each hold a copy;
#   - cudart, cuBLAS and CUPTI from the machine it runs on: RUNPATH lists the CUDA toolkit's
#     usual library folders after $ORIGIN/../lib, and gpu-check.sh adds the ones it finds.
# Included from the top-level CMakeLists.txt before the dependencies are looked up.
option(WHERETIME_BUNDLE "Link for the relocatable GPU bundle (scripts/gpu-bundle.sh)" OFF)
if(NOT WHERETIME_BUNDLE)
  return()
endif()

find_library(SQLite3_LIBRARY NAMES libsqlite3.a REQUIRED)
find_library(ZLIB_LIBRARY NAMES libz.a REQUIRED)

set(CMAKE_BUILD_WITH_INSTALL_RPATH ON)
set(CMAKE_INSTALL_RPATH
    "\$ORIGIN/../lib"
    /usr/local/cuda/lib64
    /usr/local/cuda/targets/x86_64-linux/lib
    /usr/local/cuda/extras/CUPTI/lib64
    /usr/local/cuda/lib)
set(CMAKE_INSTALL_RPATH_USE_LINK_PATH OFF)
# RUNPATH (searched after LD_LIBRARY_PATH), so a machine with its CUDA libraries elsewhere
# can point at them.
add_link_options(-Wl,--enable-new-dtags)

# Static SQLite brings its own system needs. OpenBLAS needs libgfortran and libquadmath, and
# a library's own needs are not looked up through the executable's RUNPATH: the executables
# name them directly, so that they are loaded from lib/ before OpenBLAS asks for them.
find_library(WT_GFORTRAN NAMES libgfortran.so.5 REQUIRED)
find_library(WT_QUADMATH NAMES libquadmath.so.0 REQUIRED)
function(wt_bundle_fixups)
  if(TARGET SQLite::SQLite3)
    set_property(TARGET SQLite::SQLite3 APPEND PROPERTY INTERFACE_LINK_LIBRARIES m dl Threads::Threads)
  endif()
  if(TARGET BLAS::BLAS)
    set_property(TARGET BLAS::BLAS APPEND PROPERTY INTERFACE_LINK_LIBRARIES
                 -Wl,--push-state,--no-as-needed ${WT_GFORTRAN} ${WT_QUADMATH} -Wl,--pop-state)
  endif()
endfunction()
cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL wt_bundle_fixups)
