import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where the repository publishes configuration a reader may copy (SPEC §10; issue "a deployment that is safe as written"). */
export const PUBLISHED_PLACES = ['deploy', 'docker-compose.yml', '.env.example', 'docs'];

export type SecretName = 'SESSION_SECRET' | 'SECRETS_KEYS' | 'METRICS_TOKEN' | 'DATABASE_URL';

export interface FoundSecret {
  name: SecretName;
  value: string;
  where: string;
}

/** Spellings of each secret: the variable, a Kubernetes Secret key, a database password variable. */
const NAMES: [RegExp, SecretName][] = [
  [/SESSION_SECRET|session-secret/, 'SESSION_SECRET'],
  [/SECRETS_KEYS|secrets-keys/, 'SECRETS_KEYS'],
  [/METRICS_TOKEN|metrics-token/, 'METRICS_TOKEN'],
  [/POSTGRES_PASSWORD|PGPASSWORD|DATABASE_PASSWORD|DB_PASSWORD|database-password|postgres-password/, 'DATABASE_URL'],
];

/** `NAME=value`, `NAME: value`, `"NAME": "value"`, `--from-literal=name=value`, `-e NAME=value`. */
const ASSIGNMENT = new RegExp(`(?<![A-Za-z0-9_{-])(${NAMES.map(([re]) => re.source).join('|')})["']?\\s*[:=][ \\t]*(.*)$`, 'gm');
/** A password in a PostgreSQL URL: `postgres://user:password@host`. */
const DATABASE_URL_PASSWORD = /postgres(?:ql)?:\/\/[^\s:@/"'`]+:([^\s@/"'`]+)@/g;

/**
 * The literal value an assignment's right-hand side carries, or undefined when it carries none:
 * empty, a shell or compose substitution (`$(…)`, `$VAR`; `${VAR:-default}` carries its default),
 * a placeholder in angle brackets or an ellipsis, or a Kubernetes reference (`valueFrom`).
 */
export function literalValue(rest: string): string | undefined {
  let value = rest.trim();
  const quoted = /^(["'])(.*?)\1/.exec(value);
  if (quoted) value = quoted[2];
  const withDefault = /^\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}]*)\}/.exec(value);
  if (withDefault) value = withDefault[1];
  else if (/\$[({A-Za-z_]/.test(value)) return undefined;
  else if (!quoted) value = value.split(/[\s,}`]/)[0];
  if (!value || value.startsWith('<') || value.includes('...') || value.includes('…') || value.startsWith('#')) return undefined;
  return value;
}

/** The repository's files in those places: tracked, or new and not ignored (a generated secrets.env is ignored). */
function publishedFiles(root: string): string[] {
  const listed = execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '--', ...PUBLISHED_PLACES], { cwd: root, encoding: 'utf8' });
  return [...new Set(listed.split('\n').filter(Boolean))];
}

/** Every secret value the published places of the repository at `root` assign, with where. */
export function publishedSecretValues(root: string): FoundSecret[] {
  return publishedFiles(root).flatMap((file) => secretValuesIn(readFileSync(join(root, file), 'utf8'), file));
}

/** Every secret value one text assigns, with its line. */
export function secretValuesIn(text: string, file: string): FoundSecret[] {
  const where = (index: number) => `${file}:${text.slice(0, index).split('\n').length}`;
  // A password variable or a URL carries the password itself: checked as a database URL's password.
  const asUrl = (password: string) => `postgres://user:${encodeURIComponent(password)}@host/db`;
  const found: FoundSecret[] = [];
  for (const match of text.matchAll(ASSIGNMENT)) {
    const value = literalValue(match[2]);
    if (value === undefined) continue;
    const name = NAMES.find(([re]) => new RegExp(`^(?:${re.source})$`).test(match[1]))![1];
    found.push({ name, value: name === 'DATABASE_URL' ? asUrl(value) : value, where: where(match.index) });
  }
  for (const match of text.matchAll(DATABASE_URL_PASSWORD)) {
    const password = literalValue(match[1]);
    if (password !== undefined) found.push({ name: 'DATABASE_URL', value: asUrl(password), where: where(match.index) });
  }
  return found;
}
