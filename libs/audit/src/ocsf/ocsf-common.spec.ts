import { ocsfEmail, withEmail } from './ocsf-common';

describe("OCSF's email_t", () => {
  it('keeps an ASCII address as it is', () => {
    expect(ocsfEmail('ada.o+audit@example.com')).toBe('ada.o+audit@example.com');
  });

  it('writes an international domain in its ASCII form', () => {
    expect(ocsfEmail('ana@bücher.example')).toBe('ana@xn--bcher-kva.example');
    expect(ocsfEmail('ana@BÜCHER.example')).toBe('ana@xn--bcher-kva.example');
  });

  it('has no form for a local part outside ASCII, a domain without a dot, or no address at all', () => {
    expect(ocsfEmail('zoë@example.com')).toBeUndefined();
    expect(ocsfEmail('root@localhost')).toBeUndefined();
    expect(ocsfEmail('@example.com')).toBeUndefined();
    expect(ocsfEmail('not an address')).toBeUndefined();
    expect(ocsfEmail(undefined)).toBeUndefined();
  });

  it('keeps an address it cannot hold as the user’s name, unless the user has one', () => {
    expect(withEmail({ uid: 'u1' }, 'zoë@example.com')).toEqual({ uid: 'u1', name: 'zoë@example.com' });
    expect(withEmail({ uid: 'u1', name: 'Zoë' }, 'zoë@example.com')).toEqual({ uid: 'u1', name: 'Zoë' });
    expect(withEmail({ uid: 'u1' }, 'ana@bücher.example')).toEqual({ uid: 'u1', email_addr: 'ana@xn--bcher-kva.example' });
    expect(withEmail({ uid: 'u1' }, null)).toEqual({ uid: 'u1' });
  });
});
