#!/usr/bin/env bash
# Local/CI infrastructure for the ingestion platform, without Docker:
#   Kafka (KRaft, jars from Maven Central): one combined broker+controller, or with
#     STACK_KAFKA_NODES=3 a cluster of three combined nodes (the fault suite's scenario i),
#   Redis (reuses one already answering on REDIS_PORT, else starts redis-server),
#   Apicurio Registry (the Confluent Schema Registry API at /apis/ccompat/v7, in-memory storage;
#   a Quarkus runner jar from Maven Central).
# ClickHouse needs nothing here (tests embed chdb).
#
# Usage: deploy/local/stack.sh up|down|status|env
#   up      start what is not running yet (idempotent), create topics, print env
#   down    stop what `up` started, delete Kafka data (STACK_KEEP_DATA=1 keeps it)
#   status  show what runs
#   env     print KEY=VALUE lines only (e.g. `eval "$(deploy/local/stack.sh env)"`)
#
# Env: KAFKA_PORT (9092), KAFKA_CONTROLLER_PORT (9093), REDIS_PORT (6379),
#      SCHEMA_REGISTRY_PORT (8081), KAFKA_HEAP_OPTS (-Xms256m -Xmx512m; cluster: -Xms128m -Xmx384m each),
#      STACK_KAFKA_NODES (1; N > 1: node n listens on KAFKA_PORT+n-1, its controller on
#        KAFKA_CONTROLLER_PORT+n-1, whose default is then KAFKA_PORT+10),
#      KAFKA_REPLICATION_FACTOR (1; cluster: 3), KAFKA_MIN_INSYNC_REPLICAS (1; cluster: 2): topics.txt's
#        topics, the broker defaults and the internal topics get them,
#      SCHEMA_REGISTRY_HEAP_OPTS (-Xms64m -Xmx384m),
#      STACK_UP_TIMEOUT (90, seconds per wait), STACK_LOCAL_DIR (<repo>/.local),
#      STACK_KEEP_DATA (unset: `down` deletes Kafka data), STACK_KAFKA_LIBS (<local dir>/kafka/libs: the jars).
# Everything listens on 127.0.0.1 only. State, logs and pid files: $STACK_LOCAL_DIR.
# Human-readable messages go to stderr; stdout carries only KEY=VALUE lines.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
HERE="$ROOT/deploy/local"
LOCAL="${STACK_LOCAL_DIR:-$ROOT/.local}"

KAFKA_NODES="${STACK_KAFKA_NODES:-1}"
[[ $KAFKA_NODES =~ ^[1-9]$ ]] || { echo "[stack] ERROR: STACK_KAFKA_NODES must be 1-9" >&2; exit 2; }
KAFKA_PORT="${KAFKA_PORT:-9092}"
if ((KAFKA_NODES > 1)); then
  KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-$((KAFKA_PORT + 10))}"
  KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms128m -Xmx384m}"
  KAFKA_REPLICATION_FACTOR="${KAFKA_REPLICATION_FACTOR:-$((KAFKA_NODES < 3 ? KAFKA_NODES : 3))}"
  KAFKA_MIN_INSYNC_REPLICAS="${KAFKA_MIN_INSYNC_REPLICAS:-$((KAFKA_REPLICATION_FACTOR > 1 ? KAFKA_REPLICATION_FACTOR - 1 : 1))}"
else
  KAFKA_CONTROLLER_PORT="${KAFKA_CONTROLLER_PORT:-9093}"
  KAFKA_HEAP_OPTS="${KAFKA_HEAP_OPTS:--Xms256m -Xmx512m}"
  KAFKA_REPLICATION_FACTOR="${KAFKA_REPLICATION_FACTOR:-1}"
  KAFKA_MIN_INSYNC_REPLICAS="${KAFKA_MIN_INSYNC_REPLICAS:-1}"
fi
REDIS_PORT="${REDIS_PORT:-6379}"
SCHEMA_REGISTRY_PORT="${SCHEMA_REGISTRY_PORT:-8081}"
SCHEMA_REGISTRY_HEAP_OPTS="${SCHEMA_REGISTRY_HEAP_OPTS:--Xms64m -Xmx384m}"
UP_TIMEOUT="${STACK_UP_TIMEOUT:-90}"

