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
# Every optional part on: the ingress with TLS, the NetworkPolicy with an egress rule, a digest.
"$helm_bin" template check helm/verification-gateway \
  --set ingress.enabled=true \
  --set 'ingress.tls[0].secretName=webhooks-tls' --set 'ingress.tls[0].hosts[0]=webhooks.example' \
  --set networkPolicy.enabled=true \
  --set 'networkPolicy.egress[0].to[0].ipBlock.cidr=10.0.0.0/24' \
  --set 'networkPolicy.egress[0].ports[0].port=9093' \
  --set image.digest=sha256:0000000000000000000000000000000000000000000000000000000000000000 \
  >"$rendered"
kubernetes-validate --kubernetes-version 1.30.0 --strict "$rendered"
