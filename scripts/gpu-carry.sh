#!/bin/bash
# Build rooftime here for a GPU machine that has CMake, a C compiler and the NVIDIA driver but no
# Debian -dev packages (no jansson headers, no pkg-config files), and put it where the device
# tool carries it: .carry/rooftime/ (ignored by git; name `.carry` in the run's `carry`).
#
#   scripts/gpu-carry.sh [DIR]      # default DIR: .carry/rooftime
#
# DIR/bin holds `rooftime`, the CUPTI collector librooftime-cupti.so (the command finds it
# beside itself) and librooftime.so (the Python package's library, $ROOFTIME_LIB: it too finds
# the collector beside itself); DIR/lib the shared libraries `ldd` names that a stock image may lack (jansson,
# zlib, CUPTI) and the two CUPTI loads at run time (libnvperf_host.so, libnvperf_target.so: about
# 40 MB of the carry's 47), but not the C library, libm, libstdc++ or libgcc_s, whose newer
# versions there serve this build (glibc is backward compatible: build on the older system). The optional libraries
# (cairo, hwloc, OpenBLAS, OpenCL, oneDNN, OpenMP, MPI) are left out so that the carry stays a
# few megabytes; PNG/PDF charts, the CPU probe's extras and the study's implementations are
# then absent, which the GPU acceptance run does not use. scripts/gpu-acceptance.sh finds the
# build there and sets LD_LIBRARY_PATH and ROOFTIME_DATADIR (the checkout's data/).
# The build directory is build-carry (GPU_CARRY_BUILD_DIR names another, as the rehearsal test
# does), kept between runs: a second run builds what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
DEST=${1:-.carry/rooftime}
B=${GPU_CARRY_BUILD_DIR:-build-carry}
rm -rf "$DEST"
mkdir -p "$B/pc" "$DEST/bin" "$DEST/lib"
# Only the required libraries (jansson, zlib) and cmocka visible to pkg-config: every optional
# library stays out.
for m in jansson zlib cmocka; do
    pc=$(pkg-config --variable=pcfiledir "$m")/$m.pc
    ln -sfn "$pc" "$B/pc/$m.pc"
done
PKG_CONFIG_LIBDIR=$(cd "$B/pc" && pwd) PKG_CONFIG_PATH= cmake -S . -B "$B" -DCMAKE_BUILD_TYPE=Release \
    -DROOFTIME_MPI=OFF -DCMAKE_DISABLE_FIND_PACKAGE_OpenMP=ON \
    -DDNNL_INCLUDE_DIR=DNNL_INCLUDE_DIR-NOTFOUND -DDNNL_LIBRARY=DNNL_LIBRARY-NOTFOUND >"$B/cmake.log"
cmake --build "$B" -j"$(nproc)" --target rooftime rooftime-shared rooftime-cupti >"$B/build.log"
cp "$B/rooftime" "$B/librooftime.so" "$DEST/bin/"
if [ -e "$B/librooftime-cupti.so" ]; then
    cp "$B/librooftime-cupti.so" "$DEST/bin/"
else
    echo "gpu-carry: warning: no CUPTI collector built (no CUDA toolkit here?): profile --gpu will be missing" >&2
fi
# The libraries the binaries need, minus the base system every Linux image has.
skip='^(linux-vdso|ld-linux|libc|libm|libdl|libpthread|librt|libutil|libstdc\+\+|libgcc_s)\.so'
for f in "$DEST"/bin/*; do
    ldd "$f" | awk '$2 == "=>" && $3 ~ /^\// {print $1, $3}'
done | sort -u | while read -r name path; do
    if ! [[ $name =~ $skip ]]; then
        cp -L "$path" "$DEST/lib/$name"
    fi
done
# CUPTI loads the perfworks libraries (libnvperf_host.so, libnvperf_target.so) with dlopen at run
# time, so ldd does not name them: take those beside the libcupti used, so that the three match.
cupti=$(ldd "$DEST/bin/librooftime-cupti.so" 2>/dev/null | awk '$1 ~ /^libcupti\.so/ {print $3}')
if [ -n "$cupti" ]; then
    for n in libnvperf_host.so libnvperf_target.so; do
        if [ -e "$(dirname "$cupti")/$n" ]; then
            cp -L "$(dirname "$cupti")/$n" "$DEST/lib/$n"
        else
            echo "gpu-carry: warning: no $n beside $cupti: the GPU machine must provide it" >&2
        fi
    done
fi
du -sh "$DEST" | awk '{print "gpu-carry: " $1 " in '"$DEST"'"}'
ls "$DEST/bin" "$DEST/lib" | sed 's/^/  /'
# The device tool carries at most 64 MiB with the working tree (3 MB): say it before a run does.
kib=$(du -sk "$DEST" | cut -f1)
if [ "$kib" -gt $((60 << 10)) ]; then
    echo "gpu-carry: $DEST is $((kib >> 10)) MiB: over the 60 MiB that leave room for the working tree in a device call's 64 MiB" >&2
    exit 1
fi
