#!/usr/bin/env bash
# Checks what packaging/build-linux.sh built: the app-image's launcher passes --smoke-test under a real (virtual)
# display, and the .deb holds the launcher, the desktop entry (with StartupWMClass) and the icon, and depends on
# GTK and GL. Prints one line per check and "N passed, N failed"; exits non-zero on any failure.
set -uo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
out="$root/packaging/target"
passed=0
failed=0
check() {
  local what="$1"; shift
  if "$@"; then echo "ok   $what"; passed=$((passed + 1)); else echo "FAIL $what"; failed=$((failed + 1)); fi
}

launcher="$out/TrainDeck/bin/TrainDeck"
check "app-image launcher exists and is executable" test -x "$launcher"

scratch=$(mktemp -d)
# puts the class-data archive back if the script stops while a check has moved it away
trap '[ -f "$scratch/traindeck.jsa" ] && mv "$scratch/traindeck.jsa" "$out/TrainDeck/lib/app/"; rm -rf "$scratch"' EXIT
smoke() {
  # a fresh data folder, so the first-launch copy of the samples is exercised too
  XDG_DATA_HOME="$scratch/data" HOME="$scratch/home" timeout 300 \
    xvfb-run -a -s "-screen 0 1600x1000x24" "$launcher" --smoke-test > "$scratch/smoke.log" 2>&1
  local rc=$?
  cat "$scratch/smoke.log" | grep -v "^SLF4J" | tail -3
  [ $rc -eq 0 ] && grep -q "smoke test passed" "$scratch/smoke.log"
}
if command -v xvfb-run >/dev/null; then
  check "packaged app trains a real run in its window (--smoke-test)" smoke
  check "first launch copied the samples to the user's data folder" test -f "$scratch/data/traindeck/samples/sample-configs/digits-mlp.json"
  check "the packaged app logs to the user's data folder" test -s "$scratch/data/traindeck/logs/traindeck.log"
  # class-data sharing: -Xshare:on makes the JVM fail instead of silently going without the archive
  probe() {
    XDG_DATA_HOME="$scratch/data" HOME="$scratch/home" timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" \
      env "$@" "$launcher" --startup-probe > "$scratch/probe.log" 2>&1 && grep -q "^startup-probe " "$scratch/probe.log"
  }
  shared() {
    probe JAVA_TOOL_OPTIONS="-Xshare:on -Xlog:class+load=info:file=$scratch/load.txt" \
      && grep -q "org.traindeck.app.Launcher source: shared objects file" "$scratch/load.txt"
  }
  check "the launcher maps TrainDeck's classes from the app-image's class-data archive" shared
  # a missing archive (or a stale one: the app-image moved) must cost start-up time only, and say nothing
  without_archive() {
    mv "$archive" "$scratch/traindeck.jsa"
    probe
    local rc=$?
    mv "$scratch/traindeck.jsa" "$archive"
    [ $rc -eq 0 ] && ! grep -qi -e "cds" -e "shar" "$scratch/probe.log"
  }
  archive="$out/TrainDeck/lib/app/traindeck.jsa"
  check "without its class-data archive the app still starts, and prints nothing about it" without_archive
else
  echo "FAIL xvfb-run is missing (apt-get install xvfb)"
  failed=$((failed + 1))
fi

deb=$(ls "$out"/traindeck_*_amd64.deb 2>/dev/null | head -1)
check ".deb was built" test -f "$deb"
if [ -f "$deb" ]; then
  contents=$(dpkg-deb -c "$deb")
  check ".deb holds the launcher" grep -q "\./opt/traindeck/bin/TrainDeck$" <<<"$contents"
  check ".deb holds the icon" grep -q "\./opt/traindeck/lib/TrainDeck.png$" <<<"$contents"
  check ".deb holds a trimmed runtime" grep -q "\./opt/traindeck/lib/runtime/bin/java$" <<<"$contents"
  check ".deb holds the class list its postinst archives" grep -q "\./opt/traindeck/lib/app/traindeck.classlist$" <<<"$contents"
  check ".deb holds no class-data archive of the build's paths" bash -c '! grep -q "traindeck\.jsa$" <<<"$1"' _ "$contents"
  check ".deb's postinst writes the class-data archive" grep -q "Xshare:dump" <(dpkg-deb -I "$deb" postinst)
  check ".deb's prerm removes it" grep -q "rm -f /opt/traindeck/lib/app/traindeck.jsa" <(dpkg-deb -I "$deb" prerm)
  dpkg-deb -x "$deb" "$scratch/deb"
  desktop=$(find "$scratch/deb" -type f -name "*.desktop" -path "*traindeck*" | head -1)
  check ".deb holds a desktop entry" test -n "$desktop"
  check "desktop entry starts the launcher" grep -q "^Exec=/opt/traindeck/bin/TrainDeck" "$desktop"
  check "desktop entry has the icon" grep -q "^Icon=/opt/traindeck/lib/TrainDeck.png" "$desktop"
  check "desktop entry's StartupWMClass matches the window" grep -q "^StartupWMClass=org.traindeck.app.TrainDeckApp$" "$desktop"
  depends=$(dpkg-deb -f "$deb" Depends)
  check ".deb depends on GTK 3" grep -q "libgtk-3-0" <<<"$depends"
  check ".deb depends on GL" grep -q "libgl1" <<<"$depends"
fi
echo "sizes: app-image $(du -sh "$out/TrainDeck" | cut -f1), .deb $( [ -f "$deb" ] && du -sh "$deb" | cut -f1)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
