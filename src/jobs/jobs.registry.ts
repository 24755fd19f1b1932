import type { Deps } from '../shared/deps.js';

/** Defines every job handler and subscribes the job-producing domain events. */
export function registerJobs(_deps: Deps): void {}
