import { describe, expect, test } from '@jest/globals';
import type { Connection } from 'mongoose';
import { documentLocks } from '../../src/db/document-locks.js';

/**
 * The in-process side of the document locks (no Redis given): re-entrant within the work that holds a
 * lock, a queue for everyone else, whether other transitions are under way or none is any more.
 */

const lockSet = () => documentLocks({} as Connection);
const tick = () => new Promise((resolve) => setTimeout(resolve, 5));

describe('document locks', () => {
  test('a transition may take its own lock again, also after every earlier transition ended', async () => {
    const locks = lockSet();
    for (let round = 0; round < 3; round += 1) {
      const steps: string[] = [];
      await locks.transition('posts:a', async () => {
        steps.push('outer');
        await tick();
        await locks.transition('posts:a', async () => {
          await tick();
          steps.push('inner');
        });
      });
      expect(steps).toEqual(['outer', 'inner']);
    }
  });

  test('while another transition ends, one still under way keeps its lock re-entrant', async () => {
    const locks = lockSet();
    let finishFirst!: () => void;
    const first = locks.transition('posts:first', () => new Promise<void>((resolve) => (finishFirst = resolve)));
    let secondReady!: () => void;
    const secondStarted = new Promise<void>((resolve) => (secondReady = resolve));
    let goOn!: () => void;
    const goOnSignal = new Promise<void>((resolve) => (goOn = resolve));
    const second = locks.transition('posts:second', async () => {
      secondReady();
      await goOnSignal;
      // Taken again inside its own work: answered at once, not queued behind itself.
      return locks.transition('posts:second', async () => 'inner ran');
    });
    await secondStarted;
    finishFirst();
    await first;
    goOn();
    await expect(Promise.race([second, tick().then(() => tick()).then(() => 'stuck')])).resolves.toBe('inner ran');
  });

  test('work a transition left running after it ended waits for the lock like anyone else', async () => {
    const locks = lockSet();
    const order: string[] = [];
    let leftOver!: Promise<void>;
    await locks.transition('posts:a', async () => {
      leftOver = tick().then(() => locks.transition('posts:a', async () => void order.push('left over')));
    });
    let release!: () => void;
    const holder = locks.transition('posts:a', async () => {
      order.push('next holder');
      await new Promise<void>((resolve) => (release = resolve));
      order.push('next holder done');
    });
    await tick();
    await tick();
    release();
    await Promise.all([holder, leftOver]);
    expect(order).toEqual(['next holder', 'next holder done', 'left over']);
  });
});
