import type { RequestLogLine } from '@app/observability';
import { LogSink } from './log-sink';
import { createLogger, createRequestLog } from './logger';

const line: RequestLogLine = {
  msg: 'request',
  requestId: 'trace-1',
  method: 'POST',
  route: '/api/mcp',
  status: 200,
  durationMs: 1.3,
  credentialKind: 'agent',
  credentialId: '0b6c4a53-1b8f-4c39-9a43-3d1f0b9b1f77',
  projectId: null,
};

function capture() {
  const out: string[] = [];
  const sink = new LogSink({ stdout: { write: (t: string) => out.push(t) }, stderr: { write: (t: string) => out.push(`ERR ${t}`) } });
  return { out, sink };
}

describe('logger', () => {
  it('writes a request line exactly as the JSON console logger writes the same message', () => {
    const direct = capture();
    createRequestLog('info', direct.sink)!(line);
    direct.sink.flush();

    const viaNest = capture();
    const nest = createLogger('info', viaNest.sink);
    if (!nest) throw new Error('logger expected');
    nest.log(line, 'Request');
    viaNest.sink.flush();

    const strip = (s: string) => s.replace(/"timestamp":\d+/, '"timestamp":0');
    expect(direct.out).toHaveLength(1);
    expect(strip(direct.out[0]!)).toBe(strip(viaNest.out[0]!));
    expect(JSON.parse(direct.out[0]!)).toEqual({ level: 'log', pid: process.pid, timestamp: expect.any(Number), message: line, context: 'Request' });
  });

  it('writes no request line when the level leaves info out', () => {
    expect(createRequestLog('warn')).toBeUndefined();
    expect(createRequestLog('silent')).toBeUndefined();
    expect(createRequestLog('debug')).toBeDefined();
  });

  it('sends errors to standard error through the sink', () => {
    const { out, sink } = capture();
    const nest = createLogger('warn', sink);
    if (!nest) throw new Error('logger expected');
    nest.log('hidden', 'Ctx');
    nest.error('broken', 'Ctx');
    sink.flush();
    expect(out).toHaveLength(1);
    expect(out[0]).toMatch(/^ERR \{"level":"error","pid":\d+,"timestamp":\d+,"message":"broken","context":"Ctx"\}\n$/);
  });

  it("writes Nest's route-mapping lines at debug, not info", () => {
    const mapping = (level: 'info' | 'debug') => {
      const { out, sink } = capture();
      const nest = createLogger(level, sink);
      if (!nest) throw new Error('logger expected');
      nest.log('HealthController {/health}:', 'RoutesResolver');
      nest.log('Mapped {/health/live, GET} route', 'RouterExplorer');
      nest.log('Nest application successfully started', 'NestApplication');
      sink.flush();
      return out.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l) as { level: string; context: string });
    };
    expect(mapping('info').map((l) => [l.level, l.context])).toEqual([['log', 'NestApplication']]);
    expect(mapping('debug').map((l) => [l.level, l.context])).toEqual([
      ['debug', 'RoutesResolver'],
      ['debug', 'RouterExplorer'],
      ['log', 'NestApplication'],
    ]);
  });
});
