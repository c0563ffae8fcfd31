#!/usr/bin/env bash
# Builds TrainDeck's Linux packages with jpackage: an app-image (packaging/target/TrainDeck) and a .deb, each with a
# trimmed Java runtime (jlink), the icon, a desktop entry and the GTK/GL packages as dependencies.
#
#   packaging/build-linux.sh            CPU build (ND4J's nd4j-native)
#   packaging/build-linux.sh --cuda     CUDA 11.6 build (the cuda Maven profile)
#   packaging/build-linux.sh --with-cluster
#                                       adds the cluster module (Apache Spark, ~170 MB of jars), so that the app's
#                                       Devices tab can train on a Spark cluster; without it the package has no Spark
#   packaging/build-linux.sh --with-backend=MODULE
#                                       the same for any distributed backend module (a folder with a
#                                       backend.properties: its runtime modules and JVM options are read from there);
#                                       --with-cluster is --with-backend=cluster
#   packaging/build-linux.sh --no-deb   the app-image only
#
# Windows (.msi) and macOS (.dmg): see packaging/README.md; the same jpackage steps apply with --type msi / dmg.
set -euo pipefail
root="$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/.." && pwd)"
out="$root/packaging/target"
profile=()
deb=1
backend=""
for arg in "$@"; do
  case "$arg" in
    --cuda) profile=(-Pcuda) ;;
    --with-cluster) backend=cluster ;;
    --with-backend=*) backend="${arg#--with-backend=}" ;;
    --no-deb) deb=0 ;;
    *) echo "build-linux.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done
command -v jpackage >/dev/null || { echo "build-linux.sh: jpackage (JDK 17+) is needed" >&2; exit 2; }
version=$(sed -n 's:.*<version>\([0-9][0-9.]*\).*</version>.*:\1:p' "$root/pom.xml" | head -1)

if [ -n "$backend" ] && [ ! -f "$root/$backend/backend.properties" ]; then
  echo "build-linux.sh: $backend is not a backend module (no $backend/backend.properties)" >&2; exit 2
fi
backend_prop() { sed -n "/^$1=/{s/^$1=//p;q;}" "$root/$backend/backend.properties"; }
modules_built=app
[ -n "$backend" ] && modules_built="app,$backend"
echo "== building TrainDeck $version ${profile[*]:-} ($modules_built)"
(cd "$root" && mvn -q -B -DskipTests "${profile[@]}" -pl "$modules_built" -am package)

rm -rf "$out"
mkdir -p "$out/input"
cp "$root"/app/target/traindeck-app-*.jar "$out/input/traindeck-app.jar"
if [ -n "$backend" ]; then
  # the backend module with the app's jars and the ones it adds (the cluster's: Spark, Scala, Hadoop's client API,
  # ...); where both need one library, the backend's version, as ./traindeck train --cluster runs the engine
  cp "$root/$backend"/target/traindeck-"$backend"-*.jar "$out/input/traindeck-$backend.jar"
  "$root/packaging/cluster-classpath.sh" "$root/app/target/runtime-classpath.txt" "$root/$backend/target/runtime-classpath.txt"
else
  tr ':' '\n' < "$root/app/target/runtime-classpath.txt"
fi | while read -r jar || [ -n "$jar" ]; do
  [ -n "$jar" ] && cp "$jar" "$out/input/"
done
cp "$root/packaging/logback-app.xml" "$out/input/"
cp "$root/packaging/compiler-directives.json" "$out/input/"
# the samples and their data, copied to the user's data folder on first launch
mkdir -p "$out/input/samples"
cp -r "$root/sample-configs" "$root/data" "$out/input/samples/"

echo "== trimming a Java runtime with jlink"
modules=java.base,java.compiler,java.datatransfer,java.desktop,java.instrument,java.logging,java.management,java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.sql,java.xml,jdk.crypto.ec,jdk.jfr,jdk.management,jdk.unsupported,jdk.unsupported.desktop,jdk.zipfs
if [ -n "$backend" ] && [ -n "$(backend_prop jlink-modules)" ]; then
  # what the backend needs beyond the app (the cluster's Spark driver: JAAS, Kerberos classes, SASL)
  modules="$modules,$(backend_prop jlink-modules)"
fi
# --generate-cds-archive: without it a jlinked runtime has no class-data archive for the JDK's own classes, and every
# launch loads and verifies them one by one
jlink --add-modules "$modules" --generate-cds-archive --strip-debug --no-header-files --no-man-pages --compress=2 --output "$out/runtime"

