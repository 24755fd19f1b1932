/** Where this server is reached from outside (`PUBLIC_URL`, else this machine's port), without a trailing slash. */
export function publicBase(config: { PUBLIC_URL?: string; PORT: number }): string {
  return (config.PUBLIC_URL ?? `http://localhost:${config.PORT}`).replace(/\/+$/, '');
}

/**
 * A link into the team app: `/console#/<route>`. The route is a hash, so what it names (a request id, a
 * one-time token) never reaches a server's or a proxy's request log.
 */
export function teamAppLink(config: { PUBLIC_URL?: string; PORT: number }, route: string): string {
  return `${publicBase(config)}/console#/${route.replace(/^\/+/, '')}`;
}
