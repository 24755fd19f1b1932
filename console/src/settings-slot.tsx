import type { ComponentType } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import type { Section } from './router.js';
import { t } from './strings.js';
import { myRole, runsTeam } from './team.js';

/** Settings are the owners' (and operators'): the others neither see the section nor load it (the server refuses anyway). */
export const settingsShown = (section: Section) => section !== 'settings' || runsTeam.value;

/** The settings are their own chunk, loaded the first time the section opens. */
type SettingsModule = { SettingsView: ComponentType };
let settingsModule: Promise<SettingsModule> | null = null;
const loadSettings = () => (settingsModule ??= import('./settings-view.js'));

export function SettingsSlot() {
  const [loaded, setLoaded] = useState<SettingsModule | null>(null);
  useEffect(() => {
    if (runsTeam.value) void loadSettings().then(setLoaded);
  }, [runsTeam.value]);
  // The role is known once the workspace list is in: until then, no verdict.
  if (myRole.value === null) return <p class="box muted" aria-busy="true">{t.loadingSettings}</p>;
  if (!runsTeam.value) return <p class="box">{t.settingsOnlyOwners}</p>;
  if (!loaded) return <p class="box muted" aria-busy="true">{t.loadingSettings}</p>;
  const { SettingsView } = loaded;
  return <SettingsView />;
}
