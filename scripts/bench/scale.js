/**
 * The large-organisation section of `npm run bench` (`--only pickers`, `--only audit`): the time
 * of the pages and lists that used to grow with an organisation, in a large organisation against
 * a small one, on the same service and database.
 *
 * - pickers: the service-key page (derive form), the consent page and the audit log (Person
 *   select) of an organisation with 20,000 projects and 2,000 members, against one with 5 projects.
 * - audit: the audit-event list filtered by a rare action (20 events), by a person and by a
 *   project, in an organisation with 2,000,000 events, against one with 200 (the same 20 matches);
 *   REST and the audit page, and PostgreSQL's plan of the rare-action query.
 *
 * Seeding goes straight into the bench's own PostgreSQL with generate_series (2,000,000 events in
 * well under a minute); accounts, keys and clients through the public API. Each page is fetched
 * one request at a time (its latency is what a person waits for), the small and the large
 * organisation alternating in rounds; the figure is the median.
 */
const { randomBytes } = require('node:crypto');
const { Client } = require('pg');

/** The target: a large organisation's page within this factor of a small one's. */
const TARGET_RATIO = 2;
const REDIRECT_URI = 'http://127.0.0.1:9/callback';

async function signUp(base, callJson, label) {
  const email = `bench-${label}-${randomBytes(4).toString('hex')}@example.test`;
  const password = `bench-password-${randomBytes(8).toString('hex')}`;
  const signup = await callJson(base, '/api/auth/signup', {
    method: 'POST',
    body: { email, password, name: `Bench ${label}`, organizationName: `Bench ${label} org` },
  });
  return { session: signup.json.accessToken, orgId: signup.json.organization.id, userId: signup.json.user?.id };
}

/** Sequential GETs of `path` with the session cookie (and bearer for REST): the latencies in ms, the last body's size. */
async function timeGets(base, path, session, count, bearer = false) {
  const headers = bearer ? { authorization: `Bearer ${session}` } : { cookie: `ag_session=${session}` };
  const times = [];
  let bytes = 0;
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await fetch(`${base}${path}`, { headers, redirect: 'manual' });
    const body = await res.arrayBuffer();
    times.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`GET ${path} → ${res.status}: ${Buffer.from(body).toString('utf8').slice(0, 300)}`);
    bytes = body.byteLength;
  }
  return { times, bytes };
}

const medianOf = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor((sorted.length - 1) / 2)];
};

/** Small and large alternating in `rounds` rounds of `perRound` requests each (after a warm-up); medians, sizes and ratio. */
async function compare({ base, name, small, large, rounds, perRound, bearer }) {
  await timeGets(base, small.path, small.session, 3, bearer);
  await timeGets(base, large.path, large.session, 3, bearer);
  const all = { small: [], large: [] };
  const bytes = {};
  for (let r = 0; r < rounds; r++) {
    for (const which of r % 2 ? ['large', 'small'] : ['small', 'large']) {
      const target = which === 'small' ? small : large;
      const run = await timeGets(base, target.path, target.session, perRound, bearer);
      all[which].push(...run.times);
      bytes[which] = run.bytes;
    }
  }
  const smallMs = medianOf(all.small);
  const largeMs = medianOf(all.large);
  const ratio = largeMs / smallMs;
  process.stderr.write(`${name}: small ${smallMs.toFixed(1)} ms (${bytes.small} B), large ${largeMs.toFixed(1)} ms (${bytes.large} B), ${ratio.toFixed(2)}×\n`);
  const shortfall = [];
  if (ratio > TARGET_RATIO) shortfall.push(`${ratio.toFixed(2)}× > ${TARGET_RATIO}×`);
  if (!bearer && bytes.large > 200 * 1024) shortfall.push(`${(bytes.large / 1024).toFixed(0)} KB > 200 KB`);
  return {
    name,
    scale: { smallMs, largeMs, ratio, smallBytes: bytes.small, largeBytes: bytes.large, requests: all.small.length },
    target: `≤ ${TARGET_RATIO}× the small organisation's time${bearer ? '' : ', page < 200 KB'}`,
    met: shortfall.length === 0,
    shortfall,
  };
}

/** A registered public client and a consent-page path for it. */
async function consentPath(base, callJson) {
  const client = (await callJson(base, '/api/agent/oauth/register', { method: 'POST', body: { client_name: 'Bench scale client', redirect_uris: [REDIRECT_URI] } })).json;
  const challenge = randomBytes(32).toString('base64url');
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: REDIRECT_URI,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state: 'bench',
    scope: 'project:read',
  });
  return `/api/agent/oauth/authorize?${query}`;
}

