import { useRef, useState } from 'preact/hooks';
import type { ChatAttachment, ChatMessage } from '../../src/realtime/events.js';
import { uploadFile } from './api.js';
import { t } from './strings.js';
import { error, report, selectedId, showSent, token, ws } from './store.js';

/** What the server accepts in a chat (it reads the bytes and decides; this only narrows the picker). */
const ACCEPT = 'image/jpeg,image/png,image/webp,image/avif,image/gif,application/pdf';

const kilobytes = (size: number) => `${Math.max(1, Math.round(size / 1024))} KB`;

/**
 * A message's files: images inline (their name as the alternative text, a link to the full size), other files
 * (PDFs) as links. The URLs are the server's signed ones, so no credential rides along.
 */
export function Attachments({ message }: { message: ChatMessage }) {
  if (!message.attachments) return null;
  return (
    <>
      {message.attachments.map((file: ChatAttachment) =>
        file.contentType.startsWith('image/') ? (
          <a key={file.id} class="file image" href={file.url} target="_blank" rel="noopener noreferrer">
            <img src={file.url} alt={file.name} width={file.width} height={file.height} loading="lazy" />
          </a>
        ) : (
          <a key={file.id} class="file" href={file.url} target="_blank" rel="noopener noreferrer" download={file.name}>
            {t.fileLink(file.name, kilobytes(file.size))}
          </a>
        ),
      )}
    </>
  );
}

/** The reply's attach button: a real button (keyboard and screen readers) that opens the file picker. */
export function AttachButton() {
  const input = useRef<HTMLInputElement>(null);
  const [busy, setBusy] = useState(false);
  const send = async (file: File) => {
    const id = selectedId.value;
    if (!id) return;
    error.value = '';
    setBusy(true);
    try {
      showSent(id, await uploadFile<ChatMessage>(token.value, `${ws()}/conversations/${id}/attachments`, file));
    } catch (err) {
      report(err);
    } finally {
      setBusy(false);
    }
  };
  return (
    <>
      <input
        ref={input}
        id="attach-file"
        type="file"
        accept={ACCEPT}
        hidden
        onChange={(e) => {
          const file = e.currentTarget.files?.[0];
          e.currentTarget.value = '';
          if (file) void send(file);
        }}
      />
      <button type="button" id="attach" aria-busy={busy} disabled={busy} onClick={() => input.current?.click()}>
        {busy ? t.attaching : t.attach}
      </button>
    </>
  );
}
