#!/usr/bin/env bash
# Start a real single-node Apache Kafka broker (KRaft, broker+controller) on
# loopback, for tests and CI. Jars come from Maven Central via pom.xml beside
# this script and are cached; nothing Kafka-related is committed.
#
# Progress goes to stderr; stdout is only `KAFKA_BROKERS=127.0.0.1:PORT`, so
#   eval "$(bash scripts/kafka/start.sh)"
# works. Env: KAFKA_PORT (19092), KAFKA_CONTROLLER_PORT (19093),
# KAFKA_RUN_DIR (<repo>/.kafka), KAFKA_LIB_DIR (~/.cache/hadron-kafka/<ver>/libs).
# The broker's data (the event log: the source of truth) is kept across restarts; `--fresh` (or
# KAFKA_FRESH=1) starts an empty cluster instead.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO_DIR="$(cd "$SCRIPT_DIR/../.." && pwd)"
POM="$SCRIPT_DIR/pom.xml"
# Single source of truth for the version: the pom.
KAFKA_VERSION="$(sed -n 's:.*<kafka.version>\(.*\)</kafka.version>.*:\1:p' "$POM")"
PORT="${KAFKA_PORT:-19092}"
CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-19093}"
RUN_DIR="${KAFKA_RUN_DIR:-$REPO_DIR/.kafka}"
LIB_DIR="${KAFKA_LIB_DIR:-$HOME/.cache/hadron-kafka/$KAFKA_VERSION/libs}"
PID_FILE="$RUN_DIR/kafka.pid"
LOG_FILE="$RUN_DIR/server.log"
TIMEOUT_S=90

say() { echo "kafka: $*" >&2; }
now_ms() { date +%s%3N; }
port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
T0="$(now_ms)"

# 1. Jars. The marker holds the pom's hash, so editing the pom re-resolves.
POM_HASH="$(sha256sum "$POM" | cut -d' ' -f1)"
MARKER="$LIB_DIR/.complete"
if [[ "$(cat "$MARKER" 2>/dev/null)" != "$POM_HASH" ]]; then
  say "resolving jars from Maven Central (kafka_2.13:$KAFKA_VERSION)…"
  # Copy into a temp dir and move into place, so an interrupted run never
  # leaves a half-filled cache that looks complete.
  TMP_LIB="$LIB_DIR.tmp.$$"
  rm -rf "$TMP_LIB"
  mkdir -p "$(dirname "$LIB_DIR")"
  # Output is kept in a log and shown only on failure (Maven 3.8's -q still
  # prints stray ANSI resets). A registry that fails once (seen in CI: Maven exited
  # without a word) is asked again, twice, after a pause.
  for attempt in 1 2 3; do
    if mvn -q -B -f "$POM" dependency:copy-dependencies \
        -DoutputDirectory="$TMP_LIB" -DincludeScope=runtime >"$TMP_LIB.log" 2>&1; then
      break
    fi
    say "maven failed (attempt $attempt of 3):"; cat "$TMP_LIB.log" >&2
    (( attempt < 3 )) || exit 1
    sleep $(( attempt * 10 ))
  done
  rm -f "$TMP_LIB.log"
  echo "$POM_HASH" >"$TMP_LIB/.complete"
  rm -rf "$LIB_DIR"
  mv "$TMP_LIB" "$LIB_DIR"
fi
CP="$LIB_DIR/*"

# 2. A broker we started earlier is stopped first; a foreign one on our port is an error.
bash "$SCRIPT_DIR/stop.sh" >&2
for p in "$PORT" "$CONTROLLER_PORT"; do
  if port_open "$p"; then
    say "port $p on 127.0.0.1 is already in use by another process; set KAFKA_PORT / KAFKA_CONTROLLER_PORT"
    exit 1
  fi
done

# 3. Runtime dir. The data is kept unless a fresh cluster is asked for.
FRESH="${KAFKA_FRESH:-0}"
[[ "${1:-}" == "--fresh" ]] && FRESH=1
mkdir -p "$RUN_DIR"
if [[ "$FRESH" == "1" ]]; then
  say "--fresh: deleting the broker's data"
  rm -rf "$RUN_DIR/data"
fi
rm -f "$LOG_FILE" "$RUN_DIR/format.log" "$RUN_DIR/stdout.log"

