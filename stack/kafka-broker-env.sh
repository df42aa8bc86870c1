#!/usr/bin/env bash
# The settings of a broker properties file (stack/kafka-broker.properties) as the apache/kafka
# image's environment variables: the image reads KAFKA_FOO_BAR as foo.bar, `__` as `_` and `___`
# as `-`, so foo.bar_baz-qux becomes KAFKA_FOO_BAR__BAZ___QUX.
#
#   kafka-broker-env.sh FILE              prints NAME=value, one a line (test/global-setup.ts)
#   kafka-broker-env.sh FILE COMMAND...   runs COMMAND with them exported; a variable already set
#                                         in the environment is left as it is (compose.yaml)
#
# A line that is not a comment, blank or `key=value` with a lower-case key, or a key the image
# could not read back (`_` next to `.` or `-`), stops it with the line named.
set -euo pipefail

(($# >= 1)) || { echo "usage: kafka-broker-env.sh FILE [COMMAND...]" >&2; exit 2; }
file="$1"
shift

vars=()
n=0
while IFS= read -r line || [[ -n "$line" ]]; do
  n=$((n + 1))
  [[ "$line" =~ ^[[:space:]]*([#!].*)?$ ]] && continue
  if [[ ! "$line" =~ ^([a-z0-9._-]+)=(.*)$ ]]; then
    echo "kafka-broker-env.sh: $file:$n: not key=value with a lower-case key: $line" >&2
    exit 1
  fi
  key="${BASH_REMATCH[1]}" value="${BASH_REMATCH[2]}"
  name="${key//_/__}"
  name="${name//-/___}"
  name="KAFKA_${name//./_}"
  name="${name^^}"
  # The image's reading of the name must give the key back.
  back="${name#KAFKA_}"
  back="${back//___/-}"
  back="${back//__/@}"
  back="${back//_/.}"
  back="${back//@/_}"
  if [[ "${back,,}" != "$key" ]]; then
    echo "kafka-broker-env.sh: $file:$n: $key cannot be named for the image ($name reads as ${back,,})" >&2
    exit 1
  fi
  vars+=("$name=$value")
done <"$file"

if (($# == 0)); then
  ((${#vars[@]} == 0)) || printf '%s\n' "${vars[@]}"
  exit 0
fi
for var in "${vars[@]}"; do
  [[ -v "${var%%=*}" ]] || export "${var?}"
done
exec "$@"
