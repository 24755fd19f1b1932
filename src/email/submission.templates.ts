import { render, type RenderedMail } from './email.templates.js';
import { supportedLanguage } from '../shared/locale.js';

/**
 * The contact-form mails, per language (en, de; English otherwise): the team's "new submission" and a member's
 * answer to its sender. What the visitor typed is quoted as text, never as HTML.
 */
interface SubmissionStrings {
  teamSubject: (workspace: string, subject: string | null) => string;
  teamGreeting: string;
  teamIntro: (name: string) => string;
  openInApp: string;
  email: string;
  phone: string;
  source: string;
  replySubject: (workspace: string, subject: string | null) => string;
  replyGreeting: (name: string) => string;
  yourMessage: string;
}

const en: SubmissionStrings = {
  teamSubject: (w, s) => `New contact form submission (${w})${s ? `: ${s}` : ''}`,
  teamGreeting: 'Hello,',
  teamIntro: (n) => `${n} sent the contact form:`,
  openInApp: 'Answer in the team app',
  email: 'E-mail',
  phone: 'Phone',
  source: 'Sent from',
  replySubject: (w, s) => (s ? `Re: ${s}` : `Your message to ${w}`),
  replyGreeting: (n) => `Hello ${n},`,
  yourMessage: 'Your message:',
};

const de: SubmissionStrings = {
  teamSubject: (w, s) => `Neue Kontaktanfrage (${w})${s ? `: ${s}` : ''}`,
  teamGreeting: 'Hallo,',
  teamIntro: (n) => `${n} hat das Kontaktformular gesendet:`,
  openInApp: 'In der Team-App antworten',
  email: 'E-Mail',
  phone: 'Telefon',
  source: 'Gesendet von',
  replySubject: (w, s) => (s ? `Re: ${s}` : `Ihre Nachricht an ${w}`),
  replyGreeting: (n) => `Hallo ${n},`,
  yourMessage: 'Ihre Nachricht:',
};

const STRINGS: Record<string, SubmissionStrings> = { en, de };
const stringsOf = (locale: string | null | undefined) => STRINGS[supportedLanguage(STRINGS, locale) ?? 'en'];

export interface SubmissionMailData {
  workspaceName: string;
  locale: string | null;
  name: string;
  email: string;
  phone: string | null;
  subject: string | null;
  source: string | null;
  message: string;
}

export function submissionTeamMail(data: SubmissionMailData & { appUrl: string }): RenderedMail {
  const t = stringsOf(data.locale);
  return render(
    t.teamSubject(data.workspaceName, data.subject),
    t.teamGreeting,
    [t.teamIntro(data.name), data.message],
    [
      { label: t.email, value: data.email },
      { label: t.phone, value: data.phone ?? '' },
      { label: t.source, value: data.source ?? '' },
      { label: t.openInApp, value: data.appUrl },
    ],
    [],
  );
}

export function submissionReplyMail(data: SubmissionMailData & { reply: string }): RenderedMail {
  const t = stringsOf(data.locale);
  return render(t.replySubject(data.workspaceName, data.subject), t.replyGreeting(data.name), [data.reply], [], [`${t.yourMessage}\n${data.message}`]);
}
