import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ValidateBy, ValidationOptions } from 'class-validator';

/** The bundled list (`breached-passwords.txt`, beside this file in the source and in `dist/`). */
const LIST_FILE = join(__dirname, 'breached-passwords.txt');

let list: ReadonlySet<string> | undefined;

/** The list, read once on first use: lower-case entries of 12 characters or more. */
function breachedPasswords(): ReadonlySet<string> {
  list ??= new Set(
    readFileSync(LIST_FILE, 'utf8')
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
  return list;
}

/**
 * Whether `password` is one of the commonly breached passwords the service refuses (compared
 * case-insensitively: `Password1234` is as guessable as `password1234`). Offline: nothing about
 * the password leaves the process.
 */
export function isCommonlyBreachedPassword(password: string): boolean {
  return breachedPasswords().has(password.toLowerCase());
}

export const BREACHED_PASSWORD_MESSAGE =
  'password is one of the most commonly breached passwords and would be guessed quickly; choose another (a few unrelated words work well)';

/** Refuses a password on the bundled list of commonly breached ones (a string of any other value passes). */
export function IsNotCommonlyBreached(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isNotCommonlyBreached',
      validator: {
        validate: (value: unknown) => typeof value !== 'string' || !isCommonlyBreachedPassword(value),
        defaultMessage: () => BREACHED_PASSWORD_MESSAGE,
      },
    },
    options,
  );
}
