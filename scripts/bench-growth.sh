#!/usr/bin/env bash
# bench-growth.sh: what grows with the history, measured at each size of a database filled with
# real sales (docs/PERFORMANCE.md, « A year of sales »).
#
#   scripts/bench-growth.sh [-s sqlite|pg] [-r REV] [-n PAIRS] [-d SECONDS] [-l NEW] [-k] SIZE...
#
# For each SIZE (games, as 100000 or 1e6), with REV's build (default HEAD):
#
#  1. fills a fresh database with SIZE sales (starcolor-loadtest fill): its games/s. With -k, a
#     database of that size already in the work directory (gSIZE.db, or starcolor_gSIZE on
#     PostgreSQL, with its journal.key and gSIZE.heavy, its heaviest player) is kept as it is,
#     and its fill not timed;
#  2. says where its bytes go (starcolor-loadtest size): a game's bytes of sales, of the journal,
#     in all;
#  3. runs starcolor ledger check on it: its time, games/s and peak resident memory;
#  4. plays 64 players « Auto » for SECONDS on the filled database and on an empty one, PAIRS
#     pairs alternated: the ratios filled / empty of plays/s and of the sales' p99;
#  5. times the back office's pages on the filled database, each the best of three: the first
#     page (today), the sales page's CSV, the players' list, the heaviest player's page, the
#     emissions, the log;
#  6. with -l NEW: sells NEW games more, and times starcolor ledger check --since-last, which
#     reads them alone (from the mark the full check of step 3 recorded), and its peak memory.
#
# It prints one row of a Markdown table a size, then the pages' times. On PostgreSQL ($STARCOLOR_BENCH_PG: a URL whose
# user may create databases) one server fills and checks, and two serve. Files go in
# $STARCOLOR_BENCH_DIR (default /tmp/starcolor-bench): a filled SQLite file takes about 900
# bytes a game. The ports 18090–18099 and 19090–19091 must be free. Check `uptime` first.
set -euo pipefail

store=sqlite rev=HEAD pairs=2 secs=10 new=0 keep=
while getopts "s:r:n:d:l:k" o; do
	case $o in
	k) keep=1 ;;
	l) new=$(printf '%.0f' "$OPTARG") ;;
	s) store=$OPTARG ;;
	r) rev=$OPTARG ;;
	n) pairs=$OPTARG ;;
	d) secs=$OPTARG ;;
	*) sed -n '2,6p' "$0" >&2; exit 2 ;;
	esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || { sed -n '2,6p' "$0" >&2; exit 2; }
case $store in sqlite | pg) ;; *) echo "-s: sqlite or pg" >&2; exit 2 ;; esac
if [ "$store" = pg ] && [ -z "${STARCOLOR_BENCH_PG:-}" ]; then
	echo "-s pg needs STARCOLOR_BENCH_PG, a PostgreSQL URL whose user may create databases" >&2
	exit 2
fi
repo=$(git -C "$(dirname "$0")" rev-parse --show-toplevel)
. "$repo/scripts/bench-lib.sh"
work=${STARCOLOR_BENCH_DIR:-/tmp/starcolor-bench}/growth
id=$(git -C "$repo" rev-parse --short "$rev")
bin=$work/$id/bin
mkdir -p "$work"
bench_build "$repo" "$id" "$work/$id"
export STARCOLOR_JOURNAL_KEY=$work/journal.key

