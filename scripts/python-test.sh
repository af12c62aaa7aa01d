#!/usr/bin/env bash
# Build the `modelopt` Python module (crates/python, an abi3 wheel for CPython >= 3.8) into a
# virtualenv under target/, and run its pytest suite against the `modelopt` CLI.
#
# Needs python3 >= 3.8 with the venv module, and PyPI for maturin and pytest. When Python or
# venv is missing, prints why and exits 0 (the Rust tests do not depend on it).
set -euo pipefail
# A CLI given to compare against (a path from where the script was called) must exist before
# anything is installed.
case "${MODELOPT_BIN:-}" in
    "" | /*) ;;
    *) MODELOPT_BIN="$PWD/$MODELOPT_BIN" ;;
esac
cd "$(dirname "$0")/.."

if [ -n "${MODELOPT_BIN:-}" ] && { [ ! -f "$MODELOPT_BIN" ] || [ ! -x "$MODELOPT_BIN" ]; }; then
    echo "python-test: MODELOPT_BIN=$MODELOPT_BIN is not an executable file" >&2
    exit 2
fi

PY=${PYTHON:-python3}
if ! command -v "$PY" >/dev/null 2>&1; then
    echo "python-test: skipped: $PY not found"
    exit 0
fi
if ! "$PY" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)'; then
    echo "python-test: skipped: $("$PY" --version 2>&1) is older than Python 3.8"
    exit 0
fi
VENV=target/python-venv
if [ ! -x "$VENV/bin/python" ]; then
    rm -rf "$VENV"
    if ! "$PY" -m venv "$VENV" >/dev/null 2>&1; then
        rm -rf "$VENV"
        echo "python-test: skipped: '$PY -m venv' does not work here (install python3-venv)"
        exit 0
    fi
fi
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check 'maturin>=1.5,<2' pytest
# The CLI the tests compare against: MODELOPT_BIN when the caller gives one (.ci/run passes the
# binary `cargo test --workspace` has just built and tested: `cargo build -p modelopt-cli`
# resolves features for that package alone and would compile serde and our crates again, about
# 50 s on a cold target); otherwise built here. Then the module itself (maturin builds into
# target/ too).
if [ -z "${MODELOPT_BIN:-}" ]; then
    cargo build --quiet -p modelopt-cli
    MODELOPT_BIN="${CARGO_TARGET_DIR:-$PWD/target}/debug/modelopt"
fi
export MODELOPT_BIN
VIRTUAL_ENV="$PWD/$VENV" PATH="$PWD/$VENV/bin:$PATH" \
    "$VENV/bin/maturin" develop --quiet --manifest-path crates/python/Cargo.toml
"$VENV/bin/python" -m pytest -q crates/python/tests "$@"
