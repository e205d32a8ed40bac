import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiResponse } from '@nestjs/swagger';

/** The REST error body: NestJS's shape, plus a stable `code` for domain errors. */
export class ApiErrorDto {
  @ApiProperty({ example: 404 })
  statusCode: number;

  @ApiProperty({
    oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'string' } }],
    description: 'What went wrong; for validation failures, one line per bad field, naming it.',
    example: 'Project not found',
  })
  message: string | string[];

  @ApiProperty({ example: 'Not Found' })
  error: string;

  @ApiProperty({ required: false, description: 'A stable machine-readable code (domain errors only).', example: 'not_found' })
  code?: string;
}

const DESCRIPTIONS: Record<number, string> = {
  400: 'Invalid input; the message names the bad field.',
  401: 'No credential, or an unknown, expired or revoked one.',
  403: 'A valid credential that may not do this (an agent token, a missing permission or role, an API key on a session-only route).',
  404: 'Not found, or in another organisation.',
  409: 'Conflicts with the current state.',
  429: 'Too many attempts; the Retry-After header says after how many seconds to try again.',
};

/** Documents the error answers a route can give, all in the `ApiErrorDto` shape. */
export function ApiErrors(...statuses: (400 | 401 | 403 | 404 | 409 | 429)[]) {
  return applyDecorators(...statuses.map((status) => ApiResponse({ status, description: DESCRIPTIONS[status], type: ApiErrorDto })));
}
