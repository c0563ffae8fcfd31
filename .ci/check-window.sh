#!/usr/bin/env bash
# The first window as a new user meets it: a fresh home folder, a real window manager (openbox) on a virtual display,
# ./traindeck gui. Reads the window's geometry from the X server and fails below the minimum; the screenshot is kept in
# target/window.png (target/window.xwd where ImageMagick is missing). Run it under xvfb-run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
min_width=1100
min_height=720
export HOME="$(mktemp -d)"
unset XDG_CONFIG_HOME XDG_DATA_HOME
# Java takes user.home (and so its preferences) from the password database, not from HOME
export TRAINDECK_JAVA_OPTS="${TRAINDECK_JAVA_OPTS:-} -Duser.home=$HOME"
openbox > target/window-wm.log 2>&1 &
wm=$!
./traindeck gui > target/window-gui.log 2>&1 &
app=$!
cleanup() { kill "$app" "$wm" 2>/dev/null || true; pkill -f org.traindeck.app.Launcher 2>/dev/null || true; }
trap cleanup EXIT

id=""
for _ in $(seq 1 180); do
  id=$(xdotool search --name "— TrainDeck" 2>/dev/null | tail -1 || true)
  [ -n "$id" ] && break
  kill -0 "$app" 2>/dev/null || { echo "FAIL the app exited before showing its window"; cat target/window-gui.log; exit 1; }
  sleep 1
done
[ -n "$id" ] || { echo "FAIL no TrainDeck window appeared within 180 s"; exit 1; }

# the window manager may still be placing it: wait until its geometry is the same twice in a row
geometry() { xwininfo -id "$id" | awk '/Width:/ {w=$2} /Height:/ {h=$2} END {print w "x" h}'; }
last=""
for _ in $(seq 1 40); do
  now=$(geometry)
  [ "$now" = "$last" ] && break
  last="$now"
  sleep 0.5
done
width=${now%x*}
height=${now#*x}
if command -v xwd >/dev/null; then
  xwd -root -silent > target/window.xwd
  if convert xwd:target/window.xwd target/window.png 2>/dev/null; then rm -f target/window.xwd; fi
fi

echo "window: ${width}x${height} (minimum ${min_width}x${min_height}), title: $(xdotool getwindowname "$id")"
if [ "$width" -lt "$min_width" ] || [ "$height" -lt "$min_height" ]; then
  echo "FAIL the first window is ${width}x${height}, smaller than ${min_width}x${min_height}"
  exit 1
fi
echo "ok   the first window opens at ${width}x${height}"
