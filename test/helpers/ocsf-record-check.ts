import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { findUnstorableText } from '../../libs/common/src/text-safety';

/**
 * The OCSF and secrets check of an audit record's event (docs/testing.md, "Audit records"): valid
 * against its class's schema in `shared/ocsf/`, carrying no secret, and no text PostgreSQL
 * cannot store (a NUL or a lone surrogate fails the record's write, and a buffered record's batch). The e2e run hands every
 * record to it once, at the global teardown (`checkRecordedAuditEvents`): compiling the six class
 * schemas takes seconds, so it is done once per run rather than in each test file.
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

const ajv = new Ajv2020({ strict: false, allErrors: true });
const compiled = new Map<number, ValidateFunction>();

/** The validator of an OCSF class's schema in `shared/ocsf/`, compiled once per process; undefined for a class not listed. */
export function validatorOf(classUid: number): ValidateFunction | undefined {
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

/** The problems of one record: schema errors, secrets and unstorable text; empty when it is fine. */
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
  const unstorable = findUnstorableText(event);
  if (unstorable) problems.push(`a NUL or a lone surrogate at ${unstorable.path}`);
  return problems;
}

/** The file, in a run's state folder, to which test/helpers/audit-record-check.ts appends each record's event. */
export function recordedAuditEventsFile(stateDir: string): string {
  return path.join(stateDir, 'audit-records.ndjson');
}

/** One line of that file: the test that made the record, and its OCSF event. */
export interface RecordedAuditEvent {
  file: string;
  test: string | null;
  event: Record<string, unknown>;
}

/** Every recorded event of the run checked: one line per record with problems (test, action, problems). */
export function checkRecordedAuditEvents(stateDir: string): { checked: number; failures: string[] } {
  const file = recordedAuditEventsFile(stateDir);
  if (!existsSync(file)) return { checked: 0, failures: [] };
  const lines = readFileSync(file, 'utf8').split('\n').filter(Boolean);
  const failures: string[] = [];
  for (const line of lines) {
    const { file: testFile, test, event } = JSON.parse(line) as RecordedAuditEvent;
    const problems = auditRecordProblems(event);
    if (problems.length === 0) continue;
    const action = (event.metadata as { event_code?: string } | undefined)?.event_code;
    failures.push(JSON.stringify({ file: testFile, test, action, problems }));
  }
  return { checked: lines.length, failures };
}
