import { promises as dns } from 'node:dns';
import { Injectable, OnModuleInit } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';

/** Looks up a name's TXT records, each as its strings (what `dns.promises.resolveTxt` answers). */
export type TxtResolver = (name: string) => Promise<string[][]>;

/**
 * Optional provider: how TXT records are looked up, instead of `dns.promises.resolveTxt`
 * (tests register a fake through the application module's providers, so they need no DNS).
 */
export const DOMAIN_TXT_RESOLVER = Symbol('DOMAIN_TXT_RESOLVER');

/** A look-up that takes longer is answered as failed (`ETIMEOUT`): the admin tries again later. */
const LOOKUP_TIMEOUT_MS = 5_000;

/**
 * TXT look-ups for domain verification. The resolver is `DOMAIN_TXT_RESOLVER` wherever the
 * application registers it (looked up outside this module, so a test's provider in the root
 * module counts), else the system's DNS.
 */
@Injectable()
export class DomainTxtLookup implements OnModuleInit {
  private resolver: TxtResolver = (name) => dns.resolveTxt(name);

  constructor(private readonly moduleRef: ModuleRef) {}

  onModuleInit(): void {
    try {
      const custom = this.moduleRef.get<TxtResolver>(DOMAIN_TXT_RESOLVER, { strict: false });
      if (typeof custom === 'function') this.resolver = custom;
    } catch {
      // none registered: the system's DNS
    }
  }

  /**
   * The TXT strings published at `name` (each record's parts joined, as RFC 7208 reads them);
   * empty when the name has none. Other DNS failures are thrown with their code.
   */
  async txt(name: string): Promise<string[]> {
    try {
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(Object.assign(new Error(`TXT look-up of ${name} timed out`), { code: 'ETIMEOUT' })), LOOKUP_TIMEOUT_MS);
      });
      try {
        return (await Promise.race([this.resolver(name), timeout])).map((parts) => parts.join(''));
      } finally {
        clearTimeout(timer);
      }
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code === 'ENOTFOUND' || code === 'ENODATA' || code === 'NXDOMAIN') return [];
      throw error;
    }
  }
}
