#!/usr/bin/env bash
# Installs the Debian 12 packages Rill needs to build, test and run. Idempotent: when every
# package is already installed it does nothing. Runs as root, or through sudo otherwise.
set -euo pipefail
pkgs=(
  build-essential cmake ninja-build pkg-config git
  libcmocka-dev libzstd-dev libxxhash-dev libcjson-dev libstb-dev libcglm-dev libmeshoptimizer-dev
  libode-dev liblua5.4-dev libglfw3-dev libvulkan-dev glslc libshaderc-dev mesa-vulkan-drivers vulkan-validationlayers
  clang libclang-rt-14-dev clang-format-16
  assimp-testmodels xvfb xauth python3
)
# The Khronos glTF validator (npm package) for tests/gltf: optional, never fatal; without it the
# validator test skips. It goes under build/ (ignored by git).
root="$(cd "$(dirname "$0")/.." && pwd)"
if command -v npm >/dev/null 2>&1 && [ ! -d "$root/build/node_modules/gltf-validator" ]; then
  mkdir -p "$root/build"
  timeout 90 npm install --prefix "$root/build" --no-audit --no-fund --silent --fetch-retries=1 \
    gltf-validator >/dev/null 2>&1 ||
    echo "install-deps: gltf-validator not installed (the glTF validator test will skip)"
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0
echo "install-deps: installing ${missing[*]}"
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
