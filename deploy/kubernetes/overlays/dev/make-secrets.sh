#!/usr/bin/env bash
# Writes the dev overlay's secrets.env (git-ignored, mode 600): a fresh session-secret,
# secrets-keys and metrics-token, and the database URL given (default: a PostgreSQL Service
# `postgres` without a password, for a development cluster).
#   deploy/kubernetes/overlays/dev/make-secrets.sh [DATABASE_URL]
set -euo pipefail
out="$(dirname "$0")/secrets.env"
database_url="${1:-postgres://gateway@postgres:5432/gateway}"
umask 077
{
  echo "database-url=$database_url"
  echo "session-secret=$(openssl rand -base64 48 | tr -d '\n')"
  echo "secrets-keys=k1:$(openssl rand -base64 32)"
  echo "metrics-token=$(openssl rand -hex 32)"
} >"$out"
echo "wrote $out"
