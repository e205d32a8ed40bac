import { plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { hasUnsafeDisplayCharacters, IsDisplaySafe } from './display-text';

class Named {
  @IsDisplaySafe()
  name: unknown;
}

describe('names other people see', () => {
  it.each(['\u0000', '\u0009', '\n', '\u001b[31m', '\u007f', '\u0085', '\u061c', '\u200e', '\u200f', '\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069'])(
    'refuses U+%#: %j',
    (bad) => {
      expect(hasUnsafeDisplayCharacters(`a${bad}b`)).toBe(true);
    },
  );

  it.each(['Ada Lovelace', 'Größe – café', 'مشروع', '日本語', 'emoji 🚀', 'zero\u200dwidth joiner'])('keeps %j', (ok) => {
    expect(hasUnsafeDisplayCharacters(ok)).toBe(false);
  });

  it('the validator names the field and leaves other types to their own checks', async () => {
    const [error] = await validate(plainToInstance(Named, { name: 'key\u202e' }));
    expect(error?.constraints).toEqual({ isDisplaySafe: 'name must not contain control characters or bidirectional formatting characters' });
    expect(await validate(plainToInstance(Named, { name: 7 }))).toEqual([]);
  });
});
