import { render, type RenderedMail } from './email.templates.js';
import { supportedLanguage } from '../shared/locale.js';

/**
 * The account mails, per language (en, de; English otherwise): an invitation into a workspace's team and a
 * password reset. Each carries a one-time link into the team app; names typed by people are quoted as text,
 * never as HTML.
 */
interface AccountStrings {
  inviteSubject: (workspace: string) => string;
  inviteGreeting: string;
  inviteIntro: (inviter: string, workspace: string, role: string) => string;
  inviteHowTo: (hours: number) => string;
  role: Record<string, string>;
  acceptLink: string;
  notYou: string;
  resetSubject: string;
  resetGreeting: (name: string) => string;
  resetIntro: string;
  resetHowTo: (minutes: number) => string;
  resetLink: string;
  resetNotYou: string;
}

const en: AccountStrings = {
  inviteSubject: (w) => `You are invited to join ${w}`,
  inviteGreeting: 'Hello,',
  inviteIntro: (i, w, r) => `${i} invites you to the team of ${w} as ${r}.`,
  inviteHowTo: (h) => `Open the link below to accept. It works once and for ${h} hours.`,
  role: { agent: 'agent', editor: 'editor', owner: 'owner' },
  acceptLink: 'Accept the invitation',
  notYou: 'If you did not expect this invitation, ignore this mail: nothing happens without the link.',
  resetSubject: 'Reset your password',
  resetGreeting: (n) => `Hello ${n},`,
  resetIntro: 'Someone (hopefully you) asked to reset the password of your team account.',
  resetHowTo: (m) => `Open the link below to choose a new one. It works once and for ${m} minutes; every session of the account ends.`,
  resetLink: 'Choose a new password',
  resetNotYou: 'If you did not ask for this, ignore this mail: your password stays as it is.',
};

const de: AccountStrings = {
  inviteSubject: (w) => `Einladung ins Team von ${w}`,
  inviteGreeting: 'Hallo,',
  inviteIntro: (i, w, r) => `${i} lädt Sie ins Team von ${w} ein, als ${r}.`,
  inviteHowTo: (h) => `Öffnen Sie den Link unten, um anzunehmen. Er gilt einmal und ${h} Stunden lang.`,
  role: { agent: 'Agent', editor: 'Redakteur', owner: 'Inhaber' },
  acceptLink: 'Einladung annehmen',
  notYou: 'Wenn Sie diese Einladung nicht erwartet haben, ignorieren Sie diese Mail: ohne den Link geschieht nichts.',
  resetSubject: 'Passwort zurücksetzen',
  resetGreeting: (n) => `Hallo ${n},`,
  resetIntro: 'Jemand (hoffentlich Sie) möchte das Passwort Ihres Team-Kontos zurücksetzen.',
  resetHowTo: (m) => `Öffnen Sie den Link unten, um ein neues zu wählen. Er gilt einmal und ${m} Minuten lang; alle Sitzungen des Kontos enden.`,
  resetLink: 'Neues Passwort wählen',
  resetNotYou: 'Wenn Sie das nicht angefordert haben, ignorieren Sie diese Mail: Ihr Passwort bleibt, wie es ist.',
};

const STRINGS: Record<string, AccountStrings> = { en, de };
const stringsOf = (locale: string | null | undefined) => STRINGS[supportedLanguage(STRINGS, locale) ?? 'en'];

export interface InvitationMailData {
  workspaceName: string;
  inviterName: string;
  role: string;
  /** The accept page of the team app, with the one-time token. */
  link: string;
  validHours: number;
  locale: string | null;
}

export function invitationMail(data: InvitationMailData): RenderedMail {
  const t = stringsOf(data.locale);
  return render(
    t.inviteSubject(data.workspaceName),
    t.inviteGreeting,
    [t.inviteIntro(data.inviterName, data.workspaceName, t.role[data.role] ?? data.role), t.inviteHowTo(data.validHours)],
    [{ label: t.acceptLink, value: data.link }],
    [t.notYou],
  );
}

export interface PasswordResetMailData {
  name: string;
  /** The reset page of the team app, with the one-time token. */
  link: string;
  validMinutes: number;
  locale?: string | null;
}

export function passwordResetMail(data: PasswordResetMailData): RenderedMail {
  const t = stringsOf(data.locale);
  return render(t.resetSubject, t.resetGreeting(data.name), [t.resetIntro, t.resetHowTo(data.validMinutes)], [{ label: t.resetLink, value: data.link }], [t.resetNotYou]);
}
