import { BadRequestException } from '@nestjs/common';
import { Transform } from 'class-transformer';
import { registerDecorator, type ValidationError, type ValidationOptions } from 'class-validator';

/** Trims a string input before validation (other types pass through to fail their own checks). */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));

/** Type checks: for a value that is present, what it must be comes first. */
const TYPE_CONSTRAINTS = ['isArray', 'isString', 'isInt', 'isNumber', 'isBoolean', 'isObject', 'isEnum', 'isIn'];
/** For a missing value, "should not be empty" says it best. */
const PRESENCE_CONSTRAINTS = ['isDefined', 'isNotEmpty', 'arrayNotEmpty'];
/** Then the format checks, before lengths and the rest. */
const FORMAT_CONSTRAINTS = ['isEmail', 'isIso8601', 'isISO8601', 'isUuid'];
/** A key that reads as a field name can be named; anything else is not repeated. */
const FIELD_NAME_RE = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;
/** A submitted string at least this long never appears in its field's message (a custom message could echo one). */
const MIN_ECHO_LENGTH = 6;

/**
 * The messages of a failed validation: one per field, naming the field and never repeating a
 * submitted value (a password sent to the wrong route, a secret pasted in the wrong field would
 * otherwise come back in the answer, where proxies and logs keep it).
 */
export function validationMessages(errors: readonly ValidationError[], parent = ''): string[] {
  const out: string[] = [];
  for (const error of errors) {
    const path = parent ? `${parent}.${error.property}` : error.property;
    if (error.children?.length) out.push(...validationMessages(error.children, path));
    const constraints = error.constraints ?? {};
    const keys = Object.keys(constraints);
    if (!keys.length) continue;
    if (keys.includes('whitelistValidation')) {
      out.push(FIELD_NAME_RE.test(path) ? `property ${path} should not exist` : 'the body has a property that is not a field of this request');
      continue;
    }
    const missing = error.value === undefined || error.value === null;
    const order = missing
      ? [...PRESENCE_CONSTRAINTS, ...FORMAT_CONSTRAINTS, ...TYPE_CONSTRAINTS]
      : [...TYPE_CONSTRAINTS, ...PRESENCE_CONSTRAINTS, ...FORMAT_CONSTRAINTS];
    const key = order.find((k) => k in constraints) ?? keys[0]!;
    out.push(withoutEcho(constraints[key]!, error.value, path));
  }
  return out;
}

/**
 * The last net for a scalar string. (List fields are checked by validators that name entries by
 * position; their messages list the allowed entries, which a valid entry would match.)
 */
function withoutEcho(message: string, value: unknown, field: string): string {
  return typeof value === 'string' && value.length >= MIN_ECHO_LENGTH && message.includes(value) ? `${field} is invalid` : message;
}

/** `ValidationPipe`'s `exceptionFactory`: a 400 in NestJS's shape with `validationMessages`. */
export function validationException(errors: ValidationError[]): BadRequestException {
  return new BadRequestException(validationMessages(errors));
}

/** An ISO 8601 time that lies in the future. */
export function IsFutureInstant(options?: ValidationOptions) {
  return (object: object, propertyName: string) =>
    registerDecorator({
      name: 'isFutureInstant',
      target: object.constructor,
      propertyName,
      options: { message: `${propertyName} must be in the future`, ...options },
      validator: {
        validate: (value: unknown) => typeof value === 'string' && Date.parse(value) > Date.now(),
      },
    });
}
