import { decodeKeysetCursor, encodeKeysetCursor, keysetPage } from './keyset-page';

describe('keyset pages', () => {
  const position = { us: '1795000000123456', id: '6f1c1d8e-9a43-4a4e-9f59-7a3d3c1f4b10' };

  it('round-trips a position through its opaque cursor', () => {
    const cursor = encodeKeysetCursor(position);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeKeysetCursor(cursor)).toEqual(position);
  });

  it('refuses a cursor it did not produce, naming the code, never echoing it', () => {
    const forged = [
      '',
      'not a cursor',
      Buffer.from('123.not-a-uuid').toString('base64url'),
      Buffer.from(`12x.${position.id}`).toString('base64url'),
      Buffer.from(`1.${position.id}.extra`).toString('base64url'),
      'a'.repeat(201),
    ];
    for (const text of forged) {
      expect(() => decodeKeysetCursor(text)).toThrow(expect.objectContaining({ code: 'invalid_cursor', kind: 'invalid_input' }));
    }
  });

  it('cuts limit + 1 rows into a page and the cursor of its last row, only when there is more', () => {
    const rows = [1, 2, 3].map((n) => ({ n, position: { us: String(n), id: position.id } }));
    const cursorOf = (r: (typeof rows)[number]) => encodeKeysetCursor(r.position);
    expect(keysetPage(rows, 2, cursorOf)).toEqual({ items: rows.slice(0, 2), nextCursor: encodeKeysetCursor(rows[1]!.position) });
    expect(keysetPage(rows.slice(0, 2), 2, cursorOf)).toEqual({ items: rows.slice(0, 2), nextCursor: null });
    expect(keysetPage([], 2, cursorOf)).toEqual({ items: [], nextCursor: null });
  });
});
