#!/usr/bin/env bash
# Builds ahead, in the idle time of make test (ADR 0019). On 2 cores most
# suites leave a core idle while they wait on leases, timeouts, servers and
# single-threaded runs; the release builds the last suites need (the
# PostgreSQL extension, the zig-built dist libraries and wheel) run meanwhile
# in a lane of their own at the lowest CPU priority (nice 19, the idle
# scheduling class, the idle I/O class), so they take
# only what the suites leave, in a cargo target directory of their own
# (target/ahead-target: no cargo lock is shared with the suites).
#
#   ahead.sh start STEP...   scripts/test.sh only: the lane, one step after another
#   ahead.sh take STEP       wait for STEP's result and show its log; outside
#                            a lane started by this make test (POLYFLAKE_AHEAD
#                            unset), run STEP here and now
#   ahead.sh stop            end the lane (and every process of it)
#
# The steps: pg-extension (pg-extension.sh: the extension, installed),
# fuzz-build (fuzz.sh --build: cargo-fuzz and the fuzz targets) and
# dist-native (dist.sh --host --native: the zig-built libraries and wheel).
set -euo pipefail
source "$(dirname "$0")/lib.sh"

# step_run STEP: the step itself, in this shell's environment.
step_run() {
    case "$1" in
        pg-extension) bash "$root/scripts/pg-extension.sh" ;;
        fuzz-build) bash "$root/scripts/fuzz.sh" --build ;;
        dist-native) bash "$root/scripts/dist.sh" --host --native ;;
        *) echo "ahead: no step $1" >&2; return 2 ;;
    esac
}

case "${1:-}" in
    start)
        shift
        state="$work/ahead"
        rm -rf "$state" && mkdir -p "$state"
        for step in "$@"; do
            case "$step" in pg-extension | fuzz-build | dist-native) ;; *) echo "ahead: no step $step" >&2; exit 2 ;; esac
        done
        # A process group of its own (job control), in this session: nice
        # ranks it below the suites (a new session would be a scheduler
        # group of its own, where nice 19 ranks nothing).
        set -m
        (
            renice -n 19 -p "$BASHPID" >/dev/null
            # Lower still where the kernel allows it (no privilege needed): the
            # idle scheduling class, and the idle I/O class for the disk.
            chrt --idle -p 0 "$BASHPID" 2>/dev/null || true
            ionice -c 3 -p "$BASHPID" 2>/dev/null || true
            export CARGO_TARGET_DIR="$work/ahead-target"
            for step in "$@"; do
                rc=0
                step_run "$step" > "$state/$step.log" 2>&1 || rc=$?
                echo "$rc" > "$state/$step.rc"
            done
        ) < /dev/null &
        lane=$!
        set +m
        echo "$lane" > "$state/pgid"
        printf '%s\n' "$@" > "$state/steps"
        echo "ahead: building $* in the background (nice 19, log in target/ahead/)"
        ;;
    take)
        step=$2
        state=${POLYFLAKE_AHEAD:-}
        if [ -z "$state" ] || ! grep -qx "$step" "$state/steps" 2>/dev/null; then
            step_run "$step"
            exit
        fi
        lane=$(cat "$state/pgid")
        waited=$SECONDS
        while [ ! -f "$state/$step.rc" ]; do
            if ! kill -0 -- "-$lane" 2>/dev/null; then
                echo "ahead: the lane ended before $step did" >&2
                cat "$state/$step.log" >&2 2>/dev/null || true
                exit 1
            fi
            sleep 1
        done
        echo "ahead: $step was built ahead (waited $((SECONDS - waited)) s for it); its log:"
        cat "$state/$step.log"
        exit "$(cat "$state/$step.rc")"
        ;;
    stop)
        state="$work/ahead"
        if [ -f "$state/pgid" ]; then
            kill -- "-$(cat "$state/pgid")" 2>/dev/null || true
            rm -f "$state/pgid"
        fi
        ;;
    *)
        sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//' >&2
        exit 2
        ;;
esac
