#!/bin/sh
# The image's entrypoint (Dockerfile), under tini.
#
# With arguments it runs the `noetl` CLI with them: `migrate up` (the
# migration Job and the compose `migrate` service), `run`, `register`, ...
# Without, it runs the roles named by NOETL_ROLES: exactly one role runs that
# role's own app (dist/apps/<role>), which loads only its modules; several, or
# `all`, or none (the default is all) run `noetl server`, which composes them in
# one process. Names are validated by the configuration, not here: an unknown
# one reaches `noetl server`, which stops with one message naming it.
#
# `exec` makes node the process tini signals, so SIGTERM reaches the app's
# drain (NOETL_SHUTDOWN_GRACE_SECONDS).
set -eu

root=$(CDPATH='' cd -- "$(dirname -- "$0")/.." && pwd)
cli="$root/dist/apps/cli/src/main.js"

if [ "$#" -gt 0 ]; then
  exec node "$cli" "$@"
fi

# The same reading as the configuration's: comma-separated, blanks trimmed,
# empty items dropped, duplicates merged.
roles=$(printf '%s\n' "${NOETL_ROLES:-}" | tr ',' '\n' | tr -d ' \t\r' | sed '/^$/d' | sort -u)

case "$roles" in
  api | scheduler | worker | projector) exec node "$root/dist/apps/$roles/src/main.js" ;;
  *) exec node "$cli" server ;;
esac
