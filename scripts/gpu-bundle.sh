#!/usr/bin/env bash
# Bundles release binaries and the shared libraries they need (except libc, libm, libdl,
# libpthread, the Vulkan loader and libstdc++) into .devbin/, so they can run on a GPU machine
# that has a Vulkan driver but none of Rill's build dependencies. Usage, from the repo root:
#   cmake --preset release && cmake --build --preset release && scripts/gpu-bundle.sh
# then, there: LD_LIBRARY_PATH=.devbin .devbin/bench_render --counts 1000,10000,100000
# or: LD_LIBRARY_PATH=.devbin .devbin/bench_effects --size 1920x1080 --frames 60 --plugins .devbin/plugins
set -euo pipefail
cd "$(dirname "$0")/.."
out=.devbin
rm -rf "$out" && mkdir -p "$out"
bins=(build/release/bench/render/bench_sky build/release/bench/render/bench_ocean
      build/release/bench/render/bench_render build/release/bench/render/bench_batching
      build/release/bench/render/bench_extract build/release/bench/render/bench_ibl
      build/release/bench/render/bench_envmap build/release/bench/render/bench_materials
      build/release/bench/render/bench_skin build/release/bench/render/bench_gi
      build/release/bench/render/bench_post build/release/bench/render/bench_reflections
      build/release/bench/render/bench_effects
      build/release/bench/render/bench_cameras build/release/bench/render/bench_gpu_cull
      build/release/bench/render/bench_msaa_oit
      build/release/bench/script/bench_script
      build/release/tools/rill)
for b in "${bins[@]}"; do cp "$b" "$out/"; done
for b in "${bins[@]}"; do
  ldd "$b" | awk '/=> \//{print $3}'
done | sort -u | grep -vE 'lib(c|m|dl|pthread|rt|vulkan|stdc\+\+|gcc_s)\.so' | while read -r lib; do
  cp -L "$lib" "$out/"
done
# The shipped effect plugins (libraries and shaders), for bench_effects --plugins .devbin/plugins.
mkdir -p "$out/plugins" && cp build/release/plugins/*.so build/release/plugins/*.glsl "$out/plugins/"
ls "$out"