KAFKA_DIR="$LOCAL/kafka"
KAFKA_LIBS="${STACK_KAFKA_LIBS:-$KAFKA_DIR/libs}"
KAFKA_DATA="$KAFKA_DIR/data"
KAFKA_LOGS="$KAFKA_DIR/logs"
KAFKA_CONF="$KAFKA_DIR/server.properties"
KAFKA_PIDF="$KAFKA_DIR/kafka.pid"
KAFKA_POM="$HERE/kafka/pom.xml"
KAFKA_ADMIN_SRC="$HERE/kafka/LocalKafkaAdmin.java"
TOPICS_FILE="$HERE/topics.txt"
# The cluster (STACK_KAFKA_NODES > 1): node n in $CLUSTER_DIR/node-n (data, logs, config, pid), one
# cluster id for all; the jars stay in $KAFKA_LIBS.
CLUSTER_DIR="$LOCAL/kafka-cluster"

REDIS_DIR="$LOCAL/redis"
REDIS_PIDF="$REDIS_DIR/redis.pid"

SR_DIR="$LOCAL/schema-registry"
SR_APP="$SR_DIR/app"
SR_PIDF="$SR_DIR/registry.pid"
SR_LOG="$SR_DIR/registry.log"
SR_POM="$HERE/schema-registry/pom.xml"
# Apicurio serves the Confluent Schema Registry API under this path (its own API is /apis/registry).
SR_API_PATH=/apis/ccompat/v7

log() { printf '[stack] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# The bootstrap list: every node's broker port.
kafka_brokers() {
  local n list=
  for ((n = 1; n <= KAFKA_NODES; n++)); do list+="${list:+,}127.0.0.1:$((KAFKA_PORT + n - 1))"; done
  echo "$list"
}

print_env() {
  echo "KAFKA_BROKERS=$(kafka_brokers)"
  echo "REDIS_URL=redis://127.0.0.1:$REDIS_PORT"
  echo "SCHEMA_REGISTRY_URL=$(sr_url)"
}

# ---------------------------------------------------------------- helpers

now() { date +%s; }

# live_pid PIDFILE MARKER: print the pid if the process in PIDFILE is alive and
# its command line contains MARKER (guards against stale files / reused pids).
live_pid() {
  local f=$1 marker=$2 pid
  [[ -s $f ]] || return 1
  pid=$(<"$f")
  [[ $pid =~ ^[0-9]+$ ]] || return 1
  kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$marker" || return 1
  echo "$pid"
}

# alive PID: running and not a zombie (an unreaped zombie counts as gone).
alive() {
  kill -0 "$1" 2>/dev/null || return 1
  local state
  state=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null) || return 1
  [[ $state != Z ]]
}

# stop_pid NAME PIDFILE MARKER TIMEOUT: TERM the process group, wait, then KILL.
stop_pid() {
  local name=$1 f=$2 marker=$3 timeout=$4 pid deadline
  if ! pid=$(live_pid "$f" "$marker"); then
    rm -f "$f"
    return 0
  fi
  log "$name: stopping (pid $pid)"
  kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
  deadline=$(($(now) + timeout))
  while alive "$pid"; do
    if (($(now) >= deadline)); then
      log "$name: still running after ${timeout}s, sending KILL"
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
      break
    fi
    sleep 0.2
  done
  # wait (bounded) for a KILLed process to disappear too
  deadline=$(($(now) + 10))
  while alive "$pid" && (($(now) < deadline)); do sleep 0.1; done
  alive "$pid" && die "$name: pid $pid did not exit"
  rm -f "$f"
  log "$name: stopped"
}

# Start a command detached: own session/process group (setsid), no inherited
# stdin/stdout/stderr (so `$(stack.sh up)` returns), lock fd closed.
# spawn PIDFILE LOGFILE CMD... ; prints nothing.
spawn() {
  local f=$1 out=$2
  shift 2
  setsid "$@" </dev/null >>"$out" 2>&1 9>&- &
  echo $! >"$f"
}

port_open() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

http_ok() { # http_ok URL -> 0 when it answers 2xx
  if command -v curl >/dev/null; then
    curl -fsS -o /dev/null --max-time 2 "$1" 2>/dev/null
  else
    node -e 'fetch(process.argv[1],{signal:AbortSignal.timeout(2000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1"
  fi
}