cat >"$RUN_DIR/server.properties" <<EOF
process.roles=broker,controller
node.id=1
listeners=PLAINTEXT://127.0.0.1:$PORT,CONTROLLER://127.0.0.1:$CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
inter.broker.listener.name=PLAINTEXT
controller.listener.names=CONTROLLER
# Static single-voter quorum: no --standalone / dynamic-quorum bookkeeping needed.
controller.quorum.voters=1@127.0.0.1:$CONTROLLER_PORT
log.dirs=$RUN_DIR/data
# Single node: internal topics cannot have more than one replica.
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
# One partition each (default 50): a fresh broker creates __consumer_offsets lazily on the first
# FindCoordinator (and __transaction_state on first transactional use); with 50 partitions the
# first consumer-group join waits for all of them to get leaders.
offsets.topic.num.partitions=1
transaction.state.log.num.partitions=1
# Tests should not wait 3 s for the first consumer-group rebalance.
group.initial.rebalance.delay.ms=0
num.partitions=3
# Topics are created explicitly (with their own retention) by the app.
auto.create.topics.enable=false
EOF

# Broker logs go to a file, not stdout (reload4j, log4j 1.x syntax).
cat >"$RUN_DIR/log4j.properties" <<EOF
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$LOG_FILE
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.zookeeper=WARN
EOF
JAVA_LOG_OPTS=(-Dlog4j.configuration="file:$RUN_DIR/log4j.properties" -Dkafka.logs.dir="$RUN_DIR")

# 4. Format storage with a random cluster id — only when it has none yet (a kept data directory
# already carries its cluster id in meta.properties).
if [[ -f "$RUN_DIR/data/meta.properties" ]]; then
  say "reusing the broker's data in $RUN_DIR/data (start with --fresh for an empty cluster)"
else
  say "formatting storage…"
  # Same shape as `StorageTool random-uuid` (16 random bytes, URL-safe base64, no
  # padding, no leading '-'), without paying for an extra JVM start.
  CLUSTER_ID="-"
  while [[ "$CLUSTER_ID" == -* ]]; do
    CLUSTER_ID="$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=')"
  done
  if ! java "${JAVA_LOG_OPTS[@]}" -cp "$CP" kafka.tools.StorageTool format \
      --config "$RUN_DIR/server.properties" --cluster-id "$CLUSTER_ID" >>"$RUN_DIR/format.log" 2>&1; then
    say "storage format failed:"; cat "$RUN_DIR/format.log" >&2; exit 1
  fi
fi

# 5. Start in the background. All std streams are redirected so a caller's
# $(...) does not hang waiting for the broker to close its stdout.
nohup java -Xms256m -Xmx512m -XX:+UseG1GC -Djava.awt.headless=true "${JAVA_LOG_OPTS[@]}" \
  -cp "$CP" kafka.Kafka "$RUN_DIR/server.properties" \
  </dev/null >"$RUN_DIR/stdout.log" 2>&1 &
PID=$!
echo "$PID" >"$PID_FILE"

# 6. Ready = the server logged "Kafka Server started" AND the port accepts TCP.
fail() {
  say "$1; last 50 lines of $LOG_FILE:"
  tail -n 50 "$LOG_FILE" >&2 2>/dev/null || true
  tail -n 20 "$RUN_DIR/stdout.log" >&2 2>/dev/null || true
  bash "$SCRIPT_DIR/stop.sh" >&2
  exit 1
}
deadline=$(( $(now_ms) + TIMEOUT_S * 1000 ))
until grep -q "Kafka Server started" "$LOG_FILE" 2>/dev/null && port_open "$PORT"; do
  kill -0 "$PID" 2>/dev/null || fail "broker process $PID exited during startup"
  (( $(now_ms) < deadline )) || fail "broker not ready after ${TIMEOUT_S}s"
  sleep 0.5
done

ELAPSED_MS=$(( $(now_ms) - T0 ))
say "started pid $PID on 127.0.0.1:$PORT in $((ELAPSED_MS / 1000)).$(printf '%03d' $((ELAPSED_MS % 1000)) | cut -c1)s"
echo "KAFKA_BROKERS=127.0.0.1:$PORT"
