#!/usr/bin/env bash
# Lints the Helm chart and validates what it renders against the Kubernetes 1.30 schemas.
# Helm has no npm or Debian package: it is built from the Go module proxy; kubeconform would
# download its schemas from GitHub, so the schemas come from PyPI's kubernetes-validate instead.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HELM_VERSION="${HELM_VERSION:-v3.19.0}"
helm_bin="$(go env GOPATH)/bin/helm"
[[ -x "$helm_bin" ]] || go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
command -v kubernetes-validate >/dev/null || pip install --quiet kubernetes-validate
"$helm_bin" lint helm/verification-gateway
rendered="$(mktemp)"
trap 'rm -f "$rendered"' EXIT
"$helm_bin" template check helm/verification-gateway --set ingress.enabled=true --set dashboard.enabled=true >"$rendered"
kubernetes-validate --kubernetes-version 1.30.0 --strict "$rendered"
# The PrometheusRule is a custom resource, which the Kubernetes schemas do not describe: it is
# rendered (a template error fails here) and its rules are checked by scripts/check-rules.sh.
"$helm_bin" template check helm/verification-gateway --set prometheusRule.enabled=true \
  --show-only templates/prometheusrule.yaml >/dev/null
