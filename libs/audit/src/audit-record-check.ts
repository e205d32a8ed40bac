/**
 * The test-only switch of the record check: when the test set-up registers a check under this
 * global symbol (test/helpers/audit-record-check.ts), every record's OCSF event is handed to it
 * synchronously inside `record()`, before it is written or buffered. Off everywhere else: the
 * service never registers one.
 */
export const AUDIT_RECORD_CHECK = Symbol.for('agent-gateway.audit-record-check');

export type AuditRecordCheck = (event: Record<string, unknown>) => void;

export function checkAuditRecord(event: Record<string, unknown>): void {
  const check = (globalThis as { [AUDIT_RECORD_CHECK]?: AuditRecordCheck })[AUDIT_RECORD_CHECK];
  if (check) check(event);
}