java_major=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
java_options=(
  "-Dtraindeck.home=\$APPDIR/samples"
  "-Dtraindeck.packaged=true"
  "-Dlogback.configurationFile=\$APPDIR/logback-app.xml"
  "-XX:MaxRAMPercentage=60"
  # a crash log never in the user's working folder; JDK 17's launcher expands only $APPDIR-like tokens, not $HOME
  "-XX:ErrorFile=/tmp/traindeck-hs_err_pid%p.log"
  # as ./traindeck: C2 leaves DL4J's graph walk to C1 (the file says which methods and why)
  "-XX:+UnlockDiagnosticVMOptions"
  "-XX:-DisplayVMOutput"
  "-XX:CompilerDirectivesFile=\$APPDIR/compiler-directives.json"
)
if [ "${java_major:-17}" -ge 23 ]; then
  java_options+=("--enable-native-access=ALL-UNNAMED" "--sun-misc-unsafe-memory-access=allow")
fi
if [ -n "$backend" ]; then
  # the backend's JVM options, as ./traindeck gives them (the cluster's: Spark's Netty transport reaches into java.base)
  read -r -a backend_options <<< "$(backend_prop java-options)"
  java_options+=(${backend_options[@]+"${backend_options[@]}"})
fi

# Class-data sharing for TrainDeck's own classes: JDK 17 can neither move an archive of application classes nor write
# one on demand, and the archive holds the jars' absolute paths. So the package carries the list of classes the app
# loads up to its first painted window (recorded here, under a virtual display), and the archive is written from it
# where the app lives: by the .deb's postinst (packaging/linux/postinst) and, below, into this app-image. An archive
# that is missing or no longer matches (the app-image moved) is ignored without a word, and the JVM then starts
# without any class-data sharing (slower than with the runtime's own archive; see packaging/bench-startup.sh).
classlist="$out/input/traindeck.classlist"
if command -v xvfb-run >/dev/null; then
  echo "== recording the classes the app loads up to its first window"
  scratch=$(mktemp -d)
  app_cp="$out/input/traindeck-app.jar"
  for jar in "$out"/input/*.jar; do
    if [ "$jar" != "$out/input/traindeck-app.jar" ]; then app_cp="$app_cp:$jar"; fi
  done
  if ! XDG_DATA_HOME="$scratch/data" HOME="$scratch/home" timeout 300 xvfb-run -a -s "-screen 0 1600x1000x24" \
      "$out/runtime/bin/java" -Dtraindeck.home="$out/input/samples" -Dtraindeck.packaged=true \
      -Dlogback.configurationFile="$out/input/logback-app.xml" -XX:DumpLoadedClassList="$classlist" \
      -cp "$app_cp" org.traindeck.app.Launcher --startup-probe > "$scratch/record.log" 2>&1 \
      || ! grep -q "^startup-probe " "$scratch/record.log"; then
    tail -5 "$scratch/record.log" >&2
    echo "build-linux.sh: the app did not reach its first window; the package gets no archive of its classes" >&2
    rm -f "$classlist"
  fi
  rm -rf "$scratch"
else
  echo "build-linux.sh: no xvfb-run (apt-get install xvfb), so no class list: the package gets no archive of its classes" >&2
fi
if [ -s "$classlist" ]; then
  java_options+=("-XX:SharedArchiveFile=\$APPDIR/traindeck.jsa" "-Xlog:cds*=off")
fi

java_args=()
for o in "${java_options[@]}"; do java_args+=(--java-options "$o"); done

echo "== jpackage: app-image"
jpackage --type app-image --name TrainDeck --app-version "$version" --vendor "TrainDeck" \
  --description "Train neural networks on your workstation's GPUs" \
  --input "$out/input" --main-jar traindeck-app.jar --main-class org.traindeck.app.Launcher \
  --runtime-image "$out/runtime" --icon "$root/assets/traindeck.png" "${java_args[@]}" --dest "$out"

if [ "$deb" = 1 ]; then
  command -v fakeroot >/dev/null || { echo "build-linux.sh: building a .deb needs fakeroot (apt-get install fakeroot)" >&2; exit 2; }
  echo "== jpackage: .deb"
  jpackage --type deb --app-image "$out/TrainDeck" --name traindeck --app-version "$version" --vendor "TrainDeck" \
    --description "Train neural networks on your workstation's GPUs" \
    --linux-shortcut --linux-menu-group "Development;Science" --linux-app-category devel \
    --linux-package-deps "libgtk-3-0, libgl1, libx11-6, libxtst6" \
    --resource-dir "$root/packaging/linux" --icon "$root/assets/traindeck.png" --dest "$out"
fi

if [ -s "$out/TrainDeck/lib/app/traindeck.classlist" ]; then
  # after the .deb, which writes its own at the install path; the launcher's options (heap size, compressed
  # pointers) and class path are the ones the archive must match
  echo "== writing the app-image's class-data archive"
  JAVA_TOOL_OPTIONS="-Xshare:dump -XX:SharedClassListFile=$out/TrainDeck/lib/app/traindeck.classlist" \
    "$out/TrainDeck/bin/TrainDeck" > "$out/cds-dump.log" 2>&1 \
    || { tail -5 "$out/cds-dump.log" >&2; echo "build-linux.sh: writing the class-data archive failed" >&2; exit 1; }
fi

echo "== done"
du -sh "$out/TrainDeck"
ls -la "$out"/*.deb 2>/dev/null || true
