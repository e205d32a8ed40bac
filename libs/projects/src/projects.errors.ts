import { NotFoundError } from '@app/common';

export class ProjectNotFoundError extends NotFoundError {
  constructor() {
    super('Project');
  }
}
