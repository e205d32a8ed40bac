import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AUDIT_RECORD_CHECK, type AuditRecordCheck } from '../../libs/audit/src/audit-record-check';

/**
 * The e2e run's check of every audit record (set up for every e2e file by jest.config.js): the
 * recorder hands each record's OCSF event here synchronously inside `record()`; it must be valid
 * against its class's schema in `shared/ocsf/` and carry no secret. Failures are appended to a
 * file of the run, and the global teardown fails the run when there are any.
 */

const OCSF_DIR = path.resolve(__dirname, '../../../shared/ocsf');
const CLASS_FILES: Record<number, string> = {
  6003: 'api_activity',
  3002: 'authentication',
  3001: 'account_change',
  3003: 'authorize_session',
  3004: 'entity_management',
  3005: 'user_access',
};

/** Every token prefix the gateway issues, a JWT, and attributes named like a secret. */
const SECRET_TEXT = /\b(dga|dgr|rk|dgs|dgc|dgp|dgi|scim)_[A-Za-z0-9_-]{16,}|eyJ[A-Za-z0-9_-]{4,}\.eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*/;
const SECRET_KEY = /^(password|secret|client_?secret|signing_?secret|token|access_?token|refresh_?token|id_?token|assertion)$/i;

export function auditCheckFailuresFile(stateDir: string): string {
  return path.join(stateDir, 'audit-record-failures.ndjson');
}

const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<number, ValidateFunction>();

function validatorOf(classUid: number): ValidateFunction | undefined {
  const file = CLASS_FILES[classUid];
  if (!file) return undefined;
  let validate = compiled.get(classUid);
  if (!validate) {
    validate = ajv.compile(JSON.parse(readFileSync(path.join(OCSF_DIR, `${file}.schema.json`), 'utf8')));
    compiled.set(classUid, validate);
  }
  return validate;
}

function secretKeys(value: unknown, at: string, found: string[]): void {
  if (Array.isArray(value)) value.forEach((v, i) => secretKeys(v, `${at}[${i}]`, found));
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (SECRET_KEY.test(key) && typeof v === 'string') found.push(`${at}.${key}`);
      secretKeys(v, `${at}.${key}`, found);
    }
  }
}

/** The problems of one record: schema errors and secrets; empty when it is fine. */
export function auditRecordProblems(event: Record<string, unknown>): string[] {
  const problems: string[] = [];
  const validate = validatorOf(event.class_uid as number);
  if (!validate) problems.push(`unknown class_uid ${String(event.class_uid)}`);
  else if (!validate(event)) problems.push(...(validate.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? ''}`));
  const text = JSON.stringify(event);
  const secret = SECRET_TEXT.exec(text);
  if (secret) problems.push(`a secret-looking value: ${secret[0].slice(0, 8)}…`);
  const keys: string[] = [];
  secretKeys(event, '', keys);
  if (keys.length > 0) problems.push(`attributes named like secrets: ${keys.join(', ')}`);
  return problems;
}

const stateFile = process.env.AG_TEST_STATE;
if (stateFile) {
  const { dir } = JSON.parse(readFileSync(stateFile, 'utf8')) as { dir: string };
  const check: AuditRecordCheck = (event) => {
    const problems = auditRecordProblems(event);
    if (problems.length === 0) return;
    const line = { test: expect.getState().currentTestName ?? null, action: (event.metadata as { event_code?: string })?.event_code, problems };
    appendFileSync(auditCheckFailuresFile(dir), `${JSON.stringify(line)}\n`);
  };
  (globalThis as { [AUDIT_RECORD_CHECK]?: AuditRecordCheck })[AUDIT_RECORD_CHECK] = check;
}
