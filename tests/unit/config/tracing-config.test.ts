import { expect } from 'chai';
import { ConfigError, loadConfig } from '../../../src/platform/config';

describe('configuration: tracing', () => {
  it('is off (null) without OTEL_EXPORTER_OTLP_ENDPOINT, whatever else is set', () => {
    expect(loadConfig({ OTEL_SERVICE_NAME: 'x', OTEL_TRACES_SAMPLER_ARG: '0.5' }).tracing).to.equal(null);
  });

  it('with the endpoint: its headers, service name, sample ratio and export delay', () => {
    const config = loadConfig({
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318',
      OTEL_EXPORTER_OTLP_HEADERS: 'x-api-key=abc%3D%3D, x-team = ops',
      OTEL_SERVICE_NAME: 'platform-eu',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
      OTEL_BSP_SCHEDULE_DELAY: '1000',
    });
    expect(config.tracing).to.deep.equal({
      endpoint: 'http://collector:4318',
      headers: { 'x-api-key': 'abc==', 'x-team': 'ops' },
      serviceName: 'platform-eu',
      sampleRatio: 0.25,
      exportDelayMs: 1000,
    });
  });

  it('defaults: every trace recorded, spans sent within 5 s, service compliance-platform', () => {
    expect(loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318' }).tracing).to.include({
      serviceName: 'compliance-platform',
      sampleRatio: 1,
      exportDelayMs: 5000,
    });
  });

  it('refuses an endpoint that is not an http(s) URL, a ratio outside 0..1 and headers that are not key=value pairs', () => {
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'collector' })).to.throw(ConfigError, /OTLP/);
    expect(() => loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://collector:4317' })).to.throw(ConfigError, /http/);
    expect(() =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_TRACES_SAMPLER_ARG: '2' }),
    ).to.throw(ConfigError, /OTEL_TRACES_SAMPLER_ARG/);
    expect(() =>
      loadConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://collector:4318', OTEL_EXPORTER_OTLP_HEADERS: 'novalue' }),
    ).to.throw(ConfigError, /key=value/);
  });
});
