#!/usr/bin/env bash
# Runs one workload on two builds of the node, interleaved (A B, B A, A B, ...) in the same hour,
# and prints one table of both with their ratio: this machine's speed drifts 2-3x within a day, so
# only figures measured side by side compare.
# usage: benchmark/ab.sh JAR_A JAR_B ROUNDS WORKLOAD [LoadBench options...]
#   e.g. benchmark/ab.sh /tmp/old/hourglass-node.jar scheduler-node/target/hourglass-node.jar 3 steady --rate 500 --seconds 30
# The reports stay in the directory it prints (A-1.json, B-1.json, ...).
set -euo pipefail
cd "$(dirname "$0")/.."
jar_a=$1; jar_b=$2; rounds=$3; shift 3
out=$(mktemp -d /tmp/hourglass-ab.XXXX)
for r in $(seq 1 "$rounds"); do
  if [ $((r % 2)) = 1 ]; then order="A B"; else order="B A"; fi
  for side in $order; do
    if [ "$side" = A ]; then jar=$jar_a; else jar=$jar_b; fi
    echo "round $r: $side ($jar)" >&2
    NODE_JAR=$jar benchmark/run.sh "$@" > "$out/$side-$r.json" 2> "$out/$side-$r.log" || echo "round $r $side failed: $out/$side-$r.log" >&2
  done
done
cp=$(cat benchmark/target/classpath.txt):benchmark/target/classes
java -cp "$cp" dev.hourglass.bench.AbTable "$out" "A $(basename "$(dirname "$jar_a")")/$(basename "$jar_a")" "B $(basename "$(dirname "$jar_b")")/$(basename "$jar_b")"
echo "reports: $out" >&2
