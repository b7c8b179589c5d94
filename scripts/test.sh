#!/usr/bin/env bash
# Install everything the tests need on a fresh Debian machine, then lint, type-check and test.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" != "0" ] && command -v sudo >/dev/null; then SUDO="sudo"; fi
if ! command -v chromium >/dev/null 2>&1; then
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi

python3 -m pip install -q --disable-pip-version-check -e '.[dev]'

echo "== ruff"; python3 -m ruff check src tests benchmarks
echo "== mypy"; python3 -m mypy
echo "== pytest"
python3 -m pytest -n 2 -q "$@"
