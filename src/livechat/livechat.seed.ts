import type { WorkspaceSeeder } from '../workspaces/workspaces.service.js';
import { putSettings } from './settings.service.js';

/** Demo live chat: activated with English and German texts, which mints the publishable key. */
export const seedDemoLiveChat: WorkspaceSeeder = async (deps, workspace) => {
  await putSettings(deps, workspace.id, {
    enabled: true,
    greeting: 'Hi! Questions about our bread or an order? We are happy to help.',
    greetings: { de: 'Hallo! Fragen zu unserem Brot oder einer Bestellung? Wir helfen gern.' },
    offlineMessage: 'We are away right now; leave a message and we will answer soon.',
    offlineMessages: { de: 'Gerade ist niemand da; hinterlassen Sie eine Nachricht, wir antworten bald.' },
    theme: { '--hearth-accent': '#b5651d', '--hearth-radius': '12px' },
  });
};
