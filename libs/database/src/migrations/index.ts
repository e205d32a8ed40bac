import { CoreSchema1764000000000 } from './1764000000000-core-schema';

/** Every migration, in order. A new migration is added here as well as in this folder. */
export const MIGRATIONS = [CoreSchema1764000000000];
