import type { RunningService } from './services.js';

export default async function globalTeardown(): Promise<void> {
  const services = (globalThis as { __hearthServices?: RunningService[] }).__hearthServices ?? [];
  await Promise.all(services.map((service) => service.stop()));
}
