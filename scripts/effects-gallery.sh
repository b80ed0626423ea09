#!/usr/bin/env bash
# Renders the pictures of docs/effects.md: one fixed scene (builtin:cubes:64, 320x180, quality
# High, one frame) without effects and then with each engine effect and each plugin of the plugins
# folder alone, into docs/images/effects/NAME.png (NAME: the effect's component name). Usage, from
# the repo root after a release build:
#   scripts/effects-gallery.sh [RILL [PLUGINS_DIR]]
# (defaults: build/release/tools/rill and build/release/plugins). An engine effect this rill does
# not know (`rill components NAME` fails) is skipped with a note; every plugin must render.
set -euo pipefail
cd "$(dirname "$0")/.."
rill=${1:-build/release/tools/rill}
plugins=${2:-build/release/plugins}
out=docs/images/effects
scene=builtin:cubes:64
mkdir -p "$out"

render() { # NAME [rill render options]
  local name=$1
  shift
  "$rill" render "$scene" --size 320x180 --quality high --out "$out/$name.png" "$@" >/dev/null
  echo "$out/$name.png"
}

render none
# Engine effects, each with the settings that show it on this scene (NAME[:fields] for --effect;
# a second word: extra options).
engine=(
  "Bloom:intensity=0.6"
  "Ssao"
  "AutoExposure"
  "TemporalAntiAliasing"
  "Fxaa"
  "Smaa"
  "ContrastAdaptiveSharpening:sharpening_strength=1"
  "DistanceFog:density=0.06,color=(0.55,0.6,0.7,1)"
  "GlobalIllumination:intensity=1"
  "ScreenSpaceReflections"
  "DepthOfField:focal_distance=8,aperture_f_stops=0.5"
  "MotionBlur"
  "ColorGrading:temperature=0.4,contrast=1.3,saturation=1.4"
)
for fx in "${engine[@]}"; do
  name=${fx%%:*}
  if ! "$rill" components "$name" >/dev/null 2>&1; then
    echo "note: this rill has no $name: skipped" >&2
    continue
  fi
  frames=1
  [ "$name" = TemporalAntiAliasing ] && frames=8 # a history to blend
  render "$name" --effect "$fx" --frames "$frames"
done
# Every plugin effect, with its defaults: each library alone in a folder of its own (loading all
# of them for every picture costs a probe and a compile each).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$rill" plugins --plugins "$plugins" --json | while read -r line; do
  lib=$(printf '%s' "$line" | grep -o '"name":"[A-Za-z0-9_]*"' | head -1 | cut -d'"' -f4)
  rm -rf "${tmp:?}/one" && mkdir "$tmp/one"
  cp "$plugins/$lib.so" "$tmp/one/"
  cp "$plugins/$lib".glsl "$tmp/one/" 2>/dev/null || true
  for id in $(printf '%s' "$line" | grep -o '"id":"[A-Za-z0-9_]*"' | cut -d'"' -f4); do
    render "$id" --plugins "$tmp/one" --effect "$id"
  done
done
