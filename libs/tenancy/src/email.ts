/** Emails are stored trimmed and lower-cased; uniqueness is case-insensitive (index on lower(email)). */
export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}
