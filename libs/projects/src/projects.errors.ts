import { NotFoundError } from '@app/common';

/** The project does not exist, is deleted, or belongs to another organisation: all the same to the caller. */
export class ProjectNotFoundError extends NotFoundError {
  constructor() {
    super('Project');
  }
}
