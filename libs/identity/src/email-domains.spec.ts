import { emailDomain, isPublicEmailDomain, normalizeEmailDomain, verificationRecord } from './email-domains';

describe('email domains', () => {
  it('normalises a domain: lower case, no trailing dot, internationalised names in ASCII', () => {
    expect(normalizeEmailDomain(' Example.COM. ')).toBe('example.com');
    expect(normalizeEmailDomain('münchen.example')).toBe('xn--mnchen-3ya.example');
    expect(normalizeEmailDomain('a-b.co.uk')).toBe('a-b.co.uk');
  });

  it.each([['localhost'], ['-bad.example.com'], ['bad-.example.com'], ['exa mple.com'], ['example.123'], ['a..b.com'], [''], ['x'.repeat(64) + '.com']])(
    'refuses %j naming the field',
    (raw) => {
      expect(() => normalizeEmailDomain(raw, 'emailDomains[3]')).toThrow(/^emailDomains\[3\] is not a domain name/);
    },
  );

  it('refuses an email address, and what is not a string', () => {
    expect(() => normalizeEmailDomain('ada@example.com', 'domain')).toThrow('domain must be a domain such as example.com, not an email address');
    expect(() => normalizeEmailDomain(42, 'domain')).toThrow('domain must be a domain name (a string)');
  });

  it('knows public mail domains, and `name.*` entries only under a country or generic ending', () => {
    for (const d of ['gmail.com', 'googlemail.com', 'outlook.com', 'hotmail.co.uk', 'gmx.de', 'gmx.net', 'gmx.com.br', 'yahoo.co.jp', 'mail.ru', 'qq.com', '163.com', 'proton.me']) {
      expect({ d, public: isPublicEmailDomain(d) }).toEqual({ d, public: true });
    }
    for (const d of ['example.com', 'live.example.com', 'gmx.example.com', 'mygmail.com', 'gmail.com.example.org']) {
      expect({ d, public: isPublicEmailDomain(d) }).toEqual({ d, public: false });
    }
  });

  it('names the TXT record to publish', () => {
    expect(verificationRecord('example.com', 'abc')).toEqual({ name: '_agent-gateway.example.com', type: 'TXT', value: 'agent-gateway-verification=abc' });
  });
});

describe('emailDomain: the domain of an address, as claimed domains are stored', () => {
  it.each([
    ['ada@example.com', 'example.com'],
    ['Ada@Example.COM', 'example.com'],
    ['ada@example.com.', 'example.com'],
    ['ada@ example.com ', 'example.com'],
    ['ada@münchen.example', 'xn--mnchen-3ya.example'],
    ['ada@MÜNCHEN.example', 'xn--mnchen-3ya.example'],
    ['ada@xn--mnchen-3ya.example', 'xn--mnchen-3ya.example'],
    ['ada@bücher.example', 'xn--bcher-kva.example'],
    ['"a@b"@example.com', 'example.com'],
    ['ada@', null],
    ['@example.com', null],
    ['no-at-sign', null],
    ['ada@' + 'x'.repeat(254), null],
  ])('%j → %j', (email, expected) => {
    expect(emailDomain(email)).toBe(expected);
  });

  it('gives an internationalised address the domain its claimed domain is stored as', () => {
    expect(emailDomain('ada@münchen.example')).toBe(normalizeEmailDomain('münchen.example'));
  });
});
