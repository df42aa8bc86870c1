#!/usr/bin/env bash
# Checks the chart's alert rules with promtool, Prometheus's own checker. promtool has no npm or
# Debian package: it is built from the Go module proxy, as scripts/check-helm.sh builds helm.
# remove_all_sd leaves out the service-discovery plugins, which promtool needs not to check
# rules (and one of whose modules the proxy does not serve).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
PROMETHEUS_VERSION="${PROMETHEUS_VERSION:-v0.316.0}" # the Go module version of Prometheus 3.x
promtool_bin="$(go env GOPATH)/bin/promtool"
[[ -x "$promtool_bin" ]] ||
  go install -tags remove_all_sd "github.com/prometheus/prometheus/cmd/promtool@${PROMETHEUS_VERSION}"
"$promtool_bin" check rules helm/verification-gateway/files/alerts.rules.yaml
"$promtool_bin" test rules test/alerts/alerts.test.yaml
