#!/usr/bin/env bash
# Stop the broker started by scripts/kafka/start.sh (pid file in the run dir).
# Idempotent: exits 0 when nothing is running.
set -euo pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
RUN_DIR="${KAFKA_RUN_DIR:-$(cd "$SCRIPT_DIR/../.." && pwd)/.kafka}"
PID_FILE="$RUN_DIR/kafka.pid"

[[ -f "$PID_FILE" ]] || exit 0
PID="$(cat "$PID_FILE")"

# kill -0 also succeeds on a zombie (exited but not yet reaped), so check the state too.
alive() { [[ -e "/proc/$PID" ]] && ! grep -q '^[0-9]* (.*) Z' "/proc/$PID/stat" 2>/dev/null; }

# Only signal the pid if it is still our broker (pids get reused after reboots).
if [[ "$PID" =~ ^[0-9]+$ ]] && alive \
   && tr '\0' ' ' <"/proc/$PID/cmdline" 2>/dev/null | grep -q 'kafka\.Kafka'; then
  echo "kafka: stopping pid $PID…"
  kill -TERM "$PID" 2>/dev/null || true
  # Controlled shutdown normally takes a few seconds; give it 20.
  for _ in $(seq 1 40); do
    alive || break
    sleep 0.5
  done
  if alive; then
    echo "kafka: pid $PID ignored TERM for 20s, sending KILL"
    kill -KILL "$PID" 2>/dev/null || true
    # Wait for the kernel to reap it so the ports are free for a restart.
    for _ in $(seq 1 20); do alive || break; sleep 0.25; done
  fi
fi
rm -f "$PID_FILE"
