import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { type Middleware, runStack } from './mcp-route';

const req = {} as Request;
const res = {} as Response;

function run(stack: Middleware[]): Promise<{ error: unknown; seen: string[] }> {
  return new Promise((resolve) => {
    const seen: string[] = [];
    const named = stack.map((layer, i) =>
      layer.length === 4
        ? (err: unknown, q: Request, s: Response, n: NextFunction) => {
            seen.push(`error handler ${i}`);
            (layer as (e: unknown, q: Request, s: Response, n: NextFunction) => void)(err, q, s, n);
          }
        : (q: Request, s: Response, n: NextFunction) => {
            seen.push(`middleware ${i}`);
            (layer as (q: Request, s: Response, n: NextFunction) => void)(q, s, n);
          },
    );
    runStack(named, req, res, (error) => resolve({ error, seen }));
  });
}

const pass: RequestHandler = (_q, _s, next) => next();
const passError: Middleware = (err: unknown, _q: Request, _s: Response, next: NextFunction) => next(err);
const fail =
  (error: unknown): RequestHandler =>
  (_q, _s, next) =>
    next(error);

describe('runStack (the layers of the MCP route, as Express runs them)', () => {
  it('passes through every plain middleware in order and skips error handlers', async () => {
    expect(await run([pass, passError, pass])).toEqual({ error: undefined, seen: ['middleware 0', 'middleware 2'] });
  });

  it('sends next(error) to the next error handler, skipping plain middleware', async () => {
    const boom = new Error('boom');
    expect(await run([fail(boom), pass, passError, pass])).toEqual({ error: boom, seen: ['middleware 0', 'error handler 2'] });
  });

  it('goes back to plain middleware when an error handler calls next() without the error', async () => {
    const recover: Middleware = (_err: unknown, _q: Request, _s: Response, next: NextFunction) => next();
    expect(await run([fail(new Error('x')), recover, pass])).toEqual({ error: undefined, seen: ['middleware 0', 'error handler 1', 'middleware 2'] });
  });

  it('treats a throw as next(error) and a falsy value as no error', async () => {
    const thrown = new Error('thrown');
    const throwing: Middleware = () => {
      throw thrown;
    };
    expect(await run([throwing, pass, passError])).toEqual({ error: thrown, seen: ['middleware 0', 'error handler 2'] });
    expect(await run([fail(null), pass])).toEqual({ error: undefined, seen: ['middleware 0', 'middleware 1'] });
  });

  it('stops when a layer answers without calling next', async () => {
    const answered: string[] = [];
    const answer: Middleware = () => answered.push('answered');
    const done = jest.fn();
    runStack([answer, pass], req, res, done);
    expect(answered).toEqual(['answered']);
    expect(done).not.toHaveBeenCalled();
  });
});
