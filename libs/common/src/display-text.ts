import { ValidateBy, ValidationArguments, ValidationOptions } from 'class-validator';

/**
 * Characters refused in names other people see (organisation, project, person, key and token
 * names, task titles): C0 controls and DEL, C1 controls, and the invisible bidirectional
 * formatting characters — embeddings and overrides U+202A–U+202E, isolates U+2066–U+2069 and the
 * marks U+200E, U+200F, U+061C. Shown in another person's page or audit log, they hide or
 * reorder text (a key called "‮yek-nimda" reads as "admin-key"), or break lines and columns.
 */
const UNSAFE_DISPLAY_RE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;

/** True when `text` holds a character that is refused in names (`UNSAFE_DISPLAY_RE`). */
export function hasUnsafeDisplayCharacters(text: string): boolean {
  return UNSAFE_DISPLAY_RE.test(text);
}

/** What is wrong with such a name, naming the field (the same words for REST, pages and tools). */
export function unsafeDisplayMessage(field: string): string {
  return `${field} must not contain control characters or bidirectional formatting characters`;
}

/**
 * class-validator: a string property may not hold control or bidirectional formatting characters
 * (`hasUnsafeDisplayCharacters`). Other types pass, to fail their own type check.
 */
export function IsDisplaySafe(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isDisplaySafe',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !hasUnsafeDisplayCharacters(value),
        defaultMessage: (args?: ValidationArguments) => unsafeDisplayMessage(args?.property ?? 'the value'),
      },
    },
    options,
  );
}
