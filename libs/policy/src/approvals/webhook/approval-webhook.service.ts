import { randomBytes } from 'node:crypto';
import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { Webhook } from 'standardwebhooks';
import { type AuditActor, AuditService } from '@app/audit';
import { DomainError, NotFoundError } from '@app/common';
import { AppConfig, decryptSecret, encryptSecret, type SecretPlace, type SecretsKey } from '@app/config';
import { checkedOutboundUrl, safeFetch, systemResolver } from '@app/outbound';
import { ApprovalWebhooksRepository } from './approval-webhooks.repository';

/** Where the stored secret is, for its encryption's additional data. */
export const secretPlace = (organizationId: string): SecretPlace => ({ table: 'approval_webhooks', column: 'signing_secret', rowId: organizationId });

/** The delays before each retry of a delivery the receiver refused or did not answer (three tries in all). */
export const WEBHOOK_RETRY_DELAYS_MS = [1_000, 5_000];
const REQUEST_TIMEOUT_MS = 10_000;

/** What the webhook tells approvers of a new approval: never the call's arguments. */
export interface ApprovalNotice {
  id: string;
  organizationId: string;
  projectId: string;
  tool: string;
  ruleId: string;
  url: string;
  expiresAt: Date;
}

class WebhookRefused extends Error {}

/**
 * The organisation's approval webhook (SPEC §10): set and removed by an admin (a recent sign-in),
 * its Standard Webhooks signing secret shown once and stored encrypted. Each new approval is
 * posted to it, signed with the `standardwebhooks` library, through `outbound`'s SSRF-safe
 * fetcher, retried twice; delivery runs after the call was answered and never holds it up. The
 * payload names the approval, tool, project, rule and page, never the arguments.
 */
@Injectable()
export class ApprovalWebhookService implements OnApplicationShutdown {
  private readonly logger = new Logger('ApprovalWebhook');
  private readonly keyRing: readonly SecretsKey[];
  private readonly inFlight = new Set<Promise<void>>();

  constructor(
    private readonly webhooks: ApprovalWebhooksRepository,
    private readonly audit: AuditService,
    private readonly dataSource: DataSource,
    private readonly config: AppConfig,
  ) {
    this.keyRing = config.secretsKeys;
  }

  async set(organizationId: string, rawUrl: string, actor: AuditActor): Promise<{ url: string; signingSecret: string }> {
    const url = await checkedOutboundUrl(rawUrl, this.reach(), {
      invalid: 'invalid_webhook_url',
      unreachable: 'approval_webhook_unreachable',
      what: 'The webhook',
      plural: 'approval webhooks',
      error: (code, message) => new DomainError(code, message),
    });
    const signingSecret = `whsec_${randomBytes(32).toString('base64')}`;
    await this.dataSource.transaction(async (em) => {
      await this.webhooks.save(em, organizationId, url.toString(), encryptSecret(this.keyRing, signingSecret, secretPlace(organizationId)));
      await this.audit.record(em, { organizationId, ...actor, action: 'approval_webhook.updated', targetType: 'approval_webhook', targetId: organizationId, metadata: { url: url.toString() } });
    });
    return { url: url.toString(), signingSecret };
  }

  async remove(organizationId: string, actor: AuditActor): Promise<void> {
    await this.dataSource.transaction(async (em) => {
      const url = await this.webhooks.remove(em, organizationId);
      if (url === null) throw new NotFoundError('Approval webhook');
      await this.audit.record(em, { organizationId, ...actor, action: 'approval_webhook.deleted', targetType: 'approval_webhook', targetId: organizationId, metadata: { url } });
    });
  }

  /** Tells the organisation's webhook, if it has one, of a new approval; returns at once (the delivery runs on its own). */
  notify(notice: ApprovalNotice): void {
    const delivery = this.deliver(notice).catch((error: unknown) =>
      this.logger.warn(`approval ${notice.id}: the webhook of organisation ${notice.organizationId} was not told (${error instanceof Error ? error.message : String(error)})`),
    );
    this.inFlight.add(delivery);
    void delivery.finally(() => this.inFlight.delete(delivery));
  }

  /** Lets the deliveries under way finish (each is bounded: three tries, ten seconds each). */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.inFlight]);
  }

  private async deliver(notice: ApprovalNotice): Promise<void> {
    const webhook = await this.webhooks.find(notice.organizationId);
    if (!webhook) return;
    const secret = decryptSecret(this.keyRing, webhook.signingSecret, secretPlace(notice.organizationId));
    const payload = JSON.stringify({
      type: 'approval.requested',
      timestamp: new Date().toISOString(),
      data: {
        approvalId: notice.id,
        organizationId: notice.organizationId,
        projectId: notice.projectId,
        tool: notice.tool,
        ruleId: notice.ruleId,
        url: notice.url,
        expiresAt: notice.expiresAt.toISOString(),
      },
    });
    for (let attempt = 0; ; attempt++) {
      try {
        await this.post(new URL(webhook.url), notice.id, secret, payload);
        return;
      } catch (error) {
        const delay = WEBHOOK_RETRY_DELAYS_MS[attempt];
        if (delay === undefined) throw error;
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  }

  private async post(url: URL, id: string, secret: string, payload: string): Promise<void> {
    const now = new Date();
    const signature = new Webhook(secret).sign(id, now, payload);
    await safeFetch(url, {
      resolve: systemResolver,
      wording: {
        host: "The webhook's host",
        document: 'The approval webhook',
        plural: 'approval webhooks',
        userAgent: 'agent-gateway-approval-webhook',
        error: (message) => new WebhookRefused(message),
      },
      allowLoopback: this.config.outboundAllowLoopback,
      allowHosts: this.config.outboundAllowHosts,
      timeoutMs: REQUEST_TIMEOUT_MS,
      maxBytes: 16 * 1024,
      body: { contentType: 'application/json', data: Buffer.from(payload, 'utf8') },
      headers: { 'webhook-id': id, 'webhook-timestamp': String(Math.floor(now.getTime() / 1000)), 'webhook-signature': signature },
      acceptStatuses: Array.from({ length: 100 }, (_, i) => 200 + i),
    });
  }

  private reach() {
    return { allowLoopback: this.config.outboundAllowLoopback, allowHosts: this.config.outboundAllowHosts, resolve: systemResolver };
  }
}
