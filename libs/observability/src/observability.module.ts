import { Global, Injectable, Logger, Module, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import type { Server } from 'node:http';
import { AppConfig } from '@app/config';
import { startMetricsListener } from './metrics-endpoint';
import { Metrics } from './metrics';

/** The separate metrics listener on 127.0.0.1:METRICS_PORT, when configured. */
@Injectable()
export class MetricsListener implements OnApplicationBootstrap, OnApplicationShutdown {
  private server: Server | undefined;

  constructor(
    private readonly config: AppConfig,
    private readonly metrics: Metrics,
  ) {}

  async onApplicationBootstrap(): Promise<void> {
    if (this.config.metricsPort === undefined) return;
    this.server = await startMetricsListener(this.metrics, this.config.metricsPort);
    new Logger('Metrics').log(`metrics on http://127.0.0.1:${this.config.metricsPort}/metrics`);
  }

  async onApplicationShutdown(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    if (server) await new Promise((resolve) => server.close(resolve));
  }
}

/** Metrics and the request log; global, so any library records through `Metrics`. */
@Global()
@Module({ providers: [Metrics, MetricsListener], exports: [Metrics] })
export class ObservabilityModule {}
