#!/usr/bin/env bash
# Lints the Helm chart and validates what it renders against the Kubernetes 1.30 schemas.
# Helm has no npm or Debian package: it is built from the Go module proxy (`go install`, a few
# minutes once; later runs reuse the binary when its version matches HELM_VERSION). kubeconform
# would download its schemas from GitHub, so the schemas come from PyPI's kubernetes-validate,
# installed into a virtualenv under .stack/ (Debian's system Python refuses `pip install`).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
HELM_VERSION="${HELM_VERSION:-v3.19.0}"
KUBE_VALIDATE_VERSION="${KUBE_VALIDATE_VERSION:-1.37.0}"
tools=".stack/tools"

need() {
  command -v "$1" >/dev/null 2>&1 || { echo "check-helm: $1 is required ($2)" >&2; exit 1; }
}

helm_bin() {
  local candidate
  for candidate in "$(command -v helm || true)" "$(go env GOPATH 2>/dev/null)/bin/helm"; do
    [[ -x "$candidate" ]] || continue
    [[ "$("$candidate" version --template '{{.Version}}' 2>/dev/null)" == "$HELM_VERSION" ]] || continue
    echo "$candidate"
    return
  done
  need go "Go 1.21 or newer builds helm ${HELM_VERSION}, fetching the toolchain helm asks for: https://go.dev/doc/install"
  echo "building helm ${HELM_VERSION} (go install, once)" >&2
  go install "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}" >&2
  echo "$(go env GOPATH)/bin/helm"
}

kube_validate_bin() {
  local venv="$tools/kubernetes-validate-${KUBE_VALIDATE_VERSION}"
  if [[ ! -x "$venv/bin/kubernetes-validate" ]]; then
    need python3 "Python 3 with venv runs kubernetes-validate"
    echo "installing kubernetes-validate ${KUBE_VALIDATE_VERSION} into $venv (once)" >&2
    rm -rf "$venv"
    python3 -m venv "$venv" >&2
    "$venv/bin/pip" install --quiet "kubernetes-validate==${KUBE_VALIDATE_VERSION}" >&2
  fi
  echo "$venv/bin/kubernetes-validate"
}

helm="$(helm_bin)"
validate="$(kube_validate_bin)"
"$helm" lint helm/verification-gateway
rendered="$(mktemp)"
trap 'rm -f "$rendered"' EXIT
# Every optional part on: the ingress with TLS, the NetworkPolicy with an egress rule, a digest,
# the dashboard ConfigMap.
"$helm" template check helm/verification-gateway \
  --set ingress.enabled=true \
  --set 'ingress.tls[0].secretName=webhooks-tls' --set 'ingress.tls[0].hosts[0]=webhooks.example' \
  --set networkPolicy.enabled=true \
  --set 'networkPolicy.egress[0].to[0].ipBlock.cidr=10.0.0.0/24' \
  --set 'networkPolicy.egress[0].ports[0].port=9093' \
  --set image.digest=sha256:0000000000000000000000000000000000000000000000000000000000000000 \
  --set dashboard.enabled=true \
  >"$rendered"
"$validate" --kubernetes-version 1.30.0 --strict "$rendered"
# The PrometheusRule is a custom resource, which the Kubernetes schemas do not describe: it is
# rendered (a template error fails here) and its rules are checked by scripts/check-rules.sh.
"$helm" template check helm/verification-gateway --set prometheusRule.enabled=true \
  --show-only templates/prometheusrule.yaml >/dev/null
