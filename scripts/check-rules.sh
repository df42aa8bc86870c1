#!/usr/bin/env bash
# Checks the chart's alert rules with promtool, Prometheus's own checker: their syntax, and the
# unit tests in test/alerts/. promtool comes from, in order: PROMTOOL when set; a promtool on the
# PATH; Debian's `prometheus` package, unpacked into .stack/tools/ without installing it (no
# daemon, no dependencies; seconds, where building it took minutes of a CI run); else it is
# built from the Go module proxy (PROMTOOL_BUILD=1 forces this: Prometheus 3.x instead of the
# Debian release's 2.x). remove_all_sd leaves out the service-discovery plugins, which promtool
# needs not to check rules (and one of whose modules the proxy does not serve).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-v0.316.0}" # the Go module version of Prometheus 3.x
tools=".stack/tools"

debian_promtool() {
  local dir="$tools/prometheus-deb" deb
  if [[ ! -x "$dir/usr/bin/promtool" ]]; then
    command -v apt-get >/dev/null 2>&1 || return 1
    local download
    download="$(mktemp -d)"
    # An empty package list (a fresh machine) answers "no candidate": read the lists once.
    (cd "$download" && apt-get download prometheus >/dev/null 2>&1) ||
      { apt-get update -qq >/dev/null 2>&1 && (cd "$download" && apt-get download prometheus >/dev/null 2>&1); } ||
      { rm -rf "$download"; return 1; }
    deb="$(compgen -G "$download/prometheus_*.deb" | head -1)"
    rm -rf "$dir" && mkdir -p "$dir"
    dpkg-deb -x "$deb" "$dir"
    rm -rf "$download"
  fi
  echo "$dir/usr/bin/promtool"
}

go_promtool() {
  local bin
  bin="$(go env GOPATH)/bin/promtool"
  [[ -x "$bin" ]] ||
    go install -tags remove_all_sd "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}" >&2
  echo "$bin"
}

if [[ -n "${PROMTOOL:-}" ]]; then
  promtool="$PROMTOOL"
elif [[ "${PROMTOOL_BUILD:-0}" == 1 ]]; then
  promtool="$(go_promtool)"
elif command -v promtool >/dev/null 2>&1; then
  promtool="$(command -v promtool)"
else
  promtool="$(debian_promtool || go_promtool)"
fi
"$promtool" --version 2>&1 | sed -n 1p
"$promtool" check rules helm/verification-gateway/files/alerts.rules.yaml
"$promtool" test rules test/alerts/alerts.test.yaml
