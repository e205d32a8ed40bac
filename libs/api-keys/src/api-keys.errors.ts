import { NotFoundError } from '@app/common';

export class ApiKeyNotFoundError extends NotFoundError {
  constructor() {
    super('API key');
  }
}
