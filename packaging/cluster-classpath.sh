#!/usr/bin/env bash
# Prints the packaged app's jars with the cluster module, one a line: the app's runtime class path (argument 1) and
# the cluster module's (argument 2) merged. Where both hold one library (the same Maven group and artifact) in two
# versions, the cluster's is kept: it is the set ./traindeck train --cluster and the cluster tests run the engine
# with. Each such replacement is said on stderr.
#
#   packaging/cluster-classpath.sh app/target/runtime-classpath.txt cluster/target/runtime-classpath.txt
set -euo pipefail
[ $# = 2 ] || { echo "usage: cluster-classpath.sh APP_CLASSPATH_FILE CLUSTER_CLASSPATH_FILE" >&2; exit 2; }
# a jar in a Maven repository is .../GROUP/ARTIFACT/VERSION/ARTIFACT-VERSION[-CLASSIFIER].jar: its library is
# GROUP/ARTIFACT and the classifier (natives come as several classifiers of one version); one built in this tree
# (.../MODULE/target/x.jar) is its own
library() {
  case "$1" in
    */target/*) echo "$1" ;;
    *) local dir version artifact file
       dir=$(dirname "$1"); version=$(basename "$dir"); artifact=$(basename "$(dirname "$dir")"); file=$(basename "$1" .jar)
       echo "$(dirname "$dir"):${file#"$artifact-$version"}" ;;
  esac
}
declare -A cluster_jar=()
while read -r jar || [ -n "$jar" ]; do
  [ -n "$jar" ] && cluster_jar[$(library "$jar")]="$jar"
done < <(tr ':' '\n' < "$2")
declare -A printed=()
while read -r jar || [ -n "$jar" ]; do
  [ -n "$jar" ] || continue
  lib=$(library "$jar")
  theirs="${cluster_jar[$lib]:-}"
  if [ -n "$theirs" ] && [ "$theirs" != "$jar" ]; then
    echo "cluster-classpath.sh: $(basename "$jar") replaced by the cluster module's $(basename "$theirs")" >&2
    jar="$theirs"
  fi
  echo "$jar"
  printed[$lib]=1
done < <(tr ':' '\n' < "$1")
while read -r jar || [ -n "$jar" ]; do
  [ -n "$jar" ] && [ -z "${printed[$(library "$jar")]:-}" ] && echo "$jar"
done < <(tr ':' '\n' < "$2")
exit 0
