#!/usr/bin/env bash
# Installs the Debian packages named that are missing, as root with apt-get; otherwise names
# them. Waits (up to APT_LOCK_WAIT seconds, default 600) for another apt/dpkg to finish
# instead of failing at once on its lock.
set -euo pipefail
need=()
for pkg in "$@"; do
    dpkg -s "$pkg" >/dev/null 2>&1 || need+=("$pkg")
done
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
    echo "note: install ${need[*]} (Debian/Ubuntu) with your package manager" >&2
    exit 0
fi
wait="${APT_LOCK_WAIT:-600}"
apt_get() { DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout="$wait" "$@"; }
# `apt-get update` honours the lock timeout only for dpkg's lock: retry it while a list lock
# is held, within the same bound.
deadline=$((SECONDS + wait))
until apt_get update -qq; do
    [ $SECONDS -lt $deadline ] || { echo "error: apt-get update kept failing" >&2; exit 1; }
    sleep 5
done
apt_get install -y -qq "${need[@]}" >/dev/null
