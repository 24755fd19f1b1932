import { render, type RenderedMail } from './email.templates.js';
import { supportedLanguage } from '../shared/locale.js';

/**
 * The live-chat continuity mails, per language (en, de, fr, es; English otherwise): the team's away digest
 * (every conversation with new visitor messages while nobody was online, in one mail) and the visitor's batch
 * of replies. Bodies are quoted as text, never as HTML.
 */
interface ChatStrings {
  digestSubject: (workspace: string, conversations: number) => string;
  teamGreeting: string;
  digestIntro: (workspace: string) => string;
  newMessages: (count: number) => string;
  moreConversations: (count: number) => string;
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
  digestSubject: (w, n) => (n === 1 ? `New chat message while you were away (${w})` : `New chat messages in ${n} conversations while you were away (${w})`),
  teamGreeting: 'Hello,',
  digestIntro: (w) => `Visitors wrote in the chat of ${w} while nobody was online:`,
  newMessages: (n) => (n === 1 ? '1 new message' : `${n} new messages`),
  moreConversations: (n) => (n === 1 ? 'and 1 more conversation, in the console' : `and ${n} more conversations, in the console`),
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
  digestSubject: (w, n) => (n === 1 ? `Neue Chat-Nachricht während Ihrer Abwesenheit (${w})` : `Neue Chat-Nachrichten in ${n} Gesprächen während Ihrer Abwesenheit (${w})`),
  teamGreeting: 'Hallo,',
  digestIntro: (w) => `Besucher haben im Chat von ${w} geschrieben, als niemand online war:`,
  newMessages: (n) => (n === 1 ? '1 neue Nachricht' : `${n} neue Nachrichten`),
  moreConversations: (n) => (n === 1 ? 'und 1 weiteres Gespräch, in der Konsole' : `und ${n} weitere Gespräche, in der Konsole`),
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
  digestSubject: (w, n) =>
    n === 1 ? `Nouveau message de chat pendant votre absence (${w})` : `Nouveaux messages de chat dans ${n} conversations pendant votre absence (${w})`,
  teamGreeting: 'Bonjour,',
  digestIntro: (w) => `Des visiteurs ont écrit dans le chat de ${w} alors que personne n'était en ligne :`,
  newMessages: (n) => (n === 1 ? '1 nouveau message' : `${n} nouveaux messages`),
  moreConversations: (n) => (n === 1 ? 'et 1 autre conversation, dans la console' : `et ${n} autres conversations, dans la console`),
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
  digestSubject: (w, n) => (n === 1 ? `Nuevo mensaje de chat mientras no estabas (${w})` : `Nuevos mensajes de chat en ${n} conversaciones mientras no estabas (${w})`),
  teamGreeting: 'Hola:',
  digestIntro: (w) => `Hubo visitantes que escribieron en el chat de ${w} mientras nadie estaba conectado:`,
  newMessages: (n) => (n === 1 ? '1 mensaje nuevo' : `${n} mensajes nuevos`),
  moreConversations: (n) => (n === 1 ? 'y 1 conversación más, en la consola' : `y ${n} conversaciones más, en la consola`),
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

/** One conversation of the away digest. */
export interface DigestConversation {
  visitorName: string | null;
  visitorEmail: string | null;
  /** New visitor messages in it since the last digest (at least 1). */
  newMessages: number;
  /** The newest of them, whole: the template shows its first lines. */
  newest: string;
  /** The conversation in the team app. */
  link: string;
}

export interface ChatTeamDigestData {
  workspaceName: string;
  locale: string | null;
  conversations: DigestConversation[];
  /** Conversations with new messages left out of the list (it is capped); the console has them. */
  more: number;
  /** The console's chats, for the conversations left out. */
  consoleUrl: string;
}

/** Two lines of the newest message, at most 300 characters: enough to tell what it is about. */
const EXCERPT_LINES = 2;
const EXCERPT_CHARS = 300;

function excerpt(body: string): string {
  const lines = body
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter(Boolean);
  const shown = lines.slice(0, EXCERPT_LINES).join('\n').slice(0, EXCERPT_CHARS).trimEnd();
  return shown.length < lines.join('\n').length ? `${shown}…` : shown;
}

/** The team's away digest: every conversation with new visitor messages, one paragraph each, in one mail. */
export function chatTeamDigestMail(data: ChatTeamDigestData): RenderedMail {
  const t = chatStrings(data.locale);
  const total = data.conversations.length + data.more;
  const paragraphs = data.conversations.map((conversation) => {
    const who = conversation.visitorName
      ? `${conversation.visitorName}${conversation.visitorEmail ? ` <${conversation.visitorEmail}>` : ''}`
      : conversation.visitorEmail || t.visitorFallback;
    return [`${who} (${t.newMessages(conversation.newMessages)})`, excerpt(conversation.newest), `${t.openConsole}: ${conversation.link}`].join('\n');
  });
  return render(
    t.digestSubject(data.workspaceName, total),
    t.teamGreeting,
    [t.digestIntro(data.workspaceName), ...paragraphs, ...(data.more > 0 ? [`${t.moreConversations(data.more)}: ${data.consoleUrl}`] : [])],
    [],
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
