import { Injectable } from '@nestjs/common';
import { DataSource, EntityManager } from 'typeorm';
import { statement, statementIn } from '@app/database';
import type { PolicyRule } from './policy-rules';

/** A stored policy; version 0 with no rules when the organisation never saved one. */
export interface StoredPolicy {
  version: number;
  rules: PolicyRule[];
  updatedAt: Date | null;
}

const FIND = statement(
  'organization_policies.find',
  'SELECT version, rules, updated_at FROM organization_policies WHERE organization_id = $1',
);
const CREATE = statement(
  'organization_policies.create',
  `INSERT INTO organization_policies (organization_id, version, rules, updated_by) VALUES ($1, 1, $2::jsonb, $3)
   ON CONFLICT (organization_id) DO NOTHING RETURNING version, rules, updated_at`,
);
const REPLACE = statement(
  'organization_policies.replace',
  `UPDATE organization_policies SET version = version + 1, rules = $3::jsonb, updated_at = now(), updated_by = $4
   WHERE organization_id = $1 AND version = $2 RETURNING version, rules, updated_at`,
);

interface PolicyRow {
  version: number;
  rules: PolicyRule[];
  updated_at: Date;
}

const NONE: StoredPolicy = Object.freeze({ version: 0, rules: [], updatedAt: null });

/** The only queries on `organization_policies`. */
@Injectable()
export class PolicyRepository {
  constructor(private readonly dataSource: DataSource) {}

  async find(organizationId: string, em: EntityManager = this.dataSource.manager): Promise<StoredPolicy> {
    const [row] = await statementIn<PolicyRow>(em, FIND, [organizationId]);
    return row ? storedOf(row) : NONE;
  }

  /**
   * Saves `rules` as the version after `expected`, atomically: null when `expected` is no longer
   * the current version (another save came first, on any instance).
   */
  async replace(em: EntityManager, organizationId: string, expected: number, rules: PolicyRule[], userId: string | null): Promise<StoredPolicy | null> {
    const json = JSON.stringify(rules);
    const [row] =
      expected === 0
        ? await statementIn<PolicyRow>(em, CREATE, [organizationId, json, userId])
        : await statementIn<PolicyRow>(em, REPLACE, [organizationId, expected, json, userId]);
    return row ? storedOf(row) : null;
  }
}

function storedOf(row: PolicyRow): StoredPolicy {
  return { version: row.version, rules: row.rules, updatedAt: row.updated_at };
}
