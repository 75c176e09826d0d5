#!/usr/bin/env bash
# The hostile soak (tests/integration/logsrv_soak.sh) run longer: legitimate
# collectors, attackers of every kind, kill -9 of the log server and of
# Redis; prints one JSON object with the figures (records sent, stored,
# lost, stored twice; attacks held off; peak memory against its bound).
# usage: bench/logsrv_soak.sh BUILD_DIR [SECONDS]   (default 600)
set -euo pipefail
BUILD=${1:?usage: logsrv_soak.sh BUILD_DIR [SECONDS]}
SRC=$(cd "$(dirname "$0")/.." && pwd)
BCN_BUILD=$BUILD BCN_SRC=$SRC SOAK_SECONDS=${2:-600} \
	bash "$SRC/tests/integration/logsrv_soak.sh" | grep '^{'
