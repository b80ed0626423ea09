#!/bin/sh
# export_smoke.sh RILL TMPDIR: runs the real `rill` binary's export subcommand (the dispatcher
# line, exit codes, the summary) on a project of text files plus one 1x1 PNG and one corrupt PNG.
set -u
RILL="$1"
T="$2"
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$T" && mkdir -p "$T/proj/scenes" "$T/proj/textures" || fail "mkdir"
printf 'entity 1 { name: "a" }\n' > "$T/proj/scenes/main.rsn"
printf '[project]\nname = "smoke"\n' > "$T/proj/project.toml"
# A valid 1x1 RGBA PNG.
printf 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==' \
  | base64 -d > "$T/proj/textures/dot.png" || fail "base64"

"$RILL" export --help > "$T/help.txt" 2>&1 || fail "export --help exited non-zero"
grep -q -- "--lod-levels" "$T/help.txt" || fail "help text lacks --lod-levels"
"$RILL" export > /dev/null 2>&1; [ $? -eq 2 ] || fail "no arguments should exit 2"

"$RILL" export "$T/proj" --out "$T/game.rpak" > "$T/out1.txt" 2> "$T/err1.txt" \
  || { cat "$T/out1.txt" "$T/err1.txt"; fail "first export failed"; }
grep -q "3 inputs, 3 outputs: rebuilt 1, from cache 0, copied 2, failed 0" "$T/out1.txt" \
  || { cat "$T/out1.txt"; fail "first summary"; }
"$RILL" pack ls "$T/game.rpak" > "$T/ls.txt" 2>&1 || fail "pack ls"
grep -q "textures/dot.rmip" "$T/ls.txt" || { cat "$T/ls.txt"; fail "dot.rmip not packed"; }

"$RILL" export "$T/proj" --out "$T/game.rpak" > "$T/out2.txt" 2>&1 || fail "second export failed"
grep -q "rebuilt 0, from cache 1" "$T/out2.txt" || { cat "$T/out2.txt"; fail "second summary"; }

printf 'not a png' > "$T/proj/textures/bad.png"
"$RILL" export "$T/proj" --out "$T/game.rpak" > "$T/out3.txt" 2> "$T/err3.txt"
[ $? -eq 1 ] || fail "a corrupt PNG should exit 1"
grep -q "^error: textures/bad.png: " "$T/err3.txt" || { cat "$T/err3.txt"; fail "error line"; }
grep -q "failed 1" "$T/out3.txt" || { cat "$T/out3.txt"; fail "failed count"; }
"$RILL" pack ls "$T/game.rpak" | grep -q "scenes/main.rsn" || fail "rest not packed"
rm -rf "$T"
echo "ok"
