#!/bin/sh
# Render the platform into a directory of the repository and commit it when it changed: the
# script the GitHub Actions example (cozy-gw-render.yml) runs, usable from any CI.
#
#   COZY_GW     the command (default: cozy-gw, an installed package; "node bin/cozy-gw.js" in a clone)
#   VALUES      platform values files, space-separated, merged left to right (default: platform/values.yaml)
#   INPUTS      Tenant files or directories, space-separated (default: platform/tenants)
#   OUTPUT_DIR  the tree Flux or Argo CD applies (default: deploy/platform)
# Output is reproducible (no clock in render), so an unchanged platform makes no commit.
set -eu
cozy=${COZY_GW:-cozy-gw}
out=${OUTPUT_DIR:-deploy/platform}
set --
for v in ${VALUES:-platform/values.yaml}; do set -- "$@" --values "$v"; done
for f in ${INPUTS:-platform/tenants}; do set -- "$@" -f "$f"; done
# shellcheck disable=SC2086 # COZY_GW may be a command with arguments
$cozy render "$@" --output-dir "$out"
git add -A -- "$out"
if git diff --cached --quiet -- "$out"; then
  echo "cozy-gw: $out is up to date"
  exit 0
fi
git -c user.name="${GIT_USER_NAME:-cozy-gw}" -c user.email="${GIT_USER_EMAIL:-cozy-gw@users.noreply.github.com}" \
  commit --quiet -m "cozy-gw: render $out" -- "$out"
echo "cozy-gw: committed $out"
