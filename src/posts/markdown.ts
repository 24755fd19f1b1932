import { Marked } from 'marked';
import sanitizeHtml from 'sanitize-html';

// One parser instance of our own: no global `marked.use()` from elsewhere can change how posts render.
const parser = new Marked({ gfm: true, breaks: false, async: false });

const SANITIZE: sanitizeHtml.IOptions = {
  allowedTags: [...sanitizeHtml.defaults.allowedTags, 'img', 'h1', 'h2', 'del', 'ins', 'sup', 'sub', 'figure', 'figcaption', 'picture', 'source'],
  allowedAttributes: {
    ...sanitizeHtml.defaults.allowedAttributes,
    a: ['href', 'name', 'target', 'title', 'rel'],
    img: ['src', 'srcset', 'alt', 'title', 'width', 'height', 'loading'],
    source: ['srcset', 'type', 'media'],
    code: ['class'],
    th: ['align', 'colspan', 'rowspan'],
    td: ['align', 'colspan', 'rowspan'],
    ol: ['start'],
    input: ['type', 'checked', 'disabled'],
  },
  allowedClasses: { code: [/^language-[\w-]+$/] },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  // `media:<id>`: a media item of the workspace, resolved to its URL when `/external` shows the body (`post-media.service.ts`).
  allowedSchemesByTag: { img: ['http', 'https', 'data', 'media'] },
  allowProtocolRelative: true,
};

/** Sanitizes HTML that reaches consumer pages: scripts, handlers and `javascript:` links never survive. */
export function sanitizeContentHtml(html: string): string {
  return sanitizeHtml(html, SANITIZE);
}

/** Renders markdown (GitHub flavour) to sanitized HTML; raw HTML inside the markdown is sanitized too. */
export function renderMarkdown(markdown: string): string {
  return sanitizeContentHtml(parser.parse(markdown) as string);
}
