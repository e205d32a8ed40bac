import { redactedQuery, startTracing, tracingEndpoint, tracingProblem } from './tracing';

describe('tracing switch', () => {
  it('is off unless an OTLP endpoint is set, and off again with OTEL_SDK_DISABLED=true', () => {
    expect(tracingEndpoint({})).toBeUndefined();
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: '  ' })).toBeUndefined();
    expect(startTracing({})).toBeUndefined();
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' })).toBe('http://collector:4318');
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'http://collector:4318/v1/traces' })).toBe('http://collector:4318/v1/traces');
    expect(tracingEndpoint({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_SDK_DISABLED: 'true' })).toBeUndefined();
  });

  it('names a malformed endpoint without echoing it', () => {
    expect(tracingProblem({})).toBeUndefined();
    expect(tracingProblem({ OTEL_EXPORTER_OTLP_ENDPOINT: 'https://collector.example:4318' })).toBeUndefined();
    expect(tracingProblem({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318 secret' })).toBe(
      'OTEL_EXPORTER_OTLP_ENDPOINT: must be an http or https URL (the OTLP/HTTP collector)',
    );
    expect(tracingProblem({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: 'grpc://collector:4317' })).toBe(
      'OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: must be an http or https URL (the OTLP/HTTP collector)',
    );
  });

  it('keeps the names of query parameters, never their values', () => {
    expect(redactedQuery('token=abc123&next=%2Fhome&flag')).toBe('token=REDACTED&next=REDACTED&flag=REDACTED');
    expect(redactedQuery('dga_s3cr3t%20x=1&&')).toBe('REDACTED=REDACTED');
  });
});
