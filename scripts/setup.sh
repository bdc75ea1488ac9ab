#!/usr/bin/env bash
# Sets up a fresh machine: headless-rendering system libraries, a virtualenv in .venv, and
# recallbench with the extras named in $1 (default: none). Safe to run again.
set -euo pipefail
cd "$(dirname "$0")/.."
extras="${1:-}"

# Mesa's EGL and OSMesa let MuJoCo render without a GPU or display.
need=()
for pkg in libegl1 libgl1-mesa-dri libosmesa6; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
if [ ${#need[@]} -gt 0 ]; then
    if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null; then
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}" >/dev/null
    else
        echo "note: install ${need[*]} (Debian/Ubuntu) for headless rendering" >&2
    fi
fi

python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
spec="."
[ -n "$extras" ] && spec=".[$extras]"
.venv/bin/python -m pip install -q -e "$spec"
