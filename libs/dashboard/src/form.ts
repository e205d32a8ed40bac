import { ClassConstructor, plainToInstance } from 'class-transformer';
import { validate } from 'class-validator';
import { isUnstorableText, validationMessages } from '@app/common';

export interface FormResult<T> {
  value: T;
  /** Per field, what is wrong with it, phrased for a person (never repeating what was typed). */
  errors: Partial<Record<keyof T & string, string>>;
  valid: boolean;
}

/**
 * Reads a posted form into the same DTO the REST route validates, so a page and its REST
 * equivalent accept and refuse the same input. Only the DTO's own fields are read (the CSRF
 * field and anything else are ignored); a field sent twice counts as invalid.
 */
export async function readForm<T extends object>(
  dto: ClassConstructor<T>,
  body: Record<string, unknown> | undefined,
  labels: Partial<Record<keyof T & string, string>>,
  fields: readonly (keyof T & string)[],
): Promise<FormResult<T>> {
  const errors: Partial<Record<keyof T & string, string>> = {};
  const plain: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = body?.[field];
    if (raw !== undefined) plain[field] = raw;
    const texts = Array.isArray(raw) ? raw : [raw];
    if (texts.some((t) => typeof t === 'string' && isUnstorableText(t))) {
      errors[field] = `${labelOf(labels, field)} contains a character that cannot be stored`;
    }
  }
  const value = plainToInstance(dto, plain);
  for (const error of await validate(value, { whitelist: true })) {
    const field = error.property as keyof T & string;
    if (errors[field]) continue;
    errors[field] = phrase(labelOf(labels, field), error.constraints ?? {}, error.value, validationMessages([error])[0]);
  }
  return { value, errors, valid: Object.keys(errors).length === 0 };
}

function labelOf<T>(labels: Partial<Record<keyof T & string, string>>, field: keyof T & string): string {
  return labels[field] ?? field;
}

function phrase(label: string, constraints: Record<string, string>, value: unknown, fallback: string | undefined): string {
  const empty = value === undefined || value === null || value === '';
  if (empty && ('isNotEmpty' in constraints || 'isDefined' in constraints || 'isString' in constraints)) {
    return `Enter ${label.charAt(0).toLowerCase()}${label.slice(1)}`;
  }
  if ('isString' in constraints || 'isArray' in constraints) return `${label} was sent more than once or in the wrong form`;
  const max = constraints.maxLength ? /(\d+)/.exec(constraints.maxLength)?.[1] : undefined;
  if (max) return `${label} must be at most ${max} characters`;
  return `${label}: ${fallback ?? 'is not valid'}`;
}