/** The pickers: a small organisation against one with 20,000 projects and 2,000 members. */
async function pickerPages({ base, pg, callJson, rounds, duration }) {
  const db = new Client({ connectionString: pg.url('agent_gateway') });
  await db.connect();
  try {
    const small = await signUp(base, callJson, 'small');
    const large = await signUp(base, callJson, 'large');
    for (let i = 1; i <= 5; i++) {
      await callJson(base, `/api/organizations/${small.orgId}/projects`, { method: 'POST', token: small.session, body: { name: `Small project ${i}` } });
    }
    const t0 = performance.now();
    await db.query(
      `INSERT INTO projects (organization_id, name, created_at)
       SELECT $1, 'Large project ' || g, now() - interval '1 day' + g * interval '1 millisecond' FROM generate_series(1, 20000) g`,
      [large.orgId],
    );
    await db.query(
      `WITH people AS (
         INSERT INTO users (email, name, password_hash)
         SELECT 'bench-member-' || g || '-' || $2 || '@example.test', 'Bench member ' || g, 'not-a-password-hash' FROM generate_series(1, 2000) g
         RETURNING id)
       INSERT INTO memberships (organization_id, user_id, role) SELECT $1, id, 'member' FROM people`,
      [large.orgId, randomBytes(4).toString('hex')],
    );
    await db.query('ANALYZE projects; ANALYZE memberships; ANALYZE users');
    process.stderr.write(`pickers: 20,000 projects and 2,000 members seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const keyOf = async (org) =>
      (await callJson(base, `/api/organizations/${org.orgId}/agent-service-keys`, { method: 'POST', token: org.session, body: { name: 'bench picker' } })).json.id;
    const [smallKey, largeKey] = [await keyOf(small), await keyOf(large)];
    const consent = await consentPath(base, callJson);
    const perRound = Math.max(10, duration * 5);
    const at = (org, path) => ({ session: org.session, path });
    const scenarios = [];
    scenarios.push(
      await compare({
        base,
        name: 'service-key page (derive form), 20,000 projects vs 5',
        small: at(small, `/orgs/${small.orgId}/service-keys/${smallKey}`),
        large: at(large, `/orgs/${large.orgId}/service-keys/${largeKey}`),
        rounds,
        perRound,
      }),
    );
    scenarios.push(
      await compare({
        base,
        name: 'service-key page, search by name, 20,000 projects vs 5',
        small: at(small, `/orgs/${small.orgId}/service-keys/${smallKey}?projectQuery=project+3`),
        large: at(large, `/orgs/${large.orgId}/service-keys/${largeKey}?projectQuery=project+19999`),
        rounds,
        perRound,
      }),
    );
    scenarios.push(await compare({ base, name: 'consent page, 20,000 projects vs 5', small: at(small, consent), large: at(large, consent), rounds, perRound }));
    scenarios.push(
      await compare({
        base,
        name: 'audit log page (Person select), 2,000 members vs 1',
        small: at(small, `/orgs/${small.orgId}/audit`),
        large: at(large, `/orgs/${large.orgId}/audit`),
        rounds,
        perRound,
      }),
    );
    return scenarios;
  } finally {
    await db.end();
  }
}

/** The audit-event list's filters: a small organisation (200 events) against one with 2,000,000. */
async function auditFilters({ base, pg, callJson, rounds, duration }) {
  const db = new Client({ connectionString: pg.url('agent_gateway') });
  await db.connect();
  try {
    const small = await signUp(base, callJson, 'audit-small');
    const large = await signUp(base, callJson, 'audit-large');
    const person = async (org) => (await db.query('SELECT user_id FROM memberships WHERE organization_id = $1', [org.orgId])).rows[0].user_id;
    const project = async (org) => (await callJson(base, `/api/organizations/${org.orgId}/projects`, { method: 'POST', token: org.session, body: { name: 'Audited' } })).json.id;
    small.userId = await person(small);
    large.userId = await person(large);
    small.projectId = await project(small);
    large.projectId = await project(large);
    // `count` events, one in every `count / 20` a rare `project.renamed` of the organisation's
    // project by its person, the rest agents' tool calls (with a service key, as real ones carry).
    const seed = (org, count) =>
      db.query(
        `INSERT INTO audit_events (organization_id, chain, project_id, actor_type, actor_id, action, target_type, target_id, metadata, created_at)
         SELECT $1::uuid, $1::uuid::text,
                CASE WHEN rare THEN $2::uuid ELSE NULL END,
                CASE WHEN rare THEN 'user' ELSE 'agent_token' END,
                CASE WHEN rare THEN $3::text ELSE md5(g::text) END,
                CASE WHEN rare THEN 'project.renamed' WHEN g % 3 = 0 THEN 'capability.update_task' ELSE 'capability.create_task' END,
                CASE WHEN rare THEN 'project' ELSE 'task' END,
                CASE WHEN rare THEN $2::text ELSE md5((g + 1)::text) END,
                CASE WHEN rare THEN jsonb_build_object('previousName', 'Old', 'name', 'Audited')
                     ELSE jsonb_build_object('tool', 'create_task', 'outcome', 'succeeded', 'serviceKeyId', $4::text) END,
                now() - g * interval '10 seconds'
           FROM (SELECT g, g % ($5::int / 20) = 7 AS rare FROM generate_series(1, $5::int) g) s`,
        [org.orgId, org.projectId, org.userId, randomBytes(16).toString('hex'), count],
      );
    // The indexes (the primary key's too) are set aside while the rows go in and built again after
    // (as a bulk load is done): inserting 2,000,000 rows through each of them costs minutes.
    const t0 = performance.now();
    const [primaryKey] = (
      await db.query(`SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE conrelid = 'audit_events'::regclass AND contype = 'p'`)
    ).rows;
    const indexes = (
      await db.query(`SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'audit_events' AND indexname <> $1`, [primaryKey.conname])
    ).rows;
    for (const { indexname } of indexes) await db.query(`DROP INDEX ${indexname}`);
    await db.query(`ALTER TABLE audit_events DROP CONSTRAINT ${primaryKey.conname}`);
    // The organisation's foreign key is checked per row by a trigger: off for the load (the rows name a real organisation).
    await db.query(`SET session_replication_role = replica`);
    await seed(small, 200);
    await seed(large, 2_000_000);
    await db.query(`SET session_replication_role = DEFAULT`);
    await db.query(`SET maintenance_work_mem = '256MB'`);
    await db.query(`ALTER TABLE audit_events ADD CONSTRAINT ${primaryKey.conname} ${primaryKey.def}`);
    for (const { indexdef } of indexes) await db.query(indexdef);
    await db.query('ANALYZE audit_events');
    process.stderr.write(`audit: 2,000,000 events seeded in ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    const plan = await db.query(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON)
       SELECT id, action, created_at FROM audit_events
        WHERE organization_id = $1 AND action = 'project.renamed'
        ORDER BY created_at DESC, id DESC LIMIT 51`,
      [large.orgId],
    );
    const planText = plan.rows.map((r) => r['QUERY PLAN']).join('\n');
    process.stderr.write(`audit: plan of the rare-action filter on 2,000,000 events:\n${planText}\n`);
    // The person filter as the list reads it: the newest matches of each place the id can be, merged.
    const places = ['actor_id', 'target_id', "metadata->>'serviceKeyId'", "metadata->>'grantId'", "metadata->>'clientId'"];
    const personPlan = await db.query(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON)
       SELECT * FROM (${places
         .map((p) => `(SELECT id, created_at FROM audit_events WHERE organization_id = $1 AND ${p} = $2 ORDER BY created_at DESC, id DESC LIMIT 51)`)
         .join(' UNION ')}) m ORDER BY created_at DESC, id DESC LIMIT 51`,
      [large.orgId, large.userId],
    );
    const projectPlan = await db.query(
      `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY ON)
       SELECT id FROM audit_events WHERE organization_id = $1 AND project_id = $2 ORDER BY created_at DESC, id DESC LIMIT 51`,
      [large.orgId, large.projectId],
    );
    process.stderr.write(`audit: plan of the project filter:\n${projectPlan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    process.stderr.write(`audit: plan of the person filter:\n${personPlan.rows.map((r) => r['QUERY PLAN']).join('\n')}\n`);
    const perRound = Math.max(10, duration * 5);
    const rest = (org, query) => ({ session: org.session, path: `/api/organizations/${org.orgId}/audit-events?${query}` });
    const scenarios = [];
    const both = [
      ['rare action', (org) => 'action=project.renamed'],
      ['person', (org) => `credential=${org.userId}`],
      ['project', (org) => `projectId=${org.projectId}`],
    ];
    for (const [label, query] of both) {
      scenarios.push(
        await compare({ base, name: `audit events (REST) filtered by ${label}, 2,000,000 events vs 200`, small: rest(small, query(small)), large: rest(large, query(large)), rounds, perRound, bearer: true }),
      );
    }
    const auditPage = await compare({
      base,
      name: 'audit log page filtered by a rare action, 2,000,000 events vs 200',
      small: { session: small.session, path: `/orgs/${small.orgId}/audit?action=project.renamed` },
      large: { session: large.session, path: `/orgs/${large.orgId}/audit?action=project.renamed` },
      rounds,
      perRound,
    });
    auditPage.plan = planText;
    scenarios.push(auditPage);
    return scenarios;
  } finally {
    await db.end();
  }
}

module.exports = { auditFilters, pickerPages };
