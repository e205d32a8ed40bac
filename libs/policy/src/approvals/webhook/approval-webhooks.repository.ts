import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { statement, statementIn } from '@app/database';

export interface StoredWebhook {
  url: string;
  signingSecret: string;
}

const UPSERT = statement(
  'approval_webhooks.upsert',
  `INSERT INTO approval_webhooks (organization_id, url, signing_secret) VALUES ($1, $2, $3)
   ON CONFLICT (organization_id) DO UPDATE SET url = EXCLUDED.url, signing_secret = EXCLUDED.signing_secret, updated_at = now()
   RETURNING url`,
);
const DELETE = statement('approval_webhooks.delete', `DELETE FROM approval_webhooks WHERE organization_id = $1 RETURNING url`);
const FIND = statement('approval_webhooks.find', `SELECT url, signing_secret AS "signingSecret" FROM approval_webhooks WHERE organization_id = $1`);

/** The only queries on `approval_webhooks`. */
@Injectable()
export class ApprovalWebhooksRepository {
  constructor(private readonly dataSource: DataSource) {}

  async save(em: EntityManager, organizationId: string, url: string, encryptedSecret: string): Promise<void> {
    await statementIn(em, UPSERT, [organizationId, url, encryptedSecret]);
  }

  /** The removed webhook's URL, or null when there was none. */
  async remove(em: EntityManager, organizationId: string): Promise<string | null> {
    const [row] = await statementIn<{ url: string }>(em, DELETE, [organizationId]);
    return row?.url ?? null;
  }

  /** Every stored signing secret as it is stored, for the start-up check and `secrets-rotate`. */
  async storedSecrets(): Promise<{ organizationId: string; stored: string }[]> {
    const rows: { organization_id: string; signing_secret: string }[] = await this.dataSource.query(`SELECT organization_id, signing_secret FROM approval_webhooks`);
    return rows.map((r) => ({ organizationId: r.organization_id, stored: r.signing_secret }));
  }

  /** Replaces one stored signing secret, only if it is still `was`. */
  async replaceStoredSecret(organizationId: string, was: string, stored: string): Promise<void> {
    await this.dataSource.query(`UPDATE approval_webhooks SET signing_secret = $3 WHERE organization_id = $1 AND signing_secret = $2`, [organizationId, was, stored]);
  }

  async find(organizationId: string): Promise<StoredWebhook | null> {
    const [row] = await statementIn<StoredWebhook>(this.dataSource.manager, FIND, [organizationId]);
    return row ?? null;
  }
}
