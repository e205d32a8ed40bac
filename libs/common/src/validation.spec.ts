import { plainToInstance } from 'class-transformer';
import { ArrayNotEmpty, IsArray, IsNotEmpty, IsString, MaxLength, validateSync, ValidateBy } from 'class-validator';
import { validationMessages } from './validation';

class Sample {
  @IsString()
  @IsNotEmpty()
  @MaxLength(5)
  name: string;

  @IsArray()
  @ArrayNotEmpty()
  tags: string[];

  @ValidateBy({ name: 'echoes', validator: { validate: () => false, defaultMessage: (a) => `code ${String(a?.value)} is wrong` } })
  code: string;
}

function messages(body: object): string[] {
  return validationMessages(validateSync(plainToInstance(Sample, body), { whitelist: true, forbidNonWhitelisted: true }));
}

describe('validation messages', () => {
  it('gives one message per field: presence for a missing value, type for a present one', () => {
    expect(messages({ code: 'x' })).toEqual(['name should not be empty', 'tags should not be empty', 'code x is wrong']);
    expect(messages({ name: 7, tags: 'a', code: 'x' })).toEqual(['name must be a string', 'tags must be an array', 'code x is wrong']);
  });

  it('never repeats a submitted string of six characters or more, nor an unknown key that is not a field name', () => {
    expect(messages({ name: 'ok', tags: ['a'], code: 'hunter2hunter2' })).toEqual(['code is invalid']);
    expect(messages({ name: 'ok', tags: ['a'], code: 'x', '{"password":"p"}': '' }).sort()).toEqual([
      'code x is wrong',
      'the body has a property that is not a field of this request',
    ]);
    expect(messages({ name: 'ok', tags: ['a'], code: 'x', role: 'admin' }).sort()).toEqual(['code x is wrong', 'property role should not exist']);
  });
});