http_put_json() { # http_put_json URL BODY -> 0 when it answers 2xx
  if command -v curl >/dev/null; then
    curl -fsS -o /dev/null --max-time 5 -X PUT -H 'Content-Type: application/json' --data "$2" "$1" 2>/dev/null
  else
    node -e 'fetch(process.argv[1],{method:"PUT",headers:{"Content-Type":"application/json"},body:process.argv[2],signal:AbortSignal.timeout(5000)}).then(r=>process.exit(r.ok?0:1),()=>process.exit(1))' "$1" "$2"
  fi
}

# maven_fetch NAME POM DEST LOG GOAL PROPERTY: unless DEST holds what this very POM fetched (its
# sha256 in DEST/.pom.sha256), run `mvn -f POM GOAL -DPROPERTY=<DEST>.tmp` (artifacts from Maven
# Central, cached in ~/.m2) and move the result to DEST.
maven_fetch() {
  local name=$1 pom=$2 dest=$3 mlog=$4 goal=$5 prop=$6 want tmp t0
  want=$(sha256sum "$pom" | cut -d' ' -f1)
  if [[ -f $dest/.pom.sha256 && $(<"$dest/.pom.sha256") == "$want" ]]; then
    return 0
  fi
  command -v mvn >/dev/null || die "mvn not found: Maven is needed to fetch $name"
  log "$name: fetching from Maven Central (${pom#"$ROOT/"} -> $dest)"
  t0=$(now)
  tmp="$dest.tmp"
  rm -rf "$tmp"
  mkdir -p "$(dirname "$mlog")"
  mvn -B -ntp -Dstyle.color=never -f "$pom" "$goal" -D"$prop=$tmp" 9>&- >"$mlog" 2>&1 || {
    show_log_tail "$mlog" 40
    die "$name: Maven could not fetch it (log: $mlog)"
  }
  echo "$want" >"$tmp/.pom.sha256"
  rm -rf "$dest"
  mv "$tmp" "$dest"
  log "$name: $(find "$dest" -name '*.jar' | wc -l) jars ($(du -sh "$dest" | cut -f1)) in $(($(now) - t0))s"
}

redis_ping() {
  if command -v redis-cli >/dev/null; then
    [[ $(redis-cli -h 127.0.0.1 -p "$REDIS_PORT" ping 2>/dev/null) == PONG ]]
  else
    ( # no redis-cli: speak RESP over bash's /dev/tcp, in a subshell
      exec 3<>"/dev/tcp/127.0.0.1/$REDIS_PORT" || exit 1
      printf 'PING\r\n' >&3
      IFS= read -r -t 2 reply <&3 || exit 1
      [[ $reply == +PONG* ]]
    ) 2>/dev/null
  fi
}

show_log_tail() {
  [[ -f $1 ]] || return 0
  log "last lines of $1:"
  tail -n "${2:-30}" "$1" | sed 's/^/    /' >&2
}

# ---------------------------------------------------------------- kafka

# kafka_broker_props: the settings every node shares (single broker and cluster alike).
kafka_broker_props() {
  cat <<EOF
num.partitions=3
default.replication.factor=$KAFKA_REPLICATION_FACTOR
min.insync.replicas=$KAFKA_MIN_INSYNC_REPLICAS
offsets.topic.replication.factor=$KAFKA_REPLICATION_FACTOR
transaction.state.log.replication.factor=$KAFKA_REPLICATION_FACTOR
transaction.state.log.min.isr=$KAFKA_MIN_INSYNC_REPLICAS
# An out-of-sync replica never becomes leader: acknowledged writes are not given up for availability.
unclean.leader.election.enable=false
auto.create.topics.enable=false
delete.topic.enable=true
group.initial.rebalance.delay.ms=0
# fewer internal partitions than the default 50: quicker first group join / transaction
offsets.topic.num.partitions=5
transaction.state.log.num.partitions=5

# small box: few threads, small segments
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
log.segment.bytes=67108864
log.retention.hours=24

# ingest.raw carries one upload per message, up to the gateway's 5 MiB body (RAW_MAX_MESSAGE_BYTES in
# packages/core/src/topics.ts); ensureTopics also sets it per topic. Other topics' producers split
# their batches to the 1 MiB default, which the bus adapters assume for every other topic.
message.max.bytes=6291456
replica.fetch.max.bytes=6291456
EOF
}

