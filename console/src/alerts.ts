import { signal } from '@preact/signals';

const SOUND_KEY = 'hearth.console.sound';

export const soundOn = signal(localStorage.getItem(SOUND_KEY) === 'on');
export const notifyPermission = signal<NotificationPermission | 'unsupported'>(
  typeof Notification === 'undefined' ? 'unsupported' : Notification.permission,
);

export function setSound(on: boolean): void {
  soundOn.value = on;
  localStorage.setItem(SOUND_KEY, on ? 'on' : 'off');
}

/** Asked on a click only: browsers ignore (and penalise) permission prompts nobody asked for. */
export async function askNotifications(): Promise<void> {
  if (typeof Notification === 'undefined') return;
  notifyPermission.value = await Notification.requestPermission();
}

let audio: AudioContext | null = null;

function beep(): void {
  try {
    audio ??= new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = 880;
    gain.gain.value = 0.05;
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + 0.15);
  } catch {
    // No audio output: the notification and the title badge still tell.
  }
}

/** Desktop notification (with permission) and optional sound, only while the console tab is hidden. */
export function alert(title: string, body: string, tag: string | null): void {
  if (!document.hidden) return;
  if (typeof Notification !== 'undefined' && Notification.permission === 'granted') {
    const note = new Notification(title, { body: body.slice(0, 200), tag: tag ?? undefined });
    note.onclick = () => {
      window.focus();
      note.close();
    };
  }
  if (soundOn.value) beep();
}
