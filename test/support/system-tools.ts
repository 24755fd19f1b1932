import { spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The machine tools the suite drives besides Node packages: a Chromium for the browser tests,
 * `redis-server` for the private Redis instances and HAProxy for the load-balanced nodes. `npm test` must pass on a fresh machine, so a tool
 * that is missing is installed from Debian's packages when this process may (root with apt-get);
 * otherwise the run stops at once with one line naming what to install. Browser tests never skip.
 */
const CHROMIUM_CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome', '/usr/bin/google-chrome-stable', '/snap/bin/chromium'];

function executable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function onPath(name: string): string | undefined {
  return (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, name)).find(executable);
}

function findChromium(): string | undefined {
  const explicit = process.env.CHROMIUM_PATH;
  if (explicit) {
    if (!executable(explicit)) throw new Error(`CHROMIUM_PATH=${explicit} is not an executable file.`);
    return explicit;
  }
  return CHROMIUM_CANDIDATES.find(executable);
}

function canInstallWithApt(): boolean {
  return process.getuid?.() === 0 && onPath('apt-get') !== undefined;
}

function aptInstall(packages: string[], log: (line: string) => void): void {
  log(`Installing ${packages.join(', ')} from Debian's packages (first run on this machine)...`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // Two test runs starting at once on a fresh machine would run apt-get side by side and break each
  // other's unpacking: one at a time (the second finds the packages installed and does nothing).
  const apt = (args: string[]) =>
    onPath('flock') ? spawnSync('flock', ['/tmp/hearth-apt.lock', 'apt-get', ...args], { stdio: 'inherit', env }) : spawnSync('apt-get', args, { stdio: 'inherit', env });
  const update = apt(['update', '-qq']);
  const install = update.status === 0 ? apt(['install', '-y', '-qq', '--no-install-recommends', ...packages]) : update;
  if (install.status !== 0) throw new Error(`apt-get could not install ${packages.join(', ')}; install them by hand and run the tests again.`);
}

/** Finds (or installs) Chromium, redis-server and HAProxy; returns the Chromium path for the browser tests. */
export function ensureSystemTools(log: (line: string) => void = console.log): { chromium: string } {
  const missing: string[] = [];
  if (!findChromium()) missing.push('chromium');
  if (!process.env.REDIS_URL && !onPath('redis-server')) missing.push('redis-server');
  if (!onPath('haproxy')) missing.push('haproxy');
  installMissing(missing, log);
  const chromium = findChromium();
  if (!chromium) throw new Error('Chromium is still missing after installing it; set CHROMIUM_PATH to a Chromium or Chrome binary.');
  return { chromium };
}

/** HAProxy alone (installed when missing), for the benches that run nodes behind it. */
export function ensureHaproxy(log: (line: string) => void = console.log): void {
  installMissing(onPath('haproxy') ? [] : ['haproxy'], log);
}

function installMissing(missing: string[], log: (line: string) => void): void {
  if (missing.length === 0) return;
  if (!canInstallWithApt()) {
    throw new Error(
      `This needs ${missing.join(' and ')}: install ${missing.map((name) => `\`${name}\``).join(' and ')} (Debian: apt-get install -y ${missing.join(' ')}), or set CHROMIUM_PATH / REDIS_URL.`,
    );
  }
  aptInstall(missing, log);
}
