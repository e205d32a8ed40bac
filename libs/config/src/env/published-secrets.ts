/**
 * SHA-256 (hex) of every secret value the repository publishes or has published: the examples
 * assigned to `SESSION_SECRET`, `SECRETS_KEYS` (the whole entry and its key), `METRICS_TOKEN` and
 * database passwords in `deploy/`, `docker-compose.yml`, `.env.example` and `docs/`. Production
 * refuses them (`publishedSecretProblems`); `test/published-secrets.e2e-spec.ts` fails when one of
 * those files assigns a value missing here. Only hashes ship: the image carries no such value.
 */
export const PUBLISHED_SECRET_SHA256: ReadonlySet<string> = new Set([
  // deploy/kubernetes/base/secret.example.yaml until 2026-11-28: session-secret, metrics-token,
  // the database password and the URL template's placeholder
  '4d64556070a7283a61c402c5d37df9d926012ccf9920eb29fbf8fe35b64707b5',
  'c2eb0854c36276d53303135cf86d7550396f1b121766b2f727190782e6deeb6a',
  'e2186dbdb1bb4193608605e84f33208765b5693b55edd4f730a719a100eeea6f',
  '0be64ae89ddd24e225434de95d501711339baeee18f009ba9b4369af27d30d60',
  // docker-compose.yml until 2026-11-28: the default POSTGRES_PASSWORD
  '4ea5ee68fea05586106890ded5733820bb77d919cda27bc4b8139b7cd33b8889',
]);
