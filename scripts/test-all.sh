#!/usr/bin/env bash
# Installs everything the tests need from the project's own files, then runs every test:
#   Debian packages (tshark, for the pcap tests) when missing and we can install them,
#   Rust crates (cargo), Python packages (pip, from pyproject.toml, into .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TERM_COLOR=never
if ! command -v tshark >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "installing Debian package tshark (pcap tests)"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tshark >/dev/null
  else
    echo "warning: tshark is missing and cannot be installed here (run as root, or: sudo apt-get install tshark); its test will fail" >&2
  fi
fi
python3 -m venv .venv
. .venv/bin/activate
pip install ".[test]"
cargo test -p ccsim-core
python -m pytest
