#!/usr/bin/env bash
# The first window as a new user meets it: a fresh home folder, a real window manager (openbox) on a virtual display,
# ./traindeck gui. Reads the window's geometry from the X server and fails below the minimum; then resizes the window
# to 1360x860 (AUDIT_SIZE=WxH for another size) and has the app audit its layout there (--layout-audit: every tab of
# both sides and Help's dialogs: no control cut off, no text cut to an ellipsis, no node over a sibling, no text below
# 3:1 contrast), failing with the list of defects; the verdict counts what was checked of each kind. Last, the app's
# terminal output must be clean: no JavaFX class-path warning, no GTK or dconf warnings.
# The screenshot is kept in target/window.png (target/window.xwd where ImageMagick is missing). Run it under xvfb-run.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
min_width=1100
min_height=720
audit_size="${AUDIT_SIZE:-1360x860}"
export HOME="$(mktemp -d)"
unset XDG_CONFIG_HOME XDG_DATA_HOME
# Java takes user.home (and so its preferences) from the password database, not from HOME
export TRAINDECK_JAVA_OPTS="${TRAINDECK_JAVA_OPTS:-} -Duser.home=$HOME"
openbox > target/window-wm.log 2>&1 &
wm=$!
./traindeck gui --layout-audit="$audit_size" > target/window-gui.log 2>&1 &
app=$!
# the launcher stops the app when it is stopped (from its second launch after a build it is the app itself)
cleanup() { kill "$app" "$wm" 2>/dev/null || true; }
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
echo "window: ${width}x${height} (minimum ${min_width}x${min_height}), title: $(xdotool getwindowname "$id")"
if [ "$width" -lt "$min_width" ] || [ "$height" -lt "$min_height" ]; then
  echo "FAIL the first window is ${width}x${height}, smaller than ${min_width}x${min_height}"
  exit 1
fi
echo "ok   the first window opens at ${width}x${height}"

# the app audits its layout once its content area is at the audit size and its config has loaded (about 15 s after
# the window opens on a 2-core machine)
# terminal codes stripped: a line that something before the app left unfinished must not hide the verdict
app_output() { sed 's/\x1b\[[0-9;]*m//g' target/window-gui.log; }
xdotool windowsize "$id" "${audit_size%x*}" "${audit_size#*x}"
verdict=""
for _ in $(seq 1 240); do
  verdict=$(app_output | grep -m1 '^layout-audit ' || true)
  [ -n "$verdict" ] && break
  kill -0 "$app" 2>/dev/null || { echo "FAIL the app exited before its layout audit"; cat target/window-gui.log; exit 1; }
  sleep 1
done
if command -v xwd >/dev/null; then
  xwd -root -silent > target/window.xwd
  if convert xwd:target/window.xwd target/window.png 2>/dev/null; then rm -f target/window.xwd; fi
fi

[ -n "$verdict" ] || { echo "FAIL no layout audit within 240 s"; tail -20 target/window-gui.log; exit 1; }
app_output | grep -E '^(clipped|ellipsized|overlapping|contrast): ' || true
echo "$verdict"
case "$verdict" in
  *": ok"*) echo "ok   nothing is cut off, ellipsized, overlapping or too faint at ${audit_size}" ;;
  *) echo "FAIL controls are cut off, cut to an ellipsis, overlapping or too faint at ${audit_size} (or the window never got there)"; exit 1 ;;
esac
# a normal start leaves the terminal clean: no JavaFX class-path warning, no GTK or dconf warnings
if grep -E 'Unsupported JavaFX configuration|Gtk-WARNING|Gtk-CRITICAL|dconf-WARNING' target/window-gui.log; then
  echo "FAIL the app printed warnings on the terminal (above)"
  exit 1
fi
echo "ok   the terminal stays clean"
