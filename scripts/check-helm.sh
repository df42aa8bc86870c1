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
    # A release reports its version; a `go install` build reports only v3.19, but Go recorded
    # the module's version in the binary.
    [[ "$("$candidate" version --template '{{.Version}}' 2>/dev/null)" == "$HELM_VERSION" ]] ||
      go version -m "$candidate" 2>/dev/null | grep -q "^[[:space:]]mod[[:space:]]helm.sh/helm/v3[[:space:]]${HELM_VERSION}[[:space:]]" ||
      continue
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

fail() {
  echo "check-helm: $*" >&2
  exit 1
}

# The rendered Deployment (one line per line of YAML) for the given --set flags.
deployment() {
  local helm="$1"
  shift
  "$helm" template check helm/verification-gateway --show-only templates/deployment.yaml "$@"
}

# The console's tokens: none by default; both as files from the chosen Secret when enabled;
# the read-only one alone without an operator key; refused when secretFiles lists them too.
check_console_values() {
  local helm="$1" out
  out="$(deployment "$helm")"
  ! grep -q CONSOLE_ <<<"$out" || fail "the console is on by default"
  out="$(deployment "$helm" --set console.enabled=true --set console.existingSecret=console-tokens \
    --set console.tokenKey=read --set console.operatorTokenKey=operate)"
  grep -q 'secretName: console-tokens' <<<"$out" || fail "console tokens not taken from console.existingSecret"
  grep -q '{ key: read, path: CONSOLE_TOKEN }' <<<"$out" || fail "console.tokenKey not mounted"
  grep -q '{ key: operate, path: CONSOLE_OPERATOR_TOKEN }' <<<"$out" || fail "console.operatorTokenKey not mounted"
  grep -A1 -- '- name: CONSOLE_TOKEN_FILE' <<<"$out" |
    grep -q 'value: /run/secrets/verification-gateway-console/CONSOLE_TOKEN$' || fail "no CONSOLE_TOKEN_FILE"
  grep -A1 -- '- name: CONSOLE_OPERATOR_TOKEN_FILE' <<<"$out" |
    grep -q 'value: /run/secrets/verification-gateway-console/CONSOLE_OPERATOR_TOKEN$' ||
    fail "no CONSOLE_OPERATOR_TOKEN_FILE"
  grep -q 'mountPath: /run/secrets/verification-gateway-console, readOnly: true' <<<"$out" ||
    fail "console tokens not mounted"
  ! grep -q '^ *- name: CONSOLE_TOKEN$\|^ *- name: CONSOLE_OPERATOR_TOKEN$' <<<"$out" ||
    fail "a console token given as an environment value"
  out="$(deployment "$helm" --set console.enabled=true --set console.operatorTokenKey=)"
  grep -q 'secretName: verification-gateway$' <<<"$out" || fail "console tokens not from existingSecret by default"
  grep -q CONSOLE_TOKEN_FILE <<<"$out" || fail "no CONSOLE_TOKEN_FILE for a read-only console"
  ! grep -q CONSOLE_OPERATOR_TOKEN <<<"$out" || fail "an operator token without console.operatorTokenKey"
  if deployment "$helm" --set console.enabled=true --set 'secretFiles={VENDOR_API_KEY,CONSOLE_TOKEN}' \
    >/dev/null 2>&1; then
    fail "console.enabled with CONSOLE_TOKEN in secretFiles was not refused"
  fi
}

