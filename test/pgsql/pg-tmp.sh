# pg-tmp.sh: a throwaway PostgreSQL for one test, sourced by sh scripts.
#   pg_tmp_start DIR [EXTRA_POSTGRES_OPTS]  initdb in DIR/pg, socket in DIR/sock
#   pg_tmp_stop | pg_tmp_start_again | pg_tmp_psql SQL
# Sets PG_CONNINFO ("host=DIR/sock port=N dbname=hsc user=postgres") and
# PG_LOG. Unix socket only (listen_addresses=''): nothing on the network,
# and the port only names the socket file in this private directory. As
# root the server runs as the postgres user (it refuses root).

PG_BIN=${PG_BIN:-$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)}

pg_tmp_as() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

pg_tmp_ctl_start() {
    pg_tmp_as "$PG_BIN/pg_ctl" -D "$PG_DIR/pg" -w -t 30 -l "$PG_LOG" \
        -o "-p $PG_PORT -k $PG_DIR/sock -c listen_addresses='' -c fsync=off $PG_OPTS" \
        start >/dev/null
}

pg_tmp_start() {
    PG_DIR=$1
    PG_OPTS=${2:-}
    [ -x "$PG_BIN/initdb" ] || { echo "pg-tmp: no PostgreSQL server binaries (apt-get install postgresql)" >&2; return 1; }
    chmod 755 "$PG_DIR"
    mkdir -m 700 "$PG_DIR/pg"
    mkdir -m 755 "$PG_DIR/sock"
    if [ "$(id -u)" = 0 ]; then chown postgres:postgres "$PG_DIR/pg" "$PG_DIR/sock"; fi
    PG_PORT=$((20000 + $$ % 20000))
    PG_LOG=$PG_DIR/pg.log
    touch "$PG_LOG"; chmod 666 "$PG_LOG"
    pg_tmp_as "$PG_BIN/initdb" -D "$PG_DIR/pg" -A trust --no-sync -U postgres \
        -E UTF8 --locale=C >/dev/null || return 1
    pg_tmp_ctl_start || { cat "$PG_LOG" >&2; return 1; }
    pg_tmp_as "$PG_BIN/createdb" -h "$PG_DIR/sock" -p "$PG_PORT" -U postgres hsc || return 1
    PG_CONNINFO="host=$PG_DIR/sock port=$PG_PORT dbname=hsc user=postgres connect_timeout=2"
    export PG_CONNINFO PG_LOG
}

pg_tmp_psql() {
    pg_tmp_as "$PG_BIN/psql" -X -q -v ON_ERROR_STOP=1 -At -h "$PG_DIR/sock" \
        -p "$PG_PORT" -U postgres -d hsc -c "$1"
}

# A crash: every connection breaks, prepared statements are gone.
pg_tmp_stop() {
    [ -n "${PG_DIR:-}" ] && [ -d "$PG_DIR/pg" ] || return 0
    pg_tmp_as "$PG_BIN/pg_ctl" -D "$PG_DIR/pg" -m immediate stop >/dev/null 2>&1 || true
}

# The fenced sql block of docs/several-servers.md that contains a line
# matching $1: the doc's setup runs in the tests as written.
pg_doc_block() {
    awk -v pat="$1" '
        /^```sql$/ { inb = 1; buf = ""; hit = 0; next }
        inb && /^```$/ { if (hit) { printf "%s", buf; exit } inb = 0; next }
        inb { buf = buf $0 "\n"; if ($0 ~ pat) hit = 1 }' \
        "${top_srcdir:-.}/docs/several-servers.md"
}

pg_tmp_start_again() {
    pg_tmp_ctl_start
}
