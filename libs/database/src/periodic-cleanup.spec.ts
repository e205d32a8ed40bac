import { Logger } from '@nestjs/common';
import { PeriodicTask } from './periodic-cleanup';

describe('PeriodicTask', () => {
  const logger = { warn: jest.fn() } as unknown as Logger;
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('runs every interval on a timer that does not keep the process alive, until stopped', async () => {
    const task = jest.fn().mockResolvedValue(undefined);
    const spy = jest.spyOn(global, 'setInterval');
    const periodic = new PeriodicTask(60, task, logger);
    periodic.start();
    const timer = spy.mock.results[0].value as NodeJS.Timeout;
    expect(timer.hasRef()).toBe(false);
    await jest.advanceTimersByTimeAsync(59_000);
    expect(task).toHaveBeenCalledTimes(0);
    await jest.advanceTimersByTimeAsync(121_000);
    expect(task).toHaveBeenCalledTimes(3);
    await periodic.stop();
    await jest.advanceTimersByTimeAsync(600_000);
    expect(task).toHaveBeenCalledTimes(3);
    spy.mockRestore();
  });

  it('never overlaps runs, and stop() waits for the run in progress', async () => {
    let finish!: () => void;
    const task = jest.fn(() => new Promise<void>((resolve) => (finish = resolve)));
    const periodic = new PeriodicTask(1, task, logger);
    periodic.start();
    await jest.advanceTimersByTimeAsync(5_000);
    expect(task).toHaveBeenCalledTimes(1);
    let stopped = false;
    const stopping = periodic.stop().then(() => (stopped = true));
    await Promise.resolve();
    expect(stopped).toBe(false);
    finish();
    await stopping;
    expect(stopped).toBe(true);
  });

  it('logs a failed run and keeps going', async () => {
    const task = jest.fn().mockRejectedValueOnce(new Error('database away')).mockResolvedValue(undefined);
    const periodic = new PeriodicTask(1, task, logger);
    periodic.start();
    await jest.advanceTimersByTimeAsync(2_000);
    expect(logger.warn).toHaveBeenCalledWith('cleanup failed: database away');
    expect(task).toHaveBeenCalledTimes(2);
    await periodic.stop();
  });

  it('with an interval of 0 never runs', async () => {
    const task = jest.fn().mockResolvedValue(undefined);
    const periodic = new PeriodicTask(0, task, logger);
    periodic.start();
    await jest.advanceTimersByTimeAsync(3_600_000);
    expect(task).not.toHaveBeenCalled();
    await periodic.stop();
  });
});