# What values.schema.json and the templates promise: the PodDisruptionBudget never blocks a drain
# (one replica included), the NetworkPolicy follows the ports of the values, and values of the
# wrong type or range are refused by the schema (not by a template failing on them later).
check_chart_values() {
  local helm="$1" out bad err
  out="$("$helm" template check helm/verification-gateway --set replicaCount=1 --show-only templates/pdb.yaml)"
  grep -q '^  maxUnavailable: 1$' <<<"$out" || fail "the PodDisruptionBudget at one replica is not maxUnavailable: 1"
  ! grep -q '^ *minAvailable:' <<<"$out" || fail "the PodDisruptionBudget sets minAvailable"
  ! "$helm" template check helm/verification-gateway --set podDisruptionBudget.enabled=false \
    --show-only templates/pdb.yaml >/dev/null 2>&1 || fail "podDisruptionBudget.enabled=false renders one"
  out="$("$helm" template check helm/verification-gateway --set networkPolicy.enabled=true \
    --set service.port=8081 --set admin.port=9191 --set networkPolicy.dnsPort=5353 \
    --set 'networkPolicy.adminFrom[0].podSelector.matchLabels.app=prometheus' \
    --show-only templates/networkpolicy.yaml)"
  grep -q '{ port: 8081, protocol: TCP }' <<<"$out" || fail "the NetworkPolicy ignores service.port"
  grep -q '{ port: 9191, protocol: TCP }' <<<"$out" || fail "the NetworkPolicy ignores admin.port"
  grep -q '{ port: 5353, protocol: UDP }' <<<"$out" || fail "the NetworkPolicy ignores networkPolicy.dnsPort"
  ! grep -Eq 'port: (8080|9090|53),' <<<"$out" || fail "the NetworkPolicy keeps a default port"
  # The public and the admin port in rules of their own, each with its own peers; none admits
  # anyone to the admin port unless adminFrom lists peers.
  out="$("$helm" template check helm/verification-gateway --set networkPolicy.enabled=true \
    --set 'networkPolicy.ingressFrom[0].ipBlock.cidr=10.1.0.0/16' \
    --set 'networkPolicy.adminFrom[0].namespaceSelector.matchLabels.team=monitoring' \
    --show-only templates/networkpolicy.yaml)"
  [[ "$(grep -c -- '- ports:' <<<"$out")" == 3 ]] || fail "the NetworkPolicy does not give the admin port a rule of its own"
  grep -A4 -- '{ port: 8080, protocol: TCP }' <<<"$out" | grep -q '10.1.0.0/16' || fail "ingressFrom does not reach the public port"
  ! grep -A4 -- '{ port: 8080, protocol: TCP }' <<<"$out" | grep -q 'monitoring' || fail "adminFrom reaches the public port"
  grep -A5 -- '{ port: 9090, protocol: TCP }' <<<"$out" | grep -q 'team: monitoring' || fail "adminFrom does not reach the admin port"
  ! grep -A5 -- '{ port: 9090, protocol: TCP }' <<<"$out" | grep -q '10.1.0.0/16' || fail "ingressFrom reaches the admin port"
  out="$("$helm" template check helm/verification-gateway --set networkPolicy.enabled=true --show-only templates/networkpolicy.yaml)"
  ! grep -q -- '{ port: 9090, protocol: TCP }' <<<"$out" || fail "the admin port is open to every peer without adminFrom"
  out="$("$helm" template check helm/verification-gateway --show-only templates/configmap.yaml)"
  grep -q '^  ADMIN_HOST: "0.0.0.0"$' <<<"$out" || fail "the pod's admin listener is not bound to its address"
  out="$("$helm" template check helm/verification-gateway --set config.ADMIN_HOST=10.0.0.1 --show-only templates/configmap.yaml)"
  [[ "$(grep -c 'ADMIN_HOST' <<<"$out")" == 1 ]] || fail "config.ADMIN_HOST does not replace the chart's ADMIN_HOST"
  for bad in replicaCount=abc service.port=-1 admin.port=70000 networkPolicy.dnsPort=0 \
    podDisruptionBudget.maxUnavailable=0 podDisruptionBudget.minAvailable=1; do
    if err="$("$helm" template check helm/verification-gateway --set "$bad" 2>&1 >/dev/null)"; then
      fail "values.schema.json accepted $bad"
    fi
    grep -q "don't meet the specifications of the schema" <<<"$err" || fail "$bad refused, not by the schema: $err"
  done
}

helm="$(helm_bin)"
validate="$(kube_validate_bin)"
"$helm" lint helm/verification-gateway
rendered="$(mktemp)"
trap 'rm -f "$rendered"' EXIT
# Every optional part on: the ingress with TLS, the NetworkPolicy with an egress rule, a digest,
# the dashboard ConfigMap, the console with its tokens from a Secret of their own.
"$helm" template check helm/verification-gateway \
  --set ingress.enabled=true \
  --set 'ingress.tls[0].secretName=webhooks-tls' --set 'ingress.tls[0].hosts[0]=webhooks.example' \
  --set networkPolicy.enabled=true \
  --set 'networkPolicy.egress[0].to[0].ipBlock.cidr=10.0.0.0/24' \
  --set 'networkPolicy.egress[0].ports[0].port=9093' \
  --set image.digest=sha256:0000000000000000000000000000000000000000000000000000000000000000 \
  --set dashboard.enabled=true \
  --set console.enabled=true --set console.existingSecret=console-tokens \
  >"$rendered"
"$validate" --kubernetes-version 1.30.0 --strict "$rendered"
check_console_values "$helm"
check_chart_values "$helm"
# The PrometheusRule and the PodMonitor are custom resources, which the Kubernetes schemas do
# not describe: they are rendered (a template error fails here); the rules are checked by
# scripts/check-rules.sh, and the PodMonitor must scrape the port the Deployment names admin.
"$helm" template check helm/verification-gateway --set prometheusRule.enabled=true \
  --show-only templates/prometheusrule.yaml >/dev/null
monitor="$("$helm" template check helm/verification-gateway --set podMonitor.enabled=true \
  --show-only templates/podmonitor.yaml)"
grep -q 'port: admin' <<<"$monitor" || fail "the PodMonitor does not scrape the admin port"
grep -q 'app.kubernetes.io/instance: check' <<<"$monitor" || fail "the PodMonitor selects no pod of the release"
deployment "$helm" | grep -q -- '- name: admin' || fail "the Deployment names no admin port"
! "$helm" template check helm/verification-gateway --show-only templates/podmonitor.yaml >/dev/null 2>&1 ||
  fail "the PodMonitor is on by default"
