import { join } from 'node:path';
import { AppConfig, ConfigValidationError } from '@app/config';
import { publishedSecretValues, secretValuesIn, type FoundSecret } from './helpers/published-secrets';

/**
 * "A deployment that is safe as written": every secret value the repository publishes (assigned to
 * SESSION_SECRET, SECRETS_KEYS, METRICS_TOKEN or a database password in deploy/,
 * docker-compose.yml, .env.example or docs/) is refused by a production start, so nobody runs
 * with a value anyone can read. The image ships only SHA-256 hashes of those values.
 */
const root = join(__dirname, '..');
const OWN_SECRET = 'an-operator-own-session-secret-of-48-characters!';

/** The problems a production start reports for one found value beside otherwise good settings. */
function productionProblems(found: Pick<FoundSecret, 'name' | 'value'>): string[] {
  try {
    AppConfig.fromEnvironment({ NODE_ENV: 'production', BASE_URL: 'https://gw.example.com', SESSION_SECRET: OWN_SECRET, [found.name]: found.value });
    return [];
  } catch (error) {
    if (!(error instanceof ConfigValidationError)) throw error;
    return error.problems;
  }
}

const refusedAsPublished = (found: Pick<FoundSecret, 'name' | 'value'>) =>
  productionProblems(found).some((p) => p.startsWith(`${found.name}=(hidden): `) && p.includes('a value published in the Agent Gateway repository'));

describe('secrets published in the repository are refused in production', () => {
  it('finds assignments in every form the published files use, and skips substitutions and placeholders', () => {
    const sample = [
      'SESSION_SECRET=abc-session-1',
      '      SESSION_SECRET: "abc-session-2"',
      '  session-secret: abc-session-3',
      '--from-literal=metrics-token=abc-metrics-1 \\',
      '-e SECRETS_KEYS=k1:abc-key-1',
      '"METRICS_TOKEN": "abc-metrics-2"',
      'DATABASE_URL: postgres://gateway:abc-password-1@db:5432/gateway',
      '  database-url: postgresql://gateway:abc-password-2@db/gateway?sslmode=verify-full',
      'POSTGRES_PASSWORD: ${POSTGRES_PASSWORD:-abc-password-3}',
      'PGPASSWORD=abc-password-4 psql',
      // none of these carries a value
      'SESSION_SECRET=',
      'SESSION_SECRET: ${SESSION_SECRET:?set it}',
      '--from-literal=session-secret="$(openssl rand -base64 48)"',
      'echo "secrets-keys=k1:$(openssl rand -base64 32)"',
      'SESSION_SECRET=<at least 32 random characters>',
      '| `SESSION_SECRET` | unset | ...',
      '`metrics-token`: create the real one out of band',
      'key: session-secret',
      'postgres://USER@HOST:5432/DATABASE',
    ].join('\n');
    expect(secretValuesIn(sample, 'sample').map(({ name, value }) => [name, value])).toEqual([
      ['SESSION_SECRET', 'abc-session-1'],
      ['SESSION_SECRET', 'abc-session-2'],
      ['SESSION_SECRET', 'abc-session-3'],
      ['METRICS_TOKEN', 'abc-metrics-1'],
      ['SECRETS_KEYS', 'k1:abc-key-1'],
      ['METRICS_TOKEN', 'abc-metrics-2'],
      ['DATABASE_URL', 'postgres://user:abc-password-3@host/db'],
      ['DATABASE_URL', 'postgres://user:abc-password-4@host/db'],
      ['DATABASE_URL', 'postgres://user:abc-password-1@host/db'],
      ['DATABASE_URL', 'postgres://user:abc-password-2@host/db'],
    ]);
    // A value that was never published is not refused: the check is not a blanket refusal.
    expect(refusedAsPublished({ name: 'SESSION_SECRET', value: 'abc-session-1-but-long-enough-for-32-chars' })).toBe(false);
  });

  it('refuses every value deploy/, docker-compose.yml, .env.example and docs/ assign', () => {
    const notRefused = publishedSecretValues(root).filter((found) => !refusedAsPublished(found));
    expect(notRefused.map((f) => `${f.where}: ${f.name} = ${f.value} (add its SHA-256 to libs/config/src/env/published-secrets.ts)`)).toEqual([]);
  });

  it('keeps refusing the values published before: the old example Secret and the compose default password', () => {
    for (const found of [
      { name: 'SESSION_SECRET', value: 'change-me-to-48-random-bytes-base64-encoded-at-least-32-characters' },
      { name: 'METRICS_TOKEN', value: 'change-me-to-a-long-random-metrics-token-of-32-characters' },
      { name: 'DATABASE_URL', value: 'postgres://gateway:change-me@postgres.example.internal:5432/gateway' },
      { name: 'DATABASE_URL', value: 'postgres://gateway:gateway@postgres:5432/gateway' },
    ] as const) {
      expect([found.name, refusedAsPublished(found)]).toEqual([found.name, true]);
    }
  });
});
