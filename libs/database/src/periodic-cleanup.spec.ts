import { Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import type { AppConfig } from '@app/config';
import { CleanupScheduler } from './periodic-cleanup';

describe('CleanupScheduler', () => {
  const logger = { warn: jest.fn() } as unknown as Logger;
  const config = (seconds: number) => ({ cleanupIntervalSeconds: seconds }) as AppConfig;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval as a named interval of the registry, on a timer that does not keep the process alive, until shut down', async () => {
    const registry = new SchedulerRegistry();
    const scheduler = new CleanupScheduler(config(60), registry);
    const task = jest.fn().mockResolvedValue(undefined);
    scheduler.every('cleanup', task, logger);
    const timer = registry.getInterval<NodeJS.Timeout>('cleanup');
    expect(timer.hasRef()).toBe(false);
    await jest.advanceTimersByTimeAsync(59_000);
    expect(task).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(121_000);
    expect(task).toHaveBeenCalledTimes(3);
    await scheduler.onModuleDestroy();
    expect(registry.getIntervals()).toEqual([]);
    await jest.advanceTimersByTimeAsync(600_000);
    expect(task).toHaveBeenCalledTimes(3);
  });

  it('never overlaps runs, and shutdown waits for the run in progress', async () => {
    let finish!: () => void;
    const task = jest.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const scheduler = new CleanupScheduler(config(1), new SchedulerRegistry());
    scheduler.every('cleanup', task, logger);
    await jest.advanceTimersByTimeAsync(5_000);
    expect(task).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = scheduler.onModuleDestroy().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('logs a failed run and tries again at the next interval', async () => {
    const task = jest.fn().mockRejectedValueOnce(new Error('database unavailable')).mockResolvedValue(undefined);
    const scheduler = new CleanupScheduler(config(1), new SchedulerRegistry());
    scheduler.every('cleanup', task, logger);
    await jest.advanceTimersByTimeAsync(2_000);
    expect(logger.warn).toHaveBeenCalledWith('cleanup failed: database unavailable');
    expect(task).toHaveBeenCalledTimes(2);
    await scheduler.onModuleDestroy();
  });

  it('never runs with an interval of 0, nor without the schedule module (the command line)', async () => {
    const task = jest.fn().mockResolvedValue(undefined);
    const registry = new SchedulerRegistry();
    new CleanupScheduler(config(0), registry).every('cleanup', task, logger);
    new CleanupScheduler(config(1), undefined).every('other', task, logger);
    await jest.advanceTimersByTimeAsync(10_000);
    expect(task).not.toHaveBeenCalled();
    expect(registry.getIntervals()).toEqual([]);
  });
});
