import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { AuditSealer, AuditService } from '@app/audit';
import { createApiKey, createTeam } from './factories/rest';
import { lineSeq, receivedLines, startSinkReceiver, waitFor } from './helpers/sink-receiver';
import { startTestApp, TestApp } from './helpers/test-app';

/**
 * Audit sinks (SPEC §10, "Sinks"): made by an admin with a recent sign-in, delivered from the
 * chain in `seq` order, at least once, signed per Standard Webhooks (https) or as Splunk HEC
 * events. The receivers are plain HTTP servers on 127.0.0.1 under OUTBOUND_ALLOW_LOOPBACK: the
 * service checks https certificates against the system's trust store, which a test application
 * sharing Jest's process cannot extend with a self-signed certificate once started.
 */
describe('audit sinks', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ OUTBOUND_ALLOW_LOOPBACK: 'true' });
  });
  afterAll(() => t.close());

  async function records(organizationId: string, n: number): Promise<void> {
    const audit = t.app.get(AuditService);
    for (let i = 0; i < n; i++) {
      await audit.record(t.dataSource.manager, { organizationId, actorType: 'system', action: 'project.renamed', targetType: 'project', targetId: `p${i}`, metadata: { i } });
    }
    await t.app.get(AuditSealer).sealNow();
  }

  const head = async (organizationId: string) => Number((await t.dataSource.query(`SELECT seq FROM audit_chains WHERE chain = $1`, [organizationId]))[0]?.seq ?? 0);

  it('is an admin session’s, with a recent sign-in; the signing secret is shown once and stored encrypted', async () => {
    const team = await createTeam(t);
    const path = `/api/organizations/${team.organization.id}/audit-sinks`;
    const receiver = await startSinkReceiver();
    try {
      await request(t.baseUrl).post(path).auth(team.member.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url }).expect(403);
      const key = await createApiKey(t.dataSource, team.organization.id, ['audit:read', 'projects:write']);
      await request(t.baseUrl).get(path).auth(key.key, { type: 'bearer' }).expect(403);
      await request(t.baseUrl).get(path).auth(team.outsider.jwt, { type: 'bearer' }).expect(404);

      const created = await request(t.baseUrl).post(path).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url }).expect(201);
      expect(created.body).toEqual(
        expect.objectContaining({ kind: 'https', url: `${receiver.url}/`, lastDeliveredSeq: await head(team.organization.id), lag: 0, lastError: null }),
      );
      expect(created.body.signingSecret).toMatch(/^whsec_[A-Za-z0-9+/=]{40,}$/);
      const [row] = await t.dataSource.query(`SELECT signing_secret FROM audit_sinks WHERE id = $1`, [created.body.id]);
      expect(row.signing_secret).toMatch(/^v1:/);
      expect(row.signing_secret).not.toContain(created.body.signingSecret.slice(6));

      const listed = (await request(t.baseUrl).get(path).auth(team.admin.jwt, { type: 'bearer' }).expect(200)).body;
      expect(listed).toEqual([expect.objectContaining({ id: created.body.id, lastDeliveredSeq: expect.any(Number), lag: expect.any(Number), lastError: null })]);
      expect(JSON.stringify(listed)).not.toContain('whsec_');

      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() - interval '16 minutes' WHERE user_id = $1`, [team.admin.id]);
      const stale = await request(t.baseUrl).delete(`${path}/${created.body.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(401);
      expect(stale.body).toMatchObject({ statusCode: 401, code: 'reauthentication_required' });
      await t.dataSource.query(`UPDATE sessions SET authenticated_at = now() WHERE user_id = $1`, [team.admin.id]);
      await request(t.baseUrl).delete(`${path}/${created.body.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(204);
      await request(t.baseUrl).delete(`${path}/${created.body.id}`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      await request(t.baseUrl).delete(`${path}/not-a-uuid`).auth(team.admin.jwt, { type: 'bearer' }).expect(404);
      const actions: { action: string }[] = await t.dataSource.query(`SELECT action FROM audit_events WHERE organization_id = $1 AND action LIKE 'audit_sink.%' ORDER BY created_at`, [
        team.organization.id,
      ]);
      expect(actions.map((a) => a.action)).toEqual(['audit_sink.created', 'audit_sink.deleted']);
    } finally {
      await receiver.close();
    }
  });

  it('refuses bad input with a 400 naming it', async () => {
    const team = await createTeam(t);
    const post = (body: object) => request(t.baseUrl).post(`/api/organizations/${team.organization.id}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send(body);
    expect((await post({ kind: 'syslog', url: 'https://siem.example.com/' }).expect(400)).body.message).toEqual(expect.arrayContaining([expect.stringContaining('kind')]));
    expect((await post({ kind: 'https', url: 'http://siem.example.com/' }).expect(400)).body.message).toContain('https');
    expect((await post({ kind: 'https', url: 'https://10.0.0.5/' }).expect(400)).body.message).toContain('OUTBOUND_ALLOW_HOSTS');
    expect((await post({ kind: 'https', url: 'https://169.254.169.254/' }).expect(400)).body.message).toContain('169.254.169.254');
    expect((await post({ kind: 'splunk_hec', url: 'https://127.0.0.1:8088/' }).expect(400)).body.message).toContain('token');
    expect((await post({ kind: 'https', url: 'https://127.0.0.1/', token: 'x' }).expect(400)).body.message).toContain('token');
    expect((await post({ kind: 'https', url: 'https://127.0.0.1/', fromSeq: 0 }).expect(400)).body.message).toEqual(expect.arrayContaining([expect.stringContaining('fromSeq')]));
    expect((await post({ kind: 'https', url: 'https://127.0.0.1/', fromSeq: 10_000 }).expect(400)).body.message).toContain('fromSeq');
  });

  it('delivers every record in order once the sink accepts, signed with the secret shown at creation, checkpoints as lines of their own', async () => {
    const team = await createTeam(t);
    const org = team.organization.id;
    await records(org, 5);
    let refusals = 3;
    const receiver = await startSinkReceiver(() => (refusals-- > 0 ? 503 : 200));
    try {
      const created = (
        await request(t.baseUrl).post(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: `${receiver.url}/intake`, fromSeq: 1 }).expect(201)
      ).body;
      await records(org, 20);
      await t.app.get(AuditSealer).sealChain(org, true);
      // While it refuses, the sink shows why.
      await waitFor(async () => {
        const sink = (await request(t.baseUrl).get(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).expect(200)).body[0];
        return /HTTP 503/.test(sink.lastError ?? '') && sink.lag > 0;
      }, 'the refusal shown');
      const last = await head(org);
      await waitFor(() => receivedLines(receiver.accepted).some((l) => !('checkpoint' in l) && lineSeq(l) === last), 'the head delivered');

      const webhook = new Webhook(created.signingSecret);
      for (const req of receiver.accepted) {
        expect(req.path).toBe('/intake');
        expect(req.headers['content-type']).toBe('application/x-ndjson');
        // The body is NDJSON, not one JSON document: verified as bytes.
        expect(() => webhook.verify(req.body, req.headers as Record<string, string>, { jsonParse: false })).not.toThrow();
        expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString('base64')}`).verify(req.body, req.headers as Record<string, string>, { jsonParse: false })).toThrow();
        const lines = receivedLines([req]);
        expect(req.headers['webhook-id']).toBe(`${created.id}:${lineSeq(lines[0])}:${lineSeq(lines[lines.length - 1])}`);
      }
      const events = receivedLines(receiver.accepted).filter((l) => !('checkpoint' in l));
      const seqs = [...new Set(events.map(lineSeq))];
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      expect(seqs.length).toBeGreaterThanOrEqual(last);
      // Duplicates (after a lost answer) only ever repeat a seq; the order never goes back.
      const ordered = events.map(lineSeq).filter((seq, i, all) => i === 0 || seq !== all[i - 1]);
      expect(ordered).toEqual(seqs);
      const checkpoints = receivedLines(receiver.accepted).filter((l) => 'checkpoint' in l);
      expect(checkpoints.length).toBeGreaterThan(0);
      expect(checkpoints[0].checkpoint).toEqual(expect.objectContaining({ seq: expect.any(Number), hash: expect.any(String), keyId: expect.any(String), signature: expect.any(String) }));

      await waitFor(async () => {
        const sink = (await request(t.baseUrl).get(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' })).body[0];
        return sink.lastDeliveredSeq >= last && sink.lastError === null;
      }, 'the sink shown current');
    } finally {
      await receiver.close();
    }
  });

  it('halves the batch on 413 until the sink takes it', async () => {
    const team = await createTeam(t);
    const org = team.organization.id;
    await records(org, 30);
    const receiver = await startSinkReceiver((req) => (req.body.split('\n').filter(Boolean).length > 8 ? 413 : 200));
    try {
      await request(t.baseUrl).post(`/api/organizations/${org}/audit-sinks`).auth(team.admin.jwt, { type: 'bearer' }).send({ kind: 'https', url: receiver.url, fromSeq: 1 }).expect(201);
      const last = await head(org);
      await waitFor(() => receivedLines(receiver.accepted).some((l) => lineSeq(l) === last), 'every record through 413s');
      expect(receiver.refusedCount()).toBeGreaterThan(0);
      // Through the head (the sink's own creation record may follow it): each seq, none skipped.
      const seqs = [...new Set(receivedLines(receiver.accepted).map(lineSeq))];
      expect(seqs).toEqual(Array.from({ length: seqs.length }, (_, i) => i + 1));
      expect(seqs.length).toBeGreaterThanOrEqual(last);
    } finally {
      await receiver.close();
    }
  });

  it('posts Splunk HEC events to /services/collector/event with the token', async () => {
    const team = await createTeam(t);
    const org = team.organization.id;
    await records(org, 3);
    const receiver = await startSinkReceiver((req) => (req.path === '/services/collector/event' && req.headers.authorization === 'Splunk hec-token-1' ? 200 : 401));
    try {
      const created = (
        await request(t.baseUrl)
          .post(`/api/organizations/${org}/audit-sinks`)
          .auth(team.admin.jwt, { type: 'bearer' })
          .send({ kind: 'splunk_hec', url: receiver.url, token: 'hec-token-1', fromSeq: 1 })
          .expect(201)
      ).body;
      expect(created.signingSecret).toBeUndefined();
      const [row] = await t.dataSource.query(`SELECT token FROM audit_sinks WHERE id = $1`, [created.id]);
      expect(row.token).not.toContain('hec-token-1');
      const last = await head(org);
      const hecEvents = () => receiver.accepted.flatMap((r) => r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { time: number; sourcetype: string; event: Record<string, unknown> }));
      await waitFor(() => hecEvents().some((e) => e.sourcetype === 'ocsf' && lineSeq(e.event) === last), 'the head in Splunk');
      expect(receiver.refusedCount()).toBe(0);
      for (const e of hecEvents().filter((x) => x.sourcetype === 'ocsf')) {
        expect(e.time).toBe((e.event.time as number) / 1000);
        expect(e.event).toEqual(expect.objectContaining({ metadata: expect.objectContaining({ uid: expect.any(String), tenant_uid: org }) }));
      }
    } finally {
      await receiver.close();
    }
  });
});
