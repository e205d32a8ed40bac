import { appendFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { AUDIT_RECORD_CHECK, type AuditRecordCheck } from '../../libs/audit/src/audit-record-check';
import { recordedAuditEventsFile, type RecordedAuditEvent } from './ocsf-record-check';

/**
 * The e2e run's check of every audit record (set up for every e2e file by jest.config.js): the
 * recorder hands each record's OCSF event here synchronously inside `record()`; it is appended,
 * with the test that made it, to a file of the run, and the global teardown checks every one
 * against its class's schema in `shared/ocsf/` and for secrets (test/helpers/ocsf-record-check.ts),
 * failing the run when any is wrong.
 */
const stateFile = process.env.AG_TEST_STATE;
if (stateFile) {
  const { dir } = JSON.parse(readFileSync(stateFile, 'utf8')) as { dir: string };
  const out = recordedAuditEventsFile(dir);
  const check: AuditRecordCheck = (event) => {
    const { currentTestName, testPath } = expect.getState();
    const line: RecordedAuditEvent = { file: testPath ? path.basename(testPath) : '', test: currentTestName ?? null, event };
    appendFileSync(out, `${JSON.stringify(line)}\n`);
  };
  (globalThis as { [AUDIT_RECORD_CHECK]?: AuditRecordCheck })[AUDIT_RECORD_CHECK] = check;
}
