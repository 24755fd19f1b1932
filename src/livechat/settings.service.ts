import type { Deps } from '../deps.js';
import { chatSettingsTag } from '../cache/caches.js';
import { type Workspace } from '../workspaces/workspaces.service.js';
import { ensureKey, revealKey, rotateKey } from '../credentials/credentials.service.js';
import { hasExplicitIdentitySecret, setExplicitIdentitySecret } from '../identity/identity.service.js';
import { liveChatSettingsStore, type LiveChatSettings } from './settings.model.js';
import type { PutSettingsBody } from './livechat.schemas.js';
import { agentsOnline } from './presence.js';
import { themeContrastWarnings } from './theme.js';
import { resolveWidgetStrings, widgetStringWarnings } from './widget-strings.js';
import { localeLookupOrder } from '../shared/locale.js';

export type { LiveChatSettings } from './settings.model.js';

/** Path of the widget bundle (served by the widget module). */
export const WIDGET_SCRIPT_PATH = '/widget/widget.js';

// ---------------------------------------------------------------------------------------------
// Plugin settings
// ---------------------------------------------------------------------------------------------

export async function settingsView(deps: Deps, workspaceId: string, settings: LiveChatSettings | null) {
  const identitySecretConfigured = await hasExplicitIdentitySecret(deps, workspaceId);
  return {
    settings: {
      enabled: settings?.enabled ?? false,
      greeting: settings?.greeting ?? '',
      greetings: settings?.greetings ?? {},
      offlineMessage: settings?.offlineMessage ?? null,
      offlineMessages: settings?.offlineMessages ?? {},
      theme: settings?.theme ?? null,
      forceOnline: settings?.forceOnline ?? null,
      widgetStrings: settings?.widgetStrings ?? {},
      identitySecretConfigured,
      activatedAt: settings?.activatedAt?.toISOString() ?? null,
      updatedAt: (settings?.updatedAt ?? deps.clock.now()).toISOString(),
    },
    publishableKey: await revealKey(deps, workspaceId, 'publishable'),
  };
}

export async function getSettings(deps: Deps, workspaceId: string) {
  return settingsView(deps, workspaceId, await liveChatSettingsStore(deps.db).get(workspaceId));
}

/** Replaces the settings; the first save with `enabled: true` mints the publishable key, later saves keep it. */
export async function putSettings(deps: Deps, workspaceId: string, body: PutSettingsBody) {
  const settings = await liveChatSettingsStore(deps.db).put(
    workspaceId,
    {
      enabled: body.enabled,
      greeting: body.greeting,
      greetings: body.greetings ?? {},
      offlineMessage: body.offlineMessage ?? null,
      offlineMessages: body.offlineMessages ?? {},
      theme: body.theme ?? null,
      forceOnline: body.forceOnline ?? null,
      widgetStrings: body.widgetStrings ?? {},
    },
    deps.clock.now(),
  );
  await deps.cache.invalidateChatSettings(workspaceId);
  if (body.identitySecret !== undefined) await setExplicitIdentitySecret(deps, workspaceId, body.identitySecret);
  if (body.enabled) await ensureKey(deps, workspaceId, 'publishable');
  // Saved all the same: the owner decides; the widget still derives readable text on the primary colour.
  const warnings = [...themeContrastWarnings(settings.theme), ...widgetStringWarnings(settings.widgetStrings)];
  return { ...(await settingsView(deps, workspaceId, settings)), warnings };
}

export async function rotatePublishableKey(deps: Deps, workspaceId: string): Promise<string> {
  return rotateKey(deps, workspaceId, 'publishable');
}

// ---------------------------------------------------------------------------------------------
// Widget config and bootstrap
// ---------------------------------------------------------------------------------------------

/** Exact tag (case-insensitive), then its primary subtag, then the default text. Never fails. */
export function localized<T extends string | null>(map: Record<string, string>, fallback: T, locale: string | undefined | null): string | T {
  const entries = new Map(Object.entries(map).map(([tag, value]) => [tag.toLowerCase(), value]));
  for (const tag of localeLookupOrder(locale)) {
    const text = entries.get(tag);
    if (text !== undefined) return text;
  }
  return fallback;
}

/**
 * The settings while the plugin is activated and enabled; otherwise null. Remembered per node until they
 * change: the widget reads its config on every page view of the site.
 */
export async function activeSettings(deps: Deps, workspaceId: string): Promise<LiveChatSettings | null> {
  const settings = await deps.cache.memo.remember(`chat-settings:${workspaceId}`, () => [chatSettingsTag(workspaceId)], () => liveChatSettingsStore(deps.db).get(workspaceId));
  return settings?.enabled ? settings : null;
}

/** `include` names opt-in extras (`strings`); without them the answer is exactly the spec's widget config. */
export async function widgetConfig(deps: Deps, workspace: Workspace | null, locale: string | undefined, include: readonly string[] = []) {
  const settings = workspace ? await activeSettings(deps, workspace.id) : null;
  if (!workspace || !settings) return { enabled: false as const };
  const online = settings.forceOnline ?? (await agentsOnline(deps, workspace.id));
  return {
    enabled: true as const,
    greeting: localized(settings.greetings, settings.greeting, locale),
    offlineMessage: localized(settings.offlineMessages, settings.offlineMessage, locale),
    theme: settings.theme,
    online,
    ...(include.includes('strings') ? { strings: resolveWidgetStrings(settings.widgetStrings, locale) } : {}),
  };
}

export async function bootstrap(deps: Deps, workspace: Workspace, locale: string | undefined) {
  const settings = await activeSettings(deps, workspace.id);
  const publishableKey = settings ? await revealKey(deps, workspace.id, 'publishable') : null;
  if (!settings || !publishableKey) return { enabled: false as const };
  return {
    enabled: true as const,
    publishableKey,
    greeting: localized(settings.greetings, settings.greeting, locale),
    offlineMessage: localized(settings.offlineMessages, settings.offlineMessage, locale),
    theme: settings.theme,
    scriptPath: WIDGET_SCRIPT_PATH,
  };
}
