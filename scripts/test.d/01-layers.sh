#!/usr/bin/env bash
# 01-layers.sh - CI stage: the server's folders are layers: no include goes up or across, no cycle,
# libmicrohttpd only in http/ (scripts/check_layers.sh says how).
set -euo pipefail
cd "$(dirname "$0")/../.."
scripts/check_layers.sh
echo "layers: every include goes down (scripts/check_layers.sh)"
