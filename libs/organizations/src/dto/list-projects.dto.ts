import { KeysetPageQuery } from '@app/common';

export class ListProjectsQueryDto extends KeysetPageQuery('Projects') {}
