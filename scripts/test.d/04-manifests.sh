#!/usr/bin/env bash
# 04-manifests.sh - CI stage: the Kubernetes manifests of deploy/ against the Kubernetes API's schemas.
# Every kustomization there (deploy/base, deploy/overlays/single, deploy/overlays/replicas) is rendered
# and every object it makes is validated, and so is every other manifest (deploy/count-job.yaml, the
# example Secret): types, required fields and enums (npm's kubernetes-models), unknown fields (a
# misspelled one fails, as the API server's strict validation would refuse it), and what the overlays
# promise beyond the schemas (tools/manifests/check.mjs lists it). kubernetes-models and yaml are
# pinned in tools/manifests/package-lock.json (npm ci; Node.js 20.19 or later, scripts/deps.sh --node).
# kustomize is not packaged for Debian 12, so tools/manifests/kustomize.mjs renders the part of it that
# deploy/ uses and refuses any other kustomization field; where kubectl is on PATH, each kustomization
# is also rendered by `kubectl kustomize` and must give the same objects.
set -euo pipefail
cd "$(dirname "$0")/../.."

command -v npm >/dev/null || { echo "04-manifests: npm not found (Node.js 20.19+ with npm is needed)" >&2; exit 1; }
echo "-- npm ci (tools/manifests: kubernetes-models, yaml as locked)"
(cd tools/manifests && npm ci --no-audit --no-fund --loglevel=error)

opts=()
if command -v kubectl >/dev/null && kubectl kustomize --help >/dev/null 2>&1; then
  opts+=(--kubectl)
else
  echo "04-manifests: no kubectl with kustomize on PATH: the renderer is not compared with kustomize's"
fi
node tools/manifests/check.mjs "${opts[@]}" deploy
