import { render, type RenderedMail } from './email.templates.js';
import { supportedLanguage } from '../shared/locale.js';

/**
 * The live-chat continuity mails, per language (en, de, fr, es; English otherwise): the team's "new message
 * while you were away" and the visitor's batch of replies. Bodies are quoted as text, never as HTML.
 */
interface ChatStrings {
  teamSubject: (workspace: string) => string;
  teamGreeting: string;
  teamIntro: (visitor: string) => string;
  openConsole: string;
  visitorFallback: string;
  replySubject: (workspace: string) => string;
  replyGreeting: (name: string | null) => string;
  replyIntro: (workspace: string) => string;
  backToPage: string;
  agent: string;
  noReply: string;
}

const en: ChatStrings = {
  teamSubject: (w) => `New chat message while you were away (${w})`,
  teamGreeting: 'Hello,',
  teamIntro: (v) => `${v} wrote in the chat while nobody was online:`,
  openConsole: 'Answer in the console',
  visitorFallback: 'A visitor',
  replySubject: (w) => `New reply from ${w}`,
  replyGreeting: (n) => (n ? `Hello ${n},` : 'Hello,'),
  replyIntro: (w) => `${w} answered your chat message:`,
  backToPage: 'Continue the conversation',
  agent: 'Team',
  noReply: 'Replies to this e-mail are not read; answer in the chat.',
};

const de: ChatStrings = {
  teamSubject: (w) => `Neue Chat-Nachricht während Ihrer Abwesenheit (${w})`,
  teamGreeting: 'Hallo,',
  teamIntro: (v) => `${v} hat im Chat geschrieben, als niemand online war:`,
  openConsole: 'In der Konsole antworten',
  visitorFallback: 'Ein Besucher',
  replySubject: (w) => `Neue Antwort von ${w}`,
  replyGreeting: (n) => (n ? `Hallo ${n},` : 'Hallo,'),
  replyIntro: (w) => `${w} hat auf Ihre Chat-Nachricht geantwortet:`,
  backToPage: 'Gespräch fortsetzen',
  agent: 'Team',
  noReply: 'Antworten auf diese E-Mail werden nicht gelesen; bitte antworten Sie im Chat.',
};

const fr: ChatStrings = {
  teamSubject: (w) => `Nouveau message de chat pendant votre absence (${w})`,
  teamGreeting: 'Bonjour,',
  teamIntro: (v) => `${v} a écrit dans le chat alors que personne n'était en ligne :`,
  openConsole: 'Répondre dans la console',
  visitorFallback: 'Un visiteur',
  replySubject: (w) => `Nouvelle réponse de ${w}`,
  replyGreeting: (n) => (n ? `Bonjour ${n},` : 'Bonjour,'),
  replyIntro: (w) => `${w} a répondu à votre message :`,
  backToPage: 'Reprendre la conversation',
  agent: 'Équipe',
  noReply: 'Les réponses à cet e-mail ne sont pas lues ; répondez dans le chat.',
};

const es: ChatStrings = {
  teamSubject: (w) => `Nuevo mensaje de chat mientras no estabas (${w})`,
  teamGreeting: 'Hola:',
  teamIntro: (v) => `${v} escribió en el chat mientras nadie estaba conectado:`,
  openConsole: 'Responder en la consola',
  visitorFallback: 'Un visitante',
  replySubject: (w) => `Nueva respuesta de ${w}`,
  replyGreeting: (n) => (n ? `Hola, ${n}:` : 'Hola:'),
  replyIntro: (w) => `${w} respondió a tu mensaje del chat:`,
  backToPage: 'Continuar la conversación',
  agent: 'Equipo',
  noReply: 'Las respuestas a este correo no se leen; responde en el chat.',
};

const STRINGS: Record<string, ChatStrings> = { en, de, fr, es };

function chatStrings(locale: string | null | undefined): ChatStrings {
  return STRINGS[supportedLanguage(STRINGS, locale) ?? 'en'];
}

export interface ChatTeamMailData {
  workspaceName: string;
  locale: string | null;
  visitorName: string | null;
  visitorEmail: string | null;
  body: string;
  pageUrl: string | null;
  consoleUrl: string;
}

export function chatTeamMail(data: ChatTeamMailData): RenderedMail {
  const t = chatStrings(data.locale);
  const who = data.visitorName || data.visitorEmail || t.visitorFallback;
  return render(
    t.teamSubject(data.workspaceName),
    t.teamGreeting,
    [t.teamIntro(who), data.body],
    [
      { label: 'E-mail', value: data.visitorEmail ?? '' },
      { label: 'URL', value: data.pageUrl ?? '' },
      { label: t.openConsole, value: data.consoleUrl },
    ],
    [],
  );
}

export interface ChatReplyMailData {
  workspaceName: string;
  locale: string | null;
  visitorName: string | null;
  replies: { body: string; agentName: string | null }[];
  pageUrl: string | null;
}

export function chatReplyMail(data: ChatReplyMailData): RenderedMail {
  const t = chatStrings(data.locale);
  return render(
    t.replySubject(data.workspaceName),
    t.replyGreeting(data.visitorName),
    [t.replyIntro(data.workspaceName), ...data.replies.map((reply) => `${reply.agentName || t.agent}: ${reply.body}`)],
    data.pageUrl ? [{ label: t.backToPage, value: data.pageUrl }] : [],
    [t.noReply],
  );
}