# dburl NAME: a database's --db (a file, or a PostgreSQL database's URL).
dburl() {
	if [ "$store" = sqlite ]; then
		echo "$work/$1.db"
		return
	fi
	local base=${STARCOLOR_BENCH_PG%%\?*} query=
	[ "$base" != "$STARCOLOR_BENCH_PG" ] && query=?${STARCOLOR_BENCH_PG#*\?}
	echo "${base%/*}/starcolor_$1$query"
}

# database NAME: a fresh database's --db (a file, or a PostgreSQL database made again).
database() {
	if [ "$store" = sqlite ]; then
		rm -f "$work/$1".db*
	else
		PGOPTIONS=--client-min-messages=warning psql -q "$STARCOLOR_BENCH_PG" -c "DROP DATABASE IF EXISTS starcolor_$1" -c "CREATE DATABASE starcolor_$1" >/dev/null
	fi
	dburl "$1"
}

# play DB: 64 players for SECONDS on DB's servers; prints "plays/s p99".
play() {
	local addrs=http://127.0.0.1:18090 metrics=http://127.0.0.1:19090 n=1
	[ "$store" = pg ] && n=2 addrs=$addrs,http://127.0.0.1:18091 metrics=$metrics,http://127.0.0.1:19091
	for i in $(seq 0 $((n - 1))); do
		"$bin/starcolor" serve --db "$1" --addr "127.0.0.1:1809$i" --metrics-addr "127.0.0.1:1909$i" --auth-per-minute 0 >"$work/serve$i.log" 2>&1 &
		waitfor "$work/serve$i.log" "store checked" 120 # a filled file takes longer to check
	done
	"$bin/starcolor-loadtest" --addr "$addrs" --metrics "$metrics" --players 64 --duration "${secs}s" >"$work/lt.out" 2>&1 || true
	pkill -f "$bin/starcolor serve" || true
	wait 2>/dev/null || true
	local p q
	p=$(grep -oP '[0-9.]+(?= plays/s)' "$work/lt.out" || true)
	q=$(grep -P '^\s*POST /games\s' "$work/lt.out" | awk '{print $(NF-1)}' || true)
	[ -n "$p" ] || { echo "bench-growth: no plays/s:" >&2; tail -5 "$work/lt.out" >&2; return 1; }
	echo "$p $q"
}

# pages DB HEAVY: the back office's pages on DB, the best of three each, in ms, as "name ms ...".
pages() {
	"$bin/starcolor" serve --db "$1" --addr 127.0.0.1:18090 --metrics-addr 127.0.0.1:19090 --auth-per-minute 0 >"$work/serve0.log" 2>&1 &
	waitfor "$work/serve0.log" "store checked" 120
	echo "bench-growth-password" | "$bin/starcolor" admin create --db "$1" bench --role viewer,finance,compliance >/dev/null 2>&1 || true
	local base=http://127.0.0.1:18090 jar=$work/cookies out=()
	curl -s -c "$jar" -o /dev/null -d name=bench -d password=bench-growth-password "$base/admin/login"
	for page in "today /admin/" "csv /admin/sales.csv" "players /admin/players?q=fill" "player /admin/players/$2" \
		"emissions /admin/emissions" "log /admin/log"; do
		set -- $page
		local best=
		for _ in 1 2 3; do
			t=$(curl -s -b "$jar" -o /dev/null -w '%{time_total} %{http_code}' "$base$2")
			[ "${t#* }" = 200 ] || { echo "bench-growth: $2 answered ${t#* }" >&2; break; }
			t=$(echo "${t% *} * 1000" | bc)
			if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" = 1 ]; then best=$t; fi
		done
		out+=("$1 $(printf %.1f "${best:-0}")")
	done
	pkill -f "$bin/starcolor serve" || true
	wait 2>/dev/null || true
	echo "${out[*]}"
}

# ms DURATION: a load test's duration (1.2ms, 850µs, 1.5s) in milliseconds.
ms() { echo "$1" | sed -E 's/µs$/ 0.001/; s/ms$/ 1/; s/s$/ 1000/' | awk '{printf "%.3f", $1 * $2}'; }

echo "# $store, build $id, $(uptime)"
echo "| games | fill games/s | sales B/game | journal B/game | all B/game | ledger check s | its games/s | its peak MB | plays/s filled / empty | p99 filled / empty | --since-last s after $new more | its peak MB |"
echo "|---|---|---|---|---|---|---|---|---|---|---|---|"
empty=$(database empty)
pagetimes=()
for size in "$@"; do
	n=$(printf '%.0f' "$size")
	if [ -n "$keep" ]; then
		db=$(dburl "g$n")
		rate=- heavy=$(cat "$work/g$n.heavy")
	else
		db=$(database "g$n")
		"$bin/starcolor-loadtest" fill --db "$db" --games "$n" --heavy "${HEAVY:-4}" >"$work/fill.out" 2>/dev/null
		rate=$(grep -oP '[0-9]+(?= games/s)' "$work/fill.out")
		heavy=$(grep -oP 'heavy players: \K[0-9]+' "$work/fill.out")
		echo "$heavy" >"$work/g$n.heavy"
	fi
	sizes=$("$bin/starcolor-loadtest" size --db "$db")
	per() { echo "$sizes" | awk -v p="$1" 'NF == 3 && $1 == p {print $3}'; }
	/usr/bin/time -f "%e %M" -o "$work/time.out" "$bin/starcolor" ledger check --db "$db" >"$work/check.out" 2>&1 ||
		{ echo "bench-growth: ledger check failed on $n games:" >&2; tail -5 "$work/check.out" >&2; exit 1; }
	read -r secs_check kb <"$work/time.out"
	ratios=()
	for i in $(seq 1 "$pairs"); do
		if [ $((i % 2)) = 1 ]; then order="$db $empty"; else order="$empty $db"; fi
		declare -A p q
		for d in $order; do read -r p[$d] q[$d] < <(play "$d"); done
		ratios+=("$(echo "scale=3; ${p[$db]}/${p[$empty]}" | bc)/$(echo "scale=3; $(ms "${q[$db]}")/$(ms "${q[$empty]}")" | bc)")
	done
	plays=$(printf '%s\n' "${ratios[@]}" | cut -d/ -f1 | paste -sd' ')
	p99=$(printf '%s\n' "${ratios[@]}" | cut -d/ -f2 | paste -sd' ')
	pagetimes+=("$n games, player $heavy: $(pages "$db" "$heavy")")
	since=- since_mb=-
	if [ "$new" -gt 0 ]; then
		"$bin/starcolor-loadtest" fill --db "$db" --games "$new" --heavy "${HEAVY:-4}" --seed 2 >"$work/fill.out" 2>/dev/null
		/usr/bin/time -f "%e %M" -o "$work/time.out" "$bin/starcolor" ledger check --db "$db" --since-last >"$work/check.out" 2>&1 ||
			{ echo "bench-growth: ledger check --since-last failed after $new more games:" >&2; tail -5 "$work/check.out" >&2; exit 1; }
		read -r since since_kb <"$work/time.out"
		since_mb=$((since_kb / 1024))
	fi
	printf '| %s | %s | %s | %s | %s | %s | %.0f | %d | %s | %s | %s | %s |\n' "$n" "$rate" "$(per sales)" "$(per journal)" "$(per all)" \
		"$secs_check" "$(echo "$n / $secs_check" | bc -l)" $((kb / 1024)) "$plays" "$p99" "$since" "$since_mb"
done
echo
echo "back office, ms (best of three):"
printf '%s\n' "${pagetimes[@]}"
