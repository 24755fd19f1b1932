import type { Workspace } from '../workspaces/workspaces.service.js';
import type { User } from '../auth/auth.service.js';
import type { CredentialKind } from '../credentials/credentials.service.js';
import type { Role } from '../shared/roles.js';

/** What a resolved workspace credential puts into a handler's context. */
export interface KeyPrincipal {
  workspace: Workspace;
  credentialKind: CredentialKind;
}

// The handler context of each auth mode. `src/http/route.ts` declares `Principals` empty so the HTTP
// machinery imports no domain; this fills it in for the whole program.
declare module '../http/route.js' {
  interface Principals {
    workspaceKey: KeyPrincipal;
    publishableKey: KeyPrincipal;
    workspaceOrPublishableKey: KeyPrincipal;
    publishableKeyOptional: { workspace: Workspace | null; credentialKind: CredentialKind | null };
    session: { user: User };
    member: { user: User; workspace: Workspace; role: Role | 'operator' };
  }
}
