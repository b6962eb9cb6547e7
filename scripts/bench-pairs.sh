#!/usr/bin/env bash
# bench-pairs.sh: the « Auto » plays per second, and the server's CPU a play, of two builds of
# Star Color, alternated pair by pair on this machine (docs/PERFORMANCE.md).
#
#   scripts/bench-pairs.sh [-s sqlite|pg] [-n PAIRS] [-d SECONDS] NEW OLD
#
# NEW and OLD are git revisions of this repository. For each pair the order is swapped, so a
# machine that speeds up or slows down over the series favours neither. Each run:
#
#  1. serves a fresh database: on SQLite a copy of a base file the build made once (one
#     1,000,000-unit emission at each price); on PostgreSQL two servers on a database dropped
#     and made again ($STARCOLOR_BENCH_PG: a URL whose user may create databases);
#  2. waits until the server has checked its store ("store checked"; "served at" for builds
#     from before that check), so that the check's reading of the pages is not measured;
#  3. plays 64 players for SECONDS with NEW's load client, or with the build's own where NEW's
#     cannot set up a player on it (an API from before identities);
#  4. prints plays/s and the server's µs of CPU a play, then the pair's ratios NEW / OLD.
#
# Builds and databases go in $STARCOLOR_BENCH_DIR (default /tmp/starcolor-bench). The ports
# 18090–18099 and 19090–19091 must be free. Check `uptime` first: a busy machine says nothing.
set -euo pipefail

store=sqlite pairs=4 secs=15
while getopts "s:n:d:" o; do
	case $o in
	s) store=$OPTARG ;;
	n) pairs=$OPTARG ;;
	d) secs=$OPTARG ;;
	*) sed -n '2,6p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -eq 2 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
case $store in sqlite | pg) ;; *) echo "-s: sqlite or pg" >&2; exit 2 ;; esac
if [ "$store" = pg ] && [ -z "${STARCOLOR_BENCH_PG:-}" ]; then
	echo "-s pg needs STARCOLOR_BENCH_PG, a PostgreSQL URL whose user may create databases" >&2
	exit 2
fi
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
. "$repo/scripts/bench-lib.sh"
work=${STARCOLOR_BENCH_DIR:-/tmp/starcolor-bench}
new=$(git -C "$repo" rev-parse --short "$1") old=$(git -C "$repo" rev-parse --short "$2")
mkdir -p "$work"

# build REV: the revision's commands, once, into $work/REV/bin.
build() { bench_build "$repo" "$1" "$work/$1"; }

# has BIN FLAG: whether the build's serve takes a flag.
has() { "$1" serve --help 2>&1 | grep -q -- "-$2 "; }

# serve DIR BIN DB PORT METRICSPORT LOG: one server, in the background (its pid in $served),
# with the flags its build has, once it is ready.
serve() {
	local flags=(--db "$3" --addr "127.0.0.1:$4")
	has "$2" auth-per-minute && flags+=(--auth-per-minute 0)
	has "$2" metrics-addr && flags+=(--metrics-addr "127.0.0.1:$5")
	if [ "$store" = pg ] && has "$2" journal-key; then
		flags+=(--journal-key "$1/pg.journal-key")
	fi
	"$2" serve "${flags[@]}" >"$6" 2>&1 &
	served=$!
	# A build from before the store's check (its binary has not the words) says nothing more
	# once it serves.
	local checked="store checked"
	grep -q "store checked" "$2" || checked="served at"
	waitfor "$6" "$checked"
}

# play REV: one run of REV's servers; prints "plays/s µs".
play() {
	local dir=$work/$1 bin=$work/$1/bin/starcolor addrs metrics
	pkill -f "$work/.*/bin/starcolor serve" 2>/dev/null || true
	if [ "$store" = sqlite ]; then
		if [ ! -f "$dir/base.db" ]; then
			serve "$dir" "$bin" "$dir/base.db" 18099 19099 "$dir/base.log"
			kill "$served"
			wait "$served" 2>/dev/null || true
		fi
		rm -f "$dir"/run.db*
		cp "$dir/base.db" "$dir/run.db"
		[ -f "$dir/base.db.journal-key" ] && cp "$dir/base.db.journal-key" "$dir/run.db.journal-key"
		serve "$dir" "$bin" "$dir/run.db" 18090 19090 "$dir/run.log"
		addrs=http://127.0.0.1:18090 metrics=http://127.0.0.1:19090
	else
		local base=${STARCOLOR_BENCH_PG%%\?*} query=
		[ "$base" != "$STARCOLOR_BENCH_PG" ] && query=?${STARCOLOR_BENCH_PG#*\?}
		PGOPTIONS=--client-min-messages=warning psql -q "$STARCOLOR_BENCH_PG" -c 'DROP DATABASE IF EXISTS starcolor_bench' -c 'CREATE DATABASE starcolor_bench' >/dev/null
		local db=${base%/*}/starcolor_bench$query
		serve "$dir" "$bin" "$db" 18090 19090 "$dir/run.log"
		serve "$dir" "$bin" "$db" 18091 19091 "$dir/run2.log"
		addrs=http://127.0.0.1:18090,http://127.0.0.1:18091 metrics=http://127.0.0.1:19090,http://127.0.0.1:19091
	fi
	has "$bin" metrics-addr || metrics=$addrs
	local out=$dir/lt.out
	if ! "$work/$new/bin/starcolor-loadtest" --addr "$addrs" --players 64 --duration "${secs}s" --metrics "$metrics" >"$out" 2>&1 &&
		grep -q "no player could be set up" "$out"; then
		"$bin" loadtest --addr "$addrs" --players 64 --duration "${secs}s" >"$out" 2>&1
	fi
	pkill -f "$bin serve" 2>/dev/null || true
	wait 2>/dev/null || true
	local p c
	p=$(grep -oP '[0-9.]+(?= plays/s)' "$out" || true)
	c=$(grep -oP 'server \K[0-9.]+(?= µs)' "$out" || true)
	[ -n "$p" ] || { echo "bench-pairs: no plays/s from $1:" >&2; tail -5 "$out" >&2; return 1; }
	echo "$p ${c:-0}"
}

build "$new"
build "$old"
echo "# $store, $pairs pairs of ${secs}s, $new / $old, $(uptime)"
for i in $(seq 1 "$pairs"); do
	if [ $((i % 2)) = 1 ]; then order="$new $old"; else order="$old $new"; fi
	declare -A p c
	for r in $order; do
		read -r p[$r] c[$r] < <(play "$r")
		echo "$i $r ${p[$r]} plays/s, ${c[$r]} µs a play, $(date +%T), load $(cut -d' ' -f1 /proc/loadavg)"
	done
	echo "pair $i: plays $(echo "scale=3; ${p[$new]}/${p[$old]}" | bc), CPU a play $(echo "scale=3; ${c[$new]}/${c[$old]}" | bc)"
done
