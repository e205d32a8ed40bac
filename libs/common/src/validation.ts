import { Transform } from 'class-transformer';

/** Trims a string input before validation (other types pass through to fail their own checks). */
export const Trim = () => Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value));
