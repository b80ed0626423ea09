#!/bin/sh
# install_test.sh SRC BUILD TMP CC: installs BUILD into TMP/prefix and checks that a user's
# program builds and runs against the installed Rill, through pkg-config and through CMake's
# find_package(Rill); then that a parent project can add_subdirectory(SRC) and link Rill::world.
set -eu
src=$1
build=$2
tmp=$3
cc=$4
rm -rf "$tmp"
mkdir -p "$tmp"
cd "$tmp"
fail() {
    echo "FAIL [install]: $*" >&2
    exit 1
}
cmake --install "$build" --prefix "$tmp/prefix" >install.log || fail "cmake --install failed"
for f in include/rill/app.h include/rill/render.h lib/librill_base.a lib/librill_app.a \
    lib/librill_render.a bin/rill lib/pkgconfig/rill.pc lib/cmake/Rill/RillConfig.cmake \
    lib/cmake/Rill/RillTargets.cmake; do
    [ -e "prefix/$f" ] || fail "prefix/$f was not installed"
done
"$tmp/prefix/bin/rill" --version >/dev/null || fail "the installed rill does not run"
model="$src/examples/data/project/models/cube.glb"

# pkg-config: the relocatable rill.pc names the headers and every library.
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
flags=$(pkg-config --cflags --libs rill) || fail "pkg-config --cflags --libs rill failed"
# shellcheck disable=SC2086
"$cc" -std=c11 -o render_pc "$src/examples/render_model.c" $flags || fail "pkg-config build failed"
./render_pc "$model" pc.png >pc.log 2>&1 || fail "the pkg-config program failed: $(cat pc.log)"
[ -s pc.png ] || fail "the pkg-config program wrote no PNG"

# CMake: find_package(Rill) and Rill::rill.
mkdir -p user
cp "$src/examples/render_model.c" user/main.c
cat >user/CMakeLists.txt <<'CM'
cmake_minimum_required(VERSION 3.25)
project(user_game C)
find_package(Rill 0.1 REQUIRED)
add_executable(user_game main.c)
target_link_libraries(user_game PRIVATE Rill::rill)
CM
cmake -S user -B user/build -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_C_COMPILER="$cc" \
    >cmake.log 2>&1 || fail "configuring against find_package(Rill) failed: $(tail -20 cmake.log)"
cmake --build user/build >>cmake.log 2>&1 || fail "building against Rill::rill failed: $(tail -20 cmake.log)"
user/build/user_game "$model" cmake.png >run.log 2>&1 || fail "the CMake program failed: $(cat run.log)"
[ -s cmake.png ] || fail "the CMake program wrote no PNG"

# add_subdirectory from a parent project: configure everything, build a Rill::world program.
mkdir -p parent
cat >parent/CMakeLists.txt <<CM
cmake_minimum_required(VERSION 3.25)
project(parent_game C)
add_subdirectory("$src" rill)
add_executable(parent_game main.c)
target_link_libraries(parent_game PRIVATE Rill::world)
if(NOT TARGET Rill::rill OR NOT TARGET rill OR TARGET test_world_reflect)
  message(FATAL_ERROR "add_subdirectory: Rill::rill and rill expected, tests not")
endif()
CM
cat >parent/main.c <<'C'
#include <stdio.h>
#include "rill/world.h"
int main(void) {
    rill_world *w = rill_world_create(NULL, NULL);
    rill_entity e = rill_world_spawn(w);
    printf("parent: entity %llu, %u components\n", (unsigned long long)e,
           rill_world_component_count(w));
    rill_world_destroy(w);
    return e ? 0 : 1;
}
C
cmake -S parent -B parent/build -DCMAKE_C_COMPILER="$cc" >sub.log 2>&1 ||
    fail "add_subdirectory configure failed: $(tail -20 sub.log)"
cmake --build parent/build --target parent_game >>sub.log 2>&1 ||
    fail "add_subdirectory build failed: $(tail -20 sub.log)"
parent/build/parent_game | grep -q "parent: entity" || fail "the parent program failed"
echo "install: ok (pkg-config, find_package(Rill), add_subdirectory)"
