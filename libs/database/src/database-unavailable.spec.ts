import { QueryFailedError } from 'typeorm';
import { DatabaseUnavailableError, isDatabaseUnavailable, translateDatabaseError } from './database-unavailable';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it.each([
    ['connection refused', withCode('ECONNREFUSED', 'connect ECONNREFUSED 127.0.0.1:5432')],
    ['connection reset', withCode('ECONNRESET')],
    ['administrator shutdown (57P01)', withCode('57P01', 'terminating connection due to administrator command')],
    ['crash shutdown (57P02)', withCode('57P02')],
    ['cannot connect now (57P03)', withCode('57P03', 'the database system is starting up')],
    ['a connection exception (08006)', withCode('08006')],
    ['the pool timing out', new Error('timeout exceeded when trying to connect')],
    ['the connection ending mid-query', new Error('Connection terminated unexpectedly')],
    ['both addresses of a host refused', Object.assign(new AggregateError([withCode('ECONNREFUSED')]), {})],
    ['the server cancelling a statement at its statement timeout (57014)', withCode('57014', 'canceling statement due to statement timeout')],
    ['no answer within the read pipeline\'s statement timeout', new Error('statement timeout: no answer from the database within 5000 ms')],
    ['wrapped by TypeORM', new QueryFailedError('SELECT 1', [], withCode('57P01'))],
  ])('is true for %s', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    expect(translateDatabaseError(error)).toBeInstanceOf(DatabaseUnavailableError);
  });

  it.each([
    ['a unique violation', new QueryFailedError('INSERT', [], withCode('23505'))],
    ['a syntax error', withCode('42601')],
    ['a plain error', new Error('boom')],
    ['not an error', 'ECONNREFUSED'],
  ])('is false for %s, which passes through unchanged', (_, error) => {
    expect(isDatabaseUnavailable(error)).toBe(false);
    expect(translateDatabaseError(error)).toBe(error);
  });

  it('answers 503-worthy: kind unavailable, a stable code and when to retry', () => {
    const error = new DatabaseUnavailableError();
    expect([error.kind, error.code, error.retryAfterSeconds]).toEqual(['unavailable', 'database_unavailable', 5]);
  });
});
