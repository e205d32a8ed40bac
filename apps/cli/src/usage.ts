/** The command line's help text, printed by `help` and after a usage error. */
export const USAGE = `Usage: agent-gateway-cli <command> [options]

Commands:
  migrate
      Run the checked-in migrations against DATABASE_URL, or against the embedded database in
      DATA_DIR when DATABASE_URL is unset (stop the service first: the embedded database has one owner).
  create-admin --email <email> --name <name> --organization <organization name>
      Create a person and a new organisation they administer (for deployments with
      SIGNUP_ENABLED=false). Runs the migrations first. The password is read from the environment
      variable ADMIN_PASSWORD or, when that is unset, from standard input (asked for without echo on
      a terminal); it is never taken from the command line.
  backup <file>
      Write a consistent copy of the embedded database (DATA_DIR) to <file>, a gzip tarball. Works
      while the service runs: the copy is made by the service. With DATABASE_URL: use pg_dump.
  restore <file>
      Replace the embedded database with a backup made by \`backup\` (stop the service first). The
      current data folder is moved aside, never deleted.
  verify-domain --organization <organization id> --domain <domain>
      Mark an email domain the organisation claims for single sign-on as verified, without the
      DNS record (for operators who checked ownership another way). The domain must be among the
      organisation's identity-provider emailDomains; a domain another organisation verified is
      refused. Works beside the running service on PostgreSQL (DATABASE_URL).
  sso-require-off --organization <organization id>
      Turn "require single sign-on" off for the organisation, keeping its identity provider: the
      way back in when the identity provider is broken and password sessions open nothing there.
      Audited with the command line as actor. Works beside the running service on PostgreSQL.
  identity-provider-disconnect --organization <organization id>
      Disconnect the organisation's identity provider and delete its email-domain claims (as an
      admin's DELETE of the settings does). Audited with the command line as actor. Works beside
      the running service on PostgreSQL.
  release-email --email <email>
      Free an address of a verified single sign-on domain that a password account took before the
      domain was verified: the account keeps its id and memberships, gets the address
      released-<its id>@released.invalid and loses its sessions, so the person's single sign-on
      makes their own account. Refused for an account linked to single sign-on. Audited with the
      command line as actor. Works beside the running service on PostgreSQL.
  audit-verify --organization <organization id> | --service [--sink-copy <file>]
      Verify an audit chain (the organisation's, or the service's own): every record's link and
      hash and every signed checkpoint. Prints the verdict as JSON; exit 0 intact, 1 broken.
      --sink-copy: the NDJSON a sink received (https bodies, or Splunk HEC events), checked
      against the database: records or checkpoints it holds that the database lost are named.
  secrets-rotate
      Re-encrypt every stored outbound secret (identity providers' client secrets, audit sinks'
      signing secrets and tokens, approval webhooks' signing secrets) under the current SECRETS_KEYS
      key, the first of the ring; keep
      the older keys after it until this has run. Runs the migrations first.
  reset-link --email <email>
      Print a one-time password-reset link for the account with this email (for example the only
      admin, locked out). The link works once, for an hour; using it ends every session of that
      person. Shown once: pass it on to the person. Runs the migrations first.
  help
      Show this text.
`;