# kafka_write_log4j DIR: the broker's log4j config in DIR, logging to DIR/logs/server.log.
kafka_write_log4j() {
  cat >"$1/log4j.properties" <<EOF
# Broker logging (reload4j), generated by deploy/local/stack.sh
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=$1/logs/server.log
log4j.appender.file.Append=true
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.org.apache.kafka.controller=INFO
EOF
}

kafka_write_tools_log4j() {
  mkdir -p "$KAFKA_DIR"
  cat >"$KAFKA_DIR/tools-log4j.properties" <<'EOF'
# CLI tools / admin helper logging: errors only, to stderr
log4j.rootLogger=ERROR, stderr
log4j.appender.stderr=org.apache.log4j.ConsoleAppender
log4j.appender.stderr.Target=System.err
log4j.appender.stderr.layout=org.apache.log4j.PatternLayout
log4j.appender.stderr.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

kafka_write_config() {
  mkdir -p "$KAFKA_DATA" "$KAFKA_LOGS"
  {
    cat <<EOF
# Generated by deploy/local/stack.sh; rewritten on every start.
process.roles=broker,controller
node.id=1
controller.quorum.bootstrap.servers=127.0.0.1:$KAFKA_CONTROLLER_PORT
listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT,CONTROLLER://127.0.0.1:$KAFKA_CONTROLLER_PORT
advertised.listeners=PLAINTEXT://127.0.0.1:$KAFKA_PORT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$KAFKA_DATA

EOF
    kafka_broker_props
  } >"$KAFKA_CONF"
  kafka_write_log4j "$KAFKA_DIR"
  kafka_write_tools_log4j
}

# Java options for short-lived tool JVMs: fast start-up over peak speed.
kafka_tool_java() {
  java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xshare:auto -Xmx256m \
    -Dlog4j.configuration="file:$KAFKA_DIR/tools-log4j.properties" \
    -cp "$KAFKA_LIBS/*" "$@"
}

# A Kafka cluster id is 16 random bytes, base64url without padding (22 chars); avoid a leading '-'
# (Kafka's own generator does the same).
new_cluster_id() {
  local id
  while :; do
    id=$(head -c 16 /dev/urandom | base64 | tr '+/' '-_' | tr -d '=\n')
    [[ $id != -* ]] && break
  done
  echo "$id"
}

# kafka_format DIR CLUSTER_ID [--standalone]: format DIR/data once (when meta.properties is absent).
kafka_format() {
  local dir=$1 cluster_id=$2
  shift 2
  [[ -f $dir/data/meta.properties ]] && return 0
  log "kafka: formatting storage in $dir/data (KRaft, cluster id $cluster_id${1:+, $1})"
  kafka_tool_java kafka.tools.StorageTool format "$@" -t "$cluster_id" -c "$dir/server.properties" \
    9>&- >>"$dir/logs/format.log" 2>&1 || {
    show_log_tail "$dir/logs/format.log"
    die "kafka: storage format failed in $dir"
  }
}

# kafka_spawn DIR: start the broker of DIR/server.properties (pid in DIR/kafka.pid, output in DIR/logs).
kafka_spawn() {
  local dir=$1
  # shellcheck disable=SC2086 # KAFKA_HEAP_OPTS is a list of JVM flags
  spawn "$dir/kafka.pid" "$dir/logs/kafka.out" \
    java $KAFKA_HEAP_OPTS -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -XX:+ExitOnOutOfMemoryError \
    -Djava.awt.headless=true -Dkafka.logs.dir="$dir/logs" \
    -Dlog4j.configuration="file:$dir/log4j.properties" \
    -cp "$KAFKA_LIBS/*" kafka.Kafka "$dir/server.properties"
}

# kafka_await_port DIR PORT: until the broker of DIR listens on PORT; dies if it exits or times out.
kafka_await_port() {
  local dir=$1 port=$2 pid deadline
  pid=$(<"$dir/kafka.pid")
  deadline=$(($(now) + UP_TIMEOUT))
  until port_open "$port"; do
    if ! alive "$pid"; then
      show_log_tail "$dir/logs/kafka.out"
      show_log_tail "$dir/logs/server.log"
      die "kafka: broker exited during start-up (logs: $dir/logs)"
    fi
    if (($(now) >= deadline)); then
      show_log_tail "$dir/logs/server.log"
      die "kafka: port $port not open after ${UP_TIMEOUT}s"
    fi
    sleep 0.2
  done
}

# kafka_admin BOOTSTRAP WAIT_S: one JVM waits until the brokers answer metadata, creates the missing
# topics of topics.txt with the replication settings, and waits until every partition has a leader
# and at least min.insync.replicas in-sync replicas.
kafka_admin() {
  kafka_tool_java "$KAFKA_ADMIN_SRC" "$1" "$2" "$TOPICS_FILE" "$KAFKA_REPLICATION_FACTOR" "$KAFKA_MIN_INSYNC_REPLICAS" 9>&-
}

kafka_up() {
  local pid wait_s=$UP_TIMEOUT foreign=
  command -v java >/dev/null || die "java not found: Kafka needs a JDK/JRE 17+"
  maven_fetch kafka "$KAFKA_POM" "$KAFKA_LIBS" "$KAFKA_LOGS/maven.log" dependency:copy-dependencies outputDirectory
  if pid=$(live_pid "$KAFKA_PIDF" "$KAFKA_CONF"); then
    log "kafka: reusing running broker (pid $pid)"
  elif port_open "$KAFKA_PORT"; then
    # e.g. a broker left running by another checkout: use it if it is healthy.
    rm -f "$KAFKA_PIDF"
    foreign=1 wait_s=15
    log "kafka: something this script did not start listens on 127.0.0.1:$KAFKA_PORT; using it if it is a healthy broker (it will not be stopped by down)"
    [[ -f $KAFKA_DIR/tools-log4j.properties ]] || kafka_write_tools_log4j
  else
    rm -f "$KAFKA_PIDF"
    port_open "$KAFKA_CONTROLLER_PORT" &&
      die "kafka: controller port 127.0.0.1:$KAFKA_CONTROLLER_PORT is in use by a process this script did not start (set KAFKA_CONTROLLER_PORT)"
    kafka_write_config
    kafka_format "$KAFKA_DIR" "$(new_cluster_id)" --standalone
    log "kafka: starting broker on 127.0.0.1:$KAFKA_PORT (controller 127.0.0.1:$KAFKA_CONTROLLER_PORT)"
    kafka_spawn "$KAFKA_DIR"
    kafka_await_port "$KAFKA_DIR" "$KAFKA_PORT"
  fi
  kafka_admin "127.0.0.1:$KAFKA_PORT" "$wait_s" || {
    [[ -n $foreign ]] && die "kafka: 127.0.0.1:$KAFKA_PORT is in use but is not a healthy Kafka broker (set KAFKA_PORT)"
    show_log_tail "$KAFKA_LOGS/server.log"
    die "kafka: broker not healthy or topic creation failed (logs: $KAFKA_LOGS)"
  }
}

kafka_down() {
  stop_pid kafka "$KAFKA_PIDF" "$KAFKA_CONF" 60
  if [[ -n ${STACK_KEEP_DATA:-} ]]; then
    log "kafka: keeping data in $KAFKA_DATA (STACK_KEEP_DATA set)"
  elif [[ -d $KAFKA_DATA ]]; then
    rm -rf "$KAFKA_DATA"
    log "kafka: data deleted ($KAFKA_DATA)"
  fi
}

# ---------------------------------------------------------------- kafka cluster (STACK_KAFKA_NODES > 1)

node_dir() { echo "$CLUSTER_DIR/node-$1"; }

cluster_write_config() {
  local n=$1 dir voters= m
  dir=$(node_dir "$n")
  mkdir -p "$dir/data" "$dir/logs"
  for ((m = 1; m <= KAFKA_NODES; m++)); do voters+="${voters:+,}$m@127.0.0.1:$((KAFKA_CONTROLLER_PORT + m - 1))"; done
  {
    cat <<EOF
# Generated by deploy/local/stack.sh (node $n of $KAFKA_NODES); rewritten on every start.
process.roles=broker,controller
node.id=$n
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$((KAFKA_PORT + n - 1)),CONTROLLER://127.0.0.1:$((KAFKA_CONTROLLER_PORT + n - 1))
advertised.listeners=PLAINTEXT://127.0.0.1:$((KAFKA_PORT + n - 1))
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
log.dirs=$dir/data
# A node that stops heartbeating is fenced (its partitions' leadership moves) after this long;
# Kafka's 9 s default would keep the partitions it led without a leader for longer than a produce
# timeout (the gateway's 5 s).
broker.heartbeat.interval.ms=1000
broker.session.timeout.ms=${KAFKA_BROKER_SESSION_TIMEOUT_MS:-4000}
# The nodes start together, but on a busy machine the quorum can take longer than the 60 s default
# to form; a broker that cannot register by then exits.
initial.broker.registration.timeout.ms=300000

EOF
    kafka_broker_props
  } >"$dir/server.properties"
  kafka_write_log4j "$dir"
}

cluster_up() {
  local n dir pid cluster_id port starting=()
  command -v java >/dev/null || die "java not found: Kafka needs a JDK/JRE 17+"
  ((KAFKA_CONTROLLER_PORT >= KAFKA_PORT + KAFKA_NODES || KAFKA_CONTROLLER_PORT + KAFKA_NODES <= KAFKA_PORT)) ||
    die "kafka: controller ports $KAFKA_CONTROLLER_PORT.. overlap broker ports $KAFKA_PORT.. (set KAFKA_CONTROLLER_PORT)"
  ((KAFKA_REPLICATION_FACTOR <= KAFKA_NODES && KAFKA_MIN_INSYNC_REPLICAS <= KAFKA_REPLICATION_FACTOR)) ||
    die "kafka: replication factor $KAFKA_REPLICATION_FACTOR / min.insync.replicas $KAFKA_MIN_INSYNC_REPLICAS do not fit $KAFKA_NODES nodes"
  maven_fetch kafka "$KAFKA_POM" "$KAFKA_LIBS" "$KAFKA_LOGS/maven.log" dependency:copy-dependencies outputDirectory
  kafka_write_tools_log4j
  mkdir -p "$CLUSTER_DIR"
  [[ -s $CLUSTER_DIR/cluster.id ]] || new_cluster_id >"$CLUSTER_DIR/cluster.id"
  cluster_id=$(<"$CLUSTER_DIR/cluster.id")
  for ((n = 1; n <= KAFKA_NODES; n++)); do
    dir=$(node_dir "$n")
    if pid=$(live_pid "$dir/kafka.pid" "$dir/server.properties"); then
      log "kafka: reusing node $n (pid $pid)"
      continue
    fi
    rm -f "$dir/kafka.pid"
    for port in $((KAFKA_PORT + n - 1)) $((KAFKA_CONTROLLER_PORT + n - 1)); do
      port_open "$port" && die "kafka: port 127.0.0.1:$port of node $n is in use by a process this script did not start"
    done
    cluster_write_config "$n"
    kafka_format "$dir" "$cluster_id"
    starting+=("$n")
  done
  # All formatted first, then started together: a node waits for a quorum of the others.
  for n in "${starting[@]}"; do
    log "kafka: starting node $n on 127.0.0.1:$((KAFKA_PORT + n - 1)) (controller 127.0.0.1:$((KAFKA_CONTROLLER_PORT + n - 1)))"
    kafka_spawn "$(node_dir "$n")"
  done
  for ((n = 1; n <= KAFKA_NODES; n++)); do kafka_await_port "$(node_dir "$n")" $((KAFKA_PORT + n - 1)); done
  kafka_admin "$(kafka_brokers)" "$UP_TIMEOUT" || {
    show_log_tail "$(node_dir 1)/logs/server.log"
    die "kafka: cluster not healthy or topic creation failed (logs: $CLUSTER_DIR/node-*/logs)"
  }
}

cluster_down() {
  local n dir
  for ((n = 1; n <= KAFKA_NODES; n++)); do
    dir=$(node_dir "$n")
    stop_pid "kafka node $n" "$dir/kafka.pid" "$dir/server.properties" 60 &
  done
  wait
  if [[ -n ${STACK_KEEP_DATA:-} ]]; then
    log "kafka: keeping the cluster's data in $CLUSTER_DIR (STACK_KEEP_DATA set)"
  elif [[ -d $CLUSTER_DIR ]]; then
    rm -rf "$CLUSTER_DIR"/node-*/data "$CLUSTER_DIR/cluster.id"
    log "kafka: cluster data deleted ($CLUSTER_DIR)"
  fi
}

cluster_status() {
  local n dir pid
  for ((n = 1; n <= KAFKA_NODES; n++)); do
    dir=$(node_dir "$n")
    if pid=$(live_pid "$dir/kafka.pid" "$dir/server.properties"); then
      echo "kafka node $n: running (pid $pid) on 127.0.0.1:$((KAFKA_PORT + n - 1))"
    else
      echo "kafka node $n: not running"
    fi
  done
}

# ---------------------------------------------------------------- redis

redis_up() {
  local pid deadline
  if pid=$(live_pid "$REDIS_PIDF" redis-server) && redis_ping; then
    log "redis: reusing redis-server started by stack.sh (pid $pid)"
    return 0
  fi
  if redis_ping; then
    rm -f "$REDIS_PIDF"
    log "redis: using the Redis already answering on 127.0.0.1:$REDIS_PORT (not managed by stack.sh)"
    return 0
  fi
  command -v redis-server >/dev/null ||
    die "redis: nothing answers on 127.0.0.1:$REDIS_PORT and redis-server is not installed (apt-get install redis-server redis-tools)"
  port_open "$REDIS_PORT" && die "redis: port 127.0.0.1:$REDIS_PORT is in use by something that does not answer PING"
  mkdir -p "$REDIS_DIR"
  log "redis: starting redis-server on 127.0.0.1:$REDIS_PORT (no persistence)"
  spawn "$REDIS_PIDF" "$REDIS_DIR/redis.out" \
    redis-server --bind 127.0.0.1 --port "$REDIS_PORT" --save '' --appendonly no \
    --dir "$REDIS_DIR" --logfile "$REDIS_DIR/redis.log" --daemonize no
  pid=$(<"$REDIS_PIDF")
  deadline=$(($(now) + UP_TIMEOUT))
  until redis_ping; do
    if ! alive "$pid"; then
      show_log_tail "$REDIS_DIR/redis.log"
      die "redis: redis-server exited during start-up"
    fi
    (($(now) < deadline)) || die "redis: no PONG after ${UP_TIMEOUT}s"
    sleep 0.1
  done
}

redis_down() {
  if [[ -s $REDIS_PIDF ]]; then
    stop_pid redis "$REDIS_PIDF" redis-server 20
  fi
}

# ---------------------------------------------------------------- schema registry

sr_url() { echo "http://127.0.0.1:$SCHEMA_REGISTRY_PORT$SR_API_PATH"; }

sr_answers() { http_ok "$(sr_url)/subjects"; }

# Confluent's registry checks BACKWARD compatibility unless told otherwise, Apicurio checks nothing
# (global level NONE). Say it explicitly, so that a subject without a level of its own is checked as
# the platform assumes (the registry client sets a level on the subjects it creates, but not on
# subjects someone else created).
sr_set_global_compatibility() {
  http_put_json "$(sr_url)/config" '{"compatibility":"BACKWARD"}' ||
    die "schema-registry: PUT $(sr_url)/config {\"compatibility\":\"BACKWARD\"} failed"
}

sr_up() {
  local pid deadline jar t0
  if pid=$(live_pid "$SR_PIDF" "$SR_APP/") && sr_answers; then
    log "schema-registry: reusing running Apicurio Registry (pid $pid)"
    return 0
  fi
  if sr_answers; then
    rm -f "$SR_PIDF"
    log "schema-registry: using the registry already answering on $(sr_url) (not managed by stack.sh)"
    return 0
  fi
  port_open "$SCHEMA_REGISTRY_PORT" &&
    die "schema-registry: port 127.0.0.1:$SCHEMA_REGISTRY_PORT is in use by something that does not answer GET $SR_API_PATH/subjects (set SCHEMA_REGISTRY_PORT)"
  maven_fetch schema-registry "$SR_POM" "$SR_APP" "$SR_DIR/maven.log" dependency:unpack apicurio.dir
  jar=$(compgen -G "$SR_APP/apicurio-registry-app-*-runner.jar" | head -n 1) ||
    die "schema-registry: no apicurio-registry-app-*-runner.jar in $SR_APP (delete it to fetch again)"
  log "schema-registry: starting Apicurio Registry (in-memory storage) on $(sr_url)"
  t0=$(now)
  # Quarkus logs to the console, i.e. to $SR_LOG. C1 only: quicker start on a small box, and a
  # registry's load is light (clients cache ids and schemas).
  # shellcheck disable=SC2086 # SCHEMA_REGISTRY_HEAP_OPTS is a list of JVM flags
  (cd "$SR_DIR" && spawn "$SR_PIDF" "$SR_LOG" \
    java $SCHEMA_REGISTRY_HEAP_OPTS -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -XX:+ExitOnOutOfMemoryError \
    -Dquarkus.http.host=127.0.0.1 -Dquarkus.http.port="$SCHEMA_REGISTRY_PORT" -Dquarkus.log.console.color=false \
    -jar "$jar")
  pid=$(<"$SR_PIDF")
  deadline=$(($(now) + UP_TIMEOUT))
  until sr_answers; do
    if ! alive "$pid"; then
      show_log_tail "$SR_LOG"
      die "schema-registry: Apicurio Registry exited during start-up (log: $SR_LOG)"
    fi
    if (($(now) >= deadline)); then
      show_log_tail "$SR_LOG"
      die "schema-registry: GET $(sr_url)/subjects not 200 after ${UP_TIMEOUT}s"
    fi
    sleep 0.2
  done
  sr_set_global_compatibility
  log "schema-registry: ready in $(($(now) - t0))s"
}

sr_down() {
  stop_pid schema-registry "$SR_PIDF" "$SR_APP/" 30
}

# ---------------------------------------------------------------- commands

cmd_up() {
  local t0
  t0=$(now)
  if ((KAFKA_NODES > 1)); then cluster_up; else kafka_up; fi
  redis_up
  sr_up
  log "up in $(($(now) - t0))s:"
  if ((KAFKA_NODES > 1)); then
    log "  kafka           $KAFKA_NODES nodes $(kafka_brokers) (controllers from 127.0.0.1:$KAFKA_CONTROLLER_PORT; replication $KAFKA_REPLICATION_FACTOR, min.insync.replicas $KAFKA_MIN_INSYNC_REPLICAS; logs $CLUSTER_DIR/node-*/logs)"
  else
    log "  kafka           127.0.0.1:$KAFKA_PORT (controller 127.0.0.1:$KAFKA_CONTROLLER_PORT; logs $KAFKA_LOGS)"
  fi
  log "  redis           127.0.0.1:$REDIS_PORT"
  log "  schema registry $(sr_url) (log $SR_LOG)"
  print_env
}

cmd_down() {
  sr_down
  if ((KAFKA_NODES > 1)); then cluster_down; else kafka_down; fi
  redis_down
}

cmd_status() {
  local pid
  if ((KAFKA_NODES > 1)); then
    cluster_status
  elif pid=$(live_pid "$KAFKA_PIDF" "$KAFKA_CONF"); then
    echo "kafka: running (pid $pid) on 127.0.0.1:$KAFKA_PORT$(port_open "$KAFKA_PORT" || echo ', port NOT open')"
  elif port_open "$KAFKA_PORT"; then
    echo "kafka: something listens on 127.0.0.1:$KAFKA_PORT (not managed by stack.sh)"
  else
    echo "kafka: not running"
  fi
  if pid=$(live_pid "$REDIS_PIDF" redis-server); then
    echo "redis: running (pid $pid, started by stack.sh) on 127.0.0.1:$REDIS_PORT"
  elif redis_ping; then
    echo "redis: answering on 127.0.0.1:$REDIS_PORT (not managed by stack.sh)"
  else
    echo "redis: not running"
  fi
  if pid=$(live_pid "$SR_PIDF" "$SR_APP/"); then
    echo "schema-registry: Apicurio Registry running (pid $pid) on $(sr_url)$(sr_answers || echo ', NOT answering')"
  elif sr_answers; then
    echo "schema-registry: answering on $(sr_url) (not managed by stack.sh)"
  else
    echo "schema-registry: not running"
  fi
}

main() {
  local cmd=${1:-}
  case $cmd in
    env) print_env; return 0 ;;
    status) cmd_status; return 0 ;;
    up | down) ;;
    *) echo "usage: $0 up|down|status|env" >&2; exit 2 ;;
  esac
  mkdir -p "$LOCAL"
  [[ -f $LOCAL/.gitignore ]] || echo '*' >"$LOCAL/.gitignore"
  # Serialise concurrent up/down calls (children close fd 9, see spawn).
  exec 9>"$LOCAL/.stack.lock"
  flock -w 300 9 || die "another stack.sh up/down holds $LOCAL/.stack.lock"
  "cmd_$cmd"
}

main "$@"
