#!/usr/bin/env bash
# The package's start-up: milliseconds from the JVM's start to the first painted window (the app's --startup-probe),
# through the package's own launcher, in three variants alternated round by round:
#   app  - as packaged: the class-data archive of TrainDeck's classes (lib/app/traindeck.jsa)
#   jdk  - the runtime's archive of the JDK's classes only (the package before it archived TrainDeck's classes)
#   none - no class-data sharing at all, which is what a missing or stale archive gives (e.g. the app-image moved)
# Prints each launch, then the medians and the median of the pairwise ratios (min-max) against "jdk".
#
#   packaging/bench-startup.sh [app folder, default packaging/target/TrainDeck; /opt/traindeck for the .deb] [rounds, default 5]
#
# Needs a display, or xvfb-run. It adds a second launcher (and its .cfg) to the app folder while it runs.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
app="${1:-$root/packaging/target/TrainDeck}"
rounds="${2:-5}"
if [ -z "${DISPLAY:-}" ]; then
  exec xvfb-run -a -s "-screen 0 1600x1000x24" "$0" "$app" "$rounds"
fi
cfg="$app/lib/app/TrainDeck.cfg"
grep -q "traindeck.jsa" "$cfg" || { echo "bench-startup.sh: $cfg names no class-data archive" >&2; exit 2; }
[ -s "$app/lib/app/traindeck.jsa" ] || { echo "bench-startup.sh: $app/lib/app/traindeck.jsa is missing" >&2; exit 2; }

# the same launcher binary reads the .cfg named after it: this one without the archive's options
jdk_launcher="$app/bin/TrainDeck-bench-jdk"
scratch=$(mktemp -d)
trap 'rm -rf "$scratch" "$jdk_launcher" "$app/lib/app/TrainDeck-bench-jdk.cfg"' EXIT
cp "$app/bin/TrainDeck" "$jdk_launcher"
grep -v -e "traindeck.jsa" -e "Xlog:cds" "$cfg" > "$app/lib/app/TrainDeck-bench-jdk.cfg"

probe() {
  local variant="$1" out
  case "$variant" in
    app) out=$(XDG_DATA_HOME="$scratch/data" HOME="$scratch/home" "$app/bin/TrainDeck" --startup-probe 2>&1) ;;
    jdk) out=$(XDG_DATA_HOME="$scratch/data" HOME="$scratch/home" "$jdk_launcher" --startup-probe 2>&1) ;;
    none) out=$(JAVA_TOOL_OPTIONS=-Xshare:off XDG_DATA_HOME="$scratch/data" HOME="$scratch/home" "$app/bin/TrainDeck" --startup-probe 2>&1) ;;
  esac
  # "startup-probe first-frame-ms=N cpu-ms=N heap-mib=N rss-mib=N" -> "N N"
  sed -n 's/^startup-probe first-frame-ms=\([0-9]*\) cpu-ms=\([0-9]*\).*/\1 \2/p' <<<"$out"
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minmax() { sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.2f-%.2f", lo, hi }'; }

# the first launch copies the samples to the data folder, and each variant's first launch fills the page cache
for v in app jdk none; do probe "$v" > /dev/null; done
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in $(seq "$rounds"); do
  for v in app jdk none; do
    read -r ms cpu <<<"$(probe "$v")"
    [ -n "$ms" ] || { echo "bench-startup.sh: the $v launch reported no start-up" >&2; exit 1; }
    echo "$v $ms $cpu" >> "$scratch/probes"
    echo "round $i  $v  first frame $ms ms  CPU $cpu ms"
  done
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
for v in app jdk none; do
  echo "$v: first frame median $(awk -v v=$v '$1 == v { print $2 }' "$scratch/probes" | median) ms," \
    "CPU median $(awk -v v=$v '$1 == v { print $3 }' "$scratch/probes" | median) ms"
done
for v in app none; do
  for col in 2 3; do
    ratios=$(paste <(awk -v v=$v -v c=$col '$1 == v { print $c }' "$scratch/probes") \
      <(awk -v c=$col '$1 == "jdk" { print $c }' "$scratch/probes") | awk '{ printf "%.4f\n", $1 / $2 }')
    what="first frame"; [ $col = 3 ] && what="CPU"
    echo "$v / jdk, $what: $(median <<<"$ratios" | xargs printf '%.2f')x ($(minmax <<<"$ratios"), $rounds pairs)"
  done
done
