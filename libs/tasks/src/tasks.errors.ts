import { DomainError, NotFoundError } from '@app/common';

/** A task that does not exist, has a malformed id, or belongs to another project: one answer for all. */
export class TaskNotFoundError extends NotFoundError {
  constructor() {
    super('Task');
  }
}

export class InvalidCursorError extends DomainError {
  constructor() {
    super('invalid_cursor', 'The cursor is not one this service returned; start again without a cursor', 'invalid_input');
  }
}
