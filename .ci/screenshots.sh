#!/usr/bin/env bash
# Writes docs/screenshot-light.png and docs/screenshot-dark.png: the real window (openbox on a virtual display, a fresh
# home folder) at 1360x860, in each theme, after a short real run of the fashion-mnist-lenet sample (3,000 training
# images, 3 epochs) started with --start. Run it under xvfb-run:
#   xvfb-run -a -s "-screen 0 1920x1080x24" .ci/screenshots.sh
# Needs openbox, xdotool, xwd (x11-apps), ImageMagick and Debian's dataset-fashion-mnist (.ci/run installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p target
[ -d /usr/share/datasets/fashion-mnist ] || { echo "needs Debian's dataset-fashion-mnist"; exit 2; }
export HOME="$(mktemp -d /tmp/traindeck-XXXXXX)"
unset XDG_CONFIG_HOME XDG_DATA_HOME
export TRAINDECK_JAVA_OPTS="${TRAINDECK_JAVA_OPTS:-} -Duser.home=$HOME"
openbox > target/screenshots-wm.log 2>&1 &
wm=$!
app=""
cleanup() { kill $app "$wm" 2>/dev/null || true; }
trap cleanup EXIT

shoot() {
  local theme="$1" dark="$2" out="$HOME/runs-$1" config="$HOME/fashion-mnist-lenet.json"
  mkdir -p "$HOME/.config/traindeck" "$out"
  printf 'dark=%s\n' "$dark" > "$HOME/.config/traindeck/preferences.properties"
  sed -e 's|"outputDir": "../runs"|"outputDir": "runs-'"$theme"'"|' -e 's|"limit": 10000|"limit": 3000|' \
    -e 's|"limit": 2000|"limit": 500|' -e 's|"epochs": 2|"epochs": 3|' sample-configs/fashion-mnist-lenet.json > "$config"
  ./traindeck gui --start "$config" > "target/screenshots-gui-$theme.log" 2>&1 &
  app=$!
  local id=""
  for _ in $(seq 1 300); do
    id=$(xdotool search --name "— TrainDeck" 2>/dev/null | tail -1 || true)
    [ -n "$id" ] && break
    kill -0 "$app" 2>/dev/null || { echo "FAIL the app exited"; cat "target/screenshots-gui-$theme.log"; exit 1; }
    sleep 1
  done
  [ -n "$id" ] || { echo "FAIL no window within 300 s"; exit 1; }
  xdotool windowsize "$id" 1360 860
  # the run's status.json says "finished" when it has ended
  for _ in $(seq 1 600); do
    grep -qs '"finished"' "$out"/*/status.json && break
    kill -0 "$app" 2>/dev/null || { echo "FAIL the app exited"; cat "target/screenshots-gui-$theme.log"; exit 1; }
    sleep 1
  done
  grep -qs '"finished"' "$out"/*/status.json || { echo "FAIL the $theme run did not finish within 600 s"; exit 1; }
  # the window applies engine events ten times a second, then shows the run's summary
  sleep 3
  xwd -id "$id" -silent > "target/screenshot-$theme.xwd"
  convert "xwd:target/screenshot-$theme.xwd" "docs/screenshot-$theme.png"
  echo "docs/screenshot-$theme.png: $(identify -format '%wx%h' "docs/screenshot-$theme.png"), run $(ls "$out")"
  kill "$app"
  # one window at a time (the launcher stops the app and returns once it has quit)
  wait "$app" 2>/dev/null || true
  app=""
}

shoot light false
shoot dark true
