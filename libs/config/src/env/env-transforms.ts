/** The environment arrives as strings: these turn them into numbers and booleans before validation. */
export const toInt = ({ value }: { value: unknown }) =>
  value === undefined || value === '' ? undefined : /^-?\d+$/.test(String(value)) ? Number(value) : value;

export const toBool = ({ value }: { value: unknown }) => {
  if (value === undefined || value === '') return undefined;
  const v = String(value).toLowerCase();
  if (v === 'true' || v === '1') return true;
  if (v === 'false' || v === '0') return false;
  return value;
};

export const toStr = ({ value }: { value: unknown }) => (value === '' ? undefined : value);

/** A class the schema's concerns extend, one after the other (`EnvironmentVariables`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type EnvBase = new (...args: any[]) => object;
