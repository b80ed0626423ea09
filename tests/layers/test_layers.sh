#!/usr/bin/env bash
# test_layers.sh ROOT TMP: copies the tree to TMP, configures it (no renderer, tests or benchmarks:
# nothing is compiled), then puts in one bypass of the layer check at a time and expects the
# build to fail with the check's message, and to pass again once it is taken out.
set -uo pipefail
root="$1"
tmp="$2"
rm -rf "$tmp"
mkdir -p "$tmp"
copy="$tmp/tree"
mkdir -p "$copy"
cp -r "$root/CMakeLists.txt" "$root/cmake" "$root/src" "$root/include" "$root/tools" "$copy/"
build="$copy/build"
fails=0

say() { printf '%s\n' "$*"; }

if ! cmake -S "$copy" -B "$build" -G Ninja -DRILL_RENDER=OFF -DRILL_TESTS=OFF -DRILL_BENCH=OFF \
    >"$tmp/configure.log" 2>&1; then
    say "FAIL: the clean copy does not configure"
    cat "$tmp/configure.log"
    exit 1
fi

# check TARGET: the build of TARGET (1 job) passes.
check_passes() {
    if ! cmake --build "$build" --target "$1" -j 1 >"$tmp/build.log" 2>&1; then
        say "FAIL: building $1 fails on a clean tree"
        cat "$tmp/build.log"
        fails=$((fails + 1))
    fi
}

# bypass NAME FILE LINE TARGET EXPECT: appends LINE to FILE, builds TARGET and expects a failure
# whose output contains EXPECT; then restores FILE.
bypass() {
    local name="$1" file="$copy/$2" line="$3" target="$4" expect="$5"
    cp "$file" "$tmp/saved"
    printf '%s\n' "$line" >>"$file"
    if cmake --build "$build" --target "$target" -j 1 >"$tmp/build.log" 2>&1; then
        say "FAIL: $name: the build of $target passed"
        fails=$((fails + 1))
    elif ! grep -qF -- "$expect" "$tmp/build.log"; then
        say "FAIL: $name: the build failed without saying '$expect':"
        cat "$tmp/build.log"
        fails=$((fails + 1))
    else
        say "ok: $name"
    fi
    cp "$tmp/saved" "$file"
}

check_passes rill_layer_check

bypass "world reaches scene's private header through .." src/world/world.c \
    '#include "../scene/scene_internal.h"' rill_world "reaches into module scene through '..'"
bypass "a public header includes a higher module" include/rill/world.h \
    '#include "rill/scene.h"' rill_layer_check "includes include/rill/scene.h: scene is above world"
bypass "angle brackets and spaces" src/world/query.c \
    '#  include   <rill/scene.h>' rill_world "includes include/rill/scene.h: scene is above world"
bypass "a header beside it, spelled without rill/" include/rill/asset.h \
    '#include "scene.h"' rill_layer_check "includes include/rill/scene.h: scene is above asset"
bypass "a sub-header of a higher module" include/rill/formats/gltf.h \
    '#include <rill/scene/model.h>' rill_layer_check \
    "includes include/rill/scene/model.h: scene is above formats"
bypass "an absolute path into another module" src/asset/vfs.c \
    "#include \"$copy/src/world/world_internal.h\"" rill_layer_check \
    "a private file of module world"
bypass "a link dependency not from the layers" CMakeLists.txt \
    'target_link_libraries(rill_world PUBLIC rill_scene)' rill_layer_check \
    "rill_world links rill_scene"
bypass "a module missing from RILL_LAYERS" src/world/world.c \
    '#include "rill/nowhere.h"' rill_layer_check "which is not a module in RILL_LAYERS"

check_passes rill_layer_check
if [ "$fails" -ne 0 ]; then
    say "$fails layer check case(s) failed"
    exit 1
fi
rm -rf "$tmp"
say "layer check: every bypass refused"
